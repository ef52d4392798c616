// find_tool: ranks the enabled agent tools for a plain-English task.
// Deterministic and local (no model): BM25 over each tool's fields (its
// keywords, title, example tasks, name and description), on words and on pairs
// of neighbouring words, so "google ads" in a task meets the tool that lists
// "google ads" among its keywords more strongly than two tools that each say
// one of the words.
//
// The kernel knows language, not tools: the folding below (stopwords,
// stemming, spellings, generic synonyms, addresses/URLs/domains read as what
// they are) holds for any tool. Tool vocabulary (a trade's jargon, the names
// of sources, what users call the job) is each plugin's `keywords`
// (core/tools/README.md). The set of tasks find_tool is measured on is
// test/agent/find-tool-tasks.ts.
//
// Near neighbours (searching vs searching and reading the results; Meta's ad
// library vs Google's; a social page vs a website's contacts) share most of
// their words, so BM25 alone ranks them on whichever happens to say a task's
// words more often. Each declaration's `cues` (phrases that choose it over its
// neighbours) and `notFor` (phrases that mean a neighbour fits instead) then
// scale its score: a phrase meets a task when all of its words are in it, in
// any order.
import type { AgentTool } from '../tools/registry.ts'

const STOPWORDS = new Set((
  'a about after again all also am an and any are as at be been being before but by can could did do does doing done for from ' +
  'get gets getting give go got had has have having he her here him his how i if in into is it its just let like me might more most ' +
  'much my need needs of on once one only or other our ours out over own please same she should show so some such tell than that the ' +
  'their them then there these they thing things this those through to too up us use using very want was way we were what when where ' +
  'which while who whom whose why will with would you your yours ' +
  // Task verbs too general to tell tools apart: every tool "finds" or "lists" something.
  'find list every each many'
).split(' '))

/**
 * Generic synonyms and spellings: each group folds to its first word. Only
 * words that mean the same whatever the tool; a tool's own synonyms are its
 * keywords.
 */
const SYNONYM_GROUPS: string[][] = [
  // Every spelling of electronic mail folds to the plain word, so no tool's key is the kernel's word.
  ['mail', 'e-mail'],
  ['website', 'site', 'homepage', 'web-site'],
  ['page', 'webpage', 'web-page'],
  ['url', 'link', 'hyperlink'],
  ['phone', 'telephone'],
  ['company', 'business', 'firm', 'organisation', 'organization'],
  ['verify', 'validate', 'validation', 'verification'],
  ['ad', 'advert', 'advertisement', 'advertise', 'advertising', 'advertiser'],
  ['price', 'cost', 'pricing', 'priced'],
  ['temporary', 'temp'],
  ['catalogue', 'catalog'],
  ['summarise', 'summarize', 'summary'],
]

// What a piece of text is, read before it is split into words: an address is
// "a mail", a link "a url", a bare host "a domain". The words inside them
// (acme, com) say nothing about which tool fits. Read one whitespace-separated
// piece at a time (trailing punctuation aside), so the patterns stay linear.
const ENTITIES: Array<[RegExp, string]> = [
  [/^[\w.+-]+@[\w-]+(\.[\w-]+)+$/, 'mail'],
  [/^(https?:\/\/|www\.)/i, 'url'],
  [/^[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}\/\S*$/i, 'url'],
  [/^[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|org|net|io|co|uk|de|fr|ai|app|dev|shop|store|biz|info|us|eu|ca|au)$/i, 'domain'],
]

// Whose an address is: the names in its host, less the www/m prefix and the
// top-level domain ("https://m.example.com/x" → example, "jane@mailinator.com"
// → mailinator), so a link says which site it is on, not only that it is a link.
const SECOND_LEVEL = new Set(['co', 'com', 'org', 'net', 'ac', 'gov', 'edu'])

