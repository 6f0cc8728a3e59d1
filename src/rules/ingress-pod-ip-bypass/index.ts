// A proxy whose application dials pod IPs itself. Linkerd resolves each outbound connection by
// its original destination: a Service ClusterIP gets the proxy's balancer, a pod IP is just
// forwarded. Forwarded endpoints are looked up by pod, so their series carry dst_pod but no
// dst_service (the Service is unknown) and no authority; no balancer series exist for them, and
// 2.13+ proxies route them through a synthesized `endpoint` policy. On the accept side
// (peer="src") the original destinations are then the same IPs the proxy connects to (peer="dst").
// Logs show it as `proxy{addr=X}:forward{addr=X}` instead of `…:service{…}:endpoint{addr=Y}`.

import { type FindingDraft, type MetricSampleRecord, type ProxyLogRecord, type SampleLine, defineRule } from '../../core/types.js';
import { workloadOfPod } from '../../util/path-meta.js';
import { perBody } from '../../util/body-memo.js';
import {
  addDropped,
  cappedBump,
  type CappedCounts,
  cappedCounts,
  droppedKeys,
  droppedSentence,
  type DroppedKeys,
  keepWorst,
  mergeCapped,
  mergeKeyed,
  topEntries,
} from '../../util/stats.js';
import {
  cappedAdd,
  cappedSet,
  identityOf,
  mergeCappedSet,
  podKeyOf,
  proxyLabel,
  subjectOf,
  type CappedSet,
  type ProxyIdentity,
  keyMemo,
  type KeyMemo,
} from '../../kit/metric-proxy.js';
import { keepSample } from '../../core/evidence.js';
import { stateCap } from '../../core/state-cap.js';

export interface IngressBypassOptions {
  minEndpoints: number;
  minNoServiceRatio: number;
}

const SET_CAP = stateCap(10_000);
const ADMIN_PORT = '4191';
const SAMPLE_LINES = 3;
/** Families whose series exist per Service backend when the proxy balances (2.13+). */
const BALANCER_FAMILY = /^outbound_(?:http|tcp|tls)_balancer_/;
const ENDPOINT_FAMILIES = new Set([
  'request_total',
  'response_total',
  'response_latency_ms',
  'tcp_open_total',
  'tcp_open_connections',
  'tcp_read_bytes_total',
  'tcp_write_bytes_total',
  'tcp_close_total',
]);

interface ProxyState {
  id: ProxyIdentity;
  endpointSeries: number;
  noServiceSeries: number;
  serviceBalancerSeries: number;
  apiServerBalancerSeries: number;
  endpointPolicySeries: number;
  ingressModeSeries: number;
  /**
   * The sets only a metric sample fills, and the addresses only a forwarded line does, made on first
   * use: most proxies of a bundle of logs only balance, and six empty sets each were ~1 KB a pod
   * up to the 2,000 tracked (4,000 pod files of the bench log: 2.6 MB that outlived the read).
   */
  targets: MetricTargets | null;
  forwardAddrs: CappedSet | null;
  forwardLines: number;
  balancedLines: number;
  ingressSpanLines: number;
  samples: SampleLine[];
}

/** Distinct endpoints a proxy's metrics name, by how they are reached. */
interface MetricTargets {
  noServiceTargets: CappedSet;
  noServiceWorkloads: CappedCounts;
  serviceTargets: CappedSet;
  origDst: CappedSet;
  connected: CappedSet;
}

function metricTargets(): MetricTargets {
  return {
    noServiceTargets: cappedSet(SET_CAP),
    noServiceWorkloads: cappedCounts(1_000),
    serviceTargets: cappedSet(SET_CAP),
    origDst: cappedSet(SET_CAP),
    connected: cappedSet(SET_CAP),
  };
}

function mergeMetricTargets(into: MetricTargets, from: MetricTargets): void {
  mergeCappedSet(into.noServiceTargets, from.noServiceTargets);
  mergeCapped(into.noServiceWorkloads, from.noServiceWorkloads);
  mergeCappedSet(into.serviceTargets, from.serviceTargets);
  mergeCappedSet(into.origDst, from.origDst);
  mergeCappedSet(into.connected, from.connected);
}

