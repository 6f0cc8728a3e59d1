// Collections on demand, for the few places where V8's own timing costs memory.
//
// - A scavenge (young generation) while inflating the part of a tar bundle another thread reads
//   (engine/archive.ts). Each 32 KiB of inflated data is a new Buffer whose memory is freed only
//   when a collection finds its JavaScript object dead. Parsing allocates enough objects to run a
//   scavenge every few megabytes, but inflating and throwing away allocates almost nothing else,
//   so no scavenge ran and the dead buffers piled up (33 MB of array buffers while the main thread
//   walked half of the 400-pod bench bundle); malloc kept those pages for the rest of the run. One
//   scavenge per 8 MiB skipped: peak RSS of that bundle, two threads, 251-257 -> 233 MB, no CPU
//   change measured.
// - A full collection between the phases of a run (settleHeap): see there.

import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (options?: { type: 'minor' | 'major'; execution?: 'sync'; flavor?: 'regular' | 'last-resort' }) => void;

/**
 * V8's `gc`, or null where the runtime offers none. V8 installs it in contexts created once
 * `--expose-gc` is set; setting it at run time changes nothing else.
 */
function exposedGc(): Gc | null {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    if (typeof gc === 'function') return gc as Gc;
  } catch {
    // No collector: memory waits for the next collection V8 decides on.
  }
  return null;
}

/** A function that runs a scavenge, or does nothing where the runtime offers none. */
export function youngCollector(): () => void {
  const gc = exposedGc();
  return gc ? () => gc({ type: 'minor' }) : () => {};
}

/**
 * A full collection, run where one phase of a run ends and the next starts allocating: after
 * the inputs are read (before the rules finish) and after the report is built (before it is
 * rendered). Reading leaves the old generation full of what outlived a scavenge and then died
 * (bodies pushed out of the cache, each file's parser and first lines); V8 grows the heap rather
 * than collect it until its limit, and the next phase's allocations then land on top. With 4,000
 * pod files that garbage grows with the file count: peak RSS at `--jobs 1`, 100 → 4,000 files,
 * went from +13 % to within 10 % (docs/performance.md). A collection of the ~40 MB that a run
 * keeps takes tens of milliseconds. A small run's heap is left alone (worthSettling).
 * `lastResort`: see LAST_RESORT_COLLECTION.
 */
export function settleHeap(lastResort = false): void {
  if (!worthSettling(getHeapStatistics().used_heap_size)) return;
  const gc = exposedGc();
  if (lastResort && LAST_RESORT_COLLECTION) gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  else gc?.();
}

/**
 * Whether `settleHeap(true)` can run V8's last-resort collection, which also shrinks the young
 * generation and hands freed pages back to the system (a worker's heap on 4,000 pod files of the
 * bench log: two threads peak 262 → 225-228 MB on Node 22, 282 → 264-265 MB on Node 24). It
 * also drops compiled code, which the code that runs next must compile again: only a worker
 * about to stop asks for it. V8 11 (Node 20) takes the option but collects no more than a full
 * collection does, and peaked 3-6 MB higher with it, so there a plain full collection runs.
 */
export const LAST_RESORT_COLLECTION = Number(process.versions.v8.split('.')[0]) >= 12;

/** Whether a heap of `usedBytes` holds enough besides the CLI itself for a full collection to pay. */
export function worthSettling(usedBytes: number): boolean {
  return usedBytes >= SETTLE_FROM_BYTES;
}

/**
 * Below this, a heap is mostly the CLI's own code and data (~12 MB after a small run), and a
 * full collection of it (~11 ms on this machine) frees almost nothing: two of them were 5 % of
 * a four-line paste's run.
 */
const SETTLE_FROM_BYTES = 32 * 1024 * 1024;

/** Runs `collect` each time another `every` bytes have been noted. */
export function collectEvery(every: number, collect: () => void): (bytes: number) => void {
  let since = 0;
  return (bytes) => {
    since += bytes;
    if (since < every) return;
    since = 0;
    collect();
  };
}
