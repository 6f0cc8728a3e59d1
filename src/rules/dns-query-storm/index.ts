// Query storms in CoreDNS query logs (the `log` plugin). A healthy client asks for a name once per
// TTL: the TTL on the wire is at least 5 s (CoreDNS cache MINTTL, the proxy's own floor since
// v2.289.0) and 30 s in default Kubernetes zones. So within a short window a client should ask a
// name at most once; a client that asks the same name again sooner than the shortest healthy TTL
// is re-resolving in a loop (TTL 0 from serve_stale: linkerd2#13508). Many clients asking once each
// in the same second is a shared cache expiring, not a storm, and stays quiet.
//
// Bursts are found in per-second buckets per name. The per-input part (when each client last
// asked) is reset at every input boundary, so splitting inputs across workers gives the same
// buckets; seconds without any fast repeat and below the burst floor are folded into per-minute
// counts to bound memory.

import { type CorednsQueryRecord, type FindingDraft, type SampleLine, defineRule } from '../../core/types.js';
import {
  addDropped,
  bump,
  cappedBump,
  type CappedCounts,
  cappedCounts,
  compact,
  droppedKeys,
  droppedSentence,
  type DroppedKeys,
  earliest,
  formatDuration,
  keepWorst,
  latest,
  median,
  mergeCapped,
  mergeCounts,
  mergeKeyed,
  topEntries,
} from '../../util/stats.js';
import { addToBuckets, mergeBuckets, timeBuckets, toTimeline, type TimeBuckets } from '../../util/timeline.js';
import { controlPlaneService, DEFAULT_CONTROL_PLANE_NAMES, normaliseName, serviceSet } from '../../knowledge/control-plane-dns.js';
import { keepSample } from '../../core/evidence.js';
import { clientMemory, type ClientMemory, MAX_LAST_SEEN, namesKept, rankName, seen } from './bounds.js';

export interface DnsQueryStormOptions {
  burstWindowSeconds: number;
  burstQueries: number;
  minPeriodicBursts: number;
  /** Shortest TTL a healthy answer carries; a client asking again sooner is looping. */
  minHealthyTtlSeconds: number;
  /** Fast repeats within one window that make it a loop burst for the periodic (lock-step) check. */
  minBurstRepeats: number;
  controlPlaneNames: string;
  maxNames: number;
  maxHotSeconds: number;
}

// At most maxNames names are held (8,000: a flood of 5 M distinct names under 300 MB peak RSS);
// then half are let go, those that cannot make a storm first (bounds.ts).
/** Seconds still open per name while an input streams; later records rarely arrive further out of order. */
const OPEN_SECONDS = 8;
const SAMPLES = 3;

interface NameStats {
  key: string;
  name: string;
  type: string;
  queries: number;
  timedQueries: number;
  fastRepeats: number;
  clients: CappedCounts;
  rcodes: Map<string, number>;
  /** Retained seconds: [queries, fast repeats]. */
  hot: Map<number, [number, number]>;
  hotDropped: number;
  perMinute: TimeBuckets;
  firstTime: number | null;
  lastTime: number | null;
  samples: SampleLine[];
}

interface InputScan {
  path: string | null;
  clients: ClientMemory;
  open: Map<string, Map<number, [number, number]>>;
}

interface State {
  options: DnsQueryStormOptions;
  services: Set<string>;
  names: Map<string, NameStats>;
  /** Names let go to stay within maxNames (keepWorst, quiet names first). */
  dropped: DroppedKeys;
  /** Clients let go within minHealthyTtlSeconds of their last query (ClientMemory.forgotten). */
  forgottenClients: number;
  untimed: number;
  timed: number;
  scan: InputScan;
}

interface Burst {
  start: number;
  end: number;
  queries: number;
  repeats: number;
  peakWindowQueries: number;
}

function newScan(): InputScan {
  return { path: null, clients: clientMemory(), open: new Map() };
}

function statsFor(state: State, record: CorednsQueryRecord): NameStats {
  const name = normaliseName(record.name);
  const key = `${name} ${record.type}`;
  let s = state.names.get(key);
  if (!s) {
    keepWorst(
      state.names,
      namesKept(state.options.maxNames),
      (x) => rankName(state.services, x),
      state.dropped,
      (x) => state.scan.open.delete(x.key),
    );
    s = {
      key,
      name,
      type: record.type,
      queries: 0,
      timedQueries: 0,
      fastRepeats: 0,
      clients: cappedCounts(10_000),
      rcodes: new Map(),
      hot: new Map(),
      hotDropped: 0,
      perMinute: timeBuckets(60),
      firstTime: null,
      lastTime: null,
      samples: [],
    };
    state.names.set(key, s);
  }
  return s;
}

