// Caches that belong to one run. The proxy-log body cache, the one-entry memos of the last path,
// pod, owner or timestamp, and remembered classifications live at module level because they sit
// on the hottest paths, where handing a context down would cost on every line. But what they hold
// comes from one run's input, and the body cache's frozen bodies carry the rules' per-body memo
// slots, which may point into that run's rule state. So each such module registers how to empty
// itself here, and the engine empties them all when a run or a worker task starts and when it
// ends: no rule state outlives its run, and a reused worker thread starts each task clean.
// Emptying never changes a result, only what has to be worked out again.

const clears: (() => void)[] = [];

/** Registers how to empty one module's run-owned caches; called once, at module level. */
export function ownedByRun(clear: () => void): void {
  clears.push(clear);
}

/** Empties every registered cache: at the start and at the end of each run and each worker task. */
export function clearRunCaches(): void {
  for (const clear of clears) clear();
}

/** Runs `work` with every run-owned cache empty at its start and emptied again at its end. */
export async function withRunCaches<T>(work: () => Promise<T>): Promise<T> {
  clearRunCaches();
  try {
    return await work();
  } finally {
    clearRunCaches();
  }
}
