// Endpoint metrics that outlived their pods. Every outbound endpoint series carries the
// destination pod's labels (dst_pod, dst_pod_template_hash, dst_<owner kind>). A Deployment runs
// one ReplicaSet generation, two for the minutes a rollout takes, so a proxy holding series for
// more generations of one workload still references endpoints from rollouts that finished long
// ago: the series cannot be evicted while something holds them. An open connection does not make
// a generation live: a client that pools connections itself (an ingress dialling pod IPs) keeps
// them open to pods long gone, which is what holds the series (linkerd2#12916, discussion #12924:
// "connections are being held open to endpoints that no longer exist"). So beyond the two
// generations a rollout leaves, every generation is stale whatever its connection gauges say.
// Pods without any open connection are the other tell: a balancer keeps connections to the
// endpoints it uses.

import { defineRule, type FindingDraft, type MetricSampleRecord } from '../../core/types.js';
import {
  cappedBump,
  type CappedCounts,
  cappedCounts,
  detach,
  droppedKeys,
  type DroppedKeys,
  keepTop,
  keepWorst,
  mergeCapped,
  mergeKeyed,
} from '../../util/stats.js';
import { identityOf, proxyKeyOf, proxyLabel, subjectOf, type ProxyIdentity, keyMemo, type KeyMemo } from '../../kit/metric-proxy.js';
import { stateCap } from '../../core/state-cap.js';
import { NO_OWNER, type OwnerKey, releaseHealthy, workloadKey } from './state.js';

export interface StaleEndpointOptions {
  maxTemplateHashes: number;
  maxLiveGenerations: number;
  minStaleSeries: number;
  minIdlePods: number;
  idlePodFactor: number;
}

/** `dst_<kind>` labels the destination controller derives from the pod's owner. */
const OWNER_LABELS = [
  'dst_deployment',
  'dst_statefulset',
  'dst_daemonset',
  'dst_replicaset',
  'dst_k8s_job',
  'dst_replicationcontroller',
  'dst_rollout',
  'dst_cronjob',
];
/**
 * Proxies (dumps) analysed exactly. Past 2 × this many, those holding the fewest outbound endpoint
 * series are dropped and counted: a bundle of 4,000 dumps costs what one of 1,000 does, and the
 * proxies that can hold stale series are the ones kept.
 */
const MAX_PROXIES = stateCap(1_000);
const MAX_WORKLOADS = stateCap(1_000);
const MAX_GENERATIONS = 64;
const MAX_PODS = stateCap(5_000);
/** Pod names remembered per proxy across all workloads, so memory stays bounded on any dump. */
const MAX_PODS_PER_PROXY = stateCap(25_000);

interface Generation {
  series: number;
  pods: CappedCounts;
  openConnections: number;
}

interface WorkloadState {
  owner: string;
  name: string;
  namespace: string | null;
  series: number;
  generations: Map<string, Generation>;
  pods: CappedCounts;
  /** Pods with tcp_open_connections{peer="dst"} > 0. */
  connectedPods: CappedCounts;
}

interface ProxyState {
  id: ProxyIdentity;
  workloads: Map<string, WorkloadState>;
  trackedPods: number;
}

function endpointSeries(proxy: ProxyState): number {
  let n = 0;
  for (const w of proxy.workloads.values()) n += w.series;
  return n;
}

/** The last sample counted, whose exact repeats (same proxy, destination pod and generation) are pending. */
interface LastSample {
  key: string;
  pod: string;
  ownerLabel: string;
  owner: string;
  namespace: string | undefined;
  hash: string | undefined;
  proxy: ProxyState;
  w: WorkloadState;
  podHash: string;
  repeats: number;
}

interface State {
  /** The last proxy or pod key built (kit/metric-proxy.ts), for runs of records from one proxy. */
  keys: KeyMemo;
  proxies: Map<string, ProxyState>;
  /** Proxies dropped by MAX_PROXIES (those holding the fewest endpoint series first). */
  untrackedProxies: number;
  last: LastSample | null;
  /** The last workload key built; a memo in the run's own state, not at module level (issue 30). */
  lastOwner: OwnerKey;
  options: StaleEndpointOptions;
  /** Workloads let go past MAX_WORKLOADS of a proxy, those without stale generations first (keepWorst). */
  droppedWorkloads: DroppedKeys;
}

