// Accounts, personal keys and scoped tokens.
import { randomUUID } from 'node:crypto'
import { DAY_MS, type Clock } from '../clock.ts'
import { newSecret, SecretBox, sha256Hex, type PasswordHasher } from '../crypto.ts'
import { badRequest, conflict, forbidden, notFound, tooManyRequests, unauthorized } from '../errors.ts'
import type { LoginThrottle } from './login-throttle.ts'
import type { Db } from '../db/database.ts'
import type { AccountRecord } from '../auth/principal.ts'
import { effectiveTier, PRO_ELIGIBLE_SIGNUPS, PRO_WINDOW_DAYS } from '../quotas/tiers.ts'

const MIN_PASSWORD = 8
const MAX_PASSWORD = 1024
// Pragmatic shape check: one @, a dotted domain, RFC 5321 lengths. Deliverability is the email tool's job.
const EMAIL_SHAPE = /^[^\s@"<>()[\]\\,;:]+@[^\s@"<>()[\]\\,;:]+\.[^\s@"<>()[\]\\,;:]{2,}$/
// C0 controls and DEL: PostgreSQL refuses NUL in text (a 500 there, stored as-is on SQLite).
const CONTROL = /[\u0000-\u001f\u007f]/
const CONTROLS = /[\u0000-\u001f\u007f]/g

/** A display name (account or token): no control characters, trimmed, at most 200 characters. */
const cleanName = (raw: string) => raw.replace(CONTROLS, '').trim().slice(0, 200)

function normaliseEmail (raw: string): string {
  const email = raw.trim().toLowerCase()
  const [local = '', domain = ''] = email.split('@')
  if (email.length > 254 || local.length > 64 || CONTROL.test(email) || !EMAIL_SHAPE.test(email) || domain.includes('..')) {
    throw badRequest('email is not a valid e-mail address.')
  }
  return email
}

function checkPassword (password: string, field: string): void {
  if (password.length < MIN_PASSWORD) throw badRequest(`${field} must be at least ${MIN_PASSWORD} characters.`)
  if (password.length > MAX_PASSWORD) throw badRequest(`${field} must be at most ${MAX_PASSWORD} characters.`)
}

export interface UserView {
  id: string
  email: string
  name: string
  tier: string
  pro_eligible: boolean
  pro_expires_at: string | null
  created_at: string
  api_key?: string
}

export interface ScopedTokenView {
  id: string
  name: string
  tools: string[]
  created_at: string
  expires_at: string | null
  revoked_at: string | null
  last_used_at: string | null
}

const iso = (d: Date | null) => (d ? d.toISOString() : null)

export class AccountService {
  private readonly box: SecretBox

  /** `passwords` bounds concurrent scrypt work; `logins` backs off failed logins per e-mail. */
  constructor (private readonly db: Db, private readonly clock: Clock, secretKey: string, private readonly passwords: PasswordHasher, private readonly logins: LoginThrottle) {
    this.box = new SecretBox(secretKey)
  }

  userView (account: AccountRecord, apiKey?: string): UserView {
    const view: UserView = {
      id: account.id,
      email: account.email,
      name: account.name,
      tier: effectiveTier(account, this.clock()),
      pro_eligible: account.proEligible,
      pro_expires_at: iso(account.proExpiresAt),
      created_at: account.createdAt.toISOString(),
    }
    if (apiKey !== undefined) view.api_key = apiKey
    return view
  }

  private newPersonalKey (accountId: string, now: Date) {
    const secret = newSecret('sk')
    return { secret, row: { id: randomUUID(), accountId, digest: sha256Hex(secret), encrypted: this.box.seal(secret), createdAt: now } }
  }

  async signup (input: { email: string, password: string, name?: string }): Promise<UserView> {
    const email = normaliseEmail(input.email)
    checkPassword(input.password, 'password')
    const name = cleanName(input.name ?? '')
    if (await this.db.account.findUnique({ where: { email }, select: { id: true } })) throw conflict('An account with this e-mail already exists.')
    const passwordHash = await this.passwords.hash(input.password)
    const now = this.clock()
    const id = randomUUID()
    const key = this.newPersonalKey(id, now)
    try {
      const account = await this.db.$transaction(async (tx) => {
        // The signup sequence decides pro_eligible; the row lock held until commit
        // makes concurrent signups take distinct numbers, and a failed insert rolls it back.
        await tx.$executeRaw`INSERT INTO counters (name, value) VALUES ('signups', 0) ON CONFLICT (name) DO NOTHING`
        const [{ value }] = await tx.$queryRaw<Array<{ value: number | bigint }>>`UPDATE counters SET value = value + 1 WHERE name = 'signups' RETURNING value`
        const signupNumber = Number(value)
        const created = await tx.account.create({
          data: { id, email, passwordHash, name, tier: 'registered', signupNumber, proEligible: signupNumber <= PRO_ELIGIBLE_SIGNUPS, createdAt: now, updatedAt: now },
        })
        await tx.personalKey.create({ data: key.row })
        return created
      })
      return this.userView(account, key.secret)
    } catch (err) {
      if ((err as { code?: string }).code === 'P2002') throw conflict('An account with this e-mail already exists.')
      throw err
    }
  }

  async login (input: { email: string, password: string }): Promise<{ apiKey: string, user: UserView }> {
    const email = input.email.trim().toLowerCase()
    // Checked before any lookup or scrypt run, for known and unknown e-mails alike.
    const wait = this.logins.retryAfter(email)
    if (wait > 0) throw tooManyRequests(`Too many failed logins for this e-mail address; retry in ${wait} s.`, wait)
    const account = email.length <= 254 && !CONTROL.test(email) ? await this.db.account.findUnique({ where: { email } }) : null
    // Verify against a decoy when the e-mail is unknown, so timing does not tell which part was wrong.
    const ok = await this.passwords.verify(input.password, account?.passwordHash ?? this.passwords.decoyHash)
    if (!account || !ok) {
      this.logins.failed(email)
      throw unauthorized('Wrong e-mail or password.')
    }
    this.logins.succeeded(email)
    const key = await this.db.personalKey.findFirst({ where: { accountId: account.id, revokedAt: null }, orderBy: { createdAt: 'desc' } })
    let apiKey: string
    if (key) {
      apiKey = this.box.open(key.encrypted)
    } else {
      const fresh = this.newPersonalKey(account.id, this.clock())
      await this.db.personalKey.create({ data: fresh.row })
      apiKey = fresh.secret
    }
    return { apiKey, user: this.userView(account, apiKey) }
  }

  /** Writes a lapsed Pro window back as `registered` (reads already treat it so). */
  async settleTier (account: AccountRecord): Promise<AccountRecord> {
    if (account.tier === 'pro' && effectiveTier(account, this.clock()) !== 'pro') {
      return this.db.account.update({ where: { id: account.id }, data: { tier: 'registered', updatedAt: this.clock() } })
    }
    return account
  }

  async update (accountId: string, input: { name?: string, current_password?: string, new_password?: string }): Promise<UserView> {
    const account = await this.db.account.findUnique({ where: { id: accountId } })
    if (!account) throw notFound('Account not found.')
    const data: { name?: string, passwordHash?: string, updatedAt: Date } = { updatedAt: this.clock() }
    if (input.name !== undefined) data.name = cleanName(input.name)
    if (input.new_password !== undefined) {
      if (input.current_password === undefined) throw forbidden('Changing the password needs the correct current_password.')
      // A password check like a login's: the same per-address backoff, so a leaked key is no way to guess the password.
      const wait = this.logins.retryAfter(account.email)
      if (wait > 0) throw tooManyRequests(`Too many wrong passwords for this account; retry in ${wait} s.`, wait)
      if (!(await this.passwords.verify(input.current_password, account.passwordHash))) {
        this.logins.failed(account.email)
        throw forbidden('Changing the password needs the correct current_password.')
      }
      this.logins.succeeded(account.email)
      checkPassword(input.new_password, 'new_password')
      data.passwordHash = await this.passwords.hash(input.new_password)
    }
    const updated = await this.db.account.update({ where: { id: accountId }, data })
    return this.userView(updated)
  }

  /** Issues a new personal key; every earlier key stops working at once. */
  async regenerateKey (accountId: string): Promise<string> {
    const now = this.clock()
    const key = this.newPersonalKey(accountId, now)
    await this.db.$transaction([
      // Touching the account row first takes its lock: concurrent rotations run one after the
      // other, so the second revokes the first's new key (else both new keys stay valid on PostgreSQL).
      this.db.account.update({ where: { id: accountId }, data: { updatedAt: now } }),
      this.db.personalKey.updateMany({ where: { accountId, revokedAt: null }, data: { revokedAt: now } }),
      this.db.personalKey.create({ data: key.row }),
    ])
    return key.secret
  }

  async claimPro (accountId: string): Promise<UserView> {
    const now = this.clock()
    const expires = new Date(now.getTime() + PRO_WINDOW_DAYS * DAY_MS)
    // One conditional update: a second claim, even a concurrent one, finds nothing to change.
    const { count } = await this.db.account.updateMany({
      where: { id: accountId, proEligible: true, proClaimedAt: null },
      data: { tier: 'pro', proEligible: false, proClaimedAt: now, proExpiresAt: expires, updatedAt: now },
    })
    if (count === 0) throw forbidden('This account cannot claim Pro: the trial is for the first 100 signups and can be claimed once.')
    const account = await this.db.account.findUniqueOrThrow({ where: { id: accountId } })
    return this.userView(account)
  }

  async mintScopedToken (accountId: string, input: { name: string, tools: string[], expiresInDays?: number }): Promise<{ token: string, view: ScopedTokenView }> {
    const now = this.clock()
    const secret = newSecret('scp')
    const row = await this.db.scopedToken.create({
      data: {
        id: randomUUID(),
        accountId,
        name: cleanName(input.name),
        digest: sha256Hex(secret),
        tools: JSON.stringify([...new Set(input.tools)]),
        createdAt: now,
        expiresAt: input.expiresInDays ? new Date(now.getTime() + input.expiresInDays * DAY_MS) : null,
      },
    })
    return { token: secret, view: this.tokenView(row) }
  }

  tokenView (row: { id: string, name: string, tools: string, createdAt: Date, expiresAt: Date | null, revokedAt: Date | null, lastUsedAt: Date | null }): ScopedTokenView {
    return { id: row.id, name: row.name, tools: JSON.parse(row.tools), created_at: row.createdAt.toISOString(), expires_at: iso(row.expiresAt), revoked_at: iso(row.revokedAt), last_used_at: iso(row.lastUsedAt) }
  }

  async listScopedTokens (accountId: string): Promise<ScopedTokenView[]> {
    const rows = await this.db.scopedToken.findMany({ where: { accountId }, orderBy: { createdAt: 'desc' } })
    return rows.map(r => this.tokenView(r))
  }

  async revokeScopedToken (accountId: string, id: string): Promise<void> {
    if (CONTROL.test(id)) throw notFound('No such token.')
    const { count } = await this.db.scopedToken.updateMany({ where: { id, accountId, revokedAt: null }, data: { revokedAt: this.clock() } })
    if (count === 0) {
      const exists = await this.db.scopedToken.findFirst({ where: { id, accountId }, select: { id: true } })
      if (!exists) throw notFound('No such token.')
    }
  }
}
