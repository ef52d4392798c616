// The find_tool measurement set: plain-English tasks, phrased the way users
// ask, each with the agent tool that should come first. Written before the
// ranking was tuned, and not copied from the plugins' examples or keywords, so
// the figures say how find_tool does on wording it has not seen.
//
// TUNING_TASKS were measured while tuning (keywords, weights); HELD_OUT_TASKS
// were written at the same time and first scored once tuning was done, but
// have been looked at since: together they are the in-sample set, which
// find-tool-accuracy.test.ts also splits into folds by phrasing. UNSEEN_TASKS
// (below) is the set no tuning has seen. A new tool adds nothing here: the
// accuracy test takes its declaration's examples as its in-sample tasks.

export interface FindToolTask { task: string, expected: string }

const tasks = (expected: string, phrasings: string[]): FindToolTask[] => phrasings.map(task => ({ task, expected }))

export const TUNING_TASKS: FindToolTask[] = [
  ...tasks('maps_search', [
    'I need a list of Italian restaurants in Chicago with their phone numbers',
    'get me every hair salon around Manchester city centre',
    'pull Google Maps results for "auto repair" in Phoenix, AZ',
    'which yoga studios are near zip code 94110? I want addresses and ratings',
    'build a lead list of roofing contractors in Dallas',
    'scrape local accountants in Toronto along with their websites',
    'coordinates and review counts for car dealerships in Munich',
  ]),
  ...tasks('product_scrape', [
    'what does allbirds.com sell and for how much?',
    'export the full product catalog from this Shopify store',
    'I want the prices and stock levels of every item on a WooCommerce shop',
    'keep an eye on a rival online store\'s prices',
    'list all SKUs, variants and sizes available on mystore.com',
    'pull product titles, images and prices from an e-commerce site',
    'which items are discounted at shop.example.com',
  ]),
  ...tasks('website_email_find', [
    'what\'s the contact email for stripe.com?',
    'crawl acme.io and give me any email addresses on it',
    'I have 50 company domains, find an email address for each',
    'get the Instagram and LinkedIn links plus phone number from this company\'s site',
    'how can I reach the owners of bobsbakery.com, by email or phone',
    'find who to get in touch with at these websites',
    'extract mailto addresses from a site\'s about and team pages',
  ]),
  ...tasks('web_search', [
    'google "best running shoes 2025" and give me the links',
    'search for recent news about OpenAI',
    'what are the top results on Bing for project management software',
    'find websites that review standing desks',
    'look up who founded Patagonia',
    'first 20 search results for python web frameworks in the UK',
    'find URLs of pages that mention our brand name',
  ]),
  ...tasks('web_search_scrape', [
    'research the history of the bicycle and summarise what the top articles say',
    'search for GDPR fines in 2024 and fetch the full text of each result',
    'I need the content of the top 5 pages ranking for "keto diet plan"',
    'find articles about remote work productivity and read them',
    'search the web and pull the body text from each hit',
    'gather in-depth information from several sources about solar panel costs',
  ]),
  ...tasks('scrape_web_pages', [
    'get the text from https://en.wikipedia.org/wiki/Web_scraping',
    'fetch these three URLs and return their headings and meta descriptions',
    'what\'s the title tag and word count of example.com/pricing',
    'read this article for me: https://blog.example.com/post-1',
    'download the main content of a list of pages I already have',
    'check the HTTP status and final redirect URL of these links',
    'extract the readable text from a blog post link',
  ]),
  ...tasks('socialA_ads_scrape', [
    'what Facebook ads is Nike running right now?',
    'search the Meta ad library for ads mentioning weight loss',
    'show me Instagram ads from Gymshark in the UK',
    'how much did this political advertiser spend on Facebook?',
    'list the inactive ads of a Facebook page by its page ID',
    'pull ad creatives and copy from Meta for the keyword meal kit',
  ]),
  ...tasks('ads_transparency', [
    'is shopify.com advertising on Google?',
    'does Acme Corp run Google Ads at the moment?',
    'how many search ads has hubspot.com run and when was the last one shown',
    'look up an advertiser in the Google Ads Transparency Center',
    'check if a competitor is running paid search or YouTube ads',
    'find the Google advertiser ID and sample creatives for a brand',
  ]),
  ...tasks('ad_library_lead_finder', [
    'find plumbers in Houston that aren\'t running any ads yet',
    'which dentists in Miami are advertising on Facebook or Google',
    'I sell marketing services: find gyms in Denver that don\'t advertise',
    'list law firms in Boston and tell me whether they run Meta ads',
    'prospect for businesses in a city that have no paid advertising',
    'restaurants in Seattle: which ones buy Google ads?',
  ]),
  ...tasks('email_verify', [
    'check if these addresses can receive mail',
    'can mail actually be delivered to john.smith@contoso.com?',
    'clean my email list and remove the ones that will bounce',
    'is this mailbox real or will my message bounce',
    'run an SMTP check on a few addresses',
    'find out which of these contacts are catch-all or invalid',
    'validate 200 emails before sending a newsletter',
    'does the mailbox ceo@startup.io exist?',
  ]),
  ...tasks('disposable_email_check', [
    'is guerrillamail.com a temporary email domain?',
    'flag burner emails in my signup list',
    'detect throwaway addresses in new user registrations',
    'block fake sign-ups that use 10minutemail and the like',
    'is this user\'s domain a disposable inbox provider?',
    'filter temp-mail addresses out of a list of customers',
  ]),
  ...tasks('microblog_scrape', [
    'what are people tweeting about the new iPhone this week',
    'get the last 50 tweets from @elonmusk with likes and retweets',
    'how many likes and replies did this tweet get: https://x.com/nasa/status/1234567890',
    'collect posts on X mentioning our brand',
    'pull the timeline of a Twitter account',
  ]),
  ...tasks('socialB_scrape', [
    'who follows @natgeo on Instagram?',
    'export the follower list of an Instagram account',
    'which accounts does this Instagram profile follow',
    'get usernames of people following a competitor on IG',
  ]),
  ...tasks('videoA_thumbnail_download', [
    'download the thumbnail of this YouTube video in the best quality',
    'get the HD preview image for https://youtu.be/dQw4w9WgXcQ',
    'I need the maxresdefault jpg for a list of YouTube links',
    'grab the cover picture of a YouTube Short',
  ]),
  ...tasks('socialA_page_scrape', [
    'get the phone number and address from a business\'s Facebook page',
    'how many followers does the Nike Facebook page have?',
    'scrape the about section and category of facebook.com/cocacola',
    'is this Facebook page verified, and what website does it list?',
    'pull contact details from a list of Facebook business pages',
  ]),
  ...tasks('videoA_download', [
    'give me the mp4 download link for this YouTube video',
    'what formats and resolutions can I download https://youtu.be/abc in',
    'list every video in a YouTube playlist with a download url',
  ]),
  ...tasks('socialB_download', [
    'download this Instagram reel as a video file',
    'get the direct video url of an insta post',
  ]),
  ...tasks('videoB_download', [
    'save a TikTok without the watermark',
    'get the no-watermark mp4 of a tiktok link',
  ]),
  ...tasks('socialA_download', [
    'download a video from Facebook in HD',
    'direct link to the mp4 of an fb.watch video',
  ]),
  ...tasks('videoC_download', [
    'download a Snapchat spotlight video',
    'save the video of a public snap story',
  ]),
  ...tasks('socialB_cover_download', [
    'get the cover image of an Instagram reel in full size',
    'thumbnail and caption of these instagram posts',
  ]),
  ...tasks('socialA_cover_download', [
    'get the thumbnail picture of a Facebook video',
    'cover images of every video on a Facebook page',
  ]),
  ...tasks('videoB_cover_download', [
    'download the animated cover of a TikTok',
    'get the thumbnail of a tiktok video',
  ]),
  ...tasks('socialB_reels_captions', [
    'get the subtitles of an Instagram reel as an srt file',
    'what hashtags and mentions are in the caption of this reel',
  ]),
  ...tasks('video_frame_extractor', [
    'take a screenshot every 5 seconds of this video',
    'extract frames from an mp4 at 10s and 42s',
  ]),
  ...tasks('videoA_extract', [
    'how many views and likes does this YouTube video have',
    'get the title, tags and description of a youtube video',
    'list the latest uploads of a YouTube channel with view counts',
    'subscriber count and total views of @veritasium',
    'export all the videos in a YouTube playlist',
  ]),
  ...tasks('videoA_competitor', [
    'compare my YouTube channel with three competitors',
    'how often do these youtubers post new videos compared to each other',
    'benchmark the average views of rival channels on YouTube',
    'which of these youtube channels has the best engagement rate',
  ]),
  ...tasks('videoA_transcript', [
    'get the transcript of this YouTube video',
    'download the subtitles of a youtube video as an srt file',
    'what does the speaker say in this video? give me the text with timestamps',
    'translate the captions of a YouTube talk into Spanish',
  ]),
]

