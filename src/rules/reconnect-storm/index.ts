// linkerd_reconnect warnings, counted per reconnect loop. A loop is one (proxy, controller,
// endpoint): the proxy builds one Reconnect per resolved endpoint of each controller, so the span
// prefix before `controller{…}` (whatever lookup happened to drive the loop) is not part of the key.
//
// A loop is "sustained" while consecutive failures stay closer together than the backoff can
// stretch them (max backoff + connect timeout); a rollout gives each loop a few seconds at most.

import { defineRule, type FindingDraft, type ProxyLogRecord } from '../../core/types.js';
import { controllerOfAddress } from '../../knowledge/control-plane.js';
import { perBody } from '../../util/body-memo.js';
import { addDistinct, mergeDistinct } from '../../util/distinct.js';
import {
  addDropped,
  bump,
  cappedBump,
  detach,
  droppedKeys,
  droppedSentence,
  earliest,
  keepWorst,
  latest,
  mergeCapped,
  mergeCounts,
  mergeKeyed,
  mergePodSets,
  mergeTopCounts,
  nameTable,
  ownedName,
} from '../../util/stats.js';
import { stateCap } from '../../core/state-cap.js';
import { addToBuckets, mergeBuckets } from '../../util/timeline.js';
import { GAP_EDGES } from './cadence.js';
import { describeStorm } from './describe.js';
import { RECONNECT_FAILURES, RECONNECT_TARGET } from './patterns.js';
import {
  addPod,
  addSecond,
  continuesRun,
  countUntracked,
  dropLoop,
  gapBucket,
  groupFor,
  type GroupState,
  joinLoops,
  kept,
  type LoopState,
  mergeSeconds,
  type ReconnectStormOptions,
  type State,
  TOP_PODS,
} from './state.js';
import { keepSample } from '../../core/evidence.js';

export type { ReconnectStormOptions };

const SAMPLE_LINES = 3;

/** Pod names given an id (a bit in each target's pods) and kept once; a bundle of more pods counts the rest in sketches. */
const MAX_POD_NAMES = stateCap(10_000);