interface State {
  /** The last proxy or pod key built (kit/metric-proxy.ts), for runs of records from one proxy. */
  keys: KeyMemo;
  proxies: Map<string, ProxyState>;
  minEndpoints: number;
  /** Proxies let go to bound memory (see dropUntracked): below minEndpoints targets, or above. */
  dropped: DroppedKeys;
  /** One-entry memos of familyOf and destinationKey, in the run's own state rather than at module level (issue 30). */
  lastFamily: FamilyFacts;
  lastDestination: DestinationKey;
}

/**
 * Proxies tracked at once. A dump of a million `# POD` sections would otherwise keep several sets
 * per pod; past this, half are let go, the ones with the fewest targets first (dropUntracked).
 */
const MAX_TRACKED_PROXIES = stateCap(2_000);

export default defineRule<IngressBypassOptions, State>({
  meta: {
    id: 'ingress-pod-ip-bypass',
    code: 'LD2003',
    title: 'Outbound traffic sent to pod IPs, bypassing Services',
    description:
      'A proxy (usually an ingress) whose application picks endpoints itself, so Linkerd forwards to pod IPs without balancing, routes or eviction of old endpoints.',
    defaultSeverity: 'warning',
    inputs: ['prometheus', 'proxy-log'],
    // Only lines with forward/service/balance/ingress spans say how the proxy routed. Matched as span
    // syntax (a name followed by its fields or the next span), not as words: "service unavailable"
    // in error text would pull most failed-request lines of a busy proxy into the full parse.
    lineInterest: { 'proxy-log': ['forward{', 'service{', 'balance{', 'ingress{', 'forward:', 'service:', 'balance:', 'ingress:'] },
    defaultOptions: { minEndpoints: 5, minNoServiceRatio: 0.8 },
    optionSchema: {
      minEndpoints: {
        type: 'integer',
        minimum: 1,
        description: 'Distinct endpoint targets reached without a Service (or forwarded in the logs) before the rule fires.',
      },
      minNoServiceRatio: {
        type: 'number',
        minimum: 0,
        maximum: 1,
        description: 'Share of endpoint series without dst_service from which the traffic counts as bypassing.',
      },
    },
  },

  createState: (options) => ({
    proxies: new Map(),
    minEndpoints: options.minEndpoints,
    dropped: droppedKeys(),
    lastFamily: NO_FAMILY,
    lastDestination: NO_DESTINATION,
    keys: keyMemo(),
  }),

  visitors: {
    'metric-sample'(state, record) {
      if (record.duplicate) return;
      const p = proxyFor(state, record);
      const t = (p.targets ??= metricTargets());
      const labels = record.labels;
      const family = familyOf(state, record.family);
      if (family.balancer) {
        if (labels.parent_name === 'kubernetes' && labels.parent_namespace === 'default') p.apiServerBalancerSeries++;
        else if (labels.backend_kind === 'Service' || labels.parent_kind === 'Service') p.serviceBalancerSeries++;
      }
      if ((labels.parent_kind === 'default' && labels.parent_name === 'endpoint') || (labels.route_kind === 'default' && labels.route_name === 'endpoint'))
        p.endpointPolicySeries++;
      if (labels.parent_kind === 'default' && labels.parent_name === 'ingress') p.ingressModeSeries++;
      if (labels.direction !== 'outbound') return;
      const ip = labels.target_ip ?? ipOf(labels.target_addr);
      if (labels.peer === 'src') {
        if (ip) cappedAdd(t.origDst, ip);
        return;
      }
      if (ip && (labels.peer === 'dst' || family.endpoint)) cappedAdd(t.connected, ip);
      // Scrapers reach the proxy admin port (4191) by pod IP by design; that is not application traffic.
      if (labels.dst_pod === undefined || !family.endpoint || labels.target_port === ADMIN_PORT) return;
      p.endpointSeries++;
      if (labels.dst_service) {
        cappedAdd(t.serviceTargets, labels.dst_pod);
        return;
      }
      p.noServiceSeries++;
      cappedAdd(t.noServiceTargets, ip ?? labels.dst_pod);
      const owner = labels.dst_deployment ?? labels.dst_statefulset ?? labels.dst_daemonset ?? labels.dst_replicaset;
      if (owner) cappedBump(t.noServiceWorkloads, destinationKey(state, labels.dst_namespace, owner));
    },
    'proxy-log'(state, record) {
      if (record.spans.length === 0) return;
      const { orig, forwarded, balanced, ingressSpan } = routingOf(record);
      if (!forwarded && !balanced && !ingressSpan) return;
      const p = proxyFor(state, record);
      if (ingressSpan) p.ingressSpanLines++;
      if (balanced) p.balancedLines++;
      if (forwarded && orig) {
        p.forwardLines++;
        cappedAdd((p.forwardAddrs ??= cappedSet(SET_CAP)), orig);
        keepSample(p.samples, SAMPLE_LINES, record.path, record.line, record.raw);
      }
    },
  },

  merge(into, from) {
    mergeKeyed(into.proxies, from.proxies, (mine, p) => {
      mine.endpointSeries += p.endpointSeries;
      mine.noServiceSeries += p.noServiceSeries;
      if (p.targets) mergeMetricTargets((mine.targets ??= metricTargets()), p.targets);
      mine.serviceBalancerSeries += p.serviceBalancerSeries;
      mine.apiServerBalancerSeries += p.apiServerBalancerSeries;
      mine.endpointPolicySeries += p.endpointPolicySeries;
      mine.ingressModeSeries += p.ingressModeSeries;
      mine.forwardLines += p.forwardLines;
      if (p.forwardAddrs) mergeCappedSet((mine.forwardAddrs ??= cappedSet(SET_CAP)), p.forwardAddrs);
      mine.balancedLines += p.balancedLines;
      mine.ingressSpanLines += p.ingressSpanLines;
      mine.samples.push(...p.samples.slice(0, SAMPLE_LINES - mine.samples.length));
    });
    addDropped(into.dropped, from.dropped);
    dropUntracked(into);
  },

  finish(state, { options }) {
    const findings: FindingDraft[] = [];
    for (const p of state.proxies.values()) {
      const f = judge(p, options);
      if (f) findings.push(f);
    }
    const dropped = droppedSentence(state.dropped, 'proxies');
    if (dropped)
      for (const f of findings) {
        f.message = `${f.message} ${dropped}`;
        f.evidence.proxiesNotTracked = state.dropped.healthy + state.dropped.signal;
      }
    return findings;
  },
});

