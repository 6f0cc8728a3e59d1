// ingress-pod-ip-bypass live, from the proxies' own /metrics as the linkerd-viz `linkerd-proxy` job scrapes them.

import { alertingRule, byClause, labelRef, num, onClause, podLabels, selector } from '../../kit/export/expr.js';
import { METRICS_ONLY, RETAIN_IDLE_SECONDS } from '../../kit/export/proxy-metrics.js';
import type { AlertingRule, ExporterInput, RuleExporter } from '../../kit/export/types.js';
import { type IngressBypassOptions, SCRAPERS } from './index.js';

/** Families the offline rule counts as endpoint series (per destination pod), as metric names. */
const ENDPOINT_NAMES =
  'request_total|response_total|response_latency_ms_(bucket|sum|count)|tcp_open_total|tcp_open_connections|tcp_read_bytes_total|tcp_write_bytes_total|tcp_close_total';

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
    selector(
      `__name__=~"${ENDPOINT_NAMES}"`,
      settings.proxySelector,
      `${settings.podLabel}!~".*(${SCRAPERS.source}).*"`,
      'direction="outbound"',
      'dst_pod!=""',
      'target_port!="4191"',
      ...extra,
    );
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

export const ingressPodIpBypassExporter: RuleExporter<IngressBypassOptions> = {
  ruleId: 'ingress-pod-ip-bypass',
  reads: ['minEndpoints', 'minNoServiceRatio'],
  prometheus: ingressPodIpBypass,
  unsupported: METRICS_ONLY,
};
