// TTL-0 answers in dig captures. RFC 1035: a TTL of 0 means "use for this transaction only".
// linkerd2-proxy before v2.289.0 sleeps until the answer's expiry before resolving a control-plane
// name again, so TTL 0 means no sleep: every proxy re-queries in a tight loop (linkerd2#13508).
// Healthy caches never hand out 0: CoreDNS serves a cached entry only while its TTL is ≥ 1 and
// clamps fresh answers to MINTTL (5 s); a 0 comes from `serve_stale` (expired entries are served
// with TTL 0) or from a zone configured with `ttl 0`. A countdown through 1–4 s is a cache ageing
// an entry, not a fault, so only 0 fires.

import { type DnsAnswerRecord, type DnsQueryRecord, type FindingDraft, type SampleLine, defineRule } from '../../core/types.js';
import { addDropped, droppedKeys, droppedSentence, type DroppedKeys, earliest, keepWorst, latest, mergeKeyed } from '../../util/stats.js';
import { keepSample } from '../../core/evidence.js';
import { stateCap } from '../../core/state-cap.js';
import { controlPlaneService, DEFAULT_CONTROL_PLANE_NAMES, normaliseName, serviceSet } from '../../knowledge/control-plane-dns.js';

export interface DnsTtlZeroOptions {
  /** Comma-separated Service names whose answers proxies re-resolve in a loop (any namespace). */
  controlPlaneNames: string;
  /** TTL runs kept per name and capture file; a countdown or a repeated value is one run. */
  maxRuns: number;
}

/** A stretch of one TTL repeated (`same`) or counting down (`down`), in capture order. */
interface TtlRun {
  first: number;
  last: number;
  count: number;
  kind: 'same' | 'down';
}

interface CaptureSeries {
  path: string;
  runs: TtlRun[];
  truncated: number;
}

interface NameState {
  name: string;
  types: Set<string>;
  captures: number;
  zeroCaptures: number;
  /** Zero captures whose whole reply carried TTL 0 with `aa` set: how CoreDNS builds stale replies. */
  coreDnsSignature: number;
  staleEde: number;
  series: Map<string, CaptureSeries>;
  servers: Set<string>;
  firstZeroTime: number | null;
  lastZeroTime: number | null;
  samples: SampleLine[];
}

interface NegativeState {
  name: string;
  captures: number;
  status: string;
  samples: SampleLine[];
}

interface OpenMessage {
  query: DnsQueryRecord;
  /** First TTL per owner in the answer section (an RRset shares one TTL). */
  owners: Map<string, { ttl: number; type: string; line: number; text: string }>;
  ttlRecords: number;
  zeroRecords: number;
  answerSection: number;
  negativeTtl: { ttl: number; line: number; text: string } | null;
}

interface State {
  options: DnsTtlZeroOptions;
  /** The control-plane Services of the options, for ranking names while the input streams. */
  services: Set<string>;
  names: Map<string, NameState>;
  /** Names let go to stay within MAX_NAMES: those never answered with 0 first (keepWorst). */
  dropped: DroppedKeys;
  negative: Map<string, NegativeState>;
  open: OpenMessage | null;
  answersWithoutTtl: number;
  answersWithTtl: number;
}

const SAMPLES = 3;

function appendTtl(series: CaptureSeries, ttl: number, maxRuns: number): void {
  const last = series.runs[series.runs.length - 1];
  if (last) {
    if (ttl === last.last && (last.kind === 'same' || last.count === 1)) {
      last.kind = 'same';
      last.count++;
      return;
    }
    if (ttl < last.last && ttl > 0 && (last.kind === 'down' || last.count === 1)) {
      last.kind = 'down';
      last.last = ttl;
      last.count++;
      return;
    }
  }
  if (series.runs.length >= maxRuns) {
    series.truncated++;
    return;
  }
  series.runs.push({ first: ttl, last: ttl, count: 1, kind: 'same' });
}

/** `30 → … → 1 (30 captures) → 0 ×3 → 29`: the TTL sequence a reader can follow. */
export function describeRuns(runs: readonly TtlRun[], truncated = 0): string {
  const parts = runs.map((r) => {
    if (r.count === 1) return String(r.first);
    if (r.kind === 'same') return `${r.first} ×${r.count}`;
    return r.count === 2 ? `${r.first} → ${r.last}` : `${r.first} → … → ${r.last}`;
  });
  return parts.join(' → ') + (truncated > 0 ? ` (… ${truncated} more)` : '');
}

