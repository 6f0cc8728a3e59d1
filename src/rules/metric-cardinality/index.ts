// Series held by one proxy. linkerd2-proxy keeps a legacy series (request/response/latency, tcp_*)
// until it has been idle for LINKERD2_PROXY_METRICS_RETAIN_IDLE (10 min) AND nothing still
// references it, and it only evicts while being scraped. Labels that name individual endpoints
// (target_addr/target_ip, dst_pod, dst_pod_template_hash) multiply with every pod the proxy ever
// talked to, and every latency label set costs 26 buckets plus _sum and _count. The rule measures
// what the reporters of linkerd2#12916 measured with `cut -d{ -f1 | sort | uniq -c | sort -nr`.

import { defineRule, type FindingDraft, type MetricSampleRecord } from '../../core/types.js';
import {
  addDropped,
  cappedBump,
  type CappedCounts,
  cappedCounts,
  compact,
  detach,
  droppedKeys,
  droppedSentence,
  type DroppedKeys,
  keepWorst,
  mergeCapped,
  mergeKeyed,
  topEntries,
} from '../../util/stats.js';
import { identityOf, proxyKeyOf, proxyLabel, subjectOf, type ProxyIdentity, keyMemo, type KeyMemo } from '../../kit/metric-proxy.js';
import { stateCap } from '../../core/state-cap.js';

export interface MetricCardinalityOptions {
  warningSeries: number;
  errorSeries: number;
  maxLabelValues: number;
}

/** Labels whose values name individual endpoints, pods or clients: the ones that grow with churn. */
export const PER_ENDPOINT_LABELS = [
  'target_addr',
  'target_ip',
  'dst_pod',
  'dst_pod_template_hash',
  'authority',
  'client_id',
  'dst_service',
  'dst_replicaset',
  'server_id',
  'sni',
];

const MAX_LABEL_NAMES = 128;
/** Label positions whose stats are cached per proxy (see ProxyCard.shape); a hostile 100,000-label series is looked up past this. */
const MAX_SHAPE = 2 * MAX_LABEL_NAMES;
const MAX_VALUES_PER_PROXY = stateCap(50_000);
/** Distinct client-supplied inbound authorities from which the finding points at the 2.18 change. */
const INBOUND_AUTHORITY_HINT = 100;
const MAX_NAMES = stateCap(4096);
const TOP = 10;
/**
 * Proxies tracked in full at once. A dump of a million small `# POD` sections would otherwise keep
 * a card (several maps) per proxy; past this, half are let go, the smallest first (dropUntracked).
 */
const MAX_TRACKED_PROXIES = stateCap(2_000);

interface HistogramStats {
  buckets: number;
  labelSets: number;
}

/**
 * The value a counter saw last and how many times in a row, not yet added to its counts. The
 * samples of one histogram repeat every label value but `le` across ~26 bucket lines, so runs are
 * counted with a comparison and added to the map once per run (flushRuns), not once per sample.
 */
interface Run {
  value: string | null;
  length: number;
}

interface LabelStats {
  series: number;
  /** The distinct values; each count is that of the value's first run only (see flushLabelRun). */
  values: CappedCounts;
  run: Run;
}

interface ProxyCard {
  id: ProxyIdentity;
  samples: number;
  duplicates: number;
  families: CappedCounts;
  familyRun: Run;
  familyTypes: Map<string, string>;
  names: CappedCounts;
  nameRun: Run;
  labels: Map<string, LabelStats>;
  droppedLabelNames: number;
  trackedValues: number;
  inboundAuthoritySeries: number;
  inboundAuthorities: CappedCounts;
  histograms: Map<string, HistogramStats>;
  /** The label names of the last sample in order, and their stats (null: dropped, see MAX_LABEL_NAMES). */
  shape: { names: string[]; stats: (LabelStats | null)[] };
  /** The histogram family of the last sample, whose bucket lines come in runs. */
  histogram: { family: string; stats: HistogramStats } | null;
}