/** Moves a finished second of one input into the name's summary. */
function settle(state: State, s: NameStats, second: number, bucket: [number, number]): void {
  const floor = Math.max(2, Math.floor(state.options.burstQueries / (4 * state.options.burstWindowSeconds)));
  if (bucket[1] === 0 && bucket[0] < floor) return;
  const existing = s.hot.get(second);
  if (existing) {
    existing[0] += bucket[0];
    existing[1] += bucket[1];
  } else if (s.hot.size < state.options.maxHotSeconds) s.hot.set(second, [bucket[0], bucket[1]]);
  else s.hotDropped += bucket[0];
}

function settleOpen(state: State, key: string, olderThan: number): void {
  const open = state.scan.open.get(key);
  const s = state.names.get(key);
  if (!open || !s) return;
  for (const [second, bucket] of open) {
    if (second >= olderThan) continue;
    settle(state, s, second, bucket);
    open.delete(second);
  }
  if (open.size === 0) state.scan.open.delete(key);
}

function endInput(state: State): void {
  for (const key of [...state.scan.open.keys()]) settleOpen(state, key, Infinity);
  state.forgottenClients += state.scan.clients.forgotten;
  state.scan = newScan();
}

export default defineRule<DnsQueryStormOptions, State>({
  meta: {
    id: 'dns-query-storm',
    code: 'LD3002',
    title: 'DNS query storm for one name',
    description:
      'CoreDNS query logs where clients ask for one name far faster than any healthy TTL allows: big bursts within burstWindowSeconds, or bursts that repeat on a fixed period (lock-step re-resolution).',
    defaultSeverity: 'warning',
    inputs: ['coredns-log'],
    defaultOptions: {
      burstWindowSeconds: 2,
      burstQueries: 100,
      minPeriodicBursts: 3,
      minHealthyTtlSeconds: 5,
      minBurstRepeats: 10,
      controlPlaneNames: DEFAULT_CONTROL_PLANE_NAMES,
      maxNames: 8_000,
      maxHotSeconds: 50_000,
    },
    optionSchema: {
      burstWindowSeconds: { type: 'number', minimum: 1, description: 'Window in which queries for one name are counted as one burst.' },
      burstQueries: {
        type: 'integer',
        minimum: 1,
        description: 'Queries for one name within the window that make a storm, when most of them are repeats from clients that already asked.',
      },
      minPeriodicBursts: {
        type: 'integer',
        minimum: 2,
        description: 'Loop bursts recurring at a steady period that make a lock-step storm even below burstQueries.',
      },
      minHealthyTtlSeconds: {
        type: 'number',
        minimum: 1,
        description: 'Shortest TTL a healthy answer carries (CoreDNS MINTTL and the proxy floor: 5 s); a client asking again sooner is looping.',
      },
      minBurstRepeats: {
        type: 'integer',
        minimum: 1,
        description: 'Fast repeats within one window that count the window as a loop burst for the periodic check.',
      },
      controlPlaneNames: { type: 'string', description: 'Comma-separated Linkerd Service names whose storms are errors.' },
      maxNames: { type: 'integer', minimum: 1, description: 'Distinct (name, type) pairs held; past this, names no client re-asked fast go first.' },
      maxHotSeconds: { type: 'integer', minimum: 1, description: 'Busy seconds kept per name.' },
    },
  },

  createState: (options) => ({
    options,
    services: serviceSet(options.controlPlaneNames),
    names: new Map(),
    dropped: droppedKeys(),
    forgottenClients: 0,
    untimed: 0,
    timed: 0,
    scan: newScan(),
  }),

  visitors: {
    'coredns-query'(state, record) {
      if (state.scan.path !== record.path) {
        endInput(state);
        state.scan.path = record.path;
      }
      const s = statsFor(state, record);
      s.queries++;
      cappedBump(s.clients, record.client);
      bump(s.rcodes, record.rcode);
      keepSample(
        s.samples,
        SAMPLES,
        record.path,
        record.line,
        `${record.client}:${record.clientPort ?? ''} "${record.type} ${record.class} ${record.name} ${record.proto}" ${record.rcode}`,
      );
      if (record.time === null) {
        state.untimed++;
        return;
      }
      state.timed++;
      s.timedQueries++;
      addToBuckets(s.perMinute, record.time);
      s.firstTime = earliest(s.firstTime, record.time);
      s.lastTime = latest(s.lastTime, record.time);

      const clientKey = `${record.client}\u0000${s.key}`;
      const repeat = seen(state.scan.clients, clientKey, record.time, state.options.minHealthyTtlSeconds * 1000);
      if (repeat) s.fastRepeats++;

      const second = Math.floor(record.time / 1000);
      let open = state.scan.open.get(s.key);
      if (!open) {
        open = new Map();
        state.scan.open.set(s.key, open);
      }
      const bucket = open.get(second);
      if (bucket) {
        bucket[0]++;
        if (repeat) bucket[1]++;
      } else {
        open.set(second, [1, repeat ? 1 : 0]);
        settleOpen(state, s.key, second - OPEN_SECONDS);
      }
    },
  },

  merge(into, from) {
    endInput(into);
    endInput(from);
    mergeKeyed(into.names, from.names, (e, s) => {
      e.queries += s.queries;
      e.timedQueries += s.timedQueries;
      e.fastRepeats += s.fastRepeats;
      mergeCapped(e.clients, s.clients);
      mergeCounts(e.rcodes, s.rcodes);
      mergeKeyed(e.hot, s.hot, (mine, bucket) => {
        mine[0] += bucket[0];
        mine[1] += bucket[1];
      });
      e.hotDropped += s.hotDropped;
      mergeBuckets(e.perMinute, s.perMinute);
      e.firstTime = earliest(e.firstTime, s.firstTime);
      e.lastTime = latest(e.lastTime, s.lastTime);
      e.samples.push(...s.samples.slice(0, SAMPLES - e.samples.length));
    });
    addDropped(into.dropped, from.dropped);
    keepWorst(into.names, namesKept(into.options.maxNames), (x) => rankName(into.services, x), into.dropped);
    into.forgottenClients += from.forgottenClients;
    into.untimed += from.untimed;
    into.timed += from.timed;
  },

  finish(state, { options }) {
    endInput(state);
    const services = serviceSet(options.controlPlaneNames);
    const findings: FindingDraft[] = [];
    for (const s of [...state.names.values()].sort((a, b) => b.queries - a.queries || (a.key < b.key ? -1 : 1))) {
      if (s.timedQueries === 0) continue;
      const bursts = findBursts(s, options);
      const big = bursts.filter((b) => b.peakWindowQueries >= options.burstQueries && b.repeats * 2 >= b.queries);
      const period = lockStep(bursts, options);
      if (big.length === 0 && !period) continue;
      findings.push(describeStorm(state, s, bursts, big, period, controlPlaneService(s.name, services), options));
    }
    if (state.timed === 0 && state.untimed > 0) {
      const top = [...state.names.values()].sort((a, b) => b.queries - a.queries)[0];
      if (top && top.queries >= options.burstQueries) findings.push(describeUntimed(state, top));
    }
    return findings;
  },
});