function hostNames (entity: string): string {
  const host = entity.replace(/^[^@]*@/, '').replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split(/[/?#:]/)[0]!.toLowerCase()
  const labels = host.split('.').filter(Boolean)
  if (labels.length > 1) labels.pop()
  // acme.co.uk: "co" is the country's register, not a name.
  if (labels.length > 1 && SECOND_LEVEL.has(labels[labels.length - 1]!)) labels.pop()
  while (labels.length > 1 && (labels[0] === 'www' || labels[0] === 'm')) labels.shift()
  return labels.join(' ')
}

const OPENING = '("\'“‘<['
const CLOSING = ')"\'”’>].,;:!?'

function readEntities (text: string): string {
  return text.split(/\s+/).map(piece => {
    let start = 0
    let end = piece.length
    while (start < end && OPENING.includes(piece[start]!)) start++
    while (end > start && CLOSING.includes(piece[end - 1]!)) end--
    const core = piece.slice(start, end)
    const entity = ENTITIES.find(([pattern]) => pattern.test(core))
    return entity ? ` ${entity[1]} ${hostNames(core)} ` : piece
  }).join(' ')
}

const VOWEL = /[aeiouy]/

/**
 * A light English suffix stripper (Porter-like): plurals, -able, -ing, -ed, -er, -ly,
 * -ation and a final e, so "advertisers", "advertise" and "advertising" meet,
 * as do "running" and "runs". It need not give real words, only the same stem
 * for the forms of one word.
 */
export function stem (word: string): string {
  let w = word
  // Three letters: only a plural s goes ("ads" → "ad").
  if (w.length <= 3) return /[^aeiosu]s$/.test(w) ? w.slice(0, -1) : w
  if (w.endsWith('ies') && w.length > 4) w = w.slice(0, -3) + 'y'
  else if (w.endsWith('sses')) w = w.slice(0, -2)
  else if (/(ch|sh|x|ss|z)es$/.test(w)) w = w.slice(0, -2)
  else if (w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1)
  if (/ification$/.test(w)) w = w.slice(0, -9) + 'ify'
  else if (w.endsWith('ation') && w.length > 7) w = w.slice(0, -5) + 'ate'
  for (const suffix of ['able', 'ing', 'ed', 'er', 'ly']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3 && VOWEL.test(w.slice(0, -suffix.length))) {
      w = w.slice(0, -suffix.length)
      // running → runn → run, shopped → shopp → shop; not "address", "call" or "sell".
      if (/([^aeiouslz])\1$/.test(w)) w = w.slice(0, -1)
      break
    }
  }
  if (w.endsWith('e') && w.length > 4) w = w.slice(0, -1)
  return w
}

const CANONICAL = new Map<string, string>()
for (const group of SYNONYM_GROUPS) {
  for (const word of group) CANONICAL.set(stem(word.replace(/-/g, '')), stem(group[0]!))
}

/** Words of a text, folded: lower case, entities read, contractions opened, stopwords dropped, stemmed, synonyms folded. */
export function tokenize (text: string): string[] {
  return readEntities(text).toLowerCase()
    .replace(/\b(e|web)-(mail|site|page)/g, '$1$2')
    .replace(/\bcan't\b|\bcannot\b/g, 'can not')
    .replace(/\bwon't\b/g, 'will not')
    .replace(/n['’]t\b/g, ' not')
    .split(/[^a-z0-9]+/)
    // Numbers ("top 10", "50 domains", "2025") are amounts and dates, not what the job is.
    .filter(w => w.length > 1 && !STOPWORDS.has(w) && !/^\d+$/.test(w))
    .map(w => {
      const s = stem(w)
      return CANONICAL.get(s) ?? s
    })
}

/** The terms of a text: its words, and each pair of neighbouring words (a phrase). */
function terms (text: string): string[] {
  const words = tokenize(text)
  const pairs: string[] = []
  for (let i = 1; i < words.length; i++) if (words[i - 1] !== words[i]) pairs.push(`${words[i - 1]} ${words[i]}`)
  return [...words, ...pairs]
}

/**
 * The ranker's constants. Field weights: how much a term counts in each field.
 * Keywords, cues and example tasks are written as users ask; a description is
 * written for an agent that already chose the tool, and is long, so each of
 * its words counts least. `k1` and `b` are BM25's. `cueBoost` multiplies the
 * score of a tool one of whose cues the task says; `notForFactor` that of a tool
 * one of whose not-for phrases it says.
 */
export interface RankerConstants {
  weights: { keywords: number, title: number, examples: number, name: number, description: number }
  k1: number
  b: number
  cueBoost: number
  notForFactor: number
}

export const RANKER_CONSTANTS: RankerConstants = {
  weights: { keywords: 3, title: 2, examples: 2, name: 1.5, description: 1 },
  k1: 1.2,
  b: 0.5,
  cueBoost: 1.3,
  notForFactor: 0.7,
}

/** A phrase's words, once each: it meets a task that says all of them. Empty when it folds to nothing. */
export function phraseWords (phrase: string): string[] {
  return [...new Set(tokenize(phrase))]
}

/**
 * A description's sentences that name another tool ("to check a mailbox, use
 * mailbox_probe instead") describe that tool, not this one; JSON examples are
 * arguments, not words a user would say.
 */
function ownSentences (description: string, otherNames: string[]): string {
  // Whole names only: page_reader is not named by a sentence that says page_reader_pro.
  const others = otherNames.map(name => new RegExp(`(?<![\\w-])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`))
  return description
    .replace(/\{[^{}]*\}/g, ' ')
    .split(/(?<=[.;!?])\s+/)
    .filter(sentence => !others.some(name => name.test(sentence)))
    .join(' ')
}

interface IndexedTool { tool: AgentTool, terms: Map<string, number>, length: number, cues: string[][], notFor: string[][] }

const says = (words: Set<string>) => (phrase: string[]) => phrase.length > 0 && phrase.every(w => words.has(w))

export interface ToolMatch { tool: AgentTool, score: number }

export class ToolFinder {
  private readonly indexed: IndexedTool[]
  private readonly documentFrequency = new Map<string, number>()
  private readonly averageLength: number
  private readonly constants: RankerConstants

  constructor (tools: AgentTool[], constants: RankerConstants = RANKER_CONSTANTS) {
    this.constants = constants
    const weights = constants.weights
    const names = tools.map(t => t.name)
    this.indexed = tools.map(tool => {
      const counts = new Map<string, number>()
      const add = (text: string, weight: number) => {
        for (const term of terms(text)) counts.set(term, (counts.get(term) ?? 0) + weight)
      }
      // A name is an identifier (page_reader, mailboxProbe): split it into words.
      add(tool.name.replace(/_/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2'), weights.name)
      add(tool.title, weights.title)
      add(ownSentences(tool.description, names.filter(n => n !== tool.name)), weights.description)
      for (const example of tool.examples) add(example.task, weights.examples)
      // A cue is also a phrase users say for this tool; what it is not for is not.
      for (const keyword of [...tool.keywords, ...tool.cues]) add(keyword, weights.keywords)
      let length = 0
      for (const n of counts.values()) length += n
      return { tool, terms: counts, length, cues: tool.cues.map(phraseWords), notFor: tool.notFor.map(phraseWords) }
    })
    for (const doc of this.indexed) for (const term of doc.terms.keys()) this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1)
    this.averageLength = this.indexed.reduce((sum, d) => sum + d.length, 0) / Math.max(1, this.indexed.length)
  }

  /** The best `limit` tools with a positive score, best first (ties by name, so the order is stable). */
  rank (task: string, limit: number): ToolMatch[] {
    // Quoted text is what to search for or type in ("keto diet plan"), not the job.
    const unquoted = task.replace(/"[^"]*"|“[^”]*”/g, ' ')
    const text = tokenize(unquoted).length > 0 ? unquoted : task
    const query = [...new Set(terms(text))]
    const said = says(new Set(tokenize(text)))
    const { k1: K1, b: B, cueBoost, notForFactor } = this.constants
    const n = this.indexed.length
    const scored = this.indexed.map(doc => {
      let score = 0
      for (const term of query) {
        const tf = doc.terms.get(term)
        if (!tf) continue
        const df = this.documentFrequency.get(term) ?? 0
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
        score += idf * (tf * (K1 + 1)) / (tf + K1 * (1 - B + B * doc.length / this.averageLength))
      }
      if (doc.cues.some(said)) score *= cueBoost
      if (doc.notFor.some(said)) score *= notForFactor
      return { tool: doc.tool, score: Math.round(score * 1000) / 1000 }
    })
    return scored
      .filter(s => s.score > 0)
      .sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name))
      .slice(0, limit)
  }
}
