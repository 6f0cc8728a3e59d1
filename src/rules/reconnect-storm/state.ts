// reconnect-storm's state: one entry per reconnect loop and per target, the per-second counts, and
// how two parts of one stream join exactly (parallel runs merge them in input order).

import type { SampleLine } from '../../core/types.js';
import { addDistinct, distinctCounter, type DistinctCounter } from '../../util/distinct.js';
import {
  addPodTo,
  bumpTop,
  cappedBump,
  cappedCounts,
  type CappedCounts,
  detach,
  droppedKeys,
  type DroppedKeys,
  hasPod,
  keepWorst,
  nameId,
  podSet,
  topCounts,
  type NameTable,
  type PodSet,
  type TopCounts,
} from '../../util/stats.js';
import { timeBuckets, type TimeBuckets } from '../../util/timeline.js';
import { GAP_EDGES } from './cadence.js';
import { stateCap } from '../../core/state-cap.js';

export interface ReconnectStormOptions {
  sustainSeconds: number;
  maxGapSeconds: number;
  clusterRunSeconds: number;
  minPods: number;
  errorMinPods: number;
  maxLoops: number;
  maxTargets: number;
  /** An application endpoint unreachable for this long is diagnosed as stale in discovery. */
  staleEndpointSeconds: number;
}

/**
 * Endpoints and services listed and counted exactly per target; past that, distinct counts go on
 * in a sketch. (Pods were too, until a Set per target of 400 endpoints held 1.6 M pod names for
 * 4,000 pod files of the 256 MiB bench log; they are bits now, see TOP_PODS.)
 */
export const LISTED_PER_TARGET = stateCap(1_000);

/**
 * Pods whose untracked failures are counted per target: the worst, by `bumpTop` (at most twice
 * this many at a time). Which pods fail towards a target is kept exactly, a bit each
 * (`distinctPods`): a Set per target of 400 endpoints held 1.6 M names for 4,000 pod files.
 */
export const TOP_PODS = stateCap(50);

/** Notes that `pod` failed towards the target: its bit, or the sketch past the pod-name table. */
export function addPod(state: State, g: GroupState, pod: string): void {
  addPodTo(g.distinctPods, nameId(state.podNames, pod), pod);
}

export interface LoopState {
  pod: string;
  namespace: string | undefined;
  group: string;
  endpoint: string;
  count: number;
  first: number;
  last: number;
  /** Time of the loop's previous failure in arrival order. */
  previous: number;
  runStart: number;
  runEnd: number;
  longestRun: number;
  currentSecond: number;
  currentSecondCount: number;
  peakPerSecond: number;
  gaps: number[];
  // What an exact merge with the next part of the same stream needs (see merge()):
  /** Time of the loop's first failure in arrival order. */
  initial: number;
  /** Times the run restarted after a long gap; 0 while the first run goes on. */
  runResets: number;
  /** Earliest and latest failure of the first run. */
  firstRunStart: number;
  firstRunEnd: number;
  firstSecond: number;
  /** Failures in the first second, counted until the second changed. */
  firstSecondCount: number;
  secondChanges: number;
  /** Let go to stay within maxLoops (its lines counted as untracked): a memo holding it must not use it. */
  evicted: boolean;
}

export interface GroupState {
  target: string;
  controlPlane: boolean;
  lines: number;
  /** The longest run of any of its loops, in seconds: what ranks it when targets are let go. */
  longestRun: number;
  /** Let go to stay within maxTargets, with its loops: a memo holding it must not use it. */
  evicted: boolean;
  failedToConnect: number;
  serviceFailed: number;
  /**
   * Lines per source (the pod name, or `(path)` when the capture did not say which pod wrote it),
   * for the TOP_PODS sources with the most, and per endpoint, for failures no loop tracks; tracked
   * ones are counted from their loops at finish.
   */
  pods: TopCounts;
  /** Every pod that failed towards the target: a bit each by the state's pod names, a sketch past the table. */
  distinctPods: PodSet;
  namespaces: Map<string, number>;
  endpoints: CappedCounts;
  distinctEndpoints: DistinctCounter;
  errors: Map<string, number>;
  /**
   * The service each line's balancer was resolving (an application endpoint's loop only): the
   * authority a person asks `linkerd diagnostics endpoints` about. Capped like the endpoints.
   */
  authorities: CappedCounts;
  perSecond: SecondCounts;
  perMinute: TimeBuckets;
  firstTime: number | null;
  lastTime: number | null;
  samples: SampleLine[];
}