/**
 * Owner names kept after a sweep (at most twice this between sweeps); a capture of a whole zone
 * (AXFR) would otherwise add every record's owner. Names answered with 0 are kept first (control-plane
 * ones before others), names never answered with 0 are only counted: a zone of healthy names before
 * or after one TTL-0 answer gives the same finding (issue 44).
 */
const MAX_NAMES = stateCap(25_000);
/**
 * Capture files whose TTL sequence is kept per name: one dig loop per pod gives one file each, so a
 * bundle of 4,000 pods would keep 4,000 sequences per name. The first files seen are kept; the
 * rest still count towards captures and zero captures, only their sequence is not listed.
 */
const MAX_SERIES_PER_NAME = stateCap(1_000);

/**
 * How much a name weighs against the verdict, for keepWorst: a control-plane name answered with 0
 * (an error) above any other name answered with 0 (a warning), more zero answers above fewer; a
 * name never answered with 0 cannot fire and ranks 0.
 */
function rankName(services: ReadonlySet<string>, s: NameState): number {
  if (s.zeroCaptures === 0) return 0;
  return (controlPlaneService(s.name, services) ? 2e9 : 1) + Math.min(s.zeroCaptures, 1e9);
}

function nameState(state: State, name: string): NameState {
  let s = state.names.get(name);
  if (!s) {
    keepWorst(state.names, MAX_NAMES, (x) => rankName(state.services, x), state.dropped);
    s = {
      name,
      types: new Set(),
      captures: 0,
      zeroCaptures: 0,
      coreDnsSignature: 0,
      staleEde: 0,
      series: new Map(),
      servers: new Set(),
      firstZeroTime: null,
      lastZeroTime: null,
      samples: [],
    };
    state.names.set(name, s);
  }
  return s;
}

function closeMessage(state: State): void {
  const msg = state.open;
  state.open = null;
  if (!msg) return;
  const { query } = msg;
  const everyRecordZero = msg.ttlRecords > 0 && msg.zeroRecords === msg.ttlRecords;
  for (const [owner, first] of msg.owners) {
    const s = nameState(state, owner);
    s.captures++;
    s.types.add(first.type);
    if (query.server && s.servers.size < 20) s.servers.add(query.server);
    let series = s.series.get(query.path);
    if (!series && s.series.size < MAX_SERIES_PER_NAME) {
      series = { path: query.path, runs: [], truncated: 0 };
      s.series.set(query.path, series);
    }
    if (series) appendTtl(series, first.ttl, state.options.maxRuns);
    if (first.ttl !== 0) continue;
    s.zeroCaptures++;
    if (everyRecordZero && query.flags.includes('aa')) s.coreDnsSignature++;
    if (query.ede.some((e) => /^3\b|Stale Answer/i.test(e))) s.staleEde++;
    if (query.time !== null) {
      s.firstZeroTime = earliest(s.firstZeroTime, query.time);
      s.lastZeroTime = latest(s.lastZeroTime, query.time);
    }
    keepSample(s.samples, SAMPLES, query.path, first.line, first.text);
  }
  // NXDOMAIN / NODATA: the negative TTL is min(SOA TTL, SOA MINIMUM) of the authority SOA.
  const negative = query.status === 'NXDOMAIN' || (query.status === 'NOERROR' && msg.answerSection === 0);
  if (negative && msg.negativeTtl?.ttl === 0 && query.name) {
    const name = normaliseName(query.name);
    // Only a control-plane name's negative TTL 0 makes a finding: other names are not kept.
    if (!controlPlaneService(name, state.services)) return;
    let n = state.negative.get(name);
    if (!n) {
      keepWorst(state.negative, MAX_NAMES, (x) => x.captures, state.dropped);
      n = { name, captures: 0, status: query.status!, samples: [] };
      state.negative.set(name, n);
    }
    n.captures++;
    keepSample(n.samples, SAMPLES, query.path, msg.negativeTtl.line, msg.negativeTtl.text);
  }
}

function recordText(a: DnsAnswerRecord): string {
  return [a.name, a.ttl ?? '', a.class ?? '', a.type, a.data].filter((p) => p !== '').join(' ');
}

