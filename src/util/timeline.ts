import type { Timeline } from '../core/types.js';
import { bump, mergeCounts } from './stats.js';

/** Counts per fixed-width time bucket; keys are bucket indexes since the epoch. */
export interface TimeBuckets {
  bucketSeconds: number;
  counts: Map<number, number>;
}

export function timeBuckets(bucketSeconds: number): TimeBuckets {
  return { bucketSeconds, counts: new Map() };
}

export function addToBuckets(b: TimeBuckets, epochMs: number, by = 1): void {
  bump(b.counts, Math.floor(epochMs / 1000 / b.bucketSeconds), by);
}

export function mergeBuckets(into: TimeBuckets, from: TimeBuckets): void {
  mergeCounts(into.counts, from.counts);
}

/** Longest stretch of timeline the report will draw; older buckets are summed into the first. */
const MAX_TIMELINE_BUCKETS = 240;

export function toTimeline(b: TimeBuckets, label?: string): Timeline | undefined {
  if (b.counts.size === 0) return undefined;
  // A loop, not Math.min(...keys): a long capture can have more buckets than the stack takes arguments.
  let first = Infinity;
  let last = -Infinity;
  for (const k of b.counts.keys()) {
    if (k < first) first = k;
    if (k > last) last = k;
  }
  const span = last - first + 1;
  const factor = Math.ceil(span / MAX_TIMELINE_BUCKETS);
  const counts = new Array<number>(Math.ceil(span / factor)).fill(0);
  for (const [k, v] of b.counts) counts[Math.floor((k - first) / factor)]! += v;
  const timeline: Timeline = { start: new Date(first * b.bucketSeconds * 1000).toISOString(), bucketSeconds: b.bucketSeconds * factor, counts };
  if (label) timeline.label = label;
  return timeline;
}
