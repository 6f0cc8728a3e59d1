// DNS rules live. The offline rules read dig answers (TTL on the wire) and CoreDNS query logs; a
// live stack sees CoreDNS's own metrics and, when the `log` plugin is on, its query log in Loki.
//
// What CoreDNS exports by default: coredns_dns_requests_total{server, zone, view, proto, family,
// type} counts queries by query type but not by name, and coredns_cache_served_stale_total{server,
// zones, view} counts answers served from expired cache entries, which carry TTL 0 unless the
// cache plugin sets keepttl or (v1.14.7+) a serve_stale RESPONSE_TTL.

import { alertingRule, byClause, labelRef, podLabels, selector } from '../../kit/export/expr.js';
import type { AlertingRule, ExporterInput, RuleExporter } from '../../kit/export/types.js';
import type { DnsTtlZeroOptions } from './index.js';

/**
 * Warning, as offline for names outside controlPlaneNames: CoreDNS counts stale answers per
 * server, not per name, so the alert cannot tell whether a Linkerd name was among them (the
 * offline rule makes that an error once dig shows it).
 */
function dnsTtlZeroPrometheus(input: ExporterInput<DnsTtlZeroOptions>): AlertingRule[] {
  const { settings } = input;
  return [
    alertingRule({
      ruleId: 'dns-ttl-zero',
      alert: 'CoreDNSServingStaleAnswersWithTtlZero',
      expr: `sum ${byClause([...settings.groupBy, 'job', 'instance', 'server'])} (increase(coredns_cache_served_stale_total${selector(settings.corednsSelector)}[5m])) > 0`,
      severity: 'warning',
      summary: `CoreDNS ${labelRef('instance')} served {{ $value | humanize }} stale answers in 5m`,
      description:
        'The cache plugin is answering from expired entries (serve_stale), which it sends with TTL 0 unless keepttl or a serve_stale RESPONSE_TTL is set. ' +
        'Linkerd proxies before 2.18 (proxy v2.289) re-resolve a TTL-0 control-plane answer immediately, in a loop. Check with dig whether the linkerd-dst-headless / linkerd-policy answers have TTL 0.',
    }),
  ];
}

/**
 * Error, as the offline negative-TTL finding: the panic comes from the proxy's control-plane client
 * (linkerd/app/core/src/control.rs), so the name was a control-plane one by construction.
 */
function dnsTtlZeroLoki(input: ExporterInput<DnsTtlZeroOptions>): AlertingRule[] {
  const { settings } = input;
  return [
    alertingRule({
      ruleId: 'dns-ttl-zero',
      alert: 'LinkerdProxyPanicOnZeroNegativeTtl',
      expr: `sum ${byClause(podLabels(settings))} (count_over_time(${selector(settings.logSelector)} |= "must be non-zero" [5m])) > 0`,
      severity: 'error',
      summary: `Proxy ${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)} panicked on a zero DNS TTL`,
      description:
        'The proxy panicked with "period must be non-zero": a negative DNS answer (NXDOMAIN/NODATA) for a control-plane name carried TTL 0 (linkerd2#14954, fixed in proxy v2.343 / edge-26.3.3). ' +
        'Find the resolver handing out TTL 0 (serve_stale, or kubernetes plugin ttl 0).',
    }),
  ];
}

export const dnsTtlZeroExporter: RuleExporter<DnsTtlZeroOptions> = {
  ruleId: 'dns-ttl-zero',
  reads: [],
  prometheus: dnsTtlZeroPrometheus,
  loki: dnsTtlZeroLoki,
};