/** Windows of burstWindowSeconds over the retained seconds that are loop bursts or big; overlapping ones merged. */
function findBursts(s: NameStats, options: DnsQueryStormOptions): Burst[] {
  const seconds = [...s.hot.keys()].sort((a, b) => a - b);
  const width = Math.max(1, Math.round(options.burstWindowSeconds));
  const bursts: Burst[] = [];
  let current: Burst | null = null;
  for (let i = 0; i < seconds.length; i++) {
    const start = seconds[i]!;
    let queries = 0;
    let repeats = 0;
    for (let j = i; j < seconds.length && seconds[j]! < start + width; j++) {
      const [q, r] = s.hot.get(seconds[j]!)!;
      queries += q;
      repeats += r;
    }
    const loop = repeats >= options.minBurstRepeats || (queries >= options.burstQueries && repeats * 2 >= queries);
    if (!loop) continue;
    if (current && start <= current.end + 1) {
      current.end = Math.max(current.end, start + width - 1);
      current.peakWindowQueries = Math.max(current.peakWindowQueries, queries);
    } else {
      current = { start, end: start + width - 1, queries: 0, repeats: 0, peakWindowQueries: queries };
      bursts.push(current);
    }
  }
  for (const b of bursts) {
    for (let t = b.start; t <= b.end; t++) {
      const bucket = s.hot.get(t);
      if (bucket) {
        b.queries += bucket[0];
        b.repeats += bucket[1];
      }
    }
  }
  return bursts;
}

