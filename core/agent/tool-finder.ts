// find_tool: ranks the enabled tools for a plain-English task with BM25 over
// each tool's name, title, description and example tasks. Deterministic and
// local (no model): words are folded to a canonical synonym, then lightly
// stemmed, so "e-mails", "mail" and "email" meet, as do "leads" and
// "businesses". Name and title words weigh more than description words.
import type { AgentTool } from '../tools/registry.ts'

const STOPWORDS = new Set(('a an and any are as at be by can do does for from get give how i in into is it its me my need of on ' +
  'or our out please show some that the their them then these this those to up use want what when where which who whose will with you your ' +
  'all every each one many list find').split(' '))

// Each group folds to its first word. Matching is on the stemmed word.
const SYNONYM_GROUPS: string[][] = [
  ['email', 'e-mail', 'mail', 'mailbox', 'inbox', 'address', 'mailing'],
  ['lead', 'business', 'company', 'firm', 'prospect', 'shop', 'store', 'shopfront', 'listing', 'local', 'plumber', 'dentist', 'restaurant', 'agency'],
  ['verify', 'validate', 'validation', 'verification', 'check', 'deliverable', 'deliverability', 'bounce', 'valid', 'real'],
  ['disposable', 'temporary', 'throwaway', 'throw-away', 'burner', 'temp', 'fake'],
  ['website', 'site', 'domain', 'homepage', 'webpage', 'url'],
  ['search', 'google', 'serp', 'lookup', 'query', 'research'],
  ['scrape', 'extract', 'crawl', 'fetch', 'grab', 'collect', 'harvest', 'read', 'pull'],
  ['phone', 'telephone', 'number'],
  ['video', 'youtube', 'clip', 'channel'],
  ['transcript', 'caption', 'subtitle', 'srt', 'vtt'],
  ['download', 'save', 'media'],
  ['contact', 'reach'],
  ['ad', 'advert', 'advertisement', 'advertising', 'campaign', 'sponsor'],
  ['social', 'profile', 'facebook', 'instagram', 'twitter', 'linkedin', 'tiktok'],
  ['product', 'catalogue', 'catalog', 'inventory', 'sku', 'price', 'ecommerce'],
  ['city', 'town', 'near', 'area', 'map', 'maps'],
  ['topic', 'subject', 'article', 'news'],
  ['compare', 'competitor', 'versus', 'vs', 'benchmark'],
]

/** A light suffix stripper: enough to fold plurals and -ing/-ed forms of the catalogue's words. */
export function stem (word: string): string {
  if (word.length <= 3) return word
  if (word.endsWith('ies') && word.length > 4) return word.slice(0, -3) + 'y'
  if (word.endsWith('sses')) return word.slice(0, -2)
  if (word.endsWith('ing') && word.length > 5) return word.slice(0, -3)
  if (word.endsWith('ed') && word.length > 4) return word.slice(0, -2)
  if (word.endsWith('es') && /(ch|sh|x|ss)es$/.test(word)) return word.slice(0, -2)
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us')) return word.slice(0, -1)
  return word
}

const CANONICAL = new Map<string, string>()
for (const group of SYNONYM_GROUPS) for (const word of group) CANONICAL.set(stem(word.replace(/-/g, '')), group[0]!)

export function tokenize (text: string): string[] {
  const words = text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/e-mail/g, 'email')
    .split(/[^a-z0-9]+/)
    .filter(w => w.length > 1 && !STOPWORDS.has(w))
  return words.map(w => {
    const s = stem(w)
    return CANONICAL.get(s) ?? CANONICAL.get(w) ?? s
  })
}

interface IndexedTool { tool: AgentTool, terms: Map<string, number>, length: number }

const FIELD_WEIGHTS = { name: 3, title: 2, description: 1, examples: 1.5 }
const K1 = 1.2
const B = 0.75

export interface ToolMatch { tool: AgentTool, score: number }

export class ToolFinder {
  private readonly indexed: IndexedTool[]
  private readonly documentFrequency = new Map<string, number>()
  private readonly averageLength: number

  constructor (tools: AgentTool[]) {
    this.indexed = tools.map(tool => {
      const terms = new Map<string, number>()
      const add = (text: string, weight: number) => {
        for (const term of tokenize(text)) terms.set(term, (terms.get(term) ?? 0) + weight)
      }
      add(tool.name.replace(/_/g, ' '), FIELD_WEIGHTS.name)
      add(tool.title, FIELD_WEIGHTS.title)
      add(tool.description, FIELD_WEIGHTS.description)
      for (const ex of tool.examples) add(ex.task, FIELD_WEIGHTS.examples)
      let length = 0
      for (const n of terms.values()) length += n
      return { tool, terms, length }
    })
    for (const doc of this.indexed) for (const term of doc.terms.keys()) this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1)
    this.averageLength = this.indexed.reduce((sum, d) => sum + d.length, 0) / Math.max(1, this.indexed.length)
  }

  /** The best `limit` tools with a positive score, best first (ties by name, so the order is stable). */
  rank (task: string, limit: number): ToolMatch[] {
    const query = [...new Set(tokenize(task))]
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
      return { tool: doc.tool, score: Math.round(score * 1000) / 1000 }
    })
    return scored
      .filter(s => s.score > 0)
      .sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name))
      .slice(0, limit)
  }
}
