// An SMTP client that asks a mail server whether it would accept a recipient,
// and never sends a message: banner, EHLO (HELO fallback), STARTTLS when
// offered, MAIL FROM, RCPT TO, RSET between recipients, QUIT. There is no
// DATA or BDAT method, and send() refuses them, so no mail can ever be sent.
import net from 'node:net'
import tls from 'node:tls'
import { StringDecoder } from 'node:string_decoder'
import { setTimeout as sleep } from 'node:timers/promises'

// ---------------------------------------------------------------- replies

export interface SmtpReply {
  code: number
  /** RFC 3463 enhanced status code from the first line ("5.1.1"), or null. */
  enhanced: string | null
  /** The text of each line, without code and separator. */
  lines: string[]
  /** The lines joined with a space. */
  text: string
}

const REPLY_LINE_RE = /^([2-5][0-9][0-9])([ -]|$)(.*)$/
const ENHANCED_RE = /^([245]\.[0-9]{1,3}\.[0-9]{1,3})\b/
// A hostile or broken server could stream bytes without a line end forever.
const MAX_PENDING_CHARS = 64 * 1024
const MAX_REPLY_LINES = 1000

/**
 * Splits a byte stream into SMTP replies (RFC 5321 section 4.2): "250-..."
 * continues a reply, "250 ..." (or a bare "250") ends it. Lines end in CRLF;
 * a lone LF is tolerated because some servers send it.
 */
export class SmtpReplyParser {
  private pending = ''
  private lines: string[] = []
  private code = 0

  /** Feeds text; returns the replies completed by it. Throws on a malformed line. */
  push (chunk: string): SmtpReply[] {
    this.pending += chunk
    const done: SmtpReply[] = []
    let newline: number
    while ((newline = this.pending.indexOf('\n')) !== -1) {
      const line = this.pending.slice(0, newline).replace(/\r$/, '')
      this.pending = this.pending.slice(newline + 1)
      const m = REPLY_LINE_RE.exec(line)
      if (!m) throw new SmtpProtocolError(`malformed reply line: ${JSON.stringify(line.slice(0, 200))}`)
      const code = Number(m[1])
      if (this.lines.length > 0 && code !== this.code) throw new SmtpProtocolError(`reply code changed from ${this.code} to ${code} inside a multi-line reply`)
      this.code = code
      this.lines.push(m[3])
      if (this.lines.length > MAX_REPLY_LINES) throw new SmtpProtocolError('reply has too many lines')
      if (m[2] !== '-') {
        const enhanced = ENHANCED_RE.exec(this.lines[0])?.[1] ?? null
        done.push({ code, enhanced, lines: this.lines, text: this.lines.join(' ').trim() })
        this.lines = []
        this.code = 0
      }
    }
    if (this.pending.length > MAX_PENDING_CHARS) throw new SmtpProtocolError('reply line too long')
    return done
  }
}

/** EHLO keywords (RFC 5321 section 4.1.1.1): the lines after the greeting, upper-cased keyword → parameters. */
export function parseEhloExtensions (reply: SmtpReply): Map<string, string> {
  const extensions = new Map<string, string>()
  for (const line of reply.lines.slice(1)) {
    const [keyword, ...params] = line.trim().split(/\s+/)
    if (keyword) extensions.set(keyword.toUpperCase(), params.join(' '))
  }
  return extensions
}

// ---------------------------------------------------------------- errors

export type SmtpFailureKind = 'connect' | 'timeout' | 'closed' | 'protocol' | 'rejected' | 'tls' | 'aborted'

export class SmtpError extends Error {
  constructor (message: string, readonly kind: SmtpFailureKind, readonly reply: SmtpReply | null = null) {
    super(message)
    this.name = 'SmtpError'
  }
}

class SmtpProtocolError extends SmtpError {
  constructor (message: string) {
    super(message, 'protocol')
    this.name = 'SmtpProtocolError'
  }
}

// ---------------------------------------------------------------- session

export interface SmtpSessionOptions {
  /** The IP to connect to (already checked against the network policy). */
  address: string
  port: number
  /** The MX host name: TLS SNI, and how the session is described. */
  hostname: string
  heloName: string
  connectTimeoutMs: number
  commandTimeoutMs: number
  /** Upgrade with STARTTLS when the server offers it. */
  startTls: boolean
  signal?: AbortSignal
}

