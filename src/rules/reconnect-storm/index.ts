// linkerd_reconnect warnings, counted per reconnect loop. A loop is one (proxy, controller,
// endpoint): the proxy builds one Reconnect per resolved endpoint of each controller, so the span
// prefix before `controller{…}` (whatever lookup happened to drive the loop) is not part of the key.
//
// A loop is "sustained" while consecutive failures stay closer together than the backoff can
// stretch them (max backoff + connect timeout); a rollout gives each loop a few seconds at most.

import { type FindingDraft, type ProxyLogRecord, type SampleLine, defineRule } from '../../core/types.js';
import { workloadOfPod } from '../../input/path-meta.js';
import { controllerOfAddress } from '../../knowledge/control-plane.js';
import { addDistinct, describeDistinct, distinctCount, distinctCounter, mergeDistinct, type DistinctCounter } from '../../util/distinct.js';
import { perBody } from '../../util/body-memo.js';
import { bump, cappedBump, detach, earliest, latest, cappedCounts, type CappedCounts, compact, formatDuration, maxOf, median, mergeCapped, mergeCounts, mergeKeyed, topEntries } from '../../util/stats.js';
import { addToBuckets, mergeBuckets, timeBuckets, toTimeline, type TimeBuckets } from '../../util/timeline.js';
import { ownedByRun } from '../../util/run-caches.js';

export interface ReconnectStormOptions {
  sustainSeconds: number;
  maxGapSeconds: number;
  clusterRunSeconds: number;
  minPods: number;
  errorMinPods: number;
  maxLoops: number;
  maxTargets: number;
}

/** Pods and endpoints listed individually per target; distinct counts go on in a sketch. */
const LISTED_PER_TARGET = 1_000;

/** Upper edges (seconds) of the inter-arrival histogram kept per loop. */
const GAP_EDGES = [0.05, 0.15, 0.3, 0.45, 0.55, 0.8, 1.2, 1.7, 2.5, 5, 9, 15, 30, 50, 70, Infinity];

interface LoopState {
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
}

interface GroupState {
  target: string;
  controlPlane: boolean;
  lines: number;
  failedToConnect: number;
  serviceFailed: number;
  /**
   * Lines per source (the pod name, or `(path)` when the capture did not say which pod wrote it) and
   * per endpoint, for failures no loop tracks; tracked ones are counted from their loops at finish.
   */
  pods: CappedCounts;
  distinctPods: DistinctCounter;
  namespaces: Map<string, number>;
  endpoints: CappedCounts;
  distinctEndpoints: DistinctCounter;
  errors: Map<string, number>;
  perSecond: SecondCounts;
  perMinute: TimeBuckets;
  firstTime: number | null;
  lastTime: number | null;
  samples: SampleLine[];
}

interface State {
  options: ReconnectStormOptions;
  loops: Map<string, LoopState>;
  groups: Map<string, GroupState>;
  droppedLoops: number;
  /** Lines towards targets beyond maxTargets: counted, not analysed (an address bomb must not grow memory). */
  droppedTargetLines: number;
  recordsWithoutWallTime: number;
}

const SAMPLE_LINES = 3;