interface State {
  /** The last proxy or pod key built (kit/metric-proxy.ts), for runs of records from one proxy. */
  keys: KeyMemo;
  options: MetricCardinalityOptions;
  proxies: Map<string, ProxyCard>;
  /** Proxies let go to bound memory (see dropUntracked): below warningSeries, or above. */
  dropped: DroppedKeys;
  /** The proxy of the last sample (see cardFor); forgotten whenever proxies are merged or dropped. */
  lastKey: string | null;
  lastCard: ProxyCard | null;
}

export default defineRule<MetricCardinalityOptions, State>({
  meta: {
    id: 'metric-cardinality',
    code: 'LD2001',
    title: 'Proxy metric cardinality',
    description: 'Series per proxy in a metrics dump, with the families, labels and histogram buckets that drive them.',
    defaultSeverity: 'warning',
    inputs: ['prometheus'],
    defaultOptions: { warningSeries: 10_000, errorSeries: 50_000, maxLabelValues: 5_000 },
    optionSchema: {
      warningSeries: { type: 'integer', minimum: 1, description: 'Series held by one proxy from which the rule warns.' },
      errorSeries: { type: 'integer', minimum: 1, description: 'Series held by one proxy from which the finding is an error.' },
      maxLabelValues: {
        type: 'integer',
        minimum: 10,
        description: 'Distinct values remembered per label and proxy; beyond this the count is shown as a lower bound.',
      },
    },
  },

  createState: (options) => ({ options, proxies: new Map(), dropped: droppedKeys(), lastKey: null, lastCard: null, keys: keyMemo() }),

  visitors: {
    'metric-sample'(state, record) {
      const card = cardFor(state, record);
      card.samples++;
      if (record.duplicate) {
        card.duplicates++;
        return;
      }
      if (record.family !== card.familyRun.value) {
        flushRun(card.families, card.familyRun);
        card.familyRun.value = record.family;
        if (!card.familyTypes.has(record.family) && card.familyTypes.size < MAX_NAMES) card.familyTypes.set(detach(record.family), record.type);
      }
      card.familyRun.length++;
      if (record.name !== card.nameRun.value) {
        flushRun(card.names, card.nameRun);
        card.nameRun.value = record.name;
      }
      card.nameRun.length++;
      const labels = record.labels;
      // Samples of a proxy repeat one label list for long runs: the stats of the last list are kept
      // in order, so a label costs a comparison of its (interned) name rather than a map lookup.
      const shape = card.shape;
      let i = 0;
      for (const name in labels) {
        let stats: LabelStats | null | undefined;
        if (shape.names[i] === name) stats = shape.stats[i] as LabelStats | null;
        else {
          stats = labelStatsFor(card, name, state.options);
          if (i < MAX_SHAPE) {
            shape.names[i] = name;
            shape.stats[i] = stats;
          }
        }
        i++;
        if (stats === null) {
          card.droppedLabelNames++;
          continue;
        }
        stats.series++;
        const value = labels[name]!;
        if (value !== stats.run.value) {
          flushLabelRun(card, stats);
          stats.run.value = value;
        }
        stats.run.length++;
      }
      if (shape.names.length > i) {
        shape.names.length = i;
        shape.stats.length = i;
      }
      if (record.labels.direction === 'inbound' && record.labels.authority !== undefined) {
        card.inboundAuthoritySeries++;
        cappedBump(card.inboundAuthorities, record.labels.authority);
      }
      if (record.type === 'histogram') {
        let h = card.histogram?.family === record.family ? card.histogram.stats : undefined;
        if (!h) {
          h = card.histograms.get(record.family);
          if (!h) {
            h = { buckets: 0, labelSets: 0 };
            card.histograms.set(record.family, h);
          }
          card.histogram = { family: record.family, stats: h };
        }
        if (record.name.endsWith('_bucket')) h.buckets++;
        else if (record.name.endsWith('_count')) h.labelSets++;
      }
    },
  },

  merge(into, from) {
    flushAllRuns(into);
    flushAllRuns(from);
    mergeKeyed(into.proxies, from.proxies, (existing, card) => {
      existing.samples += card.samples;
      existing.duplicates += card.duplicates;
      mergeCapped(existing.families, card.families);
      for (const [f, t] of card.familyTypes) if (!existing.familyTypes.has(f)) existing.familyTypes.set(f, t);
      mergeCapped(existing.names, card.names);
      for (const [name, stats] of card.labels) {
        const mine = existing.labels.get(name);
        if (!mine) existing.labels.set(name, stats);
        else {
          mine.series += stats.series;
          mergeCapped(mine.values, stats.values);
        }
      }
      existing.droppedLabelNames += card.droppedLabelNames;
      existing.trackedValues += card.trackedValues;
      existing.inboundAuthoritySeries += card.inboundAuthoritySeries;
      mergeCapped(existing.inboundAuthorities, card.inboundAuthorities);
      for (const [f, h] of card.histograms) {
        const mine = existing.histograms.get(f);
        if (!mine) existing.histograms.set(f, h);
        else {
          mine.buckets += h.buckets;
          mine.labelSets += h.labelSets;
        }
      }
    });
    addDropped(into.dropped, from.dropped);
    dropUntracked(into);
  },

  finish(state, { options }) {
    flushAllRuns(state);
    const findings: FindingDraft[] = [];
    const cards = [...state.proxies.values()].map((card) => ({ card, series: card.samples - card.duplicates }));
    for (const { card, series } of cards.sort((a, b) => b.series - a.series)) {
      if (series < options.warningSeries) continue;
      const finding = describe(card, series, options);
      const dropped = droppedSentence(state.dropped, 'proxies');
      if (dropped) {
        finding.message = `${finding.message} ${dropped}`;
        finding.evidence.proxiesNotTracked = state.dropped.healthy + state.dropped.signal;
      }
      findings.push(finding);
    }
    return findings;
  },
});

