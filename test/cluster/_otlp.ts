// A stand-in OTLP HTTP collector for the tracing tests (protobuf, read with
// opentelemetry/proto/trace/v1's field numbers), and a client's trace context.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { randomBytes } from 'node:crypto'

export interface ReceivedSpan { service: string, traceId: string, spanId: string, parentSpanId: string, name: string, attributes: Record<string, unknown> }

/** A protobuf message's fields, in order: [field number, value] (a varint as a number, a length-delimited field as its bytes). */
function protobufFields (bytes: Buffer): Array<[number, number | Buffer]> {
  const fields: Array<[number, number | Buffer]> = []
  let at = 0
  const varint = () => {
    let value = 0
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[at++]!
      value += (byte & 0x7f) * 2 ** shift
      if (byte < 0x80) return value
    }
  }
  while (at < bytes.length) {
    const tag = varint()
    const wire = tag & 7
    if (wire === 0) fields.push([tag >>> 3, varint()])
    else if (wire === 2) { const length = varint(); fields.push([tag >>> 3, bytes.subarray(at, at + length)]); at += length } else if (wire === 1) { fields.push([tag >>> 3, bytes.subarray(at, at + 8)]); at += 8 } else if (wire === 5) { fields.push([tag >>> 3, bytes.subarray(at, at + 4)]); at += 4 } else throw new Error(`wire type ${wire} in an OTLP message`)
  }
  return fields
}

const field = (fields: Array<[number, number | Buffer]>, n: number) => fields.filter(([k]) => k === n).map(([, v]) => v as Buffer)

/** An OTLP KeyValue list (opentelemetry/proto/common/v1): string, bool and int values, as the spans here carry. */
function otlpAttributes (keyValues: Buffer[]): Record<string, unknown> {
  return Object.fromEntries(keyValues.map(kv => {
    const fields = protobufFields(kv)
    const [[kind, value] = [0, 0]] = protobufFields(field(fields, 2)[0] ?? Buffer.alloc(0))
    return [field(fields, 1)[0]!.toString(), kind === 1 ? (value as Buffer).toString() : kind === 2 ? value === 1 : value]
  }))
}

/**
 * The stand-in collector: OTLP over HTTP, protobuf (what exporter-trace-otlp-proto sends),
 * read with opentelemetry/proto/trace/v1's field numbers.
 */
export async function otlpReceiver (): Promise<{ url: string, spans: ReceivedSpan[], close (): void }> {
  const spans: ReceivedSpan[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type'] === 'application/x-protobuf') {
        for (const resourceSpans of field(protobufFields(Buffer.concat(chunks)), 1)) {
          const resource = protobufFields(resourceSpans)
          const service = otlpAttributes(field(protobufFields(field(resource, 1)[0]!), 1))['service.name'] as string
          for (const scope of field(resource, 2)) {
            for (const span of field(protobufFields(scope), 2).map(protobufFields)) {
              const hex = (n: number) => field(span, n)[0]?.toString('hex') ?? ''
              spans.push({ service, traceId: hex(1), spanId: hex(2), parentSpanId: hex(4), name: field(span, 5)[0]!.toString(), attributes: otlpAttributes(field(span, 9)) })
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end()
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, close: () => { server.closeAllConnections(); server.close() } }
}

/** A client's trace: a `traceparent` as a caller upstream of the service would send it. */
export function clientTrace (sampled = true) {
  const traceId = randomBytes(16).toString('hex')
  const spanId = randomBytes(8).toString('hex')
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-${sampled ? '01' : '00'}` }
}

/** The chain of span names from `span` up to the client's span, which the service never sent. */
export function ancestry (spans: ReceivedSpan[], span: ReceivedSpan): string[] {
  const byId = new Map(spans.map(s => [s.spanId, s]))
  const names = [span.name]
  let current = span
  while (byId.has(current.parentSpanId)) {
    current = byId.get(current.parentSpanId)!
    names.push(current.name)
  }
  return names
}
