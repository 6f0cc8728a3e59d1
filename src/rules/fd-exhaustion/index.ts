// File descriptors of the proxy process. Every accepted and every opened connection costs one;
// at the limit accept() and connect() fail with EMFILE, which the proxy logs as
// `Too many open files (os error 24)`. process_max_fds reports 0 when the limit is unlimited.

import { type FindingDraft, type MetricSampleRecord, type ProxyLogRecord, type SampleLine, defineRule } from '../../core/types.js';
import { identityOf, podKeyOf, proxyLabel, subjectOf, type ProxyIdentity, keyMemo, type KeyMemo } from '../../kit/metric-proxy.js';
import { perBody } from '../../util/body-memo.js';
import { keepTop, mergeKeyed } from '../../util/stats.js';
import { EMFILE } from './patterns.js';
import { keepSample } from '../../core/evidence.js';
import { stateCap } from '../../core/state-cap.js';

export interface FdExhaustionOptions {
  ratio: number;
  errorRatio: number;
}

const SAMPLE_LINES = 3;
const EMFILE_LINE = new RegExp(EMFILE);
/** Whether the line's message, fields or span fields name EMFILE; once per distinct body. */
const mentionsEmfile = perBody(
  (record) =>
    EMFILE_LINE.test(record.message) ||
    Object.values(record.fields).some((v) => EMFILE_LINE.test(v)) ||
    record.spans.some((span) => Object.values(span.fields).some((v) => EMFILE_LINE.test(v))),
);

interface ProxyFds {
  id: ProxyIdentity;
  open: number | null;
  max: number | null;
  emfileLines: number;
  samples: SampleLine[];
}

interface State {
  /** The last proxy or pod key built (kit/metric-proxy.ts), for runs of records from one proxy. */
  keys: KeyMemo;
  proxies: Map<string, ProxyFds>;
  ratio: number;
  /** Size at which the next sweep runs (doubles when a sweep frees little, so sweeping stays linear). */
  sweepAt: number;
  /** Proxies near their limit dropped by the bound (the least exhausted first), reported as a count. */
  untracked: number;
}

/**
 * Past this many proxies, those with both gauges known, well below the limit and no EMFILE line
 * are dropped: they cannot fire, and a dump of a million `# POD` sections must not keep them all.
 * (A later log line with EMFILE for a dropped pod still fires, from a fresh entry.) The same
 * budget as the other metric rules: at 10,000, the proxies kept between sweeps added ~40 MB of
 * peak RSS on a dump of 100,000 sections.
 */
const MAX_TRACKED_PROXIES = stateCap(2_000);

