// stale-endpoint-metrics live, from the proxies' own /metrics as the linkerd-viz `linkerd-proxy` job scrapes them.

import { alertingRule, byClause, labelRef, num, onClause, podLabels, selector } from '../../kit/export/expr.js';
import { METRICS_ONLY, RETAIN_IDLE_SECONDS } from '../../kit/export/proxy-metrics.js';
import type { AlertingRule, ExporterInput, RuleExporter } from '../../kit/export/types.js';
import type { StaleEndpointOptions } from './index.js';

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
  const openConnections = (extra: string) =>
    `tcp_open_connections${selector(settings.proxySelector, 'direction="outbound"', 'peer="dst"', 'dst_pod!=""', extra)}`;
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

export const staleEndpointMetricsExporter: RuleExporter<StaleEndpointOptions> = {
  ruleId: 'stale-endpoint-metrics',
  reads: ['maxTemplateHashes', 'maxLiveGenerations', 'minStaleSeries', 'minIdlePods', 'idlePodFactor'],
  prometheus: staleEndpointMetrics,
  unsupported: METRICS_ONLY,
};