/** The stats of label `name`, created on first sight; null once the proxy has too many label names. */
function labelStatsFor(card: ProxyCard, name: string, options: MetricCardinalityOptions): LabelStats | null {
  let stats = card.labels.get(name);
  if (!stats) {
    if (card.labels.size >= MAX_LABEL_NAMES) return null;
    stats = { series: 0, values: cappedCounts(options.maxLabelValues), run: { value: null, length: 0 } };
    card.labels.set(detach(name), stats);
  }
  return stats;
}

function flushRun(counts: CappedCounts, run: Run): void {
  if (run.value !== null && run.length > 0) cappedBump(counts, run.value, run.length);
  run.length = 0;
}

function flushLabelRun(card: ProxyCard, stats: LabelStats): void {
  const { run, values } = stats;
  if (run.value === null || run.length === 0) return;
  // A value already counted needs nothing more: only how many distinct values there are (and
  // whether some went uncounted) is reported, so the count of each is not kept up to date. The
  // `le` of every bucket line ends a run, so this is once per sample.
  if (!values.counts.has(run.value)) {
    if (card.trackedValues >= MAX_VALUES_PER_PROXY) {
      // One budget for all labels of a proxy, so a dump with many wide labels stays bounded too.
      values.overflow += run.length;
    } else {
      if (values.counts.size < values.cap) card.trackedValues++;
      cappedBump(values, run.value, run.length);
    }
  }
  run.length = 0;
}

/** Adds every pending run to its counts: before a merge and before findings are built. */
function flushAllRuns(state: State): void {
  state.lastKey = null;
  state.lastCard = null;
  for (const card of state.proxies.values()) {
    // A merge may add label names the cached shape holds as dropped.
    card.shape = { names: [], stats: [] };
    card.histogram = null;
    flushRun(card.families, card.familyRun);
    flushRun(card.names, card.nameRun);
    for (const stats of card.labels.values()) flushLabelRun(card, stats);
  }
}

/**
 * Lets go of half the proxies once MAX_TRACKED_PROXIES are held (keepWorst): the fewest series
 * first, so those below warningSeries are only counted and, past that, the biggest are the ones
 * reported (issue 44: every proxy below warningSeries used to go at each sweep, however close to it,
 * and the finding did not say that anything had gone).
 */
function dropUntracked(state: State): void {
  state.lastKey = null;
  state.lastCard = null;
  keepWorst(state.proxies, MAX_TRACKED_PROXIES / 2, seriesOf, droppedKeys(), (card) => {
    if (seriesOf(card) >= state.options.warningSeries) state.dropped.signal++;
    else state.dropped.healthy++;
  });
}

const seriesOf = (card: ProxyCard) => card.samples - card.duplicates;