export default defineRule<StaleEndpointOptions, State>({
  meta: {
    id: 'stale-endpoint-metrics',
    code: 'LD2002',
    title: 'Metrics held for destination pods that are gone',
    description:
      'Outbound endpoint series of one destination workload spread over several ReplicaSet generations, or over far more pods than the proxy is connected to.',
    defaultSeverity: 'warning',
    inputs: ['prometheus'],
    defaultOptions: { maxTemplateHashes: 1, maxLiveGenerations: 2, minStaleSeries: 100, minIdlePods: 20, idlePodFactor: 3 },
    optionSchema: {
      maxTemplateHashes: {
        type: 'integer',
        minimum: 1,
        description: 'Distinct dst_pod_template_hash values per destination workload that are normal; more fire the rule.',
      },
      maxLiveGenerations: {
        type: 'integer',
        minimum: 1,
        description:
          'Generations of one workload a rollout leaves at once; beyond this many (or maxTemplateHashes, if larger) the rest are stale even with open connections, which a pooling client keeps to pods long gone.',
      },
      minStaleSeries: {
        type: 'integer',
        minimum: 1,
        description: 'Series that the older generations must hold together before the rule fires (a rollout in progress holds few).',
      },
      minIdlePods: {
        type: 'integer',
        minimum: 1,
        description: 'Destination pods without an open connection, per workload, from which the pod-count signal fires.',
      },
      idlePodFactor: { type: 'number', minimum: 1, description: 'The pod-count signal needs this many times more idle pods than connected ones.' },
    },
  },

  createState: (options) => ({
    proxies: new Map(),
    untrackedProxies: 0,
    last: null,
    lastOwner: NO_OWNER,
    keys: keyMemo(),
    options,
    droppedWorkloads: droppedKeys(),
  }),

  visitors: {
    'metric-sample'(state, record) {
      const labels = record.labels;
      const pod = labels.dst_pod;
      if (record.duplicate || pod === undefined) return;
      const ownerLabel = ownerLabelOf(labels);
      if (ownerLabel === null) return;
      const key = proxyKeyOf(record, state.keys);
      const open = record.name === 'tcp_open_connections' && labels.peer === 'dst' && record.value > 0;
      // The ~26 bucket lines of a histogram name the same destination pod: such a repeat only adds
      // to the counts the first one touched, so it is counted here and added once (flushRepeats).
      const last = state.last;
      if (
        !open &&
        last !== null &&
        last.key === key &&
        last.pod === pod &&
        last.ownerLabel === ownerLabel &&
        last.owner === labels[ownerLabel] &&
        last.namespace === labels.dst_namespace &&
        last.hash === labels.dst_pod_template_hash
      ) {
        last.repeats++;
        return;
      }
      flushRepeats(state);
      let proxy = state.proxies.get(key);
      if (!proxy) {
        proxy = { id: identityOf(record), workloads: new Map(), trackedPods: 0 };
        state.untrackedProxies += keepTop(state.proxies, MAX_PROXIES, endpointSeries);
        state.proxies.set(key, proxy);
      }
      const owner = { kind: ownerLabel.slice(4), name: labels[ownerLabel]! };
      const namespace = labels.dst_namespace ?? null;
      const wKey = workloadKey(state, namespace, owner);
      let w = proxy.workloads.get(wKey);
      if (!w) {
        keepWorkloads(state, proxy);
        w = {
          owner: owner.kind,
          name: detach(owner.name),
          namespace: namespace === null ? null : detach(namespace),
          series: 0,
          generations: new Map(),
          pods: cappedCounts(MAX_PODS),
          connectedPods: cappedCounts(MAX_PODS),
        };
        proxy.workloads.set(detach(wKey), w);
      }
      const hash = labels.dst_pod_template_hash ?? hashFromPodName(owner, pod);
      if (open) {
        const g = addSamples(state, proxy, w, pod, hash, 1);
        if (g === undefined) return;
        cappedBump(w.connectedPods, pod, record.value);
        if (g) g.openConnections += record.value;
        return;
      }
      addSamples(state, proxy, w, pod, hash, 1);
      state.last = {
        key,
        pod,
        ownerLabel,
        owner: owner.name,
        namespace: labels.dst_namespace,
        hash: labels.dst_pod_template_hash,
        proxy,
        w,
        podHash: hash,
        repeats: 0,
      };
    },
  },

  merge(into, from) {
    flushRepeats(into);
    flushRepeats(from);
    mergeKeyed(into.proxies, from.proxies, (mine, proxy) => {
      mine.trackedPods += proxy.trackedPods;
      mergeKeyed(mine.workloads, proxy.workloads, (existing, w) => {
        existing.series += w.series;
        mergeCapped(existing.pods, w.pods);
        mergeCapped(existing.connectedPods, w.connectedPods);
        mergeKeyed(existing.generations, w.generations, (eg, g) => {
          eg.series += g.series;
          eg.openConnections += g.openConnections;
          mergeCapped(eg.pods, g.pods);
        });
      });
    });
    into.untrackedProxies += from.untrackedProxies + keepTop(into.proxies, MAX_PROXIES, endpointSeries);
    into.droppedWorkloads.healthy += from.droppedWorkloads.healthy;
    into.droppedWorkloads.signal += from.droppedWorkloads.signal;
    for (const proxy of into.proxies.values()) keepWorkloads(into, proxy);
  },

  finish(state, { options }) {
    flushRepeats(state);
    const findings: FindingDraft[] = [];
    for (const proxy of state.proxies.values()) {
      const verdicts = [...proxy.workloads.values()].map((w) => judge(w, options)).filter((v): v is Verdict => v !== null);
      if (verdicts.length === 0) continue;
      const finding = describe(proxy, verdicts);
      if (state.untrackedProxies > 0) finding.evidence.proxiesNotTracked = state.untrackedProxies;
      const dropped = state.droppedWorkloads.healthy + state.droppedWorkloads.signal;
      if (dropped > 0) finding.evidence.workloadsNotTracked = dropped;
      findings.push(finding);
    }
    return findings.sort((a, b) => (b.keyFigure?.value ?? 0) - (a.keyFigure?.value ?? 0));
  },
});

