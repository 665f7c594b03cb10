/**
 * Work handed to `request.waitUntil` where the platform has no `waitUntil` of its own (Node, Bun,
 * Deno, `app.inject`): kept here until it settles, so a drain (`app.shutdown()`, which a server's
 * `close()` and the signal drain call) waits for it before the shutdown callbacks run.
 */
const kept = new Set<Promise<unknown>>();

export function keepUntilSettled(work: Promise<unknown>): void {
  kept.add(work);
  void work.finally(() => kept.delete(work));
}

/** Resolves once every kept promise has settled (work kept meanwhile included), or after `timeoutMs`. */
export async function settleKept(timeoutMs: number): Promise<void> {
  if (kept.size === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  const all = (async () => {
    while (kept.size > 0) await Promise.allSettled([...kept]);
  })();
  try {
    await Promise.race([all, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** How many kept promises are still pending. */
export function keptCount(): number {
  return kept.size;
}
