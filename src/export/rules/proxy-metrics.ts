// Rules whose signal is in the proxies' own /metrics, as scraped by the linkerd-viz `linkerd-proxy`
// job (or an equivalent PodMonitor): that job relabels every target with `namespace` and `pod`, so
// a series' owning proxy is known without the exporter guessing from `instance`.

import { alertingRule, byClause, labelRef, num, onClause, podLabels, selector } from '../expr.js';
import type { AlertingRule, ExporterInput, RuleExporter } from '../types.js';

/** Option names agreed in the brief; the rule modules on other branches declare the same ones. */
export interface MetricCardinalityOptions {
  warningSeries: number;
  errorSeries: number;
}

export interface FdExhaustionOptions {
  ratio: number;
}

export interface IngressPodIpBypassOptions {
  minEndpoints: number;
}

export interface StaleEndpointMetricsOptions {
  maxTemplateHashes: number;
  minStaleSeries: number;
}

/**
 * The proxy evicts an idle legacy series only after LINKERD2_PROXY_METRICS_RETAIN_IDLE (10 min by
 * default). Conditions that a rollout creates and eviction clears must outlast that before alerting.
 */
const RETAIN_IDLE_SECONDS = 600;

// ---------------------------------------------------------------- metric-cardinality

/**
 * Series per proxy from `scrape_samples_scraped`: Prometheus writes it once per target per scrape,
 * with the target's labels (namespace, pod), and its value is the number of samples in the body —
 * exactly what the offline rule counts in a `linkerd diagnostics proxy-metrics` dump. Counting the
 * TSDB instead (`count by (namespace, pod) ({job="linkerd-proxy"})`) touches every series of the job
 * at every evaluation, i.e. costs most exactly when cardinality is the problem, and also counts
 * series already dropped by the proxy until they go stale. `scrape_series_added` counts only series
 * new in that scrape (churn), not the size of the body.
 */
function metricCardinality(input: ExporterInput<MetricCardinalityOptions>): AlertingRule[] {
  const { options: o, settings } = input;
  const series = `max ${byClause(podLabels(settings))} (scrape_samples_scraped${selector(settings.proxySelector)})`;
  const who = `${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)}`;
  const why = 'Every retained endpoint series costs proxy memory (linkerd2#12916 ended in OOM kills); series of pods that are gone mean the proxy still references them.';
  const forSeconds = RETAIN_IDLE_SECONDS + 300;
  return [
    alertingRule({
      ruleId: 'metric-cardinality',
      alert: 'LinkerdProxyMetricCardinalityHigh',
      expr: `${series} >= ${num(o.warningSeries)} < ${num(o.errorSeries)}`,
      forSeconds,
      severity: 'warning',
      summary: `Proxy ${who} exports {{ $value }} series`,
      description: `The proxy's /metrics has had at least ${o.warningSeries} series for longer than the 10-minute metric retention. ${why}`,
    }),
    alertingRule({
      ruleId: 'metric-cardinality',
      alert: 'LinkerdProxyMetricCardinalityCritical',
      expr: `${series} >= ${num(o.errorSeries)}`,
      forSeconds,
      severity: 'error',
      summary: `Proxy ${who} exports {{ $value }} series`,
      description: `The proxy's /metrics has had at least ${o.errorSeries} series for longer than the 10-minute metric retention. ${why}`,
    }),
  ];
}

// ---------------------------------------------------------------- fd-exhaustion

/** process_max_fds is 0 when the limit is unlimited: such proxies are left out instead of dividing by 0. */
function fdExhaustion(input: ExporterInput<FdExhaustionOptions>): AlertingRule[] {
  const { options: o, settings, severity } = input;
  const sel = selector(settings.proxySelector);
  const who = `${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)}`;
  return [
    alertingRule({
      ruleId: 'fd-exhaustion',
      alert: 'LinkerdProxyFileDescriptorsNearLimit',
      expr: `max ${byClause(podLabels(settings))} (process_open_fds${sel} / (process_max_fds${sel} > 0)) >= ${num(o.ratio)}`,
      forSeconds: 300,
      severity,
      summary: `Proxy ${who} uses {{ $value | humanizePercentage }} of its file descriptors`,
      description:
        `The proxy has used at least ${Math.round(o.ratio * 100)}% of its open-files limit for 5 minutes. At the limit accept() fails with "Too many open files (os error 24)" and new connections are refused. ` +
        'Raise the nofile limit or find the connection leak.',
    }),
  ];
}

// ---------------------------------------------------------------- ingress-pod-ip-bypass

/**
 * Endpoint-level outbound series carry `dst_pod`; reached through a Service they also carry
 * `dst_service`. Series with a pod but no service mean the application dialled pod IPs itself. A
 * proxy that also reports HTTP balancers for Services is balancing at least part of its traffic and
 * is left out, as is traffic to the proxy admin port 4191 (scrapers dial pods by design).
 */