function cardFor(state: State, record: MetricSampleRecord): ProxyCard {
  const key = proxyKeyOf(record, state.keys);
  // proxyKeyOf returns one string per run of samples of a proxy, so this compares references.
  if (key === state.lastKey && state.lastCard !== null) return state.lastCard;
  let card = state.proxies.get(key);
  if (!card) {
    dropUntracked(state);
    card = {
      id: identityOf(record),
      samples: 0,
      duplicates: 0,
      families: cappedCounts(MAX_NAMES),
      familyRun: { value: null, length: 0 },
      familyTypes: new Map(),
      names: cappedCounts(MAX_NAMES),
      nameRun: { value: null, length: 0 },
      labels: new Map(),
      droppedLabelNames: 0,
      trackedValues: 0,
      inboundAuthoritySeries: 0,
      inboundAuthorities: cappedCounts(1_000),
      histograms: new Map(),
      shape: { names: [], stats: [] },
      histogram: null,
    };
    state.proxies.set(key, card);
  }
  state.lastKey = key;
  state.lastCard = card;
  return card;
}

function share(part: number, whole: number): string {
  return whole === 0 ? '0 %' : `${((part / whole) * 100).toFixed(1)} %`;
}

function distinct(c: CappedCounts): number | string {
  return c.overflow > 0 ? `≥ ${c.counts.size}` : c.counts.size;
}

function describe(card: ProxyCard, series: number, options: MetricCardinalityOptions): FindingDraft {
  const severity = series >= options.errorSeries ? 'error' : 'warning';
  const label = proxyLabel(card.id);
  const topNames = topEntries(card.names.counts, TOP).map(({ key, count }) => ({ metric: key, series: count, share: share(count, series) }));
  const topFamilies = topEntries(card.families.counts, TOP).map(({ key, count }) => {
    const h = card.histograms.get(key);
    return {
      family: key,
      type: card.familyTypes.get(key) ?? 'untyped',
      series: count,
      share: share(count, series),
      ...(h && h.labelSets > 0 ? { labelSets: h.labelSets, bucketsPerLabelSet: Math.round((h.buckets / h.labelSets) * 10) / 10 } : {}),
    };
  });
  const labelRows = [...card.labels].map(([name, stats]) => ({
    label: name,
    distinctValues: distinct(stats.values),
    size: stats.values.counts.size,
    series: stats.series,
  }));
  const topLabels = labelRows
    .sort((a, b) => b.size - a.size || b.series - a.series || (a.label < b.label ? -1 : 1))
    .slice(0, TOP)
    .map(({ label: l, distinctValues, series: s }) => ({ label: l, distinctValues, series: s, perEndpoint: PER_ENDPOINT_LABELS.includes(l) }));
  const endpointLabels = PER_ENDPOINT_LABELS.filter((l) => card.labels.has(l)).map((l) => {
    const stats = card.labels.get(l)!;
    return { label: l, distinctValues: distinct(stats.values), series: stats.series, share: share(stats.series, series) };
  });
  const histograms = [...card.histograms]
    .filter(([, h]) => h.labelSets > 0)
    .sort((a, b) => b[1].buckets - a[1].buckets)
    .slice(0, 5)
    .map(([family, h]) => ({
      family,
      labelSets: h.labelSets,
      bucketsPerLabelSet: Math.round((h.buckets / h.labelSets) * 10) / 10,
      linesPerLabelSet: Math.round(((h.buckets + 2 * h.labelSets) / h.labelSets) * 10) / 10,
      bucketSeries: h.buckets,
    }));

  const top = topNames[0];
  const endpointSeries = Math.max(0, ...endpointLabels.filter((l) => ['target_addr', 'target_ip', 'dst_pod'].includes(l.label)).map((l) => l.series));
  const widest = topLabels.find((l) => l.perEndpoint);
  const parts = [
    `${label} holds ${series.toLocaleString('en-US')} series (${severity} threshold ${(severity === 'error' ? options.errorSeries : options.warningSeries).toLocaleString('en-US')}).`,
  ];
  if (top) parts.push(`${top.metric} alone is ${top.series.toLocaleString('en-US')} (${top.share}).`);
  if (histograms[0])
    parts.push(
      `Each ${histograms[0].family} label set costs ${histograms[0].linesPerLabelSet} lines (${histograms[0].bucketsPerLabelSet} buckets + _sum + _count) across ${histograms[0].labelSets.toLocaleString('en-US')} label sets.`,
    );
  if (widest) parts.push(`${widest.label} has ${widest.distinctValues} distinct values on ${widest.series.toLocaleString('en-US')} series.`);
  if (endpointSeries > series / 2)
    parts.push(
      'Most series are per-endpoint: they name individual destination pods, so they grow with every pod the proxy has talked to and fall only when eviction runs.',
    );
  const inboundAuthorities = card.inboundAuthorities.counts.size;
  if (inboundAuthorities >= INBOUND_AUTHORITY_HINT) {
    parts.push(
      `Inbound series carry ${distinct(card.inboundAuthorities)} distinct client-supplied authority values (${card.inboundAuthoritySeries.toLocaleString('en-US')} series): proxies before v2.277 (Linkerd 2.18) label inbound metrics with the request's Host/:authority, which any client can vary.`,
    );
  }
  if (card.duplicates > 0)
    parts.push(`${card.duplicates.toLocaleString('en-US')} sample lines repeat a series already seen (known proxy bug, linkerd2#13821).`);

  return {
    severity,
    kind: 'series-count',
    title: `${compact(series)} metric series in one proxy`,
    message: parts.join(' '),
    subject: subjectOf(card.id),
    evidence: {
      proxy: label,
      ...(card.id.section ? { section: card.id.section } : {}),
      series,
      sampleLines: card.samples,
      duplicateLines: card.duplicates,
      families: card.families.counts.size,
      topMetrics: topNames,
      topFamilies,
      topLabels,
      perEndpointLabels: endpointLabels,
      ...(card.inboundAuthoritySeries > 0
        ? { inboundAuthorities: distinct(card.inboundAuthorities), inboundAuthoritySeries: card.inboundAuthoritySeries }
        : {}),
      histograms,
    },
    locations: [{ path: card.id.path, line: card.id.line }],
    remediation: REMEDIATION,
    keyFigure: { name: 'series', value: series },
  };
}