export default defineRule<ReconnectStormOptions, State>({
  meta: {
    id: 'reconnect-storm',
    code: 'LD1001',
    title: 'Proxies in a sustained reconnect loop',
    description: 'Sustained linkerd_reconnect "Failed to connect" warnings, per reconnect loop and across pods, compared with what the proxy backoff allows.',
    defaultSeverity: 'warning',
    // Addresses discovery kept after the cluster removed them come from one destination controller's
    // view: one cause and one fix (rebuild its watches, upgrade), however many endpoints.
    sharedCauses: [{ kind: 'stale-endpoint', title: '{count} stale endpoints: proxies keep dialling addresses where nothing answers', targets: 'endpoints' }],
    inputs: ['proxy-log'],
    // The visitor reads only records whose target is linkerd_reconnect.
    lineInterest: { 'proxy-log': [RECONNECT_TARGET] },
    // The caps bound memory per engine; a parallel run holds one engine per worker plus the merge,
    // so they are sized for that (400 proxies × 60 loops fit; beyond, figures are flagged estimates).
    defaultOptions: {
      sustainSeconds: 30,
      maxGapSeconds: 65,
      clusterRunSeconds: 10,
      minPods: 5,
      errorMinPods: 5,
      maxLoops: 25_000,
      maxTargets: 2_500,
      staleEndpointSeconds: 120,
    },
    optionSchema: {
      sustainSeconds: { type: 'number', minimum: 1, description: 'A loop failing continuously for this long fires the rule.' },
      maxGapSeconds: {
        type: 'number',
        minimum: 1,
        description:
          'Longest gap between two failures of one loop that still counts as the same run (default: 60 s max backoff of proxy v2.307+ plus connect time).',
      },
      clusterRunSeconds: { type: 'number', minimum: 1, description: 'Per-loop run length that counts a pod towards the "many pods at once" trigger.' },
      minPods: {
        type: 'integer',
        minimum: 1,
        description: 'Pods failing towards one target, each for clusterRunSeconds, that fire the rule even when no single loop is sustained.',
      },
      errorMinPods: { type: 'integer', minimum: 1, description: 'Affected pods from which a control-plane storm is an error rather than a warning.' },
      maxLoops: {
        type: 'integer',
        minimum: 1,
        description: 'Reconnect loops tracked individually; when full, half are let go, the shortest runs first (their lines only counted).',
      },
      maxTargets: {
        type: 'integer',
        minimum: 1,
        description: 'Distinct controller/endpoint targets analysed; when full, half are let go, the shortest runs first (their lines only counted).',
      },
      staleEndpointSeconds: {
        type: 'number',
        minimum: 1,
        description:
          'An application endpoint that no host answers at (unreachable, timed out) for this long is a stale endpoint: Kubernetes drops a terminating pod from its EndpointSlices at once, so discovery should have removed it.',
      },
    },
  },

  createState: (options) => ({
    options,
    loops: new Map(),
    groups: new Map(),
    droppedLoops: 0,
    droppedTargetLines: 0,
    dropped: droppedKeys(),
    gone: new Set(),
    recordsWithoutWallTime: 0,
    pathLabel: { path: '', label: '' },
    podNames: nameTable(MAX_POD_NAMES),
  }),

  visitors: {
    'proxy-log'(state, record) {
      if (record.target !== RECONNECT_TARGET || record.level !== 'WARN') return;
      const failedToConnect = record.message === RECONNECT_FAILURES[0];
      if (!failedToConnect && record.message !== RECONNECT_FAILURES[1]) return;
      const target = loopTargetOf(record);
      const { endpoint, group } = target;
      const pod = ownedName(state.podNames, record.pod ?? pathLabelOf(state, record.path));
      let g = target.seenIn === state ? target.seenGroup : null;
      if (g === null || g.evicted) {
        g = groupFor(state, group, target.controlPlane);
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
      if (target.authority !== null && !target.controlPlane) cappedBump(g.authorities, target.authority);
      keepSample(g.samples, SAMPLE_LINES, record.path, record.line, record.raw);
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
      if (t === null) return countUntracked(state, g, pod, endpoint);
      let loop = target.seenPod === pod ? target.seenLoop : null;
      if (loop !== null && loop.evicted) loop = null;
      const key = loop === null ? `${pod}\u0000${group}\u0000${endpoint ?? ''}` : '';
      loop ??= state.loops.get(key) ?? null;
      if (loop === null) {
        // Past maxLoops, the loops with the shortest runs are let go (their lines counted as untracked), never the new one.
        keepWorst(
          state.loops,
          kept(state.options.maxLoops),
          (l) => l.longestRun,
          droppedKeys(),
          (l) => dropLoop(state, l),
        );
        addPod(state, g, pod);
        if (endpoint) addDistinct(g.distinctEndpoints, endpoint);
        // Detached copies: the loop outlives the record, and must not pin its log line.
        loop = {
          pod,
          namespace: record.namespace,
          group: g.target,
          endpoint: detach(endpoint ?? ''),
          count: 0,
          first: t,
          last: t,
          previous: t,
          runStart: t,
          runEnd: t,
          longestRun: 0,
          currentSecond: Math.floor(t),
          currentSecondCount: 0,
          peakPerSecond: 0,
          gaps: new Array<number>(GAP_EDGES.length).fill(0),
          initial: t,
          runResets: 0,
          firstRunStart: t,
          firstRunEnd: t,
          firstSecond: Math.floor(t),
          firstSecondCount: 0,
          secondChanges: 0,
          evicted: false,
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
      if (loop.longestRun > g.longestRun) g.longestRun = loop.longestRun;
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
    // Groups are combined into one of this state's, never adopted: their pod bits are ids of the other state's names.
    for (const [target, g] of from.groups) {
      const existing = into.groups.get(target) ?? groupFor(into, target, g.controlPlane);
      existing.lines += g.lines;
      existing.longestRun = Math.max(existing.longestRun, g.longestRun);
      existing.failedToConnect += g.failedToConnect;
      existing.serviceFailed += g.serviceFailed;
      mergeTopCounts(existing.pods, g.pods, TOP_PODS, (pod) => ownedName(into.podNames, pod));
      mergePodSets(existing.distinctPods, into.podNames, g.distinctPods, from.podNames);
      mergeCounts(existing.namespaces, g.namespaces);
      mergeCapped(existing.endpoints, g.endpoints);
      mergeDistinct(existing.distinctEndpoints, g.distinctEndpoints);
      mergeCounts(existing.errors, g.errors);
      mergeCapped(existing.authorities, g.authorities);
      mergeSeconds(existing.perSecond, g.perSecond);
      mergeBuckets(existing.perMinute, g.perMinute);
      existing.firstTime = earliest(existing.firstTime, g.firstTime);
      existing.lastTime = latest(existing.lastTime, g.lastTime);
      existing.samples.push(...g.samples.slice(0, SAMPLE_LINES - existing.samples.length));
    }
    // After the groups, so a loop dropped here still counts towards its group's pods and endpoints.
    // A loop whose target this state let go is not adopted: its lines were counted with the target.
    for (const [key, loop] of from.loops) {
      if (!into.groups.has(loop.group)) {
        into.droppedLoops += loop.count;
        from.loops.delete(key);
      }
    }
    mergeKeyed(into.loops, from.loops, (existing, loop) => joinLoops(existing, loop, into.options));
    // Runs joined across the seam may be longer than either part's.
    for (const loop of into.loops.values()) {
      const g = into.groups.get(loop.group);
      if (g && loop.longestRun > g.longestRun) g.longestRun = loop.longestRun;
    }
    keepWorst(
      into.loops,
      kept(into.options.maxLoops),
      (l) => l.longestRun,
      droppedKeys(),
      (l) => {
        l.pod = ownedName(into.podNames, l.pod);
        dropLoop(into, l);
      },
    );
    into.droppedLoops += from.droppedLoops;
    into.droppedTargetLines += from.droppedTargetLines;
    addDropped(into.dropped, from.dropped);
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
    const dropped = droppedSentence(state.dropped, 'reconnect loops and targets');
    if (dropped)
      for (const f of findings) {
        f.message = `${f.message} ${dropped}`;
        f.evidence = { ...f.evidence, loopsAndTargetsNotTracked: state.dropped.healthy + state.dropped.signal };
      }
    return findings;
  },
});

/**
 * What a reconnect line's body says about its loop, worked out once per distinct body (a storm
 * repeats a few hundred bodies millions of times), and the group and loop it last led to, so that
 * the next line with that body finds them without building and hashing their keys.
 */
interface LoopTarget {
  endpoint: string | null;
  /** The logical service the balancer resolved (serviceAuthorityOf), when the spans name it. */
  authority: string | null;
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
  return {
    endpoint,
    authority: serviceAuthorityOf(record),
    errorClass: classifyError(record.fields.error ?? ''),
    group,
    controlPlane,
    seenIn: null,
    seenGroup: null,
    seenPod: null,
    seenLoop: null,
  };
});

/**
 * `(path)` names the source of lines whose pod is unknown; built once per run of records from one
 * input, in a memo the rule's own state carries (merge ignores it), not the module.
 */
function pathLabelOf(state: State, path: string): string {
  const memo = state.pathLabel;
  if (path !== memo.path) {
    memo.path = path;
    memo.label = `(${path})`;
  }
  return memo.label;
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

/**
 * The service whose endpoint a line dials, from its spans: `service{ns=shop name=web port=80}`
 * (proxies since the 2.14 outbound rewrite), else the logical/concrete/profile target
 * (`logical{addr=web.shop.svc.cluster.local:80}`, 2.10-2.13), else the original destination
 * `proxy{addr=10.96.4.7:80}` (a ClusterIP:port is still what `linkerd diagnostics endpoints` takes).
 */
function serviceAuthorityOf(record: ProxyLogRecord): string | null {
  let logical: string | null = null;
  let original: string | null = null;
  for (const span of record.spans) {
    const f = span.fields;
    if (span.name === 'service' && f.name && f.ns && f.port) return `${f.name}.${f.ns}.svc.cluster.local:${f.port}`;
    if ((span.name === 'logical' || span.name === 'concrete' || span.name === 'profile') && f.addr) logical ??= f.addr;
    else if (span.name === 'proxy' && f.addr) original ??= f.addr;
  }
  return logical ?? original;
}

/**
 * The part of the error that says why: refused, timed out, TLS, DNS… It runs once per distinct
 * line body (loopTargetOf is a perBody memo), so a storm's repeated texts do not reach it again;
 * a body that differs only by address names that address in its error too, so a cache by error
 * text would miss for it as well.
 */
export function classifyError(error: string): string {
  if (/Connection refused/i.test(error)) return 'connection refused';
  if (/connect timed out|timed out/i.test(error)) return 'connect timed out';
  if (/certificate|UnknownIssuer|tls|handshake/i.test(error)) return 'TLS failure';
  if (/No route to host|Network is unreachable|Host is unreachable/i.test(error)) return 'network unreachable';
  if (/Connection reset/i.test(error)) return 'connection reset';
  if (/dns|resolve|lookup/i.test(error)) return 'DNS failure';
  if (/Too many open files/.test(error)) return 'too many open files';
  return error === '' ? 'unspecified' : 'other';
}