type Waiter = { resolve: (r: SmtpReply) => void, reject: (e: Error) => void, timer: NodeJS.Timeout }

export class SmtpSession {
  banner: SmtpReply | null = null
  /** EHLO keywords after the last EHLO; empty after a HELO fallback. */
  extensions = new Map<string, string>()
  /** 'EHLO' or 'HELO': which greeting the server accepted. */
  greeting: 'EHLO' | 'HELO' | null = null
  tls = false
  /** Whether the server's certificate verified (recorded, never required: see upgradeToTls). */
  tlsAuthorized: boolean | null = null
  tlsError: string | null = null
  /** Every command sent, in order: the transcript kept for the row's checks and for tests. */
  readonly sent: string[] = []
  private socket: net.Socket | tls.TLSSocket | null = null
  private parser = new SmtpReplyParser()
  private decoder = new StringDecoder('utf8')
  private queue: SmtpReply[] = []
  private waiters: Waiter[] = []
  private failure: SmtpError | null = null
  private inTransaction = false
  private readonly onAbort = () => this.fail(new SmtpError('aborted', 'aborted'))

  private constructor (readonly options: SmtpSessionOptions) {}

  /**
   * Connects, reads the banner, greets, and upgrades with STARTTLS when offered.
   * A failed TLS handshake is retried once on a fresh plain connection, as an
   * MTA doing opportunistic TLS would (RFC 3207 section 4.1); the session then
   * records tlsError.
   */
  static async open (options: SmtpSessionOptions): Promise<SmtpSession> {
    const session = new SmtpSession(options)
    try {
      await session.start()
      return session
    } catch (err) {
      session.destroy()
      if (err instanceof SmtpError && err.kind === 'tls' && options.startTls) {
        const plain = await SmtpSession.open({ ...options, startTls: false })
        plain.tlsError = err.message
        return plain
      }
      throw err
    }
  }

  get closed (): boolean { return this.failure !== null }
  get closeReason (): SmtpError | null { return this.failure }

  private async start (): Promise<void> {
    const { signal } = this.options
    if (signal?.aborted) throw new SmtpError('aborted', 'aborted')
    signal?.addEventListener('abort', this.onAbort, { once: true })
    await this.connect()
    const banner = await this.read()
    this.banner = banner
    // RFC 5321 section 3.1: 554 instead of 220 means "no SMTP service here".
    if (banner.code !== 220) throw new SmtpError(`banner ${banner.code} ${banner.text}`, 'rejected', banner)
    await this.greet()
    if (this.options.startTls && this.extensions.has('STARTTLS')) {
      const reply = await this.send('STARTTLS')
      // A refusal (454 "TLS not available") leaves the plain session usable.
      if (reply.code === 220) {
        await this.upgradeToTls()
        // RFC 3207 section 4.2: forget everything learnt before TLS and greet again.
        await this.greet()
      }
    }
  }

