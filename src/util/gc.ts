// A young-generation collection on demand, for the one place that allocates buffers without
// allocating much else: inflating the part of a tar bundle another thread reads (engine/archive.ts).
//
// Each 32 KiB of inflated data is a new Buffer whose memory is freed only when a collection finds
// its JavaScript object dead. Parsing allocates enough objects to run a scavenge every few
// megabytes, but inflating and throwing away allocates almost nothing else, so no scavenge ran
// and the dead buffers piled up (33 MB of array buffers while the main thread walked half of the
// 400-pod bench bundle); malloc kept those pages for the rest of the run. One scavenge per 8 MiB
// skipped: peak RSS of that bundle, two threads, 251-257 -> 233 MB, no CPU change measured.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A function that runs a scavenge, or does nothing where the runtime offers none. V8 installs
 * `gc` in contexts created once `--expose-gc` is set; setting it at run time changes nothing else.
 */
export function youngCollector(): () => void {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    if (typeof gc === 'function') return () => (gc as (options: { type: 'minor' }) => void)({ type: 'minor' });
  } catch {
    // No collector: buffers wait for the next collection V8 decides on, as before.
  }
  return () => {};
}

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