/**
 * A steady period between loop bursts: the longest chain of consecutive gaps within 20 % (at least
 * 1 s) of their median. Returns the period in seconds and how many bursts follow it.
 */
function lockStep(bursts: readonly Burst[], options: DnsQueryStormOptions): { periodSeconds: number; bursts: number } | null {
  if (bursts.length < options.minPeriodicBursts) return null;
  const gaps = bursts.slice(1).map((b, i) => b.start - bursts[i]!.start);
  const typical = median(gaps)!;
  if (typical < 2 * options.burstWindowSeconds) return null;
  const tolerance = Math.max(1, typical * 0.2);
  let best = 0;
  let run = 0;
  for (const gap of gaps) {
    run = Math.abs(gap - typical) <= tolerance ? run + 1 : 0;
    best = Math.max(best, run);
  }
  return best + 1 >= options.minPeriodicBursts ? { periodSeconds: typical, bursts: best + 1 } : null;
}

function describeStorm(
  state: State,
  s: NameStats,
  bursts: Burst[],
  big: Burst[],
  period: { periodSeconds: number; bursts: number } | null,
  service: string | null,
  options: DnsQueryStormOptions,
): FindingDraft {
  const clients = s.clients.counts.size + (s.clients.overflow > 0 ? 1 : 0);
  const largest = [...bursts].sort((a, b) => b.queries - a.queries)[0]!;
  const spanSeconds = s.firstTime !== null && s.lastTime !== null ? Math.max(1, (s.lastTime - s.firstTime) / 1000) : 1;
  const ttlSeconds = options.minHealthyTtlSeconds;
  // A client's first query in a burst is never a fast repeat, so the rest are its re-asks.
  const burstClients = Math.max(1, largest.queries - largest.repeats);
  const burstSeconds = largest.end - largest.start + 1;
  const perClient = Math.round((largest.queries / burstClients) * 10) / 10;
  const severity = service && big.length > 0 ? 'error' : 'warning';
  const shape = period
    ? `${period.bursts} bursts recur every ~${Math.round(period.periodSeconds)} s (lock-step: all clients re-resolve together when a shared cache entry expires)`
    : `${big.length} burst${big.length === 1 ? '' : 's'} of ${options.burstQueries}+ queries within ${options.burstWindowSeconds} s`;
  const message =
    `${s.name} ${s.type} was queried ${compact(s.timedQueries)} times by ${clients} client${clients === 1 ? '' : 's'} over ${formatDuration(spanSeconds)}; ${shape}. ` +
    `In the largest burst about ${burstClients} clients sent ${compact(largest.queries)} queries in ${burstSeconds} s, ${perClient} each, ` +
    `where a client honouring any healthy TTL (≥ ${ttlSeconds} s) asks once.` +
    (service ? ` This is the ${service} control-plane Service: proxies re-resolving on TTL 0 (linkerd2#13508).` : '') +
    notTracked(state);
  const evidence: FindingDraft['evidence'] = {
    name: s.name,
    type: s.type,
    controlPlaneService: service,
    queries: s.timedQueries,
    distinctClients: clients,
    fastRepeatQueries: s.fastRepeats,
    spanSeconds: Math.round(spanSeconds),
    queriesPerClientInLargestBurst: perClient,
    bursts: bursts.length,
    burstsOverThreshold: big.length,
    largestBurst: {
      start: new Date(largest.start * 1000).toISOString(),
      seconds: burstSeconds,
      queries: largest.queries,
      repeatQueries: largest.repeats,
      clients: burstClients,
      peakQueriesInWindow: largest.peakWindowQueries,
    },
    periodSeconds: period ? Math.round(period.periodSeconds * 10) / 10 : null,
    periodicBursts: period ? period.bursts : 0,
    rcodes: Object.fromEntries(topEntries(s.rcodes, 5).map((e) => [e.key, e.count])),
    topBursts: [...bursts]
      .sort((a, b) => b.queries - a.queries)
      .slice(0, 5)
      .map((b) => ({ start: new Date(b.start * 1000).toISOString(), queries: b.queries, repeatQueries: b.repeats })),
    topClients: topEntries(s.clients.counts, 5).map((e) => ({ client: e.key, queries: e.count })),
    samples: s.samples,
  };
  if (s.hotDropped > 0) evidence.queriesNotBucketed = s.hotDropped;
  if (state.dropped.healthy + state.dropped.signal > 0) evidence.namesNotTracked = state.dropped.healthy + state.dropped.signal;
  if (state.forgottenClients > 0) evidence.clientsForgottenWithinTtl = state.forgottenClients;
  // Lines from inputs without timestamps are counted but cannot be placed in a burst.
  if (s.queries > s.timedQueries) evidence.queriesWithoutTime = s.queries - s.timedQueries;
  const timeline = toTimeline(s.perMinute, `${s.name} ${s.type} queries per minute`);
  if (timeline) evidence.timeline = timeline;
  return {
    severity,
    kind: service ? 'control-plane-name-storm' : 'name-storm',
    title: service ? `DNS query storm for Linkerd ${service}` : `DNS query storm for ${s.name}`,
    message,
    subject: { target: s.name },
    evidence,
    locations: s.samples.map((x) => ({ path: x.path, line: x.line })),
    remediation: service ? STORM_REMEDIATION : OTHER_STORM_REMEDIATION,
    keyFigure: { name: 'largestBurstQueries', value: largest.queries },
  };
}

