// The egress proxy: the only way out for the media programs ctx.exec runs.
// yt-dlp and ffmpeg open their own sockets, out of ctx.http's reach; pointed at
// this local HTTP forward proxy (plain requests in absolute form, CONNECT
// tunnels for TLS), every target they ask for is resolved, vetted and pinned by
// the same network policy ctx.http applies (core/net/network-policy.ts).
//
// - It listens on 127.0.0.1, on a free port, from the first run that needs it,
//   one per app, closed with the app.
// - Every request must carry a Proxy-Authorization (Basic, the password is the
//   token) minted for one exec run, so only our children use it and each
//   connection belongs to a job: the run's end or its job's signal cuts them all.
// - A refused target answers 403 (the refusal is kept for the run, which then
//   fails with the guard's BlockedTargetError); a missing or wrong token 407,
//   with `Proxy-Authenticate: Basic` (ffmpeg only sends credentials after that).
// - With the operator's proxies (PROXY_URLS), each connection goes on through
//   the one the run's chooser picks (http, https, socks4/4a, socks5; its
//   job's, so yt-dlp and ffmpeg rotate or stick like every other request, and a
//   proxy that fails counts against its health): the outer proxy resolves the
//   target, so it is vetted here just before, unpinned, as ctx.http does.
// - Bytes through the run's connections (both ways) are counted against its cap.
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { connect as netConnect, isIP, type Socket } from 'node:net'
import { connect as tlsConnect } from 'node:tls'
import { randomBytes } from 'node:crypto'
import type { Duplex } from 'node:stream'
import type { Logger } from 'pino'
import { BlockedTargetError, UpstreamError } from '../tools/contract.ts'
import { vetTarget, type HostLookup, type ResolvedAddress, type TargetPolicy } from '../net/network-policy.ts'
import { describeNetworkFailure } from '../net/public-errors.ts'
import type { ProxyChooser } from '../net/proxy-pool.ts'

const CONNECT_TIMEOUT_MS = 30_000
// Hop-by-hop headers (RFC 9110 7.6.1) and our own credential: never forwarded.
const HOP_HEADERS = new Set(['proxy-authorization', 'proxy-connection', 'connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-authenticate'])

export interface EgressProxyOptions {
  policy: TargetPolicy
  lookup: HostLookup
  logger?: Logger
}

/** One exec run's right to use the proxy. */
export interface EgressGrant {
  /** `http://run:<token>@127.0.0.1:<port>`, for the proxy variables of a run's environment. */
  readonly proxyUrl: string
  /** The guard's refusals during this run (the run reports the first). */
  readonly refused: BlockedTargetError[]
  /** Bytes through this run's connections, both ways. */
  readonly bytes: number
  /** The cap on `bytes`. */
  readonly maxBytes: number
  /** The run went past its byte cap (its connections were cut). */
  readonly capExceeded: boolean
  /** Ends the grant: its token stops working and its open connections are cut. */
  revoke (): void
}

interface GrantState {
  signal: AbortSignal
  maxBytes: number
  bytes: number
  capExceeded: boolean
  refused: BlockedTargetError[]
  sockets: Set<Duplex>
  /** The job's outbound proxies, or null: connections go to the vetted address. */
  proxies: ProxyChooser | null
}

export class EgressProxy {
  private server: Server | null = null
  private listening: Promise<number> | null = null
  private ownPort = 0
  private readonly grants = new Map<string, GrantState>()
  constructor (private readonly options: EgressProxyOptions) {}