export const HELD_OUT_TASKS: FindToolTask[] = [
  ...tasks('maps_search', [
    'electricians in Leeds with phone and address',
    'give me the Google Maps listings for bakeries in Lyon, France',
  ]),
  ...tasks('product_scrape', [
    'how much do the shoes cost on this store, with sizes in stock',
    'scrape every product and its price from a webshop',
  ]),
  ...tasks('website_email_find', [
    'find the support email on a company\'s website',
    'scan a list of websites for phone numbers and emails',
  ]),
  ...tasks('web_search', [
    'search DuckDuckGo for open source CRM alternatives',
    'find me links about the latest iPhone release',
  ]),
  ...tasks('web_search_scrape', [
    'look up reviews of the Framework laptop and give me the full text of each page',
    'search for competitors of Notion and read their pages',
  ]),
  ...tasks('scrape_web_pages', [
    'grab the text of these 10 URLs',
    'pull the H1 and H2 headings from a page I give you',
  ]),
  ...tasks('socialA_ads_scrape', [
    'find Instagram and Facebook ads about crypto in Germany',
    'what ads is a Facebook page currently running',
  ]),
  ...tasks('ads_transparency', [
    'is this brand buying ads on Google right now',
    'when did nike.com last show a Google ad',
  ]),
  ...tasks('ad_library_lead_finder', [
    'local chiropractors in Phoenix and whether each one advertises online',
    'find car washes in Atlanta that are not running Google or Facebook ads',
  ]),
  ...tasks('email_verify', [
    'will an email to info@acme.com bounce?',
    'verify my mailing list is deliverable',
  ]),
  ...tasks('disposable_email_check', [
    'is sharklasers.com one of those one-time mail services',
    'spot disposable email domains among these sign-ups',
  ]),
  ...tasks('microblog_scrape', [
    'search twitter for #climatechange and show engagement',
    'get these tweet links with their view counts',
  ]),
  ...tasks('socialB_scrape', [
    'list the instagram followers of a fitness influencer',
    'scrape who an insta account is following',
  ]),
  ...tasks('videoA_thumbnail_download', [
    'save the largest thumbnail image of a youtube video',
    'what is the highest resolution thumbnail url for these videos',
  ]),
  ...tasks('socialA_page_scrape', [
    'find the email address listed on a restaurant\'s FB page',
    'page likes and profile picture of a Facebook page by its numeric id',
  ]),
  ...tasks('videoA_download', [
    'fetch the downloadable streams of a youtube clip with their codecs',
  ]),
  ...tasks('videoB_download', [
    'tiktok video downloader, clean copy with no logo',
  ]),
  ...tasks('socialB_download', [
    'instagram reel downloader',
  ]),
  ...tasks('videoB_cover_download', [
    'the dynamic cover gif of a tiktok',
  ]),
  ...tasks('socialA_download', [
    'grab the mp4 of a facebook reel',
  ]),
  ...tasks('videoC_download', [
    'snapchat video downloader',
  ]),
  ...tasks('socialB_cover_download', [
    'full resolution poster frame of an instagram reel',
  ]),
  ...tasks('socialA_cover_download', [
    'facebook reel thumbnail in full size',
  ]),
  ...tasks('socialB_reels_captions', [
    'transcript of what is said in an insta reel, with timestamps',
  ]),
  ...tasks('video_frame_extractor', [
    'turn a tiktok video into still images, one per scene',
  ]),
  ...tasks('videoA_extract', [
    'when was this youtube video published and how long is it',
    'show the chapters and duration of a YouTube video',
  ]),
  ...tasks('videoA_competitor', [
    'rank five YouTube channels by subscribers and upload frequency',
    'side by side stats for two youtube creators',
  ]),
  ...tasks('videoA_transcript', [
    'I need the closed captions of these youtube links in German',
  ]),
]

