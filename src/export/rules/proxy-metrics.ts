// Rules whose signal is in the proxies' own /metrics, as scraped by the linkerd-viz `linkerd-proxy`
// job (or an equivalent PodMonitor): that job relabels every target with `namespace` and `pod`, so
// a series' owning proxy is known without the exporter guessing from `instance`.

import type { FdExhaustionOptions } from '../../rules/fd-exhaustion.js';
import type { IngressBypassOptions } from '../../rules/ingress-pod-ip-bypass.js';
import type { MetricCardinalityOptions } from '../../rules/metric-cardinality.js';
import type { StaleEndpointOptions } from '../../rules/stale-endpoint-metrics.js';
import { SCRAPERS } from '../../rules/ingress-pod-ip-bypass.js';
import { alertingRule, byClause, labelRef, num, onClause, podLabels, selector } from '../expr.js';
import type { AlertingRule, ExporterInput, RuleExporter } from '../types.js';

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

/**
 * Graded as offline: warning from `ratio`, error from `errorRatio` (never below `ratio`, since the
 * rule only reports proxies at or above `ratio`). process_max_fds is 0 when the limit is
 * unlimited: such proxies are left out instead of dividing by 0.
 */
function fdExhaustion(input: ExporterInput<FdExhaustionOptions>): AlertingRule[] {
  const { options: o, settings } = input;
  const sel = selector(settings.proxySelector);
  const who = `${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)}`;
  const used = `max ${byClause(podLabels(settings))} (process_open_fds${sel} / (process_max_fds${sel} > 0))`;
  const errorRatio = Math.max(o.ratio, o.errorRatio);
  const percent = (r: number) => `${Math.round(r * 100)}%`;
  const rules: AlertingRule[] = [];
  if (o.ratio < errorRatio) {
    rules.push(
      alertingRule({
        ruleId: 'fd-exhaustion',
        alert: 'LinkerdProxyFileDescriptorsNearLimit',
        expr: `${used} >= ${num(o.ratio)} < ${num(errorRatio)}`,
        forSeconds: 300,
        severity: 'warning',
        summary: `Proxy ${who} uses {{ $value | humanizePercentage }} of its file descriptors`,
        description:
          `The proxy has used between ${percent(o.ratio)} and ${percent(errorRatio)} of its open-files limit for 5 minutes. At the limit accept() fails with "Too many open files (os error 24)" and new connections are refused. ` +
          'Find what holds the descriptors (tcp_open_connections by peer) or raise the nofile limit.',
      }),
    );
  }
  rules.push(
    alertingRule({
      ruleId: 'fd-exhaustion',
      alert: 'LinkerdProxyFileDescriptorsExhausted',
      expr: `${used} >= ${num(errorRatio)}`,
      forSeconds: 300,
      severity: 'error',
      summary: `Proxy ${who} uses {{ $value | humanizePercentage }} of its file descriptors`,
      description:
        `The proxy has used at least ${percent(errorRatio)} of its open-files limit for 5 minutes: connections are about to fail with "Too many open files (os error 24)". ` +
        'Raise the nofile limit now and find the connection leak.',
    }),
  );
  return rules;
}

/** The offline rule grades any "Too many open files (os error 24)" line as an error: connections are already failing. */
function fdExhaustionLoki(input: ExporterInput<FdExhaustionOptions>): AlertingRule[] {
  const { settings } = input;
  return [
    alertingRule({
      ruleId: 'fd-exhaustion',
      alert: 'LinkerdProxyTooManyOpenFiles',
      expr: `sum ${byClause(podLabels(settings))} (count_over_time(${selector(settings.logSelector)} |~ "Too many open files|os error 24[)]" [5m])) > 0`,
      severity: 'error',
      summary: `Proxy ${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)} logged {{ $value }} "Too many open files" errors in 5m`,
      description:
        'The proxy ran out of file descriptors (EMFILE, os error 24): accept() and connect() fail, so new connections are refused or cannot be opened. ' +
        'Raise the nofile limit of the proxy container and find what holds the descriptors.',
    }),
  ];
}

// ---------------------------------------------------------------- ingress-pod-ip-bypass

/** Families the offline rule counts as endpoint series (per destination pod), as metric names. */
const ENDPOINT_NAMES = 'request_total|response_total|response_latency_ms_(bucket|sum|count)|tcp_open_total|tcp_open_connections|tcp_read_bytes_total|tcp_write_bytes_total|tcp_close_total';

/**
 * Endpoint-level outbound series carry `dst_pod`; reached through a Service they also carry
 * `dst_service`. As offline, a proxy fires when at least minEndpoints destination pods are reached
 * without a Service, those series are at least minNoServiceRatio of its endpoint series, and it
 * has no balancer for any Service (the API server's `default/kubernetes` balancer does not count).
 * Traffic to the proxy admin port 4191 is left out, and so are metrics scrapers, which dial pods
 * by design (offline they are only informational).
 */
