/** Milliseconds, to three decimals. */
export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
