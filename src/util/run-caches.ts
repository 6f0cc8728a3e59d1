// Caches that belong to one run. The proxy-log body cache, the one-entry memos of the last path,
// pod, owner or timestamp, and remembered classifications live at module level because they sit
// on the hottest paths, where handing a context down would cost on every line. But what they hold
// comes from one run's input, and the body cache's frozen bodies carry the rules' perBody() slots,
// which may point into a task's rule state. So each such module registers how to empty itself
// here, and the engine empties them: no rule state outlives its run, and none crosses from one
// task of a run to the next on a reused worker thread.
//
// Two lifetimes, because a worker thread runs many tasks of one run: what is worked out from the
// input alone (parsed bodies, remembered keys) is worth keeping for the run's next task, while
// what may point into rule state (per-body derivations) is not. Emptying never changes a result,
// only what has to be worked out again.

const runClears: (() => void)[] = [];
const taskClears: (() => void)[] = [];

/** Registers how to empty caches of input-derived facts; emptied when a run starts and ends. Called once, at module level. */
export function ownedByRun(clear: () => void): void {
  runClears.push(clear);
}

/** Registers how to empty caches that may hold rule state; emptied when a run or any of its tasks starts and ends. */
export function ownedByTask(clear: () => void): void {
  taskClears.push(clear);
}

function clearTaskCaches(): void {
  for (const clear of taskClears) clear();
}

function clearRunCaches(): void {
  clearTaskCaches();
  for (const clear of runClears) clear();
}

async function between<T>(clear: () => void, work: () => Promise<T>): Promise<T> {
  clear();
  try {
    return await work();
  } finally {
    clear();
  }
}

/** Runs one whole run (an analysis, a `parse`) with every registered cache empty at its start and emptied at its end. */
export function withRunCaches<T>(work: () => Promise<T>): Promise<T> {
  return between(clearRunCaches, work);
}

/** Runs one task of a run with the task-owned caches empty at its start and emptied at its end. */
export function withTaskCaches<T>(work: () => Promise<T>): Promise<T> {
  return between(clearTaskCaches, work);
}