function ingressPodIpBypass(input: ExporterInput<IngressBypassOptions>): AlertingRule[] {
  const { options: o, settings, severity } = input;
  const pods = podLabels(settings);
  const endpoints = (...extra: string[]) =>
    selector(`__name__=~"${ENDPOINT_NAMES}"`, settings.proxySelector, `${settings.podLabel}!~".*(${SCRAPERS.source}).*"`, 'direction="outbound"', 'dst_pod!=""', 'target_port!="4191"', ...extra);
  const balancer = (...extra: string[]) => selector('__name__=~"outbound_(http|tcp|tls)_balancer_.+"', settings.proxySelector, ...extra);
  const serviceBalancers = `(${balancer('backend_kind="Service"')} or ${balancer('parent_kind="Service"')}) unless ${balancer('parent_namespace="default"', 'parent_name="kubernetes"')}`;
  const expr =
    `count ${byClause(pods)} (\n` +
    `  count ${byClause([...pods, 'dst_pod'])} (${endpoints('dst_service=""')})\n` +
    `) >= ${num(o.minEndpoints)}\n` +
    `and ${onClause(pods)}\n` +
    `  (count ${byClause(pods)} (${endpoints('dst_service=""')}) / count ${byClause(pods)} (${endpoints()})) >= ${num(o.minNoServiceRatio)}\n` +
    `unless ${onClause(pods)}\n` +
    `  count ${byClause(pods)} (${serviceBalancers})`;
  return [
    alertingRule({
      ruleId: 'ingress-pod-ip-bypass',
      alert: 'LinkerdProxyBypassedByPodIpDialling',
      expr,
      forSeconds: RETAIN_IDLE_SECONDS,
      severity,
      summary: `${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)} dials {{ $value }} pods directly, bypassing Linkerd load balancing`,
      description:
        `The proxy reports outbound traffic to at least ${o.minEndpoints} destination pods that were not reached through a Service (at least ${Math.round(o.minNoServiceRatio * 100)}% of its endpoint series have no dst_service), and no balancer for any Service. ` +
        'An ingress doing its own endpoint selection gets no Linkerd balancing, retries or routes, and its per-endpoint series never expire. ' +
        'Make the ingress target the Service (e.g. ingress-nginx service-upstream, Traefik nativeLB) or use ingress mode with l5d-dst-override.',
    }),
  ];
}

// ---------------------------------------------------------------- stale-endpoint-metrics

/**
 * The destination workload of an endpoint series: the offline rule keys it by dst_namespace and
 * the owner label (dst_deployment, dst_statefulset, dst_daemonset…); a series has one of them.
 */
const OWNER_LABELS = ['dst_deployment', 'dst_statefulset', 'dst_daemonset'];

/**
 * Two signals, as offline. Generations: a workload's series spread over more than
 * maxTemplateHashes ReplicaSet generations (dst_pod_template_hash), with at least minStaleSeries
 * series in generations the proxy no longer uses — live, a generation that served no request for
 * the whole 10-minute retention period and has no open connection (an older generation still
 * connected is a rollout in progress, as offline). Idle pods: at least minIdlePods destination
 * pods of one workload without an open connection, and idlePodFactor times more than the pods the
 * proxy is connected to; this needs a connection to the workload, as offline.
 */
