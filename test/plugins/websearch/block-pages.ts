// Hand-written refusal pages, trimmed copies of the structure the engines
// serve (the markers each detector relies on, nothing else). Shared by the
// parser tests and the local engine servers in the run tests.
export const BLOCK_PAGES = {
  googleSorry: `<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"><title>https://www.google.com/search?q=x</title></head>
<body style="font-family: arial, sans-serif; background-color: #fff; color: #000; padding:20px; font-size:18px;">
<div style="max-width:400px;"><hr noshade size="1" style="color:#ccc; background-color:#ccc;"><br>
<form id="captcha-form" action="index" method="post"><noscript><div style="font-size:13px;">In order to continue, please enable javascript on your web browser.</div></noscript>
<script src="https://www.google.com/recaptcha/api.js" async defer></script>
<div id="recaptcha" class="g-recaptcha" data-sitekey="6LfwuyUTAAAAAOAmoS0fdqijC2PbbdH4kjq62Y1b" data-callback="submitCallback" data-s="abc"></div>
<input type='hidden' name='q' value='EgQ'><input type="hidden" name="continue" value="https://www.google.com/search?q=x"></form>
<hr noshade size="1" style="color:#ccc; background-color:#ccc;">
<div style="font-size:13px;"><b>About this page</b><br><br>Our systems have detected unusual traffic from your computer network.  This page checks to see if it&#39;s really you sending the requests, and not a robot.</div>
<br>IP address: 203.0.113.7<br>Time: 2025-06-01T10:00:00Z<br>URL: https://www.google.com/search?q=x<br></div></body></html>`,

  googleConsent: `<!DOCTYPE html><html lang="en" dir="ltr"><head><title>Before you continue to Google</title></head>
<body><div class="saveButtonContainer"><h1>Before you continue to Google</h1>
<p>We use cookies and data to deliver and maintain Google services.</p>
<form action="https://consent.google.com/save" method="POST"><input type="hidden" name="gl" value="DE"><input type="hidden" name="m" value="0"><input type="hidden" name="set_eom" value="true">
<input type="hidden" name="continue" value="https://www.google.com/search?q=x"><button type="submit" aria-label="Reject all">Reject all</button></form>
<form action="https://consent.google.com/save" method="POST"><input type="hidden" name="set_eom" value="false"><button aria-label="Accept all">Accept all</button></form></div></body></html>`,

  googleEnableJs: `<!DOCTYPE html><html lang="en"><head><title>Google Search</title><style>body{background-color:#fff}</style></head>
<body><noscript><style>table,div,span,p{display:none}</style><meta content="0;url=/httpservice/retry/enablejs?sei=abc" http-equiv="refresh">
<div style="display:block">Please click <a href="/httpservice/retry/enablejs?sei=abc">here</a> if you are not redirected within a few seconds.</div></noscript></body></html>`,

  bingCaptcha: `<!DOCTYPE html><html lang="en"><head><title>Bing</title></head><body>
<div id="b_content"><div id="b_captcha"><h1>One last step</h1><p>Please solve the challenge below to continue</p>
<iframe src="/turing/captcha/challenge?q=x&amp;rt=1" title="captcha"></iframe></div></div></body></html>`,

  duckduckgoAnomaly: `<!DOCTYPE html><html><head><title>DuckDuckGo</title></head><body class="body--html">
<div class="anomaly-modal__mask"><div class="anomaly-modal__modal" data-testid="anomaly-modal">
<div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>
<div class="anomaly-modal__description">Please complete the following challenge to confirm this search was made by a human.</div>
<form id="challenge-form" action="//duckduckgo.com/anomaly.js?sv=html&amp;cc=sre&amp;ti=1&amp;gk=d4cd0dab&amp;p=abc" method="POST">
<div class="anomaly-modal__instructions">Select all squares containing a duck:</div>
<div class="anomaly-modal__images"><img src="../assets/anomaly/images/challenge/1.jpg"></div>
<button class="btn anomaly-modal__submit" type="submit">Submit</button></form>
<p class="anomaly-modal__footer">If this error persists, please let us know: error-lite@duckduckgo.com</p></div></div></body></html>`,

  yahooConsent: `<!DOCTYPE html><html lang="en-GB"><head><title>Yahoo is part of the Yahoo family of brands</title></head><body>
<div class="con-wizard"><form method="post" action="https://guce.yahoo.com/v2/collectConsent?sessionId=3_cc-session_abc" class="consent-form">
<input type="hidden" name="csrfToken" value="abc"><input type="hidden" name="sessionId" value="3_cc-session_abc"><input type="hidden" name="originalDoneUrl" value="https://search.yahoo.com/search?p=x">
<input type="hidden" name="namespace" value="yahoo"><button type="submit" class="btn secondary reject-all" name="reject" value="reject">Reject all</button>
<button type="submit" class="btn primary accept-all" name="agree" value="agree">Accept all</button></form></div></body></html>`,

  braveCaptcha: `<!DOCTYPE html><html lang="en"><head><title>Captcha - Brave Search</title></head><body>
<main><h1>Confirm you're a human being</h1><div id="captcha"><div class="pow-captcha" data-challenge="abc"></div></div>
<p>We've detected unusual activity from your network.</p></main></body></html>`,

  mojeekAutomated: `<!DOCTYPE html><html lang="en"><head><title>Mojeek</title></head><body>
<div class="container"><h1>403 - Forbidden</h1><p>Sorry your network appears to be sending automated queries to our site.
Please contact us to discuss using our search API.</p></div></body></html>`,

  cloudflareChallenge: `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head><body>
<div class="main-wrapper" role="main"><div class="main-content"><h1 class="zone-name-title h1">www.example-engine.com</h1>
<div id="challenge-stage"></div><script src="https://challenges.cloudflare.com/turnstile/v0/api.js"></script></div></div></body></html>`,

  /** A genuine results page for the query "captcha": the word alone must not read as a block. */
  duckduckgoResultsAboutCaptcha: `<html><body class="body--html"><div id="links" class="results">
<div class="result results_links results_links_deep web-result "><div class="links_main links_deep result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a" href="https://en.wikipedia.org/wiki/CAPTCHA">CAPTCHA - Wikipedia</a></h2>
<a class="result__snippet" href="https://en.wikipedia.org/wiki/CAPTCHA">A CAPTCHA is a type of challenge-response test; Google's reCAPTCHA (class g-recaptcha) is common.</a>
</div></div></div></body></html>`,
}