  /** The port it listens on, starting it on first use. */
  port (): Promise<number> {
    this.listening ??= new Promise<number>((resolve, reject) => {
      // Every failure inside is answered; one that escapes still only ends that exchange.
      const server = createServer((req, res) => { this.forward(req, res).catch(() => res.destroy()) })
      server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => { this.tunnel(req, socket, head).catch(() => socket.destroy()) })
      // A client that breaks its connection must not reach the process's error handler.
      server.on('clientError', (_err, socket) => { socket.destroy() })
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject)
        this.server = server
        this.ownPort = (server.address() as { port: number }).port
        resolve(this.ownPort)
      })
    })
    // A failed start is retried by the next run rather than remembered.
    this.listening.catch(() => { this.listening = null })
    return this.listening
  }

  /** A token for one run: valid until revoked or until `signal` fires; its connections go through `proxies` when given. */
  async grant (signal: AbortSignal, maxBytes: number, proxies: ProxyChooser | null = null): Promise<EgressGrant> {
    const port = await this.port()
    const token = randomBytes(24).toString('base64url')
    const state: GrantState = { signal, maxBytes, bytes: 0, capExceeded: false, refused: [], sockets: new Set(), proxies }
    this.grants.set(token, state)
    const revoke = () => {
      this.grants.delete(token)
      signal.removeEventListener('abort', revoke)
      for (const socket of state.sockets) socket.destroy()
      state.sockets.clear()
    }
    signal.addEventListener('abort', revoke, { once: true })
    if (signal.aborted) revoke()
    return {
      proxyUrl: `http://run:${token}@127.0.0.1:${port}`,
      refused: state.refused,
      get bytes () { return state.bytes },
      maxBytes,
      get capExceeded () { return state.capExceeded },
      revoke,
    }
  }

  /** A proxy URL no request can pass (a token never minted): for runs without network. */
  async refusingUrl (): Promise<string> {
    return `http://run:none@127.0.0.1:${await this.port()}`
  }

  async close (): Promise<void> {
    for (const state of this.grants.values()) for (const socket of state.sockets) socket.destroy()
    this.grants.clear()
    const server = this.server
    if (!server) return
    this.server = null
    await new Promise<void>(resolve => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  }

  private authenticate (req: IncomingMessage): GrantState | null {
    const header = req.headers['proxy-authorization']
    const match = typeof header === 'string' ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null
    if (!match) return null
    const decoded = Buffer.from(match[1], 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    const token = colon >= 0 ? decoded.slice(colon + 1) : decoded
    const state = this.grants.get(token)
    return state && !state.signal.aborted ? state : null
  }

  /** Ties a socket to the grant: revoking it (the run's end, the job's signal, the cap) destroys the socket. */
  private register (state: GrantState, socket: Duplex): void {
    if (state.sockets.has(socket)) return
    state.sockets.add(socket)
    socket.once('close', () => state.sockets.delete(socket))
  }

  /** Counts bytes through the grant's connections and cuts them all past its cap. */
  private count (state: GrantState, bytes: number): void {
    state.bytes += bytes
    if (state.bytes > state.maxBytes && !state.capExceeded) {
      state.capExceeded = true
      for (const socket of state.sockets) socket.destroy()
    }
  }

  /** Vets the target like ctx.http; records a refusal on the grant. */
  private async vet (state: GrantState, host: string, port: number): Promise<ResolvedAddress[]> {
    try {
      const addresses = await vetTarget(this.options.policy, this.options.lookup, host, port)
      // With private targets allowed, a tunnel to the proxy itself would loop.
      if (port === this.ownPort && addresses.some(a => /^(127\.|::1$|::ffff:127\.)/.test(a.address))) {
        throw new BlockedTargetError(host, 'that is the egress proxy itself')
      }
      return addresses
    } catch (err) {
      if (err instanceof BlockedTargetError) state.refused.push(err)
      throw err
    }
  }

  /** CONNECT host:port: a TCP tunnel to a vetted target. */
  private async tunnel (req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy())
    const state = this.authenticate(req)
    if (!state) return refuseSocket(client, 407)
    const target = parseAuthority(req.url ?? '')
    if (!target) return refuseSocket(client, 400, 'CONNECT needs host:port')
    this.register(state, client)
    let upstream: Socket
    try {
      const addresses = await this.vet(state, target.host, target.port)
      upstream = await this.open(target.host, target.port, addresses, state)
    } catch (err) {
      return refuseSocket(client, err instanceof BlockedTargetError ? 403 : 502, publicText(err))
    }
    if (client.destroyed) return void upstream.destroy()
    this.register(state, upstream)
    upstream.on('error', () => client.destroy())
    upstream.on('close', () => client.destroy())
    client.on('close', () => upstream.destroy())
    // Counted as they flow: attached right before the pipes, so no byte is read before them.
    upstream.on('data', (chunk: Buffer) => this.count(state, chunk.length))
    client.on('data', (chunk: Buffer) => this.count(state, chunk.length))
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
    if (head.length > 0) {
      this.count(state, head.length)
      upstream.write(head)
    }
    upstream.pipe(client)
    client.pipe(upstream)
  }

  /** A plain http:// request in absolute form, forwarded to a vetted target. */
  private async forward (req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.on('error', () => res.destroy())
    const state = this.authenticate(req)
    if (!state) return refuseResponse(res, 407)
    let url: URL
    try {
      url = new URL(req.url ?? '')
    } catch {
      return refuseResponse(res, 400, 'this is a proxy: send absolute http:// URLs, or CONNECT')
    }
    if (url.protocol !== 'http:') return refuseResponse(res, 400, 'only http:// URLs are forwarded; use CONNECT for https')
    const port = url.port ? Number(url.port) : 80
    this.register(state, req.socket)
    let socket: Socket
    try {
      const addresses = await this.vet(state, url.hostname, port)
      socket = await this.open(url.hostname, port, addresses, state)
    } catch (err) {
      return refuseResponse(res, err instanceof BlockedTargetError ? 403 : 502, publicText(err))
    }
    this.register(state, socket)
    const headers: Record<string, string | string[]> = {}
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_HEADERS.has(name)) headers[name] = value
    }
    headers.connection = 'close'
    const outgoing = httpRequest({
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers,
      createConnection: () => socket,
    }, (answer) => {
      const answerHeaders: Record<string, string | string[]> = {}
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_HEADERS.has(name)) answerHeaders[name] = value
      }
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answerHeaders)
      answer.on('data', (chunk: Buffer) => this.count(state, chunk.length))
      answer.pipe(res)
      answer.on('error', () => res.destroy())
    })
    outgoing.on('error', (err) => {
      if (!res.headersSent) refuseResponse(res, 502, publicText(err))
      else res.destroy()
    })
    req.on('data', (chunk: Buffer) => this.count(state, chunk.length))
    req.pipe(outgoing)
  }

  /** A socket to the target: to a vetted address (pinned), or through the proxy the run's chooser picks. */
  private async open (host: string, port: number, addresses: ResolvedAddress[], state: GrantState): Promise<Socket> {
    const { signal, proxies } = state
    signal.throwIfAborted()
    if (proxies) {
      const proxy = proxies.pick()
      try {
        const socket = await openThroughProxy(new URL(proxy), host, port, signal)
        proxies.succeeded(proxy)
        return socket
      } catch (err) {
        if (!signal.aborted) proxies.failed(proxy, publicText(err))
        throw err
      }
    }
    let lastError: unknown
    for (const { address } of addresses) {
      try {
        return await connectSocket(() => netConnect({ host: address, port }), signal)
      } catch (err) {
        lastError = err
        if (signal.aborted) break
      }
    }
    throw new UpstreamError(`Could not connect to ${host}: ${describeNetworkFailure(lastError)}`)
  }
}

