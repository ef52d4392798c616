// dependency-cruiser's rules for the import graph (`npm run lint:deps`): a
// broken rule fails with its name. core/README.md says what the kernel,
// the features and the composition root are.
const { join } = require('node:path')

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'kernel-imports-no-feature',
      comment: 'The kernel (core/ outside core/features/ and the composition root core/app.ts) never imports a feature: a feature is registered by core/app.ts through core/feature.ts and uses the kernel, never the other way (core/README.md).',
      severity: 'error',
      from: { path: '^core/', pathNot: ['^core/features/', '^core/app\\.ts$'] },
      to: { path: '^core/features/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are imports too: a kernel type that names a feature's type is a dependency on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: join(__dirname, 'tsconfig.json') },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
  },
}
