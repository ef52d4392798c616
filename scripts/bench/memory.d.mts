export function collectGarbage (): void
export function startRssSampler (intervalMs?: number): { stop (): Promise<{ peak: number, samples: number }> }