  private connect (): Promise<void> {
    const { address, port, connectTimeoutMs } = this.options
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: address, port })
      this.socket = socket
      const timer = setTimeout(() => {
        socket.destroy()
        reject(new SmtpError(`connect to ${address}:${port} timed out after ${connectTimeoutMs} ms`, 'timeout'))
      }, connectTimeoutMs)
      socket.once('connect', () => {
        clearTimeout(timer)
        socket.off('error', onConnectError)
        this.attach(socket)
        resolve()
      })
      const onConnectError = (err: Error) => {
        clearTimeout(timer)
        reject(new SmtpError(`connect to ${address}:${port}: ${(err as NodeJS.ErrnoException).code ?? err.message}`, 'connect'))
      }
      socket.once('error', onConnectError)
    })
  }

  private readonly onData = (chunk: Buffer) => {
    try {
      for (const reply of this.parser.push(this.decoder.write(chunk))) {
        const waiter = this.waiters.shift()
        if (waiter) {
          clearTimeout(waiter.timer)
          waiter.resolve(reply)
        } else {
          this.queue.push(reply)
        }
      }
    } catch (err) {
      this.fail(err instanceof SmtpError ? err : new SmtpProtocolError(String(err)))
    }
  }

  private readonly onClose = () => this.fail(new SmtpError('the server closed the connection', 'closed'))
  private readonly onError = (err: Error) => this.fail(new SmtpError(`socket error: ${(err as NodeJS.ErrnoException).code ?? err.message}`, 'closed'))

  private attach (socket: net.Socket | tls.TLSSocket): void {
    socket.on('data', this.onData)
    socket.on('close', this.onClose)
    socket.on('error', this.onError)
  }

  private detach (socket: net.Socket | tls.TLSSocket): void {
    socket.off('data', this.onData)
    socket.off('close', this.onClose)
    socket.off('error', this.onError)
  }

  private fail (error: SmtpError): void {
    if (!this.failure) this.failure = error
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer)
      waiter.reject(this.failure)
    }
    this.socket?.destroy()
  }

  /** The next reply, or a timeout that kills the session (late replies would desynchronise it). */
  private read (): Promise<SmtpReply> {
    const queued = this.queue.shift()
    if (queued) return Promise.resolve(queued)
    if (this.failure) return Promise.reject(this.failure)
    const { commandTimeoutMs } = this.options
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter(w => w !== waiter)
          const error = new SmtpError(`no reply within ${commandTimeoutMs} ms`, 'timeout')
          reject(error)
          this.fail(error)
        }, commandTimeoutMs),
      }
      this.waiters.push(waiter)
    })
  }

  /** Sends one command line and reads its reply. */
  async send (command: string): Promise<SmtpReply> {
    // This client verifies addresses; it must never be able to send a message.
    if (/^\s*(DATA|BDAT)\b/i.test(command)) throw new Error('SmtpSession refuses to send DATA or BDAT: it only probes recipients')
    // A CR or LF inside an address would smuggle a second command.
    if (/[\r\n]/.test(command)) throw new Error('SMTP command contains a line break')
    if (this.failure) throw this.failure
    this.sent.push(command)
    this.socket!.write(`${command}\r\n`)
    return this.read()
  }

  private async greet (): Promise<void> {
    const ehlo = await this.send(`EHLO ${this.options.heloName}`)
    if (ehlo.code === 250) {
      this.greeting = 'EHLO'
      this.extensions = parseEhloExtensions(ehlo)
      return
    }
    // RFC 5321 section 3.2: a server that does not know EHLO answers 500/502;
    // fall back to HELO, which has no extensions (so no STARTTLS either).
    const helo = await this.send(`HELO ${this.options.heloName}`)
    if (helo.code !== 250) throw new SmtpError(`EHLO and HELO refused: ${helo.code} ${helo.text}`, 'rejected', helo)
    this.greeting = 'HELO'
    this.extensions = new Map()
  }

  private async upgradeToTls (): Promise<void> {
    const raw = this.socket as net.Socket
    this.detach(raw)
    // RFC 3207 section 4.2 (and CVE-2011-0411): anything the server sent after
    // its 220 but before the handshake is plaintext injection; discard it.
    this.queue = []
    this.parser = new SmtpReplyParser()
    this.decoder = new StringDecoder('utf8')
    const { hostname, commandTimeoutMs } = this.options
    const secured = await new Promise<tls.TLSSocket>((resolve, reject) => {
      const socket = tls.connect({
        socket: raw,
        servername: net.isIP(hostname) ? undefined : hostname,
        // We only ask whether a recipient exists and never send message
        // content, so certificate authentication protects nothing here. MX
        // certificates are often self-signed or for another name, and SMTP
        // STARTTLS between MTAs is opportunistic (RFC 3207 section 4.1, RFC
        // 7435): refusing such servers would lose the answer and gain nothing.
        // Whether it verified is recorded in tlsAuthorized.
        rejectUnauthorized: false,
      })
      const timer = setTimeout(() => {
        socket.destroy()
        reject(new SmtpError(`TLS handshake timed out after ${commandTimeoutMs} ms`, 'tls'))
      }, commandTimeoutMs)
      socket.once('secureConnect', () => {
        clearTimeout(timer)
        socket.off('error', onHandshakeError)
        resolve(socket)
      })
      const onHandshakeError = (err: Error) => {
        clearTimeout(timer)
        reject(new SmtpError(`TLS handshake failed: ${(err as NodeJS.ErrnoException).code ?? err.message}`, 'tls'))
      }
      socket.once('error', onHandshakeError)
    })
    this.socket = secured
    this.tls = true
    this.tlsAuthorized = secured.authorized
    this.attach(secured)
  }

  /** MAIL FROM (with SMTPUTF8 when asked), after an RSET if a transaction is open. */
  async mailFrom (reversePath: string, options: { smtpUtf8?: boolean } = {}): Promise<SmtpReply> {
    await this.resetIfNeeded()
    const reply = await this.send(`MAIL FROM:<${reversePath}>${options.smtpUtf8 ? ' SMTPUTF8' : ''}`)
    this.inTransaction = reply.code === 250
    return reply
  }

  async rcptTo (forwardPath: string): Promise<SmtpReply> {
    return this.send(`RCPT TO:<${forwardPath}>`)
  }

  /**
   * RSET between recipients: each address gets its own transaction, so one
   * rejection cannot poison the next, and servers that limit recipients per
   * transaction (or refuse several with a null sender) answer each fairly.
   */
  private async resetIfNeeded (): Promise<void> {
    if (!this.inTransaction) return
    const reply = await this.send('RSET')
    if (reply.code !== 250) throw new SmtpError(`RSET refused: ${reply.code} ${reply.text}`, 'rejected', reply)
    this.inTransaction = false
  }

  /** QUIT politely (short wait for 221), then close. Never throws. */
  async quit (): Promise<void> {
    if (!this.failure && this.socket) {
      try {
        this.sent.push('QUIT')
        this.socket.write('QUIT\r\n')
        await Promise.race([this.read(), sleep(Math.min(2000, this.options.commandTimeoutMs), undefined, { ref: false })])
      } catch {
        // The server may close before answering QUIT; the session is over either way.
      }
    }
    this.destroy()
  }

  destroy (): void {
    this.options.signal?.removeEventListener('abort', this.onAbort)
    if (!this.failure) this.failure = new SmtpError('session closed', 'closed')
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer)
      waiter.reject(this.failure)
    }
    this.socket?.destroy()
  }
}

