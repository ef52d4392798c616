// The dashboard: signed out, the sign-up and login forms; signed in, the
// views below, one per hash (#account, #playground, #results/<job>, #jobs,
// #monitors, #monitors/<id>, #tokens), and the enabled tools' views (#search, #media: their declarations'
// `dashboardViews`). Nothing is stored but the key, in sessionStorage.
//
// The bundle's entry is generated (dashboard-bundle.ts): it imports this file
// and the tools' view modules and calls startDashboard with them.
import './dashboard.css'
import { ApiError, call, session, type Me, type ToolInfo, type ToolList } from './api.ts'
import { errorBox, h } from './dom.ts'
import type { Dashboard, View } from './context.ts'
import { renderAuth } from './views/auth.ts'
import { accountView } from './views/account.ts'
import { playgroundView } from './views/playground.ts'
import { resultsView } from './views/results.ts'
import { jobsView } from './views/jobs.ts'
import { monitorsView } from './views/monitors.ts'
import { tokensView } from './views/tokens.ts'

/** A tool's view, as the generated entry hands it over. */
export interface ToolView { name: string, title: string, view: View }

let VIEWS: Record<string, { title: string, view: View, inNav: boolean }> = {}

const main = document.getElementById('main')!
const nav = document.getElementById('nav')!
const logout = document.getElementById('logout') as HTMLButtonElement

function parseHash (): { name: string, path: string[], query: URLSearchParams } {
  const [pathPart = '', queryPart = ''] = location.hash.replace(/^#\/?/, '').split('?')
  const path = pathPart.split('/').filter(Boolean).map(decodeURIComponent)
  const name = path[0] && path[0] in VIEWS ? path[0] : 'account'
  return { name, path, query: new URLSearchParams(queryPart) }
}

function signedOut (): void {
  session.clear()
  // No signed-in menu left behind: its links are gone, not only hidden.
  nav.replaceChildren()
  nav.hidden = true
  logout.hidden = true
  document.title = 'Log in · extraction jobs'
  renderAuth(main, (_key, fresh) => { void signedIn(fresh) })
  main.querySelector('h1')?.focus()
}

async function signedIn (fresh: boolean): Promise<void> {
  let me: Me
  try {
    me = await call<Me>('GET', '/api/auth/me')
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return signedOut()
    main.replaceChildren(errorBox((err as Error).message))
    return
  }
  let tools: Promise<ToolInfo[]> | undefined
  let secret: { label: string, value: string } | null = fresh && me.user?.api_key ? { label: 'Your personal key', value: me.user.api_key } : null
  let leaving: Array<() => void> = []
  const dashboard: Dashboard = {
    me,
    refreshMe: async () => (dashboard.me = await call<Me>('GET', '/api/auth/me')),
    tools: () => (tools ??= call<ToolList>('GET', '/api/tools').then(list => list.tools)),
    takeFreshSecret: () => { const s = secret; secret = null; return s },
    giveFreshSecret: (label, value) => { secret = { label, value } },
    go: (hash) => { location.hash = hash },
    onLeave: (stop) => { leaving.push(stop) },
    signOut: () => { leaving.forEach(stop => stop()); leaving = []; location.hash = ''; signedOut() },
  }
  nav.replaceChildren(...Object.entries(VIEWS).filter(([, v]) => v.inNav).map(([name, v]) => h('a', { href: `#${name}`, 'data-view': name }, v.title)))
  nav.hidden = false
  logout.hidden = false
  logout.onclick = () => dashboard.signOut()

  const show = async () => {
    if (!session.key()) return
    leaving.forEach(stop => stop())
    leaving = []
    const { name, path, query } = parseHash()
    for (const link of nav.querySelectorAll('a')) {
      if (link.dataset.view === name) link.setAttribute('aria-current', 'page')
      else link.removeAttribute('aria-current')
    }
    document.title = `${VIEWS[name]!.title} · extraction jobs`
    main.replaceChildren(h('p', {}, 'Loading…'))
    try {
      await VIEWS[name]!.view(dashboard, main, { path, query })
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return dashboard.signOut()
      main.replaceChildren(h('h1', { tabindex: -1 }, VIEWS[name]!.title), errorBox((err as Error).message))
    }
    main.querySelector('h1')?.focus()
  }
  window.onhashchange = () => { void show() }
  await show()
}

export function startDashboard (toolViews: ToolView[]): void {
  VIEWS = {
    account: { title: 'Account', view: accountView, inNav: true },
    playground: { title: 'Playground', view: playgroundView, inNav: true },
    jobs: { title: 'Jobs', view: jobsView, inNav: true },
    monitors: { title: 'Monitors', view: monitorsView, inNav: true },
    tokens: { title: 'Tokens', view: tokensView, inNav: true },
    ...Object.fromEntries(toolViews.map(v => [v.name, { title: v.title, view: v.view, inNav: true }])),
    results: { title: 'Results', view: resultsView, inNav: false },
  }
  if (session.key()) void signedIn(false)
  else signedOut()
}