export default defineRule<FdExhaustionOptions, State>({
  meta: {
    id: 'fd-exhaustion',
    code: 'LD2004',
    title: 'Proxy running out of file descriptors',
    description: 'process_open_fds close to process_max_fds, or "Too many open files (os error 24)" in proxy logs.',
    defaultSeverity: 'warning',
    inputs: ['prometheus', 'proxy-log'],
    // Proxy-log lines matter only when they carry the EMFILE error.
    lineInterest: { 'proxy-log': ['Too many open files', 'os error 24'] },
    defaultOptions: { ratio: 0.8, errorRatio: 0.95 },
    optionSchema: {
      ratio: { type: 'number', minimum: 0, maximum: 1, description: 'process_open_fds / process_max_fds from which the rule warns.' },
      errorRatio: { type: 'number', minimum: 0, maximum: 1, description: 'Ratio from which the finding is an error (connections are about to fail).' },
    },
  },

  createState: (options) => ({ proxies: new Map(), ratio: options.ratio, sweepAt: MAX_TRACKED_PROXIES, untracked: 0, keys: keyMemo() }),

  visitors: {
    'metric-sample'(state, record) {
      if (record.name !== 'process_open_fds' && record.name !== 'process_max_fds') return;
      const p = proxyFor(state, podKeyOf(record, state.keys), record);
      if (record.name === 'process_open_fds') p.open = Math.max(p.open ?? 0, record.value);
      else p.max = record.value;
    },
    'proxy-log'(state, record) {
      if (!mentionsEmfile(record)) return;
      const p = proxyFor(state, podKeyOf(record, state.keys), record);
      p.emfileLines++;
      keepSample(p.samples, SAMPLE_LINES, record.path, record.line, record.raw);
    },
  },

  merge(into, from) {
    mergeKeyed(into.proxies, from.proxies, (mine, p) => {
      if (p.open !== null) mine.open = Math.max(mine.open ?? 0, p.open);
      if (p.max !== null) mine.max = p.max;
      mine.emfileLines += p.emfileLines;
      mine.samples.push(...p.samples.slice(0, SAMPLE_LINES - mine.samples.length));
    });
    into.untracked += from.untracked;
    if (into.proxies.size >= into.sweepAt) dropHealthy(into);
  },

  finish(state, { options }) {
    const findings: FindingDraft[] = [];
    for (const p of state.proxies.values()) {
      // 0 (or a missing gauge) means no limit: nothing to run out of.
      const limited = p.open !== null && p.max !== null && p.max > 0;
      const ratio = limited ? p.open! / p.max! : null;
      const nearLimit = ratio !== null && ratio >= options.ratio;
      if (!nearLimit && p.emfileLines === 0) continue;
      const label = proxyLabel(p.id);
      const severity = p.emfileLines > 0 || (ratio !== null && ratio >= options.errorRatio) ? 'error' : 'warning';
      const parts: string[] = [];
      if (ratio !== null && nearLimit)
        parts.push(`${label} has ${p.open} of ${p.max} file descriptors open (${Math.round(ratio * 100)} %, threshold ${Math.round(options.ratio * 100)} %).`);
      if (p.emfileLines > 0)
        parts.push(
          `${p.emfileLines} log line${p.emfileLines === 1 ? '' : 's'} of ${label} report "Too many open files (os error 24)": new connections are being refused or cannot be opened.`,
        );
      findings.push({
        severity,
        kind: 'exhausted',
        title: `File descriptors exhausted in ${label}`,
        message: parts.join(' '),
        subject: subjectOf(p.id),
        evidence: {
          proxy: label,
          ...(p.open !== null ? { openFds: p.open } : {}),
          ...(p.max !== null ? { maxFds: p.max === 0 ? 'unlimited (0)' : p.max } : {}),
          ...(ratio !== null ? { ratio: Math.round(ratio * 1000) / 1000 } : {}),
          ...(p.emfileLines > 0 ? { emfileLogLines: p.emfileLines, samples: p.samples } : {}),
          ...(state.untracked > 0 ? { proxiesNotTracked: state.untracked } : {}),
        },
        locations: p.samples.length > 0 ? p.samples.map((s) => ({ path: s.path, line: s.line })) : [{ path: p.id.path, line: p.id.line }],
        remediation: [
          '1. Find what holds the descriptors: tcp_open_connections by direction and peer in the same dump (a client leaking connections, an ingress holding pools to many pod IPs, or a connection storm).',
          "2. Raise the limit of the proxy container: the proxy inherits the container runtime's nofile limit (containerd/CRI-O `LimitNOFILE`, or the runtime default); on nodes with a low default (1024) set a higher limit in the runtime configuration.",
          '3. If the count keeps growing with endpoints, fix the cause rather than the limit (see metric-cardinality and ingress-pod-ip-bypass for proxies dialling pod IPs).',
        ].join('\n'),
        keyFigure: { name: 'openFds', value: p.open ?? p.emfileLines },
      });
    }
    return findings;
  },
});

/** How close a proxy is to running out: EMFILE lines outrank any ratio. */
function exhaustionOf(p: ProxyFds): number {
  return p.emfileLines + (p.open !== null && p.max ? p.open / p.max : 0);
}

function dropHealthy(state: State): void {
  for (const [key, p] of state.proxies) {
    if (p.emfileLines === 0 && p.open !== null && p.max !== null && (p.max === 0 || p.open / p.max < state.ratio)) state.proxies.delete(key);
  }
  // Proxies that can fire are kept too, but not without end: past 2 × the bound only the most
  // exhausted stay (EMFILE lines first, then the ratio), and the rest are counted.
  state.untracked += keepTop(state.proxies, MAX_TRACKED_PROXIES, exhaustionOf);
  state.sweepAt = Math.max(MAX_TRACKED_PROXIES, state.proxies.size * 2);
}

function proxyFor(state: State, key: string, record: MetricSampleRecord | ProxyLogRecord): ProxyFds {
  let p = state.proxies.get(key);
  if (!p) {
    if (state.proxies.size >= state.sweepAt) dropHealthy(state);
    p = { id: identityOf(record), open: null, max: null, emfileLines: 0, samples: [] };
    state.proxies.set(key, p);
  }
  return p;
}