export default defineRule<ReconnectStormOptions, State>({
  meta: {
    id: 'reconnect-storm',
    code: 'LD1001',
    title: 'Proxies in a sustained reconnect loop',
    description: 'Sustained linkerd_reconnect "Failed to connect" warnings, per reconnect loop and across pods, compared with what the proxy backoff allows.',
    defaultSeverity: 'warning',
    inputs: ['proxy-log'],
    // The visitor reads only records whose target is linkerd_reconnect.
    lineInterest: { 'proxy-log': ['linkerd_reconnect'] },
    // The caps bound memory per engine; a parallel run holds one engine per worker plus the merge,
    // so they are sized for that (400 proxies × 60 loops fit; beyond, figures are flagged estimates).
    defaultOptions: { sustainSeconds: 30, maxGapSeconds: 65, clusterRunSeconds: 10, minPods: 5, errorMinPods: 5, maxLoops: 25_000, maxTargets: 2_500 },
    optionSchema: {
      sustainSeconds: { type: 'number', minimum: 1, description: 'A loop failing continuously for this long fires the rule.' },
      maxGapSeconds: {
        type: 'number',
        minimum: 1,
        description: 'Longest gap between two failures of one loop that still counts as the same run (default: 60 s max backoff of proxy v2.307+ plus connect time).',
      },
      clusterRunSeconds: { type: 'number', minimum: 1, description: 'Per-loop run length that counts a pod towards the "many pods at once" trigger.' },
      minPods: { type: 'integer', minimum: 1, description: 'Pods failing towards one target, each for clusterRunSeconds, that fire the rule even when no single loop is sustained.' },
      errorMinPods: { type: 'integer', minimum: 1, description: 'Affected pods from which a control-plane storm is an error rather than a warning.' },
      maxLoops: { type: 'integer', minimum: 1, description: 'Reconnect loops tracked individually; beyond this only totals are kept.' },
      maxTargets: { type: 'integer', minimum: 1, description: 'Distinct controller/endpoint targets analysed; lines towards further targets are only counted.' },
    },
  },

  createState: (options) => ({ options, loops: new Map(), groups: new Map(), droppedLoops: 0, droppedTargetLines: 0, recordsWithoutWallTime: 0 }),

  visitors: {
    'proxy-log'(state, record) {
      if (record.target !== 'linkerd_reconnect' || record.level !== 'WARN') return;
      const failedToConnect = record.message === 'Failed to connect';
      if (!failedToConnect && record.message !== 'Service failed') return;
      const target = loopTargetOf(record);
      const { endpoint, group } = target;
      const pod = record.pod ?? pathLabelOf(record.path);
      let g = target.seenIn === state ? target.seenGroup : null;
      if (g === null) {
        g = groupFor(state, group, target.controlPlane);
        if (!g) {
          state.droppedTargetLines++;
          return;
        }
        target.seenIn = state;
        target.seenGroup = g;
        target.seenPod = null;
        target.seenLoop = null;
      }
      g.lines++;
      if (failedToConnect) g.failedToConnect++;
      else g.serviceFailed++;
      if (record.namespace) bump(g.namespaces, record.namespace);
      bump(g.errors, target.errorClass);
      if (g.samples.length < SAMPLE_LINES) g.samples.push({ path: record.path, line: record.line, text: record.raw });
      if (record.time !== null) {
        addSecond(g.perSecond, record.time);
        addToBuckets(g.perMinute, record.time);
        g.firstTime = earliest(g.firstTime, record.time);
        g.lastTime = latest(g.lastTime, record.time);
      } else {
        state.recordsWithoutWallTime++;
      }

      // Lines per pod and per endpoint are counted once per loop (at finish, from loop.count); only
      // failures no loop tracks are counted here, line by line.
      const t = record.time !== null ? record.time / 1000 : record.uptime;
      if (t === null) return countUntracked(g, pod, endpoint);
      let loop = target.seenPod === pod ? target.seenLoop : null;
      const key = loop === null ? `${pod}\u0000${group}\u0000${endpoint ?? ''}` : '';
      loop ??= state.loops.get(key) ?? null;
      if (loop === null) {
        if (state.loops.size >= state.options.maxLoops) {
          state.droppedLoops++;
          return countUntracked(g, pod, endpoint);
        }
        addDistinct(g.distinctPods, pod);
        if (endpoint) addDistinct(g.distinctEndpoints, endpoint);
        // Detached copies: the loop outlives the record, and must not pin its log line.
        loop = {
          pod, namespace: record.namespace, group: g.target, endpoint: detach(endpoint ?? ''), count: 0, first: t, last: t, previous: t, runStart: t, runEnd: t, longestRun: 0,
          currentSecond: Math.floor(t), currentSecondCount: 0, peakPerSecond: 0, gaps: new Array<number>(GAP_EDGES.length).fill(0),
          initial: t, runResets: 0, firstRunStart: t, firstRunEnd: t, firstSecond: Math.floor(t), firstSecondCount: 0, secondChanges: 0,
        };
        state.loops.set(detach(key), loop);
        target.seenPod = pod;
        target.seenLoop = loop;
      } else {
        target.seenPod = pod;
        target.seenLoop = loop;
        // Direction-agnostic, so exports that list the newest line first still form runs; a
        // restart (uptime reset) or a pause longer than any backoff starts a new run.
        const gap = Math.abs(t - loop.previous);
        if (continuesRun(gap, state.options)) {
          loop.gaps[gapBucket(gap)]!++;
          loop.runStart = Math.min(loop.runStart, t);
          loop.runEnd = Math.max(loop.runEnd, t);
        } else {
          loop.runStart = t;
          loop.runEnd = t;
          loop.runResets++;
        }
      }
      loop.count++;
      loop.previous = t;
      loop.first = Math.min(loop.first, t);
      loop.last = Math.max(loop.last, t);
      if (loop.runResets === 0) {
        loop.firstRunStart = loop.runStart;
        loop.firstRunEnd = loop.runEnd;
      }
      loop.longestRun = Math.max(loop.longestRun, loop.runEnd - loop.runStart);
      const second = Math.floor(t);
      if (second !== loop.currentSecond) {
        loop.currentSecond = second;
        loop.currentSecondCount = 0;
        loop.secondChanges++;
      }
      loop.peakPerSecond = Math.max(loop.peakPerSecond, ++loop.currentSecondCount);
      if (loop.secondChanges === 0) loop.firstSecondCount = loop.currentSecondCount;
    },
  },

  // `from` holds what came after `into` (a later input, or the next byte range of the same file),
  // so a loop's run and its per-second streak may continue across the seam: join them the way
  // the visitor would have, which keeps parallel runs identical to sequential ones.
  merge(into, from) {
    mergeKeyed(
      into.groups,
      from.groups,
      (existing, g) => {
        existing.lines += g.lines;
        existing.failedToConnect += g.failedToConnect;
        existing.serviceFailed += g.serviceFailed;
        mergeCapped(existing.pods, g.pods);
        mergeDistinct(existing.distinctPods, g.distinctPods);
        mergeCounts(existing.namespaces, g.namespaces);
        mergeCapped(existing.endpoints, g.endpoints);
        mergeDistinct(existing.distinctEndpoints, g.distinctEndpoints);
        mergeCounts(existing.errors, g.errors);
        mergeSeconds(existing.perSecond, g.perSecond);
        mergeBuckets(existing.perMinute, g.perMinute);
        existing.firstTime = earliest(existing.firstTime, g.firstTime);
        existing.lastTime = latest(existing.lastTime, g.lastTime);
        existing.samples.push(...g.samples.slice(0, SAMPLE_LINES - existing.samples.length));
      },
      into.options.maxTargets,
      (g) => (into.droppedTargetLines += g.lines),
    );
    // After the groups, so a loop dropped here still counts towards its group's pods and endpoints.
    mergeKeyed(
      into.loops,
      from.loops,
      (existing, loop) => joinLoops(existing, loop, into.options),
      into.options.maxLoops,
      (loop) => {
        into.droppedLoops += loop.count;
        const g = into.groups.get(loop.group);
        if (g) countUntracked(g, loop.pod, loop.endpoint || null, loop.count);
      },
    );
    into.droppedLoops += from.droppedLoops;
    into.droppedTargetLines += from.droppedTargetLines;
    into.recordsWithoutWallTime += from.recordsWithoutWallTime;
  },

  finish(state, { options }) {
    const findings: FindingDraft[] = [];
    const loopsByGroup = new Map<string, LoopState[]>();
    for (const loop of state.loops.values()) {
      const list = loopsByGroup.get(loop.group) ?? [];
      list.push(loop);
      loopsByGroup.set(loop.group, list);
    }
    for (const g of [...state.groups.values()].sort((a, b) => b.lines - a.lines)) {
      const loops = loopsByGroup.get(g.target) ?? [];
      const sustained = loops.filter((l) => l.longestRun >= options.sustainSeconds);
      const podsWithRuns = new Set(loops.filter((l) => l.longestRun >= options.clusterRunSeconds).map((l) => l.pod));
      if (sustained.length === 0 && podsWithRuns.size < options.minPods) continue;
      findings.push(describeStorm(g, loops, sustained, podsWithRuns.size, options, state.droppedLoops));
    }
    return findings;
  },
});