/** The first `dst_<kind>` label with a value, without building anything per sample. */
function ownerLabelOf(labels: MetricSampleRecord['labels']): string | null {
  for (const label of OWNER_LABELS) if (labels[label]) return label;
  return null;
}

/**
 * Counts `n` samples of one destination pod in a workload, as `n` calls for one sample each
 * would: the generation it falls in, or null when there are too many generations, or undefined
 * when the pod budget of the proxy is spent (nothing is counted for the pod then).
 */
function addSamples(state: State, proxy: ProxyState, w: WorkloadState, pod: string, hash: string, n: number): Generation | null | undefined {
  if (!w.pods.counts.has(pod)) {
    // A pod not yet counted changes the budgets with every sample: take them one at a time.
    let g: Generation | null | undefined;
    for (let i = 0; i < n; i++) {
      w.series++;
      if (!w.pods.counts.has(pod)) {
        if (proxy.trackedPods >= MAX_PODS_PER_PROXY) releasePods(state, proxy, w);
        if (proxy.trackedPods >= MAX_PODS_PER_PROXY) {
          w.pods.overflow++;
          g = undefined;
          continue;
        }
        proxy.trackedPods++;
      }
      cappedBump(w.pods, pod);
      g = generationOf(w, hash);
      if (g) {
        g.series++;
        cappedBump(g.pods, pod);
      }
    }
    return g;
  }
  w.series += n;
  cappedBump(w.pods, pod, n);
  const g = generationOf(w, hash);
  if (g) {
    g.series += n;
    cappedBump(g.pods, pod, n);
  }
  return g;
}

/** Stale destinations outrank healthy ones when a proxy's workloads or pod budget are full (state.ts). */
function keepWorkloads(state: State, proxy: ProxyState): void {
  const rank = (w: WorkloadState) => (judge(w, state.options) ? 1 + Math.min(w.series, 1e9) : 0);
  keepWorst(proxy.workloads, MAX_WORKLOADS, rank, state.droppedWorkloads, (w) => forget(state, proxy, w));
}

function forget(state: State, proxy: ProxyState, w: WorkloadState): void {
  proxy.trackedPods -= w.pods.counts.size;
  if (state.last?.w === w) state.last = null;
}

function releasePods(state: State, proxy: ProxyState, keep: WorkloadState): void {
  const isStale = (w: WorkloadState) => judge(w, state.options) !== null;
  state.droppedWorkloads.healthy += releaseHealthy(proxy, keep, MAX_PODS_PER_PROXY / 2, isStale, (w) => forget(state, proxy, w));
}

function generationOf(w: WorkloadState, hash: string): Generation | null {
  let g = w.generations.get(hash);
  if (!g && w.generations.size < MAX_GENERATIONS) {
    g = { series: 0, pods: cappedCounts(MAX_PODS), openConnections: 0 };
    w.generations.set(detach(hash), g);
  }
  return g ?? null;
}

