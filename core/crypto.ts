// Secrets: key generation, lookup digests, the encrypted recoverable copy of
// personal keys, password hashing, and comparisons that take constant time.
import { createCipheriv, createDecipheriv, createHash, hash, randomBytes, scrypt, timingSafeEqual, type BinaryLike, type ScryptOptions } from 'node:crypto'
import { unavailable } from './errors.ts'
import { Semaphore } from './semaphore.ts'

// Node's one-shot hash: every authenticated request digests its key, and a Hash object cost twice the time.
export const sha256Hex = (value: string) => hash('sha256', value, 'hex')

/** A fresh secret with a recognisable prefix: `sk-…`, `scp-…`. 32 random bytes. */
export const newSecret = (prefix: string) => `${prefix}-${randomBytes(32).toString('base64url')}`

/** Constant-time equality of two strings (compares digests, so lengths never leak). */
export function safeEqual (a: string, b: string): boolean {
  return timingSafeEqual(hash('sha256', a, 'buffer'), hash('sha256', b, 'buffer'))
}

/** Constant-time equality of two `sha256Hex` digests (no hashing again: they are fixed-length already). */
export function digestsEqual (a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a, 'latin1'), Buffer.from(b, 'latin1'))
}

/** AES-256-GCM with a key derived from SECRET_KEY; output `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export class SecretBox {
  private readonly key: Buffer
  constructor (secret: string) {
    this.key = createHash('sha256').update(`extraction-jobs:secret-box:${secret}`).digest()
  }

  seal (plain: string): string {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.key, iv)
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.')
  }

  open (sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.')
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unrecognised sealed value')
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
  }
}

const scryptAsync = (password: BinaryLike, salt: BinaryLike, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scrypt(password, salt, keylen, options, (err, key) => err ? reject(err) : resolve(key)))

/** scrypt's cost parameters: N (CPU and memory), r (block size), p (parallelism). */
export interface ScryptCost { N: number, r: number, p: number }

/** The cost of every password hash the service stores (16 MiB, ≈ 50–100 ms of one core). */
export const PASSWORD_SCRYPT: ScryptCost = { N: 16384, r: 8, p: 1 }
const SCRYPT_KEYLEN = 64

/** scrypt with a random salt; the parameters travel with the hash so they can be raised later. */
async function hashPassword (password: string, cost: ScryptCost = PASSWORD_SCRYPT): Promise<string> {
  const salt = randomBytes(16)
  const key = await scryptAsync(password.normalize('NFKC'), salt, SCRYPT_KEYLEN, { ...cost, maxmem: 64 * 1024 * 1024 })
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

export async function verifyPassword (password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64url')
  const actual = await scryptAsync(password.normalize('NFKC'), Buffer.from(salt, 'base64url'), expected.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: 64 * 1024 * 1024 })
  return timingSafeEqual(actual, expected)
}

/** A hash of a password nobody has, at `cost`, so login spends the same time whether or not the e-mail exists. */
const decoyPasswordHash = (cost: ScryptCost) =>
  `scrypt$${cost.N}$${cost.r}$${cost.p}$AAAAAAAAAAAAAAAAAAAAAA$` + Buffer.alloc(SCRYPT_KEYLEN).toString('base64url')

/**
 * Bounds concurrent password hashing. Each scrypt run takes 16 MiB and a libuv
 * thread for tens of milliseconds; unbounded, a burst of logins or signups
 * fills the thread pool (which DNS lookups and file reads share) and memory.
 * At most `concurrency` run at once, at most `queue` wait; past that the
 * request is answered 503 with Retry-After at once instead of piling up.
 */
export class PasswordHasher {
  private readonly slots: Semaphore
  /** What login checks an unknown e-mail's password against (same cost as a real hash). */
  readonly decoyHash: string

  /** `cost` other than PASSWORD_SCRYPT only from tests (ServicesOptions.passwordCost): never a setting. */
  constructor (concurrency: number, queue: number, private readonly cost: ScryptCost = PASSWORD_SCRYPT) {
    this.slots = new Semaphore(concurrency, queue)
    this.decoyHash = decoyPasswordHash(cost)
  }

  hash (password: string): Promise<string> { return this.gated(() => hashPassword(password, this.cost)) }

  verify (password: string, stored: string): Promise<boolean> { return this.gated(() => verifyPassword(password, stored)) }

  private async gated<T> (work: () => Promise<T>): Promise<T> {
    if (this.slots.full) throw unavailable('Too many passwords are being checked right now; retry in a moment.', 1)
    return this.slots.run(work)
  }
}
