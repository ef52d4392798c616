// /docs: what it adds to Swagger UI (core/features/web/pages/docs-routes.ts).
// Its stylesheet:
// method badges dark enough for their white text (Swagger UI's own are 2.1 to
// 3.1 : 1, under WCAG AA's 4.5 : 1), and the focus outline it leaves off.
// Served as a file (the CSP refuses inline styles): Swagger UI's theme file.
const BADGES: Record<string, string> = {
  get: '#1d5b9e', post: '#13704a', put: '#8a5300', delete: '#b3261e', patch: '#0b6b5a', head: '#6a3d9a', options: '#3d4b5c',
}

export const DOCS_STYLESHEET = [
  ...Object.entries(BADGES).map(([method, colour]) =>
    `.swagger-ui .opblock.opblock-${method} .opblock-summary-method{background:${colour};color:#fff}` +
    `.swagger-ui .opblock.opblock-${method} .opblock-summary{border-color:${colour}}` +
    `.swagger-ui .opblock.opblock-${method}{border-color:${colour}}`),
  '.swagger-ui .opblock-summary-method{text-shadow:none}',
  '.swagger-ui .opblock-tag,.swagger-ui .opblock .opblock-summary-path,.swagger-ui .opblock .opblock-summary-description{color:#1b1b1b}',
  '.swagger-ui .info .title small pre,.swagger-ui .info .title small.version-stamp{background:#3d4b5c}',
  '.swagger-ui :focus-visible{outline:2px solid #1d5b9e;outline-offset:2px}',
  // Swagger UI's link blue (#4990e2, 3.2 : 1) and Authorize green (#49cc90, 2.0 : 1), darkened.
  '.swagger-ui a,.swagger-ui .info a,.swagger-ui .info .url,.swagger-ui .info .link{color:#1d5b9e}',
  '.swagger-ui .btn.authorize{color:#13704a;border-color:#13704a}.swagger-ui .btn.authorize svg{fill:#13704a}',
  // Try-it's buttons: Execute on #4990e2 (3.3 : 1), Cancel in #ff6060 (2.9 : 1), Download on #7d8293 (3.8 : 1).
  '.swagger-ui .btn.execute{background:#1d5b9e;border-color:#1d5b9e;color:#fff}',
  '.swagger-ui .btn.cancel{color:#b3261e;border-color:#b3261e}',
  '.swagger-ui .download-contents{background:#4a4f5c;color:#fff}',
].join('\n') + '\n'

/**
 * Names and focus Swagger UI leaves off, added as it draws (axe-core:
 * button-name, select-name, scrollable-region-focusable): Swagger UI's theme
 * script, a file of this server for the CSP.
 */
export const DOCS_SCRIPT = `(function () {
  function label (root) {
    root.querySelectorAll('.copy-to-clipboard button:not([aria-label])').forEach(function (b) { b.setAttribute('aria-label', 'Copy to clipboard') })
    root.querySelectorAll('select.examples-select-element:not([aria-label])').forEach(function (s) { s.setAttribute('aria-label', 'Example') })
    root.querySelectorAll('select:not([aria-label]):not([id])').forEach(function (s) { s.setAttribute('aria-label', 'Choice') })
    root.querySelectorAll('pre.microlight:not([tabindex])').forEach(function (p) { p.setAttribute('tabindex', '0') })
  }
  new MutationObserver(function () { label(document) }).observe(document.documentElement, { childList: true, subtree: true })
})()
`