/** Adds the pending repeats of the last sample: before the next different sample, a merge, or findings. */
function flushRepeats(state: State): void {
  const last = state.last;
  state.last = null;
  if (last !== null && last.repeats > 0) addSamples(state, last.proxy, last.w, last.pod, last.podHash, last.repeats);
}

interface Verdict {
  w: WorkloadState;
  generations: [string, Generation][];
  /** Generations counted as live: the one in use and connected older ones, up to what a rollout leaves. */
  live: Set<string>;
  /** Stale generations that still have open connections (held by a pooling client). */
  pooledGenerations: number;
  staleSeries: number;
  tooManyGenerations: boolean;
  tooManyPods: boolean;
  connected: number;
  idlePods: number;
  idleSeries: number;
}

function judge(w: WorkloadState, options: StaleEndpointOptions): Verdict | null {
  const hashes = [...w.generations.entries()].filter(([hash]) => hash !== '');
  // The generation in use is the one the proxy is connected to; without connection data, the largest.
  const generations = hashes.sort((a, b) => b[1].openConnections - a[1].openConnections || b[1].series - a[1].series || (a[0] < b[0] ? -1 : 1));
  // An older generation the proxy still has connections to may be live (a rollout in progress),
  // but a rollout leaves at most maxLiveGenerations: the connected generations beyond those are
  // held open by a pooling client, not by live pods. Without connection data every older one is stale.
  const connectionData = generations.some(([, g]) => g.openConnections > 0);
  const liveCap = Math.max(options.maxLiveGenerations, options.maxTemplateHashes);
  const live = new Set<string>();
  generations.forEach(([hash, g], i) => {
    if (live.size < liveCap && (i === 0 || (connectionData && g.openConnections > 0))) live.add(hash);
  });
  const stale = generations.filter(([hash]) => !live.has(hash));
  const staleSeries = stale.reduce((n, [, g]) => n + g.series, 0);
  const tooManyGenerations = generations.length > options.maxTemplateHashes && staleSeries >= options.minStaleSeries;
  const connected = w.connectedPods.counts.size;
  const idlePods = w.pods.counts.size - connected;
  const tooManyPods = connected > 0 && idlePods >= options.minIdlePods && idlePods >= options.idlePodFactor * connected;
  if (!tooManyGenerations && !tooManyPods) return null;
  const pooledGenerations = stale.filter(([, g]) => g.openConnections > 0).length;
  return {
    w,
    generations,
    live,
    staleSeries,
    tooManyGenerations,
    tooManyPods,
    connected,
    idlePods,
    idleSeries: connected > 0 ? idleSeriesEstimate(w) : 0,
    pooledGenerations,
  };
}

/**
 * The ReplicaSet hash in a Deployment's (or Argo Rollout's) pod name, `<owner>-<hash>-<suffix>`,
 * for proxies or dumps without the dst_pod_template_hash label; '' when the name does not say.
 */
function hashFromPodName(owner: { kind: string; name: string }, pod: string): string {
  if ((owner.kind !== 'deployment' && owner.kind !== 'rollout') || !pod.startsWith(`${owner.name}-`)) return '';
  const rest = pod.slice(owner.name.length + 1);
  const dash = rest.lastIndexOf('-');
  const hash = dash > 0 ? rest.slice(0, dash) : '';
  return /^[a-z0-9]{6,10}$/.test(hash) && /^[a-z0-9]{5}$/.test(rest.slice(dash + 1)) ? hash : '';
}

function workloadName(w: WorkloadState): string {
  return `${w.owner} ${w.namespace ? `${w.namespace}/` : ''}${w.name}`;
}

