// POST /api/website-email/find: the synchronous website e-mail finder. It
// waits up to SYNC_WAIT_SECONDS and answers the site's row plus the job's
// outcome (job_id, status, error, blocked, refunded), done or failed.
import { Type, type ToolAlias, type TSchema } from '../../core/tools/contract.ts'
import { hostOf, websiteUrl } from '../lib/domains.ts'

const FindBody = Type.Object({
  website: Type.String({ minLength: 1, maxLength: 2000 }),
  max_pages: Type.Optional(Type.Integer({ minimum: 1 })),
  include_phones: Type.Optional(Type.Boolean()),
  include_socials: Type.Optional(Type.Boolean()),
})

/** The alias for a tool whose one row per site has the schema `row`. */
export function findAlias (row: TSchema & { properties: Record<string, TSchema> }): ToolAlias<typeof FindBody> {
  return {
    method: 'POST',
    path: '/api/website-email/find',
    summary: 'Find the public e-mails, phones and social links of one website, waiting for the crawl',
    body: FindBody,
    sync: {
      result: row,
      // A failed crawl answers the same shape with empty lists (the kernel adds the outcome).
      answer: (rows, body) => rows[0] ?? { website: body.website, domain: hostOf(websiteUrl(body.website)?.href ?? ''), pages_scanned: 0, emails: [], phones: [], socials: [], results: [], count: 0 },
    },
  }
}