function parseAuthority (authority: string): { host: string, port: number } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:\s/@[\]]+):(\d{1,5})$/.exec(authority)
  if (!match) return null
  const port = Number(match[2])
  if (port < 1 || port > 65535) return null
  return { host: match[1], port }
}

/** A refusal text: the guard's and our own errors say only what a client may read; the rest is a fixed phrase. */
function publicText (err: unknown): string {
  if (err instanceof BlockedTargetError || err instanceof UpstreamError) return err.message
  return describeNetworkFailure(err)
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 403: 'Forbidden', 407: 'Proxy Authentication Required', 502: 'Bad Gateway' }

function refuseSocket (socket: Duplex, status: number, text = ''): void {
  const body = text ? `${text}\n` : ''
  const auth = status === 407 ? 'Proxy-Authenticate: Basic realm="egress"\r\n' : ''
  if (!socket.destroyed) {
    socket.end(`HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\n${auth}Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
  }
}

function refuseResponse (res: ServerResponse, status: number, text = ''): void {
  if (res.headersSent) return void res.destroy()
  const headers: Record<string, string> = { 'content-type': 'text/plain', connection: 'close' }
  if (status === 407) headers['proxy-authenticate'] = 'Basic realm="egress"'
  res.writeHead(status, headers)
  res.end(text ? `${text}\n` : '')
}

/** Waits for a socket to connect, bounded in time and by the signal. */
function connectSocket (create: () => Socket, signal: AbortSignal, event = 'connect'): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const socket = create()
    const fail = (err: unknown) => { cleanup(); socket.destroy(); reject(err) }
    const onAbort = () => fail(signal.reason)
    const timer = setTimeout(() => fail(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })), CONNECT_TIMEOUT_MS)
    const cleanup = () => { clearTimeout(timer); signal.removeEventListener('abort', onAbort); socket.off('error', fail) }
    socket.once('error', fail)
    signal.addEventListener('abort', onAbort, { once: true })
    socket.once(event, () => { cleanup(); resolve(socket) })
  })
}

/** Reads exactly `n` bytes from a socket that is not flowing. */
function readBytes (socket: Socket, n: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const tryRead = () => {
      const chunk = socket.read(n) as Buffer | null
      if (chunk) { done(); resolve(chunk) }
    }
    const onEnd = () => { done(); reject(Object.assign(new Error('proxy closed the connection'), { code: 'ECONNRESET' })) }
    const onError = (err: Error) => { done(); reject(err) }
    const done = () => { socket.off('readable', tryRead); socket.off('end', onEnd); socket.off('error', onError) }
    socket.on('readable', tryRead)
    socket.once('end', onEnd)
    socket.once('error', onError)
    tryRead()
  })
}

/** Reads an HTTP answer head (through the blank line); what follows is pushed back. */
async function readHead (socket: Socket): Promise<string> {
  let buffered = Buffer.alloc(0)
  for (;;) {
    const chunk = await readBytes(socket, 1)
    buffered = Buffer.concat([buffered, chunk])
    if (buffered.length > 16 * 1024) throw new Error('proxy answer head too long')
    if (buffered.subarray(-4).toString('latin1') === '\r\n\r\n') return buffered.toString('latin1')
  }
}

/** A tunnel to host:port through the operator's proxy (http, https, socks4/4a, socks5). */
async function openThroughProxy (proxy: URL, host: string, port: number, signal: AbortSignal): Promise<Socket> {
  const scheme = proxy.protocol.slice(0, -1)
  const proxyPort = Number(proxy.port) || (scheme === 'https' ? 443 : scheme === 'http' ? 80 : 1080)
  const user = decodeURIComponent(proxy.username)
  const password = decodeURIComponent(proxy.password)
  const bareHost = host.replace(/^\[|\]$/g, '')
  let socket: Socket
  try {
    socket = scheme === 'https'
      ? await connectSocket(() => tlsConnect({ host: proxy.hostname, port: proxyPort, servername: isIP(proxy.hostname) ? undefined : proxy.hostname }), signal, 'secureConnect')
      : await connectSocket(() => netConnect({ host: proxy.hostname.replace(/^\[|\]$/g, ''), port: proxyPort }), signal)
  } catch (err) {
    if (signal.aborted) throw signal.reason
    throw new UpstreamError(`Could not connect to the outbound proxy: ${describeNetworkFailure(err)}`)
  }
  try {
    if (scheme === 'http' || scheme === 'https') {
      const authority = isIP(bareHost) === 6 ? `[${bareHost}]:${port}` : `${bareHost}:${port}`
      const auth = user || password ? `Proxy-Authorization: Basic ${Buffer.from(`${user}:${password}`).toString('base64')}\r\n` : ''
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth}\r\n`)
      const head = await readHead(socket)
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1])
      if (status !== 200) throw new UpstreamError(`The outbound proxy refused the connection (HTTP ${status || '?'})`)
    } else if (scheme === 'socks5' || scheme === 'socks') {
      await socks5Handshake(socket, bareHost, port, user, password)
    } else {
      await socks4Handshake(socket, bareHost, port, user)
    }
  } catch (err) {
    socket.destroy()
    if (err instanceof UpstreamError) throw err
    throw new UpstreamError(`The outbound proxy failed: ${describeNetworkFailure(err)}`)
  }
  return socket
}