export interface State {
  options: ReconnectStormOptions;
  loops: Map<string, LoopState>;
  groups: Map<string, GroupState>;
  droppedLoops: number;
  /** Lines towards targets let go to stay within maxTargets: counted, not analysed (an address bomb must not grow memory). */
  droppedTargetLines: number;
  /** Loops and targets let go (keepWorst): those that never failed for clusterRunSeconds on end are only counted. */
  dropped: DroppedKeys;
  /** Targets just let go whose loops are still to be forgotten. */
  gone: Set<string>;
  recordsWithoutWallTime: number;
  /** Lookup memo only (the last input path and its `(path)` label); merge ignores it. */
  pathLabel: { path: string; label: string };
  /** One copy and one id per pod name, for the loops and each target's pod bits; merge maps the other state's ids through it. */
  podNames: NameTable;
}

/**
 * Failures per wall-clock second, kept as 60 counters per minute: a long storm towards hundreds
 * of endpoints has hundreds of thousands of busy seconds, far cheaper as arrays than as map entries.
 */
export type SecondCounts = Map<number, Uint32Array>;

export function addSecond(counts: SecondCounts, epochMs: number): void {
  const second = Math.floor(epochMs / 1000);
  const minute = Math.floor(second / 60);
  let slots = counts.get(minute);
  if (!slots) counts.set(minute, (slots = new Uint32Array(60)));
  slots[second - minute * 60]!++;
}

export function mergeSeconds(into: SecondCounts, from: SecondCounts): void {
  for (const [minute, slots] of from) {
    const mine = into.get(minute);
    if (!mine) into.set(minute, slots);
    else for (let i = 0; i < 60; i++) mine[i]! += slots[i]!;
  }
}

/** The counts of the seconds that had failures. */
export function secondCountsOf(counts: SecondCounts): number[] {
  const out: number[] = [];
  for (const slots of counts.values()) for (const n of slots) if (n > 0) out.push(n);
  return out;
}

/**
 * Failures that no reconnect loop tracks (no clock, or past maxLoops) count per pod and endpoint
 * here. `pod` is a string of its own (the state's pod names, or a merged state's key), stored as is.
 */
export function countUntracked(state: State, g: GroupState, pod: string, endpoint: string | null, lines = 1): void {
  // Every pod counted in g.pods has its bit in g.distinctPods (here, and merged together), so a
  // pod without one is new to the top counts: most untracked lines of a large bundle are a new
  // pod's first towards the target.
  const id = nameId(state.podNames, pod);
  bumpTop(g.pods, pod, lines, TOP_PODS, id >= 0 && !hasPod(g.distinctPods, id));
  addPodTo(g.distinctPods, id, pod);
  if (endpoint) {
    cappedBump(g.endpoints, endpoint, lines);
    addDistinct(g.distinctEndpoints, endpoint);
  }
}

/** Whether two failures of one loop, `gap` seconds apart in either direction, belong to one run. */
export function continuesRun(gap: number, options: ReconnectStormOptions): boolean {
  return gap <= options.maxGapSeconds;
}

export function gapBucket(gap: number): number {
  for (let i = 0; i < GAP_EDGES.length; i++) if (gap <= GAP_EDGES[i]!) return i;
  return -1;
}

