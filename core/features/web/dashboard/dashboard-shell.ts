// The /app page: a shell with no data in it. The script fills <main>; without
// JavaScript the page says what it needs. No inline script or style (the CSP
// allows neither), so the two assets are linked by their hashed names.
export interface ShellAssets { script: string, style: string }

export function renderDashboardShell (assets: ShellAssets): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>Dashboard · extraction jobs</title>
<link rel="stylesheet" href="${assets.style}">
<script type="module" src="${assets.script}"></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<a class="brand" href="/">extraction jobs</a>
<nav id="nav" aria-label="Dashboard" hidden></nav>
<button id="logout" type="button" class="link" hidden>Log out</button>
</header>
<main id="main" tabindex="-1">
<noscript><p>The dashboard needs JavaScript. The same actions are available over the API: see <a href="/docs">/docs</a>.</p></noscript>
<p id="loading">Loading…</p>
</main>
<div id="toast" role="status" aria-live="polite"></div>
</body>
</html>
`
}