async function socks5Handshake (socket: Socket, host: string, port: number, user: string, password: string): Promise<void> {
  socket.write(Buffer.from(user ? [5, 2, 0, 2] : [5, 1, 0]))
  const [version, method] = await readBytes(socket, 2)
  if (version !== 5 || (method !== 0 && method !== 2)) throw new UpstreamError('The outbound SOCKS5 proxy accepts none of our authentication methods')
  if (method === 2) {
    const u = Buffer.from(user)
    const p = Buffer.from(password)
    socket.write(Buffer.concat([Buffer.from([1, u.length]), u, Buffer.from([p.length]), p]))
    const [, status] = await readBytes(socket, 2)
    if (status !== 0) throw new UpstreamError('The outbound SOCKS5 proxy refused its credentials')
  }
  const family = isIP(host)
  const address = family === 4
    ? Buffer.from([1, ...host.split('.').map(Number)])
    : family === 6
      ? Buffer.concat([Buffer.from([4]), ipv6Bytes(host)])
      : Buffer.concat([Buffer.from([3, Buffer.byteLength(host)]), Buffer.from(host)])
  socket.write(Buffer.concat([Buffer.from([5, 1, 0]), address, Buffer.from([port >> 8, port & 0xff])]))
  const [, reply, , addressType] = await readBytes(socket, 4)
  if (reply !== 0) throw new UpstreamError(`The outbound SOCKS5 proxy could not connect (reply ${reply})`)
  const rest = addressType === 1 ? 4 : addressType === 4 ? 16 : (await readBytes(socket, 1))[0]
  await readBytes(socket, rest + 2)
}

async function socks4Handshake (socket: Socket, host: string, port: number, user: string): Promise<void> {
  // socks4a: the proxy resolves the name (0.0.0.1 + the name after the user id).
  const ipv4 = isIP(host) === 4 ? host.split('.').map(Number) : [0, 0, 0, 1]
  const name = isIP(host) === 4 ? Buffer.alloc(0) : Buffer.concat([Buffer.from(host), Buffer.from([0])])
  socket.write(Buffer.concat([Buffer.from([4, 1, port >> 8, port & 0xff, ...ipv4]), Buffer.from(user), Buffer.from([0]), name]))
  const [, status] = await readBytes(socket, 8)
  if (status !== 0x5a) throw new UpstreamError(`The outbound SOCKS4 proxy could not connect (reply ${status})`)
}

function ipv6Bytes (address: string): Buffer {
  const [head, tail = ''] = address.split('::')
  const parts = (s: string) => (s ? s.split(':') : [])
  const h = parts(head)
  const t = parts(tail)
  const groups = address.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h
  const bytes = Buffer.alloc(16)
  groups.forEach((g, i) => bytes.writeUInt16BE(parseInt(g, 16) || 0, i * 2))
  return bytes
}
