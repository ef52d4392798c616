// The model endpoint is the operator's, but its answers are still read with a
// cap: a misbehaving or hostile endpoint must not fill the API's memory.

/** The whole body, or `tooLarge()` thrown (and the stream cancelled) past `cap` bytes. */
export async function readCappedBody (res: Response, cap: number, tooLarge: () => Error): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0)
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > cap) {
      await reader.cancel()
      throw tooLarge()
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}