/** How a log line's spans say the proxy routed it: forwarded to the original destination, balanced, or in ingress mode. */
const routingOf = perBody((record) => {
  let orig: string | null = null;
  let forwarded = false;
  let balanced = false;
  for (const span of record.spans) {
    if (span.name === 'proxy' && span.fields.addr) orig = span.fields.addr;
    else if (span.name === 'forward' && span.fields.addr && span.fields.addr === orig) forwarded = true;
    else if (span.name === 'service' || span.name === 'balance') balanced = true;
  }
  return { orig, forwarded, balanced, ingressSpan: record.spans.some((s) => s.name === 'ingress') };
});

/** What the rule needs of a family name; samples come in runs of one family, so the last answer is reused. */
interface FamilyFacts {
  name: string;
  balancer: boolean;
  endpoint: boolean;
}

interface DestinationKey {
  namespace: string | undefined;
  owner: string;
  key: string;
}

const NO_FAMILY: FamilyFacts = Object.freeze({ name: '', balancer: false, endpoint: false });
const NO_DESTINATION: DestinationKey = Object.freeze({ namespace: undefined, owner: '', key: '' });

function familyOf(state: State, name: string): FamilyFacts {
  if (name !== state.lastFamily.name) state.lastFamily = { name, balancer: BALANCER_FAMILY.test(name), endpoint: ENDPOINT_FAMILIES.has(name) };
  return state.lastFamily;
}

