// Pure: a plain-English map request ("dentists in Austin TX") split into
// what to look for and where. The map APIs take the cleaned text as one
// query; OpenStreetMap needs the two halves apart (a place to geocode, a
// business kind to map to tags).

export interface SplitPrompt {
  /** The business kind without ranking words: "pizza", "dentists", "coffee shops". */
  what: string
  /** The place as written ("Austin TX", "Brooklyn, NY", "90210"), or '' when none was given. */
  where: string
  /** The "what" with its qualifiers kept: "best pizza". */
  subject: string
  /** The request as one map-search text, filler removed: "best pizza in new york city". */
  search: string
}

// Polite or chatty openings that are not part of the request.
const LEADING_FILLER = [
  /^(?:please|pls|hey|hi)[,\s]+/i,
  /^(?:can|could|would) you\s+(?:please\s+)?/i,
  /^(?:where (?:can|could|do) i (?:find|get)|where (?:is|are)(?: there)?)\s+/i,
  /^(?:i(?:'m| am)? (?:need|want|looking for|searching for)|i'd like)\s+/i,
  /^(?:find|search(?: for)?|look(?:ing)? for|show|list|get|give|fetch|scrape|give me a list of|a list of|list of)\s+/i,
  /^(?:me|us)\s+/i,
  /^(?:all|any|some|the|a|an)\s+(?:of the\s+)?/i,
  /^(?:top\s+)?\d+\s+/i,
]

// Ranking and vagueness words dropped from `what` (kept in `search`, where they still help).
const QUALIFIERS = /^(?:(?:the\s+)?(?:best|top(?:\s+\d+)?|top-rated|top rated|highest rated|good|great|cheap|affordable|popular|local|nearby|\d+)\s+)+/i

// Words joining what and where. The last one wins: "drive in theaters in Ohio".
const CONNECTOR = /\s+(?:(?:located|based|situated)\s+)?(?:in|near|around|at|within|inside|close to|nearby|outside(?: of)?)\s+/gi

// Nouns that end the "what" half when no connector is written ("plumbers Denver", "pizza new york").
const HEAD_NOUNS = new Set([
  'dentist', 'doctor', 'clinic', 'hospital', 'pharmacy', 'pharmacies', 'vet', 'veterinarian', 'plumber', 'electrician', 'roofer', 'contractor',
  'lawyer', 'attorney', 'accountant', 'agent', 'agency', 'firm', 'restaurant', 'cafe', 'café', 'coffee', 'bar', 'pub', 'bakery', 'bakeries',
  'pizza', 'pizzeria', 'sushi', 'hotel', 'motel', 'hostel', 'gym', 'studio', 'salon', 'barber', 'hairdresser', 'spa', 'shop', 'store', 'market',
  'supermarket', 'mechanic', 'repair', 'garage', 'dealer', 'dealership', 'school', 'bank', 'florist', 'cleaner', 'cleaning', 'service',
  'company', 'companies', 'center', 'centre', 'office', 'photographer', 'therapist', 'chiropractor', 'optician', 'optometrist', 'church',
  'library', 'museum', 'cinema', 'theater', 'theatre', 'wash', 'station', 'builder', 'painter', 'locksmith', 'tailor', 'butcher', 'brewery',
  'winery', 'kindergarten', 'daycare', 'nursery', 'veterinary', 'consultant', 'architect', 'realtor', 'insurance', 'club', 'bistro', 'diner',
])

const singular = (word: string) => word.toLowerCase().replace(/ies$/, 'y').replace(/(?:ches|shes|sses|xes)$/, m => m.slice(0, -2)).replace(/(?<!s)s$/, '')

const tidy = (s: string) => s.replace(/\s+/g, ' ').replace(/^[\s,;:–—-]+|[\s,;:–—.!?-]+$/g, '').trim()

function stripFiller (text: string): string {
  let out = text
  for (let changed = true; changed;) {
    changed = false
    for (const re of LEADING_FILLER) {
      const next = out.replace(re, '')
      if (next !== out && next.trim() !== '') { out = next; changed = true }
    }
  }
  return out
}

/** "near me", "the city of X", "X area": the place itself, or '' for "me"/"here". */
function cleanWhere (where: string): string {
  const w = tidy(where.replace(/^(?:the )?(?:city|town|village|area|county|state) of\s+/i, '').replace(/\s+(?:area|region|metro(?: area)?)$/i, ''))
  return /^(?:me|here|my (?:area|location)|us|you)$/i.test(w) ? '' : w
}

function splitWithoutConnector (text: string): { what: string, where: string } {
  // A trailing postal code: "car dealers 10001", "bakery SW1A 1AA".
  const postal = /^(.+?)\s+(\d{4,6}(?:-\d{4})?|[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2})$/i.exec(text)
  if (postal) return { what: postal[1]!, where: postal[2]! }
  const tokens = text.split(' ')
  // The last head noun that leaves something after it ends the "what".
  for (let i = tokens.length - 2; i >= 0; i--) {
    if (HEAD_NOUNS.has(singular(tokens[i]!.replace(/[^\p{L}]/gu, '')))) return { what: tokens.slice(0, i + 1).join(' '), where: tokens.slice(i + 1).join(' ') }
  }
  // Else the first capitalised word after a lower-case one starts the place: "food trucks Portland".
  for (let i = 1; i < tokens.length; i++) {
    if (/^\p{Lu}/u.test(tokens[i]!) && /^\p{Ll}/u.test(tokens[i - 1]!)) return { what: tokens.slice(0, i).join(' '), where: tokens.slice(i).join(' ') }
  }
  return { what: text, where: '' }
}

export function splitPrompt (prompt: string): SplitPrompt {
  const text = stripFiller(tidy(prompt.normalize('NFC')))
  let what = text
  let where = ''
  const connectors = [...text.matchAll(CONNECTOR)].filter(m => m.index! > 0)
  const last = connectors.at(-1)
  const separator = /\s*(?:[,:;|]|\s[–—-])\s*/.exec(text)
  if (last) {
    what = text.slice(0, last.index)
    where = text.slice(last.index! + last[0].length)
  } else if (separator && separator.index > 0) {
    what = text.slice(0, separator.index)
    where = text.slice(separator.index + separator[0].length)
  } else {
    ({ what, where } = splitWithoutConnector(text))
  }
  what = tidy(what)
  where = cleanWhere(where)
  // "near me": the trailing connector has nothing after it once "me" is dropped.
  const fullWhat = tidy(stripFiller(what)) || what
  const coreWhat = tidy(fullWhat.replace(QUALIFIERS, '')) || fullWhat
  return { what: coreWhat, where, subject: fullWhat, search: where ? `${fullWhat} in ${where}` : fullWhat }
}