// ---------------------------------------------------------------- probing

export interface RecipientProbe {
  /** Which command gave the final answer. */
  stage: 'mail_from' | 'rcpt_to'
  code: number
  enhanced: string | null
  message: string
  /** A 4xx was seen at some attempt (greylisting or another temporary refusal). */
  greylisted: boolean
  attempts: number
}

export interface ProbeOptions {
  /** The reverse-path; '' is the null sender <>. */
  mailFrom: string
  smtpUtf8: boolean
  /** Extra attempts after a 4xx, each after retryDelayMs. */
  retries: number
  retryDelayMs: number
  signal?: AbortSignal
}

const isTemporary = (code: number) => code >= 400 && code < 500

/**
 * One transaction per attempt: [RSET,] MAIL FROM, RCPT TO. A 4xx (greylisting,
 * RFC 6647) is retried up to `retries` times after `retryDelayMs` on the same
 * session. A 421 means the server is closing; that is not retried here, and
 * the caller sees a closed session.
 */
export async function probeRecipient (session: SmtpSession, recipient: string, options: ProbeOptions): Promise<RecipientProbe> {
  let greylisted = false
  for (let attempt = 1; ; attempt++) {
    const from = await session.mailFrom(options.mailFrom, { smtpUtf8: options.smtpUtf8 })
    let answer: { stage: RecipientProbe['stage'], reply: SmtpReply } = { stage: 'mail_from', reply: from }
    if (from.code === 250) answer = { stage: 'rcpt_to', reply: await session.rcptTo(recipient) }
    const { code } = answer.reply
    if (code === 421) throw new SmtpError(`server closing: ${answer.reply.text}`, 'closed', answer.reply)
    if (isTemporary(code)) greylisted = true
    if (!isTemporary(code) || attempt > options.retries) {
      return { stage: answer.stage, code, enhanced: answer.reply.enhanced, message: answer.reply.text, greylisted, attempts: attempt }
    }
    await sleep(options.retryDelayMs, undefined, { signal: options.signal })
  }
}