const REMEDIATION = [
  '1. Send the client through Services when per-endpoint labels dominate (target_addr, target_ip, dst_pod, dst_pod_template_hash), so the proxy balances and old pods leave with discovery. For ingresses see ingress-pod-ip-bypass (inject: ingress with l5d-dst-override, Traefik nativeLB, nginx service-upstream); check stale-endpoint-metrics for generations that are gone.',
  '2. Upgrade: stale-endpoint fixes landed in stable-2.14.2 (linkerd2-proxy #2484/#2486) and the p2c pool balancer in 2.15; proxy v2.277 (edge-25.2.1, 2.18) dropped the client-controlled inbound authority label; duplicate series were fixed in linkerd2-proxy #3987 (edge-25.7.1).',
  '3. Make sure something scrapes every proxy (linkerd-viz Prometheus or your own): eviction runs inside the scrape. A shorter LINKERD2_PROXY_METRICS_RETAIN_IDLE (Helm proxy.additionalEnv, Linkerd 2.15+) evicts sooner; restarting the pod drops everything at once as a stop-gap.',
  '4. Keep memory in check meanwhile: raise the proxy memory limit (config.linkerd.io/proxy-memory-limit) rather than letting it OOM.',
  'Upstream: linkerd2#12916 (idle metrics not evicted, OOM), discussion linkerd2#12924 (Traefik, 114,906 series), linkerd2#2692 (331 dst_pod values), linkerd2#5746 (authority × target_addr), linkerd2#9582 (limit proxy metrics), linkerd2-proxy#781 (transport metric expiry).',
  'Why the series stay: the proxy evicts a legacy series (request_total, response_*, response_latency_ms_*, tcp_*, route_*, control_*) only when it has been idle for LINKERD2_PROXY_METRICS_RETAIN_IDLE (default 10 min) and no live stack still references it, and it evicts only while /metrics is being scraped. An unscraped proxy never evicts; an endpoint that a client keeps dialling directly (or that the balancer still believes in) never goes idle.',
].join('\n');