/** `namespace/owner`, built once per run of samples of one destination rather than per sample. */
function destinationKey(state: State, namespace: string | undefined, owner: string): string {
  const last = state.lastDestination;
  if (last.namespace === namespace && last.owner === owner) return last.key;
  const key = `${namespace ? `${namespace}/` : ''}${owner}`;
  state.lastDestination = { namespace, owner, key };
  return key;
}

const targetsOf = (p: ProxyState) => Math.max(p.targets?.noServiceTargets.values.size ?? 0, p.forwardAddrs?.values.size ?? 0);

/**
 * Lets go of half the proxies once MAX_TRACKED_PROXIES are held (keepWorst): those with the fewest
 * distinct pod-IP targets first, so a proxy with none (balanced traffic only: it cannot fire) is
 * only counted, and an ingress whose forwarded lines are interleaved with thousands of other pods'
 * keeps its targets until it has enough to fire (issue 44: every proxy below minEndpoints used to
 * be dropped at each sweep, however close it was).
 */
function dropUntracked(state: State): void {
  keepWorst(state.proxies, MAX_TRACKED_PROXIES / 2, targetsOf, droppedKeys(), (p) => {
    if (targetsOf(p) >= state.minEndpoints) state.dropped.signal++;
    else state.dropped.healthy++;
  });
}

function proxyFor(state: State, record: MetricSampleRecord | ProxyLogRecord): ProxyState {
  const key = podKeyOf(record, state.keys);
  let p = state.proxies.get(key);
  if (!p) {
    dropUntracked(state);
    p = {
      id: identityOf(record),
      endpointSeries: 0,
      noServiceSeries: 0,
      serviceBalancerSeries: 0,
      apiServerBalancerSeries: 0,
      endpointPolicySeries: 0,
      ingressModeSeries: 0,
      targets: null,
      forwardAddrs: null,
      forwardLines: 0,
      balancedLines: 0,
      ingressSpanLines: 0,
      samples: [],
    };
    state.proxies.set(key, p);
  } else if (p.id.section === null && record.kind === 'metric-sample' && record.section !== null) {
    p.id = identityOf(record);
  }
  return p;
}

function ipOf(addr: string | undefined): string | null {
  if (!addr) return null;
  const v6 = /^\[([^\]]+)\]:\d+$/.exec(addr);
  if (v6) return v6[1]!;
  const colon = addr.lastIndexOf(':');
  return colon > 0 ? addr.slice(0, colon) : addr;
}

interface IngressKind {
  name: string;
  fix: string;
}