function ingressPodIpBypass(input: ExporterInput<IngressPodIpBypassOptions>): AlertingRule[] {
  const { options: o, settings, severity } = input;
  const pods = podLabels(settings);
  const endpoints = selector(
    '__name__=~"request_total|tcp_open_total"',
    settings.proxySelector,
    'direction="outbound"',
    'dst_pod!=""',
    'dst_service=""',
    'target_port!="4191"',
  );
  const balancers = selector(settings.proxySelector, 'backend_kind="Service"');
  const expr =
    `count ${byClause(pods)} (\n` +
    `  count ${byClause([...pods, 'dst_pod', 'target_addr'])} (${endpoints})\n` +
    `) >= ${num(o.minEndpoints)}\n` +
    `unless ${onClause(pods)}\n` +
    `  count ${byClause(pods)} (outbound_http_balancer_endpoints${balancers})`;
  return [
    alertingRule({
      ruleId: 'ingress-pod-ip-bypass',
      alert: 'LinkerdProxyBypassedByPodIpDialling',
      expr,
      forSeconds: RETAIN_IDLE_SECONDS,
      severity,
      summary: `${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)} dials {{ $value }} pod IPs directly, bypassing Linkerd load balancing`,
      description:
        `The proxy reports outbound traffic to at least ${o.minEndpoints} pod endpoints that were not reached through a Service, and no HTTP balancer for any Service. ` +
        'An ingress doing its own endpoint selection gets no Linkerd balancing, retries or routes, and its per-endpoint series never expire. ' +
        'Make the ingress target the Service (e.g. ingress-nginx service-upstream, Traefik nativeLB) or use ingress mode with l5d-dst-override.',
    }),
  ];
}

// ---------------------------------------------------------------- stale-endpoint-metrics

/**
 * A ReplicaSet generation (dst_pod_template_hash) whose endpoints served no request for the whole
 * retention period should have been evicted; if its series are still exported the proxy still
 * references those endpoints (linkerd2#12916).
 */
function staleEndpointMetrics(input: ExporterInput<StaleEndpointMetricsOptions>): AlertingRule[] {
  const { options: o, settings, severity } = input;
  const workload = podLabels(settings, 'dst_namespace', 'dst_deployment');
  const generation = [...workload, 'dst_pod_template_hash'];
  const outbound = selector(settings.proxySelector, 'direction="outbound"', 'dst_pod_template_hash!=""');
  const idleGenerations = `sum ${byClause(generation)} (rate(request_total${outbound}[${RETAIN_IDLE_SECONDS / 60}m])) == 0`;
  // The stale-series count comes first so that it is the alert's value; the generation count filters.
  const expr =
    `count ${byClause(workload)} (\n` +
    `  ${outbound}\n` +
    `  and ${onClause(generation)} (${idleGenerations})\n` +
    `) >= ${num(o.minStaleSeries)}\n` +
    `and ${onClause(workload)}\n` +
    `  count ${byClause(workload)} (count ${byClause(generation)} (request_total${outbound})) > ${num(o.maxTemplateHashes)}`;
  return [
    alertingRule({
      ruleId: 'stale-endpoint-metrics',
      alert: 'LinkerdProxyRetainsStaleEndpointMetrics',
      expr,
      forSeconds: 300,
      severity,
      summary: `Proxy ${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)} keeps {{ $value }} series of idle ${labelRef('dst_deployment')} ReplicaSets`,
      description:
        `The proxy exports series for more than ${o.maxTemplateHashes} pod-template hashes of ${labelRef('dst_namespace')}/${labelRef('dst_deployment')}, and at least ${o.minStaleSeries} belong to generations ` +
        'that served no request for the 10-minute retention period. The proxy still references those endpoints, so their series (and memory) are never freed.',
    }),
  ];
}

const METRICS_ONLY = { loki: 'its signal is in the proxy metrics, not in the logs; export it with --target prometheus' };

export const metricCardinalityExporter: RuleExporter<MetricCardinalityOptions> = { ruleId: 'metric-cardinality', reads: ['warningSeries', 'errorSeries'], prometheus: metricCardinality, unsupported: METRICS_ONLY };
export const fdExhaustionExporter: RuleExporter<FdExhaustionOptions> = { ruleId: 'fd-exhaustion', reads: ['ratio'], prometheus: fdExhaustion, unsupported: METRICS_ONLY };
export const ingressPodIpBypassExporter: RuleExporter<IngressPodIpBypassOptions> = { ruleId: 'ingress-pod-ip-bypass', reads: ['minEndpoints'], prometheus: ingressPodIpBypass, unsupported: METRICS_ONLY };
export const staleEndpointMetricsExporter: RuleExporter<StaleEndpointMetricsOptions> = { ruleId: 'stale-endpoint-metrics', reads: ['maxTemplateHashes', 'minStaleSeries'], prometheus: staleEndpointMetrics, unsupported: METRICS_ONLY };