/**
 * Failures per wall-clock second, kept as 60 counters per minute: a long storm towards hundreds
 * of endpoints has hundreds of thousands of busy seconds, far cheaper as arrays than as map entries.
 */
type SecondCounts = Map<number, Uint32Array>;

function addSecond(counts: SecondCounts, epochMs: number): void {
  const second = Math.floor(epochMs / 1000);
  const minute = Math.floor(second / 60);
  let slots = counts.get(minute);
  if (!slots) counts.set(minute, (slots = new Uint32Array(60)));
  slots[second - minute * 60]!++;
}

function mergeSeconds(into: SecondCounts, from: SecondCounts): void {
  for (const [minute, slots] of from) {
    const mine = into.get(minute);
    if (!mine) into.set(minute, slots);
    else for (let i = 0; i < 60; i++) mine[i]! += slots[i]!;
  }
}

/** The counts of the seconds that had failures. */
function secondCountsOf(counts: SecondCounts): number[] {
  const out: number[] = [];
  for (const slots of counts.values()) for (const n of slots) if (n > 0) out.push(n);
  return out;
}

/** Failures that no reconnect loop tracks (no clock, or past maxLoops) count per pod and endpoint here. */
function countUntracked(g: GroupState, pod: string, endpoint: string | null, lines = 1): void {
  cappedBump(g.pods, pod, lines);
  addDistinct(g.distinctPods, pod);
  if (endpoint) {
    cappedBump(g.endpoints, endpoint, lines);
    addDistinct(g.distinctEndpoints, endpoint);
  }
}

