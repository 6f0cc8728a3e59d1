// Caches that belong to one run but sit below the parsers: the input layer's spare read buffers.
// The parse caches (bodies, timestamps, interest regexes) live in the run's ParseContext
// (parsers/context.ts), handed to every parser; rules keep their memos in their own state. A
// module that must still hold something for a run registers how to empty it here, and the
// engine empties it when a run starts and ends, so nothing read in one run outlives it.

const runClears: (() => void)[] = [];

/** Registers how to empty a run's cache; emptied when a run starts and ends. Called once, at module level. */
export function ownedByRun(clear: () => void): void {
  runClears.push(clear);
}

function clearRunCaches(): void {
  for (const clear of runClears) clear();
}

/** Runs one whole run (an analysis, a `parse`) with every registered cache empty at its start and emptied at its end. */
export async function withRunCaches<T>(work: () => Promise<T>): Promise<T> {
  clearRunCaches();
  try {
    return await work();
  } finally {
    clearRunCaches();
  }
}