function staleEndpointMetrics(input: ExporterInput<StaleEndpointOptions>): AlertingRule[] {
  const { options: o, settings, severity } = input;
  const workload = podLabels(settings, 'dst_namespace', ...OWNER_LABELS);
  const generation = [...workload, 'dst_pod_template_hash'];
  const outbound = selector(settings.proxySelector, 'direction="outbound"', 'dst_pod!=""');
  const hashed = selector(settings.proxySelector, 'direction="outbound"', 'dst_pod!=""', 'dst_pod_template_hash!=""');
  const openConnections = (extra: string) => `tcp_open_connections${selector(settings.proxySelector, 'direction="outbound"', 'peer="dst"', 'dst_pod!=""', extra)}`;
  const idleGenerations =
    `(sum ${byClause(generation)} (rate(request_total${hashed}[${RETAIN_IDLE_SECONDS / 60}m])) == 0)\n` +
    `    unless ${onClause(generation)} (sum ${byClause(generation)} (${openConnections('dst_pod_template_hash!=""')}) > 0)`;
  // The stale-series count comes first so that it is the alert's value; the generation count filters.
  const generationsExpr =
    `count ${byClause(workload)} (\n` +
    `  ${hashed}\n` +
    `  and ${onClause(generation)} (\n    ${idleGenerations}\n  )\n` +
    `) >= ${num(o.minStaleSeries)}\n` +
    `and ${onClause(workload)}\n` +
    `  count ${byClause(workload)} (count ${byClause(generation)} (${hashed})) > ${num(o.maxTemplateHashes)}`;
  const allPods = `count ${byClause(workload)} (count ${byClause([...workload, 'dst_pod'])} (${outbound}))`;
  const connectedPods = `count ${byClause(workload)} (count ${byClause([...workload, 'dst_pod'])} (${openConnections('')} > 0))`;
  const idlePods = `(${allPods} - ${onClause(workload)} ${connectedPods})`;
  const idlePodsExpr = `${idlePods} >= ${num(o.minIdlePods)}\nand ${onClause(workload)}\n  ${idlePods} >= ${onClause(workload)} ${num(o.idlePodFactor)} * ${connectedPods}`;
  const who = `${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)}`;
  const destination = `${labelRef('dst_namespace')}/${OWNER_LABELS.map(labelRef).join('')}`;
  const why = 'The proxy still references those endpoints, so the 10-minute idle eviction cannot free their series (and memory); see linkerd2#12916.';
  // Beyond the generations a rollout leaves, open connections prove nothing: a pooling client holds them to pods long gone.
  const liveCap = Math.max(o.maxLiveGenerations, o.maxTemplateHashes);
  return [
    alertingRule({
      ruleId: 'stale-endpoint-metrics',
      alert: 'LinkerdProxyRetainsTooManyGenerations',
      expr: `count ${byClause(workload)} (count ${byClause(generation)} (${hashed})) > ${num(liveCap)}`,
      forSeconds: RETAIN_IDLE_SECONDS + 300,
      severity,
      summary: `Proxy ${who} keeps series of {{ $value }} ReplicaSet generations of ${destination}`,
      description:
        `For longer than the 10-minute retention, the proxy has exported series for more than ${liveCap} pod-template hashes of ${destination}, more than a rollout leaves, ` +
        `whether or not it still has connections to them (a client that pools connections keeps them open to pods that no longer exist). ${why}`,
    }),
    alertingRule({
      ruleId: 'stale-endpoint-metrics',
      alert: 'LinkerdProxyRetainsStaleEndpointMetrics',
      expr: generationsExpr,
      forSeconds: 300,
      severity,
      summary: `Proxy ${who} keeps {{ $value }} series of unused ${destination} ReplicaSet generations`,
      description:
        `The proxy exports series for more than ${o.maxTemplateHashes} pod-template hashes of ${destination}, and at least ${o.minStaleSeries} belong to generations ` +
        `that served no request for the 10-minute retention period and have no open connection. ${why}`,
    }),
    alertingRule({
      ruleId: 'stale-endpoint-metrics',
      alert: 'LinkerdProxyRetainsSeriesOfUnconnectedPods',
      expr: idlePodsExpr,
      forSeconds: RETAIN_IDLE_SECONDS + 300,
      severity,
      summary: `Proxy ${who} holds series for {{ $value }} ${destination} pods it has no connection to`,
      description:
        `For longer than the 10-minute retention, the proxy has exported series for at least ${o.minIdlePods} pods of ${destination} without an open connection, ` +
        `at least ${o.idlePodFactor} times the pods it is connected to. ${why}`,
    }),
  ];
}

const METRICS_ONLY = { loki: 'its signal is in the proxy metrics, not in the logs; export it with --target prometheus' };

export const metricCardinalityExporter: RuleExporter<MetricCardinalityOptions> = { ruleId: 'metric-cardinality', reads: ['warningSeries', 'errorSeries'], prometheus: metricCardinality, unsupported: METRICS_ONLY };
export const fdExhaustionExporter: RuleExporter<FdExhaustionOptions> = { ruleId: 'fd-exhaustion', reads: ['ratio', 'errorRatio'], prometheus: fdExhaustion, loki: fdExhaustionLoki };
export const ingressPodIpBypassExporter: RuleExporter<IngressBypassOptions> = { ruleId: 'ingress-pod-ip-bypass', reads: ['minEndpoints', 'minNoServiceRatio'], prometheus: ingressPodIpBypass, unsupported: METRICS_ONLY };
export const staleEndpointMetricsExporter: RuleExporter<StaleEndpointOptions> = {
  ruleId: 'stale-endpoint-metrics',
  reads: ['maxTemplateHashes', 'maxLiveGenerations', 'minStaleSeries', 'minIdlePods', 'idlePodFactor'],
  prometheus: staleEndpointMetrics,
  unsupported: METRICS_ONLY,
};