/** Whether two failures of one loop, `gap` seconds apart in either direction, belong to one run. */
function continuesRun(gap: number, options: ReconnectStormOptions): boolean {
  return gap <= options.maxGapSeconds;
}

function gapBucket(gap: number): number {
  for (let i = 0; i < GAP_EDGES.length; i++) if (gap <= GAP_EDGES[i]!) return i;
  return -1;
}

/** Appends loop `b` (later failures) to loop `a`, exactly as if the visitor had seen them after a's. */
function joinLoops(a: LoopState, b: LoopState, options: ReconnectStormOptions): void {
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

/**
 * What a reconnect line's body says about its loop, worked out once per distinct body (a storm
 * repeats a few hundred bodies millions of times), and the group and loop it last led to, so that
 * the next line with that body finds them without building and hashing their keys.
 */
interface LoopTarget {
  endpoint: string | null;
  /** classifyError of the line's error field. */
  errorClass: string;
  group: string;
  controlPlane: boolean;
  /** The rule state seenGroup and seenLoop belong to (rule states of several engines share a thread). */
  seenIn: State | null;
  seenGroup: GroupState | null;
  seenPod: string | null;
  seenLoop: LoopState | null;
}

const loopTargetOf = perBody((record): LoopTarget => {
  const { controller, endpoint } = loopAddresses(record);
  const group = controller ?? endpoint ?? 'unknown';
  const controlPlane = controller !== null || controllerOfAddress(group) !== null;
  return { endpoint, errorClass: classifyError(record.fields.error ?? ''), group, controlPlane, seenIn: null, seenGroup: null, seenPod: null, seenLoop: null };
});

let lastPath = '';
let lastPathLabel = '';
ownedByRun(() => {
  lastPath = '';
  lastPathLabel = '';
});

/** `(path)` names the source of lines whose pod is unknown; built once per run of records from one input. */
function pathLabelOf(path: string): string {
  if (path !== lastPath) {
    lastPath = path;
    lastPathLabel = `(${path})`;
  }
  return lastPathLabel;
}

function loopAddresses(record: ProxyLogRecord): { controller: string | null; endpoint: string | null } {
  let controller: string | null = null;
  let endpoint: string | null = null;
  for (const span of record.spans) {
    if (span.name === 'controller' && span.fields.addr) controller = span.fields.addr;
    else if (span.name === 'endpoint' && span.fields.addr) endpoint = span.fields.addr;
  }
  if (endpoint === null) {
    // `error=endpoint 10.2.102.227:8086: Connection refused`
    const fromError = /^endpoint (\S+?):? /.exec(record.fields.error ?? '');
    if (fromError) endpoint = fromError[1]!;
  }
  return { controller, endpoint };
}

function groupFor(state: State, target: string, controlPlane: boolean): GroupState | null {
  let g = state.groups.get(target);
  if (!g) {
    if (state.groups.size >= state.options.maxTargets) return null;
    target = detach(target);
    g = {
      target, controlPlane, lines: 0, failedToConnect: 0, serviceFailed: 0,
      pods: cappedCounts(LISTED_PER_TARGET), distinctPods: distinctCounter(), namespaces: new Map(),
      endpoints: cappedCounts(LISTED_PER_TARGET), distinctEndpoints: distinctCounter(), errors: new Map(), perSecond: new Map(), perMinute: timeBuckets(60), firstTime: null, lastTime: null, samples: [],
    };
    state.groups.set(target, g);
  }
  return g;
}

/** Storms repeat a handful of error texts millions of times; remember how each was classified. */
const errorClasses = new Map<string, string>();
const MAX_REMEMBERED_ERRORS = 4096;
ownedByRun(() => errorClasses.clear());

/** The part of the error that says why: refused, timed out, TLS, DNS… */
export function classifyError(error: string): string {
  let known = errorClasses.get(error);
  if (known === undefined) {
    known = classifyErrorText(error);
    if (errorClasses.size < MAX_REMEMBERED_ERRORS) errorClasses.set(error, known);
  }
  return known;
}

function classifyErrorText(error: string): string {
  if (/Connection refused/i.test(error)) return 'connection refused';
  if (/connect timed out|timed out/i.test(error)) return 'connect timed out';
  if (/certificate|UnknownIssuer|tls|handshake/i.test(error)) return 'TLS failure';
  if (/No route to host|Network is unreachable|Host is unreachable/i.test(error)) return 'network unreachable';
  if (/Connection reset/i.test(error)) return 'connection reset';
  if (/dns|resolve|lookup/i.test(error)) return 'DNS failure';
  if (/Too many open files/.test(error)) return 'too many open files';
  return error === '' ? 'unspecified' : 'other';
}

/** Median gap of a loop as the histogram bucket that holds it. */
function medianGapBucket(gaps: readonly number[]): { low: number; high: number } | null {
  const total = gaps.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  let seen = 0;
  for (let i = 0; i < gaps.length; i++) {
    seen += gaps[i]!;
    if (seen * 2 >= total) return { low: i === 0 ? 0 : GAP_EDGES[i - 1]!, high: GAP_EDGES[i]! };
  }
  return null;
}

/**
 * What the backoff allows. Proxies up to v2.306 cap the connect backoff at 500 ms (steady state:
 * one attempt per 0.5 s plus connect time); from v2.307 the cap is 60 s outbound and 10 s inbound.
 */
export function backoffVerdict(medianGap: { low: number; high: number } | null): { verdict: string; exceedsBackoff: boolean } {
  if (!medianGap) return { verdict: 'too few failures per loop to measure the retry interval', exceedsBackoff: false };
  const range = `${medianGap.low}–${Number.isFinite(medianGap.high) ? medianGap.high : '∞'} s`;
  if (medianGap.high <= 0.45) {
    return {
      verdict: `median retry interval ${range} is shorter than any proxy backoff allows (≥ 0.5 s once the backoff settles): the same events were collected twice, several proxies log under one pod name, or a custom backoff is set`,
      exceedsBackoff: true,
    };
  }
  if (medianGap.high <= 0.8) {
    return { verdict: `median retry interval ${range}: every loop retries at the 500 ms backoff cap of proxies before v2.307 (Connection refused returns at once)`, exceedsBackoff: false };
  }
  if (medianGap.high <= 2.5) {
    return { verdict: `median retry interval ${range}: 500 ms backoff plus a connect timeout (proxies before v2.307, controller unreachable rather than refusing)`, exceedsBackoff: false };
  }
  return { verdict: `median retry interval ${range}: consistent with the longer backoff of proxy v2.307+ (60 s outbound, 10 s inbound) or a custom backoff`, exceedsBackoff: false };
}

function describeStorm(g: GroupState, loops: LoopState[], sustained: LoopState[], podsWithRuns: number, options: ReconnectStormOptions, droppedLoops: number): FindingDraft {
  const linesPerPod = new Map(g.pods.counts);
  const linesPerEndpoint = new Map(g.endpoints.counts);
  for (const l of loops) {
    bump(linesPerPod, l.pod, l.count);
    if (l.endpoint) bump(linesPerEndpoint, l.endpoint, l.count);
  }
  const podCount = distinctCount(g.distinctPods);
  const endpointCount = distinctCount(g.distinctEndpoints);
  const pods = podCount.value;
  const component = controllerOfAddress(g.target);
  const severity = g.controlPlane && component && pods >= options.errorMinPods ? 'error' : 'warning';
  const allGaps = new Array<number>(GAP_EDGES.length).fill(0);
  for (const l of loops) l.gaps.forEach((n, i) => (allGaps[i]! += n));
  const backoff = backoffVerdict(medianGapBucket(allGaps));
  const loopsOverBackoff = loops.filter((l) => backoffVerdict(medianGapBucket(l.gaps)).exceedsBackoff && l.count >= 10).length;

  const perLoopRates = loops.map((l) => l.count / Math.max(l.last - l.first, 1));
  const secondCounts = secondCountsOf(g.perSecond);
  const windowSeconds = g.firstTime !== null && g.lastTime !== null ? (g.lastTime - g.firstTime) / 1000 : maxOf(loops.map((l) => l.last - l.first));
  const clusterSeconds = g.firstTime !== null && g.lastTime !== null ? Math.floor(g.lastTime / 1000) - Math.floor(g.firstTime / 1000) + 1 : 0;
  const clusterMedian = clusterSeconds > 0 ? medianWithZeros(secondCounts, Math.max(0, clusterSeconds - secondCounts.length)) : null;

  const what = component ? `the ${component} controller (${g.target})` : g.controlPlane ? `controller ${g.target}` : `endpoint ${g.target}`;
  const topError = topEntries(g.errors, 1)[0]?.key ?? 'failures';
  const message =
    `${describeDistinct(podCount)} pod${pods === 1 ? '' : 's'} logged ${compact(g.lines)} reconnect failures (${topError}) towards ${what} ` +
    `over ${formatDuration(windowSeconds)}; ${sustained.length} of ${loops.length} reconnect loops failed for ${options.sustainSeconds} s or longer. ` +
    `${backoff.verdict}.`;

  const evidence: FindingDraft['evidence'] = {
    totalLines: g.lines,
    failedToConnect: g.failedToConnect,
    serviceFailed: g.serviceFailed,
    podsAffected: pods,
    ...(podCount.estimated ? { podsAffectedEstimated: true } : {}),
    distinctEndpoints: endpointCount.value,
    ...(endpointCount.estimated ? { distinctEndpointsEstimated: true } : {}),
    podsFailingAtLeastClusterRun: podsWithRuns,
    loops: loops.length,
    sustainedLoops: sustained.length,
    // Past maxLoops new loops are not tracked, so the loop figures above are lower bounds.
    ...(droppedLoops > 0 ? { loopsNotTracked: droppedLoops } : {}),
    window: {
      start: g.firstTime !== null ? new Date(g.firstTime).toISOString() : null,
      end: g.lastTime !== null ? new Date(g.lastTime).toISOString() : null,
      durationSeconds: Math.round(windowSeconds * 10) / 10,
      clock: g.firstTime !== null ? 'wall' : 'proxy uptime (no collector timestamps)',
    },
    rate: {
      peakLinesPerSecondPerLoop: maxOf(loops.map((l) => l.peakPerSecond)),
      medianLinesPerSecondPerLoop: round(median(perLoopRates)),
      peakLinesPerSecondCluster: secondCounts.length ? maxOf(secondCounts) : null,
      medianLinesPerSecondCluster: round(clusterMedian),
    },
    backoff: { verdict: backoff.verdict, loopsExceedingBackoff: loopsOverBackoff, medianGapHistogram: Object.fromEntries(GAP_EDGES.map((e, i) => [`≤${e}s`, allGaps[i]])) },
    errors: Object.fromEntries(topEntries(g.errors, 5).map((e) => [e.key, e.count])),
    topPods: topEntries(linesPerPod, 10).map((e) => ({ pod: e.key, lines: e.count })),
    topTargets: topEntries(linesPerEndpoint, 10).map((e) => ({ endpoint: e.key, lines: e.count })),
    samples: g.samples,
  };
  const timeline = toTimeline(g.perMinute, 'reconnect failures per minute');
  if (timeline) evidence.timeline = timeline;

  const namespace = topEntries(g.namespaces, 1)[0]?.key;
  const podList = [...linesPerPod.keys()];
  return {
    severity,
    kind: component ? `${component}-storm` : g.controlPlane ? 'controller-storm' : 'endpoint-storm',
    title: component ? `Reconnect storm towards the ${component} controller` : `Reconnect storm towards ${g.target}`,
    message,
    subject: {
      ...(namespace ? { namespace } : {}),
      ...(pods === 1 && !podList[0]!.startsWith('(') ? { pod: podList[0], workload: workloadOfPod(podList[0]) } : {}),
      target: g.target,
    },
    evidence,
    locations: g.samples.map((s) => ({ path: s.path, line: s.line })),
    remediation: remediationFor(component, g.controlPlane),
    keyFigure: { name: 'totalLines', value: g.lines },
  };
}

/**
 * Median of `values` plus `zeros` implicit zero entries, without building the padded list: one
 * line with a bogus clock decades off would otherwise allocate an entry per second in between.
 */
export function medianWithZeros(values: readonly number[], zeros: number): number | null {
  const total = values.length + zeros;
  if (total === 0) return null;
  const mid = total >> 1;
  // The values are per-second line counts: whole numbers, usually small next to how many there
  // are, so the median is read from a histogram instead of a sort (hundreds of targets with
  // thousands of busy seconds each made sorting the slowest step of finish()).
  const largest = maxOf(values);
  if (largest <= 4 * values.length + 256 && values.every((v) => Number.isInteger(v) && v >= 0)) {
    const histogram = new Uint32Array(largest + 1);
    histogram[0] = zeros;
    for (const v of values) histogram[v]!++;
    const at = (i: number) => {
      for (let v = 0, seen = 0; v < histogram.length; v++) if ((seen += histogram[v]!) > i) return v;
      return largest;
    };
    return total % 2 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
  }
  const sorted = Float64Array.from(values).sort();
  const at = (i: number) => (i < zeros ? 0 : sorted[i - zeros]!);
  return total % 2 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
}

/** Math.max without spreading: a label bomb can put more values in the list than the call stack takes arguments. */
function round(n: number | null): number | null {
  return n === null ? null : Math.round(n * 100) / 100;
}

function remediationFor(component: string | null, controlPlane: boolean): string {
  if (!controlPlane) {
    return [
      'The proxies cannot reach this application endpoint; its loop retries until the endpoint leaves discovery.',
      'Check that the backend pods behind it are ready and listening, and that no NetworkPolicy drops the traffic.',
    ].join(' ');
  }
  const steps = [
    component === 'destination' || component === 'policy'
      ? '1. Upgrade the control plane past the destination stream-limit fix (linkerd2 PR #12598, first in edge-24.5.3 and stable 2.16): before it, the destination controller capped concurrent gRPC streams, stalled watches and fell over under load.'
      : '1. Find out why the controller is down (restarts, OOMKilled, readiness) before anything else: the proxies only retry what it refuses.',
    '2. Slow the retries so they cannot keep the control plane down: set LINKERD2_PROXY_OUTBOUND_CONNECT_EXP_BACKOFF_MIN and _MAX (set both, plus _JITTER, which otherwise defaults to 0) through the Helm value proxy.additionalEnv (Linkerd 2.15+, linkerd2 #12080). Proxies before v2.307 cap the backoff at 500 ms; v2.307 (edge-25.7.2, Linkerd 2.19) raised the default cap to 60 s.',
    '3. Scale the control plane (more destination/policy replicas, the HA values, and memory headroom) so a restart does not drop every proxy at once.',
  ];
  return steps.join('\n');
}