// UNSEEN_TASKS: a second, independent set, written by another hand in words
// of its own (none of the phrasings above, nor the plugins' examples or
// keywords), before the declarations' distinguishing cues were written, and
// never run while tuning them or the ranker. Most of it sits between near
// neighbours (searching / searching and reading / reading known pages; the
// Meta ad library / Google's transparency centre / leads by advertising; a
// Facebook page / a website's contacts / map listings), where find_tool is
// weakest. Adding a task here after looking at a miss would make it a tuning
// task: add such tasks to TUNING_TASKS instead.
export const UNSEEN_TASKS: FindToolTask[] = [
  ...tasks('web_search', [
    'what comes up when you look up "vegan protein powder" online',
    'give me a list of result links for cheap flights to Lisbon',
    'run a web query for the official site of the Louvre',
    'which pages rank for "best crm for small business"? just titles and links',
    'search engine results for electric bike reviews, no need to open them',
    'look online for who makes the Aeron chair',
    'top hits on Brave for rust async runtime',
    'find a few sources that talk about the four day work week, I only need the URLs',
  ]),
  ...tasks('web_search_scrape', [
    'look up the four day work week online and bring back what each article actually says',
    'search for home espresso machine reviews and open every result to get its text',
    'do some web research on heat pumps and give me the full page content of what you find',
    'query the web for "postgres vs mysql" and scrape each of the resulting pages',
    'find recent blog posts on prompt engineering and read them all for me',
    'search then crawl: the top results for mediterranean diet, body text of each',
    'gather the complete text of the first ten search hits about solar subsidies',
    'I want the articles behind the search results for "climate adaptation", not just links',
  ]),
  ...tasks('scrape_web_pages', [
    'here are some links, open each one and give me its text',
    'fetch https://news.ycombinator.com and https://lobste.rs and return the page content',
    'pull the meta description and H1 off example.org/about',
    'I already have the URLs, I just need the content of each page',
    'scrape this page: https://www.bbc.co.uk/news/technology',
    'return the status code and title for each address in my list of URLs',
    'get the body text of the article at this link, no searching needed',
    'read these web pages and tell me how many words each has',
  ]),
  ...tasks('socialA_ads_scrape', [
    'show the ads Adidas has in the Meta ad library',
    'which ads are running on Instagram for the term "protein bar"?',
    'pull political ads on Facebook about immigration with their spend and impressions',
    'look up a brand\'s creatives in Facebook\'s ad archive',
    'ads currently live on facebook for the search phrase dog food',
    'what is Peloton promoting on Meta platforms these days',
  ]),
  ...tasks('ads_transparency', [
    'show me the Google ads that zapier.com has been running',
    'look up which search and display ads Canva shows through Google',
    'is notion.so a Google advertiser? when did their latest ad appear',
    'pull the ad creatives Google lists for a brand in its transparency center',
    'does this domain buy ads on Google search or YouTube',
    'find out whether Monday.com pays for Google ads',
  ]),
  ...tasks('ad_library_lead_finder', [
    'find landscapers in Austin and check if any of them are advertising',
    'I want leads: pet groomers in Portland who have no ads on Google or Meta',
    'look for HVAC companies in Tampa and flag the ones already running ads',
    'which bakeries in Brooklyn advertise online and which don\'t',
    'prospect list of med spas in Las Vegas with their ad status on Facebook and Google',
    'businesses in a niche and city that don\'t run any paid ads, for my agency outreach',
  ]),
  ...tasks('socialA_page_scrape', [
    'scrape the Facebook page of Joe\'s Pizza: phone, email, address, hours',
    'what category and follower count does this facebook.com/redbull page show',
    'get the details listed on a few brands\' Facebook pages',
    'read the about info of a Facebook business page by its URL',
    'which website and phone number does this business put on its FB page',
    'get the likes and check-ins of a company\'s Facebook page',
  ]),
  ...tasks('website_email_find', [
    'crawl a company\'s website for its contact addresses and phone',
    'find email addresses on these 20 domains',
    'what social media profiles does example.com link to from its site',
    'look through notion.so\'s website for a press or sales email',
    'grab contact details from the pages of a business website',
    'scrape emails from a list of company sites',
  ]),
  ...tasks('maps_search', [
    'plumbers near Bristol with ratings and opening hours',
    'pull business listings from Google Maps for vets in Austin',
    'local places: coffee shops in Kreuzberg, Berlin with addresses',
    'gather every dentist in Lyon with a phone number and a website',
    'find nail salons in Houston from map listings',
    'locations and reviews of gyms in Madrid',
  ]),
  ...tasks('product_scrape', [
    'get all the products and prices from gymshark.com',
    'what\'s for sale on this Shopify shop, with variants and stock',
    'export the product list of a WooCommerce store to a spreadsheet',
    'monitor the price of items on a competitor\'s online shop',
  ]),
  ...tasks('email_verify', [
    'will my emails to these people bounce? check the addresses',
    'is jane@example.org a real, working mailbox',
    'check deliverability of a list of addresses with an SMTP probe',
    'which of my leads\' emails are invalid',
  ]),
  ...tasks('disposable_email_check', [
    'is mailinator.com a throwaway mail provider',
    'weed out temporary inboxes from my newsletter signups',
    'check whether these signup domains are disposable',
    'is yopmail an email service for fake accounts',
  ]),
  ...tasks('microblog_scrape', [
    'recent posts on X about the World Cup with like counts',
    'latest tweets from @nasa',
    'how did people react on twitter to the product launch',
  ]),
  ...tasks('socialB_scrape', [
    'get me the follower usernames of @nike on insta',
    'who is this instagram account following',
    'list the people following a brand\'s Instagram profile',
  ]),
  ...tasks('videoA_thumbnail_download', [
    'grab the thumbnail picture of a youtube video in the biggest size',
    'the thumbnail images for these YouTube links',
    'save the preview image of a youtube clip as a file',
  ]),
  ...tasks('videoA_download', [
    'download this youtube video as mp4',
    'give me a link to download a youtube clip in 1080p',
    'what video qualities are available for this YouTube link',
  ]),
  ...tasks('socialB_download', [
    'download an instagram video from a post link',
    'save this IG reel to my computer',
    'mp4 file of an instagram reel',
  ]),
  ...tasks('videoB_download', [
    'download a tiktok video',
    'tiktok to mp4, without the watermark please',
    'save every video from a TikTok profile',
  ]),
  ...tasks('socialA_download', [
    'download this facebook video',
    'save a facebook reel as an mp4 file',
    'get the HD video file from an fb.watch link',
  ]),
  ...tasks('videoC_download', [
    'download a video from snapchat spotlight',
    'save this snapchat story video',
    'get the mp4 of a snap',
  ]),
  ...tasks('socialB_cover_download', [
    'download the cover picture of an instagram post',
    'get the thumbnail image of an IG reel',
    'instagram reel cover image plus its caption and likes',
  ]),
  ...tasks('socialA_cover_download', [
    'download the thumbnail image of a facebook video',
    'the cover pictures of all the videos a Facebook page posted',
    'preview image of a facebook reel in the largest size',
  ]),
  ...tasks('videoB_cover_download', [
    'get the cover image of a tiktok video',
    'download the thumbnail of this TikTok',
    'the animated cover of a tiktok post',
  ]),
  ...tasks('socialB_reels_captions', [
    'get the captions of an instagram reel as text',
    'download the subtitle file of an IG reel',
    'which hashtags does this instagram reel use in its caption',
  ]),
  ...tasks('video_frame_extractor', [
    'pull still frames out of a video every two seconds',
    'grab a frame from this video at 1:30',
    'make png snapshots of an uploaded video file',
  ]),
  ...tasks('videoA_extract', [
    'view count, like count and upload date for this youtube video',
    'get the details of every video on a youtube channel',
    'how many subscribers does this YouTube channel have',
    'metadata of all videos in a youtube playlist',
  ]),
  ...tasks('videoA_competitor', [
    'compare two youtube channels\' subscribers and average views',
    'how does my youtube channel stack up against my competitors',
    'competitor analysis of youtube channels: posting frequency and engagement',
  ]),
  ...tasks('videoA_transcript', [
    'get the captions text of a youtube video',
    'transcribe this YouTube video for me',
    'subtitles of a youtube video in French',
    'what is said in this youtube talk? I need the transcript',
  ]),
]