/** Ingress controllers recognised from the pod or workload name, each with its own way to dial the Service. */
const INGRESSES: { pattern: RegExp; kind: IngressKind }[] = [
  {
    pattern: /traefik/,
    kind: {
      name: 'Traefik',
      fix: 'Set `nativeLB: true` on the IngressRoute service (Traefik 2.10+) (or annotate the backend Service with `traefik.ingress.kubernetes.io/service.nativelb: "true"`; v3 can default it with `providers.kubernetesCRD.nativeLBByDefault` / `providers.kubernetesIngress.nativeLBByDefault`), so Traefik dials the ClusterIP. Alternatively mesh it with `linkerd.io/inject: ingress` and add an `l5d-dst-override: <svc>.<ns>.svc.cluster.local:<port>` header with a Middleware (customRequestHeaders); Traefik 1.x has no native-LB option: use ingress mode with `ingress.kubernetes.io/custom-request-headers: l5d-dst-override:<svc>.<ns>.svc.cluster.local:<port>`.',
    },
  },
  {
    pattern: /ingress-nginx|nginx-ingress|nginx/,
    kind: {
      name: 'NGINX ingress',
      fix: 'Annotate the Ingresses (ingress-nginx) with `nginx.ingress.kubernetes.io/service-upstream: "true"` so NGINX uses the Service ClusterIP as its single upstream, and keep the default `linkerd.io/inject: enabled` (no ingress mode needed). F5 NGINX (nginxinc): `use-cluster-ip: true` on VirtualServer upstreams or `nginx.org/use-cluster-ip`. Note service-upstream disables sticky sessions and proxy_next_upstream.',
    },
  },
  {
    pattern: /contour|envoy/,
    kind: {
      name: 'Contour/Envoy',
      fix: 'Mesh Envoy with `linkerd.io/inject: ingress` (Contour always dials endpoints) and set the header on each HTTPProxy, `requestHeadersPolicy: set: [{name: l5d-dst-override, value: "%CONTOUR_SERVICE_NAME%.%CONTOUR_NAMESPACE%.svc.cluster.local:%CONTOUR_SERVICE_PORT%"}]` (Contour 1.12+), skip outbound port 8001 (xDS) and enable automountServiceAccountToken.',
    },
  },
  {
    pattern: /kong/,
    kind: {
      name: 'Kong',
      fix: 'Annotate the backend Services with `ingress.kubernetes.io/service-upstream: "true"` (KIC 0.6+; Kong Operator: IngressClassParameters `spec.serviceUpstream: true`) so Kong forwards to the ClusterIP; or use ingress mode with a request-transformer KongPlugin that removes and re-adds `l5d-dst-override: $(headers.host).svc.cluster.local`.',
    },
  },
  {
    pattern: /haproxy/,
    kind: {
      name: 'HAProxy',
      fix: 'Mesh it with `linkerd.io/inject: ingress` and set `haproxy.org/request-set-header: l5d-dst-override <svc>.<ns>.svc.cluster.local:<port>` per Ingress (haproxytech kubernetes-ingress has no ClusterIP mode). jcmoraisjr haproxy-ingress: set the config key `service-upstream: "true"`.',
    },
  },
  {
    pattern: /emissary|ambassador/,
    kind: {
      name: 'Emissary',
      fix: 'Switch the Mappings that use `KubernetesEndpointResolver` back to the default (KubernetesServiceResolver) and keep `linkerd.io/inject: enabled`; Emissary uses Service-level discovery unless a Mapping overrides it.',
    },
  },
  {
    pattern: /gloo/,
    kind: {
      name: 'Gloo',
      fix: 'Set `settings.spec.linkerd: true` so Gloo adds `l5d-dst-override` to every Kubernetes upstream, and mesh it with `linkerd.io/inject: ingress`.',
    },
  },
];

/** Clients that dial pod IPs by design: a finding for them is informational. */
export const SCRAPERS = /prometheus|datadog|otel|opentelemetry|vmagent|victoria|grafana-agent|alloy|telegraf/;