function describe(proxy: ProxyState, verdicts: Verdict[]): FindingDraft {
  const label = proxyLabel(proxy.id);
  const staleOf = (v: Verdict) => (v.tooManyGenerations ? v.staleSeries : v.idleSeries);
  verdicts.sort((a, b) => staleOf(b) - staleOf(a) || (a.w.name < b.w.name ? -1 : 1));
  const totalStale = verdicts.reduce((n, v) => n + staleOf(v), 0);
  const worst = verdicts[0]!;
  const byGeneration = verdicts.filter((v) => v.tooManyGenerations);
  const byPods = verdicts.filter((v) => v.tooManyPods);
  const parts = [
    `${label} holds ${totalStale.toLocaleString('en-US')} endpoint series for destination pods it no longer uses, across ${verdicts.length} workload${verdicts.length === 1 ? '' : 's'}.`,
  ];
  if (byGeneration.length > 0) {
    const maxGen = Math.max(...byGeneration.map((v) => v.generations.length));
    parts.push(
      `${byGeneration.length} workload${byGeneration.length === 1 ? ' has' : 's have'} series from several ReplicaSet generations (up to ${maxGen} dst_pod_template_hash values).`,
    );
  }
  const pooled = byGeneration.filter((v) => v.pooledGenerations > 0);
  if (pooled.length > 0) {
    parts.push(
      `In ${pooled.length} of them the proxy still has open connections to generations beyond the ${Math.max(...pooled.map((v) => v.live.size))} a rollout leaves: a client that pools connections (an ingress dialling pod IPs) holds them open to pods that no longer exist, and those connections keep the series alive.`,
    );
  }
  if (byPods.length > 0)
    parts.push(`${byPods.length} workload${byPods.length === 1 ? ' has' : 's have'} far more dst_pod values than pods with an open connection.`);
  parts.push(`Worst: ${workloadName(worst.w)}, ${staleOf(worst).toLocaleString('en-US')} series outside the generation in use.`);
  parts.push(
    'A rollout leaves two generations for a few minutes; series that outlive it are still referenced (a client dialling old pod IPs, or endpoints the balancer never dropped), so the 10-minute idle eviction cannot remove them.',
  );
  return {
    kind: 'stale-endpoints',
    title: `Stale endpoint metrics in ${label}`,
    message: parts.join(' '),
    subject: { ...subjectOf(proxy.id), target: `${worst.w.owner}/${worst.w.namespace ? `${worst.w.namespace}/` : ''}${worst.w.name}` },
    evidence: {
      proxy: label,
      staleSeries: totalStale,
      workloads: verdicts.map((v) => ({
        destination: workloadName(v.w),
        series: v.w.series,
        templateHashes: v.generations.length,
        liveGenerations: v.live.size,
        staleGenerationsWithConnections: v.pooledGenerations,
        staleGenerationSeries: v.staleSeries,
        distinctPods: v.w.pods.overflow > 0 ? `≥ ${v.w.pods.counts.size}` : v.w.pods.counts.size,
        podsWithOpenConnections: v.connected,
      })),
      worstWorkload: workloadName(worst.w),
      generations: worst.generations.map(([hash, g], i) => ({
        templateHash: hash,
        series: g.series,
        pods: g.pods.overflow > 0 ? `≥ ${g.pods.counts.size}` : g.pods.counts.size,
        openConnections: g.openConnections,
        role:
          i === 0
            ? g.openConnections > 0
              ? 'in use (open connections)'
              : 'largest'
            : worst.live.has(hash)
              ? 'older, still connected (rollout)'
              : g.openConnections > 0
                ? 'beyond what a rollout leaves, connections held open'
                : 'older, no open connection',
      })),
    },
    locations: [{ path: proxy.id.path, line: proxy.id.line }],
    remediation: REMEDIATION,
    keyFigure: { name: 'staleSeries', value: totalStale },
  };
}

function idleSeriesEstimate(w: WorkloadState): number {
  let n = 0;
  for (const [pod, count] of w.pods.counts) if (!w.connectedPods.counts.has(pod)) n += count;
  return n;
}

const REMEDIATION = [
  "1. Find who holds the old endpoints. If this proxy belongs to an ingress or any client that picks pod IPs itself, it keeps dialling (or pooling) pods of old generations; route it through the Service (see ingress-pod-ip-bypass). Otherwise compare with `linkerd diagnostics endpoints <svc>.<ns>.svc.cluster.local:<port>` and the proxy's outbound_http_balancer_p2c_endpoints / outbound_http_balancer_endpoints: old IPs still listed there mean the destination controller or balancer never removed them.",
  '2. Upgrade: stale-endpoint fixes shipped in edge-23.10.3 / stable-2.14.2 (linkerd2-proxy #2484, #2486) and the p2c pool balancer in Linkerd 2.15; in linkerd2#12916 (2.14.8) three generations gone for 12 h held 11,881, 12,608 and 20,149 lines.',
  '3. Stop-gap: `kubectl rollout restart` the client workload to drop every series at once, and make sure its proxies are scraped (eviction only runs during a scrape, after LINKERD2_PROXY_METRICS_RETAIN_IDLE, 10 min by default).',
  'Upstream: linkerd2#12916, linkerd2#2692 (331 dst_pod values where ~20 run), linkerd2#6683.',
].join('\n');