export default defineRule<DnsTtlZeroOptions, State>({
  meta: {
    id: 'dns-ttl-zero',
    code: 'LD3001',
    title: 'DNS answers with TTL 0',
    description:
      'dig captures where a name was answered with TTL 0; for Linkerd control-plane names this makes proxies before v2.289.0 re-resolve in a tight loop.',
    defaultSeverity: 'warning',
    inputs: ['dig'],
    defaultOptions: { controlPlaneNames: DEFAULT_CONTROL_PLANE_NAMES, maxRuns: 400 },
    optionSchema: {
      controlPlaneNames: {
        type: 'string',
        description: 'Comma-separated Service names (any namespace) whose TTL-0 answers are errors: the names proxies resolve for the control plane.',
      },
      maxRuns: { type: 'integer', minimum: 1, description: 'TTL runs (a countdown or a repeated value) kept per name and capture file.' },
    },
  },

  createState: (options) => ({
    options,
    services: serviceSet(options.controlPlaneNames),
    names: new Map(),
    dropped: droppedKeys(),
    negative: new Map(),
    open: null,
    answersWithoutTtl: 0,
    answersWithTtl: 0,
  }),

  visitors: {
    'dns-query'(state, record) {
      closeMessage(state);
      state.open = { query: record, owners: new Map(), ttlRecords: 0, zeroRecords: 0, answerSection: 0, negativeTtl: null };
    },
    'dns-answer'(state, record) {
      const msg = state.open;
      if (!msg || msg.query.queryIndex !== record.queryIndex || msg.query.path !== record.path) return;
      if (record.section === 'answer') msg.answerSection++;
      if (record.ttl === null) {
        state.answersWithoutTtl++;
        return;
      }
      state.answersWithTtl++;
      msg.ttlRecords++;
      if (record.ttl === 0) msg.zeroRecords++;
      if (record.section === 'answer' && record.name !== '') {
        const owner = normaliseName(record.name);
        if (!msg.owners.has(owner)) msg.owners.set(owner, { ttl: record.ttl, type: record.type, line: record.line, text: recordText(record) });
      }
      if (record.section === 'authority' && record.type === 'SOA') {
        const minimum = Number(record.data.trim().split(/\s+/)[6]);
        const ttl = Number.isFinite(minimum) ? Math.min(record.ttl, minimum) : record.ttl;
        msg.negativeTtl = { ttl, line: record.line, text: recordText(record) };
      }
    },
  },

  merge(into, from) {
    closeMessage(into);
    closeMessage(from);
    mergeKeyed(into.names, from.names, (e, s) => {
      for (const t of s.types) e.types.add(t);
      e.captures += s.captures;
      e.zeroCaptures += s.zeroCaptures;
      e.coreDnsSignature += s.coreDnsSignature;
      e.staleEde += s.staleEde;
      for (const [path, series] of s.series) {
        const mine = e.series.get(path);
        if (!mine) {
          if (e.series.size < MAX_SERIES_PER_NAME) e.series.set(path, series);
        } else {
          mine.runs.push(...series.runs.slice(0, Math.max(0, into.options.maxRuns - mine.runs.length)));
          mine.truncated += series.truncated + Math.max(0, mine.runs.length + series.runs.length - into.options.maxRuns);
        }
      }
      for (const server of s.servers) if (e.servers.size < 20) e.servers.add(server);
      e.firstZeroTime = earliest(e.firstZeroTime, s.firstZeroTime);
      e.lastZeroTime = latest(e.lastZeroTime, s.lastZeroTime);
      e.samples.push(...s.samples.slice(0, SAMPLES - e.samples.length));
    });
    mergeKeyed(into.negative, from.negative, (e, n) => {
      e.captures += n.captures;
      e.samples.push(...n.samples.slice(0, SAMPLES - e.samples.length));
    });
    addDropped(into.dropped, from.dropped);
    keepWorst(into.names, MAX_NAMES, (x) => rankName(into.services, x), into.dropped);
    keepWorst(into.negative, MAX_NAMES, (x) => x.captures, into.dropped);
    into.answersWithoutTtl += from.answersWithoutTtl;
    into.answersWithTtl += from.answersWithTtl;
  },

  finish(state, { options }) {
    closeMessage(state);
    const services = serviceSet(options.controlPlaneNames);
    const findings: FindingDraft[] = [];
    const zeroNames = [...state.names.values()].filter((s) => s.zeroCaptures > 0);
    zeroNames.sort(
      (a, b) =>
        Number(!!controlPlaneService(b.name, services)) - Number(!!controlPlaneService(a.name, services)) ||
        b.zeroCaptures - a.zeroCaptures ||
        (a.name < b.name ? -1 : 1),
    );
    for (const s of zeroNames) findings.push(describeZero(s, controlPlaneService(s.name, services)));
    for (const n of state.negative.values()) {
      const service = controlPlaneService(n.name, services);
      if (service) findings.push(describeNegative(n, service));
    }
    const dropped = droppedSentence(state.dropped, 'names');
    if (dropped)
      for (const f of findings) {
        f.message = `${f.message} ${dropped}`;
        f.evidence = { ...f.evidence, namesNotTracked: state.dropped.healthy + state.dropped.signal };
      }
    if (findings.length === 0 && state.answersWithTtl === 0 && state.answersWithoutTtl > 0) {
      findings.push({
        severity: 'info',
        kind: 'no-ttls',
        title: 'dig output without TTLs',
        message: `${state.answersWithoutTtl} answers were printed without a TTL (dig +short or +nottlid), so TTL 0 can be neither confirmed nor ruled out.`,
        subject: {},
        evidence: { answersWithoutTtl: state.answersWithoutTtl },
        locations: [],
        remediation:
          'Capture again without +short/+nottlid, e.g. `dig +noall +answer linkerd-dst-headless.linkerd.svc.cluster.local SRV` in a loop with `date` before each run.',
      });
    }
    return findings;
  },
});