function describeUntimed(state: State, top: NameStats): FindingDraft {
  const clients = top.clients.counts.size;
  return {
    severity: 'info',
    kind: 'no-timestamps',
    title: 'CoreDNS query log without timestamps',
    message:
      `The CoreDNS log has no wall time (CoreDNS 1.6.3+ prints none; collect with \`kubectl logs --timestamps\`), so query rates and bursts cannot be measured. ` +
      `By count only: ${top.name} ${top.type} is the most-asked name, ${compact(top.queries)} of ${compact(state.untimed)} query lines, from ${clients} client${clients === 1 ? '' : 's'}.`,
    subject: { target: top.name },
    evidence: {
      clock: 'none (line order only)',
      queryLines: state.untimed,
      topName: top.name,
      topNameQueries: top.queries,
      distinctClients: clients,
      topClients: topEntries(top.clients.counts, 5).map((e) => ({ client: e.key, queries: e.count })),
      samples: top.samples,
    },
    locations: top.samples.map((x) => ({ path: x.path, line: x.line })),
    remediation:
      'Collect the CoreDNS (or node-local-dns) log again with `kubectl logs --timestamps … -n kube-system` so the rule can measure bursts and their period.',
  };
}

const STORM_REMEDIATION = [
  '1. Confirm the trigger with dig in a loop against the same resolver (`while true; do date; dig +noall +answer linkerd-dst-headless.linkerd.svc.cluster.local SRV; sleep 1; done`): TTL 0 answers mean a cache serving stale entries (see dns-ttl-zero).',
  '2. In the CoreDNS / node-local-dns `cache` block for cluster.local add `keepttl`, or switch `serve_stale` to `verify`, or on CoreDNS 1.14.7+ set a stale RESPONSE_TTL (`serve_stale 1h immediate 30s`).',
  '3. Upgrade proxies to v2.289.0+ (edge-25.3.4, stable 2.18), which wait at least 5 s between control-plane lookups, and restart meshed workloads.',
].join('\n');

const OTHER_STORM_REMEDIATION = [
  'Find the clients in topClients and why they re-ask sooner than the TTL: TTL-0 answers from a cache (see dns-ttl-zero), an application without a DNS cache resolving on every request, or a retry loop on NXDOMAIN/SERVFAIL (see rcodes).',
  'Cache-side fixes: `keepttl` / `serve_stale … verify` in CoreDNS; client-side: reuse connections or add a resolver cache.',
].join('\n');

/** What the rule let go to stay bounded, as sentences for a finding's message ('' when nothing). */
function notTracked(state: State): string {
  const names = droppedSentence(state.dropped, '(name, type) pairs');
  const clients =
    state.forgottenClients > 0
      ? ` ${state.forgottenClients} clients were forgotten within ${state.options.minHealthyTtlSeconds} s of their last query to stay within ${MAX_LAST_SEEN} tracked clients, so a few fast repeats may be uncounted.`
      : '';
  return (names ? ` ${names}` : '') + clients;
}