function judge(p: ProxyState, options: IngressBypassOptions): FindingDraft | null {
  const noServiceTargets = p.targets?.noServiceTargets.values.size ?? 0;
  const ratio = p.endpointSeries > 0 ? p.noServiceSeries / p.endpointSeries : 0;
  const metricsBypass = noServiceTargets >= options.minEndpoints && ratio >= options.minNoServiceRatio && p.serviceBalancerSeries === 0;
  const forwardAddrs = p.forwardAddrs?.values.size ?? 0;
  const logBypass = forwardAddrs >= options.minEndpoints && p.forwardLines > p.balancedLines;
  if (!metricsBypass && !logBypass) return null;
  // A proxy known from its logs alone fires with empty metric sets.
  const t = p.targets ?? metricTargets();

  let overlapCount = 0;
  for (const ip of t.origDst.values) if (t.connected.values.has(ip)) overlapCount++;
  const overlap = t.origDst.values.size > 0 ? overlapCount / t.origDst.values.size : null;
  const name = p.id.pod ?? p.id.section ?? '';
  const workload = workloadOfPod(p.id.pod ?? undefined) ?? name;
  const ingress = INGRESSES.find((i) => i.pattern.test(workload) || i.pattern.test(name))?.kind ?? null;
  const scraper = !ingress && SCRAPERS.test(workload);
  const label = proxyLabel(p.id);
  const who = ingress ? `${ingress.name} (${label})` : label;

  const signals: string[] = [];
  if (metricsBypass) {
    signals.push(
      `${noServiceTargets.toLocaleString('en-US')} endpoint targets are reached without a Service (${Math.round(ratio * 100)} % of ${p.endpointSeries.toLocaleString('en-US')} endpoint series have dst_pod but no dst_service)`,
    );
    signals.push(
      p.endpointPolicySeries > 0
        ? `${p.endpointPolicySeries} route/backend series use the synthesized "endpoint" policy`
        : 'no outbound balancer series for any Service backend',
    );
  }
  if (overlap !== null && overlapCount > 0)
    signals.push(`${overlapCount} of ${t.origDst.values.size} original destinations (peer="src") are endpoints the proxy connects to (peer="dst")`);
  if (logBypass) signals.push(`${p.forwardLines.toLocaleString('en-US')} log lines show proxy{addr=X}:forward{addr=X} for ${forwardAddrs} distinct addresses`);
  const topWorkloads = topEntries(t.noServiceWorkloads.counts, 5).map(({ key, count }) => ({ destination: key, series: count }));

  const message = [
    `${who} sends outbound traffic to individual pod IPs instead of Service IPs: ${signals.join('; ')}.`,
    'Linkerd forwards such connections without balancing, retries, routes or policy, and their per-pod series stay as long as the application keeps old pod IPs (see metric-cardinality and stale-endpoint-metrics).',
    scraper ? 'The workload looks like a metrics scraper, which dials pods by design; this is informational.' : '',
    p.ingressModeSeries > 0 || p.ingressSpanLines > 0 ? 'The proxy runs in ingress mode, so the l5d-dst-override header is missing or stripped.' : '',
  ]
    .filter(Boolean)
    .join(' ');

  return {
    severity: scraper ? 'info' : 'warning',
    kind: scraper ? 'scraper-dials-pods' : 'dials-pods',
    title: `${ingress ? ingress.name : 'Proxy'} dials pod IPs directly`,
    message,
    subject: subjectOf(p.id),
    evidence: {
      proxy: label,
      ...(ingress ? { ingress: ingress.name } : {}),
      endpointSeries: p.endpointSeries,
      endpointSeriesWithoutService: p.noServiceSeries,
      endpointTargetsWithoutService: t.noServiceTargets.overflow ? `≥ ${noServiceTargets}` : noServiceTargets,
      serviceBalancerSeries: p.serviceBalancerSeries,
      endpointPolicySeries: p.endpointPolicySeries,
      ...(overlap !== null ? { origDstOverlap: `${overlapCount}/${t.origDst.values.size}` } : {}),
      ...(p.forwardLines > 0 ? { forwardLogLines: p.forwardLines, forwardedAddresses: forwardAddrs, balancedLogLines: p.balancedLines } : {}),
      ...(topWorkloads.length > 0 ? { destinations: topWorkloads } : {}),
      ...(p.samples.length > 0 ? { samples: p.samples } : {}),
    },
    locations: p.samples.length > 0 ? p.samples.map((s) => ({ path: s.path, line: s.line })) : [{ path: p.id.path, line: p.id.line }],
    remediation: remediationFor(ingress),
    keyFigure: { name: 'endpointTargetsWithoutService', value: Math.max(noServiceTargets, forwardAddrs) },
  };
}

function remediationFor(ingress: IngressKind | null): string {
  return [
    ingress
      ? `1. ${ingress.fix}`
      : '1. Make the client connect to the Service ClusterIP and port (skip its own endpoint selection), or pass the Service in `l5d-dst-override` and mesh it with `linkerd.io/inject: ingress` (remove any client-supplied l5d-dst-override so the ingress is not an open relay).',
    '2. After the change the proxy shows outbound_http_balancer_* series with backend_kind="Service", endpoint series carry dst_service, and logs show service{…}:endpoint{…} spans.',
    '3. Sticky sessions force pod selection and cannot use the Service; headless Services and StatefulSet pod DNS also dial pods by design.',
    'Docs: https://linkerd.io/2-edge/tasks/using-ingress/ . Upstream: discussion linkerd2#12924 (Traefik, no balancer series), linkerd2#11937 (route_name="endpoint"), linkerd2#10908, linkerd2#6157.',
  ].join('\n');
}
