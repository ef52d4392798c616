// Synthetic Facebook pages for the fb tests, in the shapes the real site
// serves (no current www capture is in ../shared/fixtures/captures; the 2021
// m. capture and the 2019 Graph answer are read from there at test time):
// the current logged-out www layout (Relay payloads in
// <script type="application/json">, as the open-source page scrapers read
// them), the login wall, the checkpoint and the cookie-consent interstitial.

/** The Relay envelope Facebook wraps prefetched query results in. */
const relay = (result: unknown) => ({
  require: [['ScheduledServerJS', 'handle', null, [{ __bbox: { require: [['RelayPrefetchedStreamCache', 'next', [], ['adp_Query', { __bbox: { complete: true, result } }]]] } }]]],
})

const card = (type: string, title: Record<string, unknown>) => ({ node: { timeline_context_item: { timeline_context_list_item_type: type, renderer: { context_item: { title } } } } })

export interface ModernPage { name: string, vanity: string, id: string, followers: string, likes: string }

/** A current www.facebook.com page as a logged-out visitor gets it. */
export function modernPageHtml (p: ModernPage): string {
  const header = relay({
    data: {
      user: {
        profile_header_renderer: {
          user: {
            __typename: 'User', id: '100064' + p.id.slice(-9), name: p.name, url: `https://www.facebook.com/${p.vanity}`,
            show_verified_badge_on_profile: true,
            delegate_page: { id: p.id, is_business_page_active: true, category_name: 'Coffee shop' },
            profilePicLarge: { uri: `https://scontent.example/${p.vanity}-large.jpg` },
            cover_photo: { photo: { image: { uri: `https://scontent.example/${p.vanity}-cover.jpg` } } },
            profile_social_context: { content: [
              { uri: `https://www.facebook.com/${p.vanity}/friends_likes/`, text: { text: `${p.likes} likes` } },
              { uri: `https://www.facebook.com/${p.vanity}/followers/`, text: { text: `${p.followers} followers` } },
            ] },
          },
        },
      },
    },
  })
  const tiles = relay({
    data: {
      profile_tile_sections: { edges: [{ node: { profile_tile_views: { nodes: [{ view_style_renderer: { view: { profile_tile_items: { nodes: [
        card('INTRO_CARD_INFLUENCER_CATEGORY', { text: 'Page · Coffee shop · Bakery' }),
        card('INTRO_CARD_ADDRESS', { text: '12 Roast Street, Portland, OR, 97201' }),
        card('INTRO_CARD_PROFILE_PHONE', { text: '+1 503-555-0142' }),
        card('INTRO_CARD_PROFILE_EMAIL', { text: `hello@${p.vanity.toLowerCase()}.example` }),
        card('INTRO_CARD_WEBSITE', { text: `${p.vanity.toLowerCase()}.example`, ranges: [{ entity: { external_url: `https://${p.vanity.toLowerCase()}.example/` } }] }),
      ] } } } }] } } }] },
      best_description: { text: `${p.name} roasts coffee in Portland.` },
    },
  })
  const json = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c')
  return `<!DOCTYPE html><html lang="en"><head><title>${p.name} | Facebook</title>
<meta property="og:title" content="${p.name}" />
<meta property="og:description" content="${p.name}. ${p.likes} likes · 310 talking about this. ${p.name} roasts coffee in Portland." />
<meta property="og:url" content="https://www.facebook.com/${p.vanity}/" />
<meta property="og:image" content="https://scontent.example/${p.vanity}-small.jpg" />
<meta property="al:android:url" content="fb://page/${p.id}" />
</head><body><div id="mount_0_0"></div>
<script type="application/json" data-content-len="100" data-sjs>${json({ require: [['CometPlatformRootClient', 'init', [], []]] })}</script>
<script type="application/json" data-content-len="200" data-sjs>${json(header)}</script>
<script type="application/json" data-content-len="300" data-sjs>${json(tiles)}</script>
<div data-cookiebanner="banner"></div>
</body></html>`
}

/** What a logged-out visitor is sent to at /login/?next=…: the login form, no page. */
export const LOGIN_PAGE = `<!DOCTYPE html><html><head><title>Log into Facebook</title>
<meta property="og:url" content="https://www.facebook.com/login/" /><meta property="og:title" content="Log into Facebook" /></head>
<body><form id="login_form" action="/login/device-based/regular/login/?login_attempt=1" method="post"><input name="email" /><input name="pass" type="password" /></form></body></html>`

/** The EU cookie interstitial shown before any page. */
export const CONSENT_PAGE = `<!DOCTYPE html><html><head><title>Facebook</title></head>
<body><div role="dialog"><h2>Allow the use of cookies from Facebook in this browser?</h2>
<button data-cookiebanner="accept_only_essential_button">Only allow essential cookies</button>
<button data-cookiebanner="accept_button">Allow all cookies</button></div></body></html>`

/** A security checkpoint answered in place of the page. */
export const CHECKPOINT_PAGE = `<!DOCTYPE html><html><head><title>Security Check</title></head>
<body><form method="post" action="/checkpoint/?next=https%3A%2F%2Fwww.facebook.com%2F"><p>Please confirm your identity.</p></form></body></html>`