/** Appends loop `b` (later failures) to loop `a`, exactly as if the visitor had seen them after a's. */
export function joinLoops(a: LoopState, b: LoopState, options: ReconnectStormOptions): void {
  const gap = Math.abs(b.initial - a.previous);
  const continues = continuesRun(gap, options);
  if (continues) a.gaps[gapBucket(gap)]!++;
  b.gaps.forEach((n, i) => (a.gaps[i]! += n));
  // b's first run extends a's current run when the stream continues across the join.
  const joinedStart = continues ? Math.min(a.runStart, b.firstRunStart) : b.firstRunStart;
  const joinedEnd = continues ? Math.max(a.runEnd, b.firstRunEnd) : b.firstRunEnd;
  a.longestRun = Math.max(a.longestRun, b.longestRun, joinedEnd - joinedStart);
  if (a.runResets === 0 && continues) {
    a.firstRunStart = joinedStart;
    a.firstRunEnd = joinedEnd;
  }
  if (b.runResets === 0) {
    a.runStart = joinedStart;
    a.runEnd = joinedEnd;
  } else {
    a.runStart = b.runStart;
    a.runEnd = b.runEnd;
  }
  a.runResets += b.runResets + (continues ? 0 : 1);

  const sameSecond = a.currentSecond === b.firstSecond;
  a.peakPerSecond = Math.max(a.peakPerSecond, b.peakPerSecond, sameSecond ? a.currentSecondCount + b.firstSecondCount : 0);
  if (a.secondChanges === 0 && sameSecond) a.firstSecondCount += b.firstSecondCount;
  a.currentSecondCount = sameSecond && b.secondChanges === 0 ? a.currentSecondCount + b.currentSecondCount : b.currentSecondCount;
  a.currentSecond = b.currentSecond;
  a.secondChanges += b.secondChanges + (sameSecond ? 0 : 1);

  a.count += b.count;
  a.previous = b.previous;
  a.first = Math.min(a.first, b.first);
  a.last = Math.max(a.last, b.last);
}

export function groupFor(state: State, target: string, controlPlane: boolean): GroupState {
  let g = state.groups.get(target);
  if (!g) {
    keepWorst(
      state.groups,
      kept(state.options.maxTargets),
      (x) => x.longestRun,
      droppedKeys(),
      (x) => dropGroup(state, x),
    );
    if (state.gone.size > 0) forgetLoopsOfGone(state);
    target = detach(target);
    g = {
      target,
      controlPlane,
      lines: 0,
      longestRun: 0,
      evicted: false,
      failedToConnect: 0,
      serviceFailed: 0,
      pods: topCounts(),
      distinctPods: podSet(),
      namespaces: new Map(),
      endpoints: cappedCounts(LISTED_PER_TARGET),
      distinctEndpoints: distinctCounter(LISTED_PER_TARGET),
      errors: new Map(),
      authorities: cappedCounts(LISTED_PER_TARGET),
      perSecond: new Map(),
      perMinute: timeBuckets(60),
      firstTime: null,
      lastTime: null,
      samples: [],
    };
    state.groups.set(target, g);
  }
  return g;
}

/** Entries kept by a sweep: keepWorst holds twice that between sweeps, so never more than `max`. */
export function kept(max: number): number {
  return Math.max(1, Math.floor(max / 2));
}

/**
 * Whether a loop or target let go could have counted towards a finding: it failed continuously for
 * clusterRunSeconds (the shortest run the rule counts). The others are only counted.
 */
function counts(state: State, longestRun: number, dropped: DroppedKeys): void {
  if (longestRun >= state.options.clusterRunSeconds) dropped.signal++;
  else dropped.healthy++;
}

/**
 * Lets go of a loop (keepWorst, the shortest runs first: issue 44, a storm after 25,000 loops of one
 * line each was never timed): its lines count as untracked failures of its target, as when a merge
 * has no room for it.
 */
export function dropLoop(state: State, loop: LoopState): void {
  loop.evicted = true;
  state.droppedLoops += loop.count;
  counts(state, loop.longestRun, state.dropped);
  const g = state.groups.get(loop.group);
  if (g) countUntracked(state, g, loop.pod, loop.endpoint || null, loop.count);
}

/** Lets go of a target (keepWorst, the shortest runs first); its loops go with it (forgetLoopsOfGone). */
function dropGroup(state: State, g: GroupState): void {
  g.evicted = true;
  state.droppedTargetLines += g.lines;
  counts(state, g.longestRun, state.dropped);
  state.gone.add(g.target);
}

/** Forgets the loops of the targets just let go, in one pass over the loops. */
export function forgetLoopsOfGone(state: State): void {
  for (const [key, loop] of state.loops) {
    if (!state.gone.has(loop.group)) continue;
    loop.evicted = true;
    state.droppedLoops += loop.count;
    state.loops.delete(key);
  }
  state.gone.clear();
}
