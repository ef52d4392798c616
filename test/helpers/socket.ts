// A job WebSocket opened through fastify's injectWS with its listeners
// attached before it opens (`onInit`): the server may send its first message
// (the current status) in the same tick the socket opens, before a listener
// added after `await injectWS(...)` would exist.
import type { FastifyInstance } from 'fastify'
import type { WebSocket } from 'ws'

export type SocketMessage = Record<string, any>

export interface OpenedSocket {
  ws: WebSocket
  /** Every message so far, parsed, in order. */
  messages: SocketMessage[]
  /** The close code, once the server (or client) has closed it. */
  closed: Promise<number>
}

export async function openSocket (app: FastifyInstance, url: string, upgradeContext: Record<string, unknown> = {}): Promise<OpenedSocket> {
  const messages: SocketMessage[] = []
  let closed!: Promise<number>
  const ws = await app.injectWS(url, upgradeContext, {
    onInit (socket: WebSocket) {
      socket.on('message', d => messages.push(JSON.parse(d.toString())))
      closed = new Promise<number>(resolve => socket.on('close', code => resolve(code)))
    },
  })
  return { ws, messages, closed }
}