/** What the TTL sequence says about where the 0 came from. */
function verdictFor(s: NameState): string {
  const runs = [...s.series.values()].flatMap((series) => series.runs);
  const positiveAfterZero = runs.some((r, i) => r.first === 0 && runs.slice(i + 1).some((later) => later.first > 0));
  const positiveBeforeZero = runs.some((r, i) => r.first > 0 && runs.slice(i + 1).some((later) => later.first === 0));
  if (positiveBeforeZero && positiveAfterZero) {
    return 'the TTL counted down, was answered as 0 after expiry and jumped back up once refreshed: a cache serving expired entries (CoreDNS/node-local-dns `cache` with `serve_stale`)';
  }
  if (s.captures === s.zeroCaptures && s.captures > 1) {
    return 'every capture answered 0: the zone itself hands out TTL 0 (CoreDNS `kubernetes … { ttl 0 }` with no cache in front), or a cache keeps serving an entry it cannot refresh';
  }
  if (s.captures === 1) return 'a single capture cannot tell a stale cache answer from a zone TTL of 0; capture the name in a loop to see the sequence';
  return 'TTL 0 alternates with positive TTLs: answers expire in a cache that serves them past expiry';
}

function describeZero(s: NameState, service: string | null): FindingDraft {
  const sequences = [...s.series.values()].map((series) => ({ path: series.path, ttls: describeRuns(series.runs, series.truncated) }));
  const verdict = verdictFor(s);
  const signature =
    s.coreDnsSignature > 0
      ? ` ${s.coreDnsSignature} of them had every record of the reply at TTL 0 with the aa flag, which is how CoreDNS writes a stale cache answer.`
      : '';
  const ede = s.staleEde > 0 ? ` ${s.staleEde} carried EDE 3 (Stale Answer).` : '';
  const types = [...s.types].sort().join('/');
  const message = service
    ? `${s.name} (${types}), the ${service} control-plane Service, was answered with TTL 0 in ${s.zeroCaptures} of ${s.captures} captures. Proxies before v2.289.0 re-resolve it immediately on TTL 0, so every proxy loops on DNS. ${capitalise(verdict)}.${signature}${ede}`
    : `${s.name} (${types}) was answered with TTL 0 in ${s.zeroCaptures} of ${s.captures} captures: clients may not cache it and re-query on every use. ${capitalise(verdict)}.${signature}${ede}`;
  const evidence: FindingDraft['evidence'] = {
    name: s.name,
    types,
    controlPlaneService: service,
    captures: s.captures,
    zeroTtlCaptures: s.zeroCaptures,
    coreDnsStaleSignature: s.coreDnsSignature,
    verdict,
    ttlSequence:
      sequences.length === 1
        ? sequences[0]!.ttls
        : sequences
            .slice(0, 5)
            .map((x) => `${x.path}: ${x.ttls}`)
            .join('; '),
    ttlSequences: sequences.slice(0, 10),
    servers: [...s.servers].join(', ') || null,
    firstZero: s.firstZeroTime !== null ? new Date(s.firstZeroTime).toISOString() : null,
    lastZero: s.lastZeroTime !== null ? new Date(s.lastZeroTime).toISOString() : null,
    samples: s.samples,
  };
  return {
    severity: service ? 'error' : 'warning',
    kind: service ? 'control-plane-answer' : 'answer',
    title: service ? `Linkerd ${service} answered with TTL 0` : `${s.name} answered with TTL 0`,
    message,
    subject: { target: s.name, ...(namespaceOf(s.name) ? { namespace: namespaceOf(s.name) } : {}) },
    evidence,
    locations: s.samples.map((x) => ({ path: x.path, line: x.line })),
    remediation: service ? CONTROL_PLANE_REMEDIATION : OTHER_REMEDIATION,
    keyFigure: { name: 'zeroTtlCaptures', value: s.zeroCaptures },
  };
}

