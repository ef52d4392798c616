// Peak growth of this process's Buffer/ArrayBuffer memory while a piece of a
// test runs. The hostile tests use it to show that a body (a 256 MiB bomb, a
// 50 MB page) was never held whole: reading one would put its bytes in Buffers
// on this thread. RSS was used before and made the tests flaky: it counts worker
// threads starting, allocator fragmentation and whatever else the machine does.
// Resident memory itself is a benchmark figure (scripts/bench/hostile.ts), not
// a test assertion.

/** Samples `arrayBuffers` every few milliseconds until `stop()`, which returns the peak growth in bytes. */
export function watchBufferPeak (intervalMs = 5): { stop: () => number } {
  const baseline = process.memoryUsage().arrayBuffers
  let peak = baseline
  const sample = (): void => { peak = Math.max(peak, process.memoryUsage().arrayBuffers) }
  const timer = setInterval(sample, intervalMs)
  return {
    stop () {
      sample()
      clearInterval(timer)
      return peak - baseline
    },
  }
}
