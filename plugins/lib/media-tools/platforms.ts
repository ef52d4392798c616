// The link forms each media tool accepts, as JSON-schema patterns: the kernel
// checks them with the input schema, so a link of the wrong platform is a 400
// before anything is charged (and the agent's schema says what fits).
import { OneOrMany, PatternString } from '../../../core/tools/contract.ts'

export interface Platform {
  /** Shown in descriptions and errors ("YouTube"). */
  name: string
  /** Registrable domains whose hosts (and subdomains) the tool takes. */
  domains: string[]
}

export const PLATFORMS = {
  youtube: { name: 'YouTube', domains: ['youtube.com', 'youtu.be', 'youtube-nocookie.com'] },
  instagram: { name: 'Instagram', domains: ['instagram.com', 'instagr.am'] },
  tiktok: { name: 'TikTok', domains: ['tiktok.com'] },
  facebook: { name: 'Facebook', domains: ['facebook.com', 'fb.watch', 'fb.com'] },
  snapchat: { name: 'Snapchat', domains: ['snapchat.com'] },
} satisfies Record<string, Platform>

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * An http(s) link on one of the platform's hosts: any subdomain (www., m.,
 * vm.), an optional port, then a path, query or nothing. Lower-case host, as
 * every share button writes it. The port is allowed because it is harmless
 * (yt-dlp still refuses what it cannot read) and lets the offline tests point
 * a platform name at a local fixture through the egress proxy.
 */
export function platformUrlPattern (platform: Platform): string {
  return `^https?://([a-z0-9-]+\\.)*(${platform.domains.map(escape).join('|')})(:[0-9]{1,5})?([/?#][^\\s]*)?$`
}

/** The `url` param: one link or a list of them, each of the platform. */
export function platformUrlInput (platform: Platform, options: { maxItems: number, what: string }) {
  const one = PatternString(platformUrlPattern(platform), `must be a ${platform.name} link (http or https, on ${platform.domains.join(', ')})`, { minLength: 1, maxLength: 2000 })
  return OneOrMany(one, {
    maxItems: options.maxItems,
    description: `A ${platform.name} link (${options.what}; http or https, on ${platform.domains.join(', ')}), or a list of up to ${options.maxItems}: each row names the link it came from in input_url.`,
  })
}