function describeNegative(n: NegativeState, service: string): FindingDraft {
  return {
    severity: 'error',
    kind: 'negative-answer',
    title: `Negative answer for Linkerd ${service} with TTL 0`,
    message:
      `${n.name} got ${n.status === 'NXDOMAIN' ? 'NXDOMAIN' : 'NODATA'} with a negative TTL of 0 (SOA TTL or MINIMUM 0) in ${n.captures} capture(s). ` +
      'Proxies before v2.343.0 retry such a lookup with no delay and can panic with "period must be non-zero" (linkerd2#14954).',
    subject: { target: n.name },
    evidence: { name: n.name, status: n.status, captures: n.captures, samples: n.samples },
    locations: n.samples.map((x) => ({ path: x.path, line: x.line })),
    remediation: [
      '1. Find out why the control-plane Service does not resolve (deleted Service, wrong namespace, cluster domain other than cluster.local) and fix that first.',
      '2. Give negative answers a TTL: CoreDNS `cache { denial 9984 30 5 }` (its MINTTL, default 5 s) and an SOA minimum above 0.',
      '3. Upgrade the proxies to v2.343.0+ (edge-26.3.3), which floors negative TTLs at 5 s (linkerd2-proxy #4449), and roll the meshed workloads.',
    ].join('\n'),
    keyFigure: { name: 'captures', value: n.captures },
  };
}

function namespaceOf(name: string): string | undefined {
  const m = /^(?:[^.]+\.)*?[^.]+\.([^.]+)\.svc\./.exec(name);
  return m ? m[1] : undefined;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const CONTROL_PLANE_REMEDIATION = [
  '1. Stop the DNS cache from answering 0. In the CoreDNS or node-local-dns Corefile, add `keepttl` to the `cache` block of the cluster.local zone (CoreDNS 1.10.1+): stale answers then keep the original TTL instead of 0. Or switch `serve_stale` to `verify` (the entry is refreshed before a stale one is sent) or drop serve_stale; on CoreDNS 1.14.7+ give stale answers a TTL with `serve_stale 1h immediate 30s` (RFC 8767 asks for a TTL above 0, 30 s recommended). If the zone itself says `kubernetes … { ttl 0 }`, set it to 30 like the default Kubernetes Corefile.',
  '2. Upgrade the data plane: proxy v2.289.0 (linkerd2-proxy #3807) waits at least 5 s between control-plane lookups whatever the TTL. It ships in edge-25.3.4 and stable 2.18 (2.17 ships proxy v2.268.0, unfixed). Restart meshed workloads after the control-plane upgrade so the new proxy is injected.',
  '3. Before you can upgrade: apply step 1 first (it removes the trigger), then check the CoreDNS query log calms down (dns-query-storm). Setting LINKERD2_PROXY_DNS_MIN_TTL=5s through the Helm value proxy.additionalEnv (2.15+) raises the resolver cache floor of older proxies; test it on one workload first, it is not the upstream fix.',
].join('\n');

const OTHER_REMEDIATION = [
  'TTL 0 means "do not cache" (RFC 1035): every client asks again on each use.',
  'If this name is served from a cluster cache, add `keepttl` to its CoreDNS `cache` block or use `serve_stale … verify` (or RESPONSE_TTL on CoreDNS 1.14.7+) so stale answers keep a TTL; if the authoritative zone sets TTL 0 on purpose (some load balancers do), nothing is broken, but expect the query volume.',
].join('\n');
