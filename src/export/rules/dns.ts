// DNS rules live. The offline rules read dig answers (TTL on the wire) and CoreDNS query logs; a
// live stack sees CoreDNS's own metrics and, when the `log` plugin is on, its query log in Loki.
//
// What CoreDNS exports by default: coredns_dns_requests_total{server, zone, view, proto, family,
// type} counts queries by query type but not by name, and coredns_cache_served_stale_total{server,
// zones, view} counts answers served from expired cache entries, which carry TTL 0 unless the
// cache plugin sets keepttl or (v1.14.7+) a serve_stale RESPONSE_TTL.

import { alertingRule, byClause, labelRef, num, podLabels, selector } from '../expr.js';
import type { AlertingRule, ExporterInput, RuleExporter } from '../types.js';

export interface DnsQueryStormOptions {
  burstWindowSeconds: number;
  burstQueries: number;
  minPeriodicBursts: number;
}

/** dns-ttl-zero has no numeric threshold: a TTL of 0 is the mechanism. */
export type DnsTtlZeroOptions = object;

/**
 * node-local-dns caps cluster.local answers at 30 s, so a TTL-0 loop recurs each time the shared
 * cache entry expires: minPeriodicBursts bursts take about minPeriodicBursts × 30 s.
 */
const CACHE_PERIOD_SECONDS = 30;

function dnsTtlZeroPrometheus(input: ExporterInput<DnsTtlZeroOptions>): AlertingRule[] {
  const { settings, severity } = input;
  return [
    alertingRule({
      ruleId: 'dns-ttl-zero',
      alert: 'CoreDNSServingStaleAnswersWithTtlZero',
      expr: `sum ${byClause([...settings.groupBy, 'job', 'instance', 'server'])} (increase(coredns_cache_served_stale_total${selector(settings.corednsSelector)}[5m])) > 0`,
      severity,
      summary: `CoreDNS ${labelRef('instance')} served {{ $value | humanize }} stale answers in 5m`,
      description:
        'The cache plugin is answering from expired entries (serve_stale), which it sends with TTL 0 unless keepttl or a serve_stale RESPONSE_TTL is set. ' +
        'Linkerd proxies before 2.18 (proxy v2.289) re-resolve a TTL-0 control-plane answer immediately, in a loop. Check with dig whether the linkerd-dst-headless / linkerd-policy answers have TTL 0.',
    }),
  ];
}

function dnsTtlZeroLoki(input: ExporterInput<DnsTtlZeroOptions>): AlertingRule[] {
  const { settings, severity } = input;
  return [
    alertingRule({
      ruleId: 'dns-ttl-zero',
      alert: 'LinkerdProxyPanicOnZeroNegativeTtl',
      expr: `sum ${byClause(podLabels(settings))} (count_over_time(${selector(settings.logSelector)} |= "must be non-zero" [5m])) > 0`,
      severity,
      summary: `Proxy ${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)} panicked on a zero DNS TTL`,
      description:
        'The proxy panicked with "period must be non-zero": a negative DNS answer (NXDOMAIN/NODATA) for a control-plane name carried TTL 0 (linkerd2#14954, fixed in proxy v2.343 / edge-26.3.3). ' +
        'Find the resolver handing out TTL 0 (serve_stale, or kubernetes plugin ttl 0).',
    }),
  ];
}

function dnsQueryStormPrometheus(input: ExporterInput<DnsQueryStormOptions>): AlertingRule[] {
  const { options: o, settings, severity } = input;
  const burstRate = o.burstQueries / o.burstWindowSeconds;
  return [
    alertingRule({
      ruleId: 'dns-query-storm',
      alert: 'CoreDNSSrvQueryStorm',
      expr: `sum ${byClause([...settings.groupBy, 'job', 'instance'])} (rate(coredns_dns_requests_total${selector(settings.corednsSelector, 'type="SRV"')}[1m])) >= ${num(burstRate)}`,
      forSeconds: o.minPeriodicBursts * CACHE_PERIOD_SECONDS,
      severity,
      summary: `CoreDNS ${labelRef('instance')} answers {{ $value | humanize }} SRV queries per second`,
      description:
        `SRV queries have stayed at or above the burst rate of the offline rule (${o.burstQueries} in ${o.burstWindowSeconds} s) for ${o.minPeriodicBursts} cache periods. ` +
        'Linkerd proxies discover the control plane with SRV lookups (linkerd-dst-headless, linkerd-policy, linkerd-identity-headless); a TTL-0 answer makes them re-query in a loop (linkerd2#13508). ' +
        'CoreDNS metrics have no per-name label, so confirm the name from the CoreDNS query log.',
    }),
  ];
}

/** With the CoreDNS `log` plugin on, the query log names the queried name, as the offline rule sees it. */
function dnsQueryStormLoki(input: ExporterInput<DnsQueryStormOptions>): AlertingRule[] {
  const { options: o, settings, severity } = input;
  const queries = `${selector(settings.corednsLogSelector)} |= " IN " | regexp \`"(?P<qtype>[A-Z0-9]+) IN (?P<qname>[^ "]+) \``;
  return [
    alertingRule({
      ruleId: 'dns-query-storm',
      alert: 'CoreDNSQueryBurstForOneName',
      expr: `sum ${byClause([...settings.groupBy, 'qname', 'qtype'])} (count_over_time(${queries} [${o.burstWindowSeconds}s])) >= ${num(o.burstQueries)}`,
      severity,
      summary: `{{ $value }} queries for ${labelRef('qname')} ${labelRef('qtype')} within ${o.burstWindowSeconds} s`,
      description:
        `CoreDNS logged at least ${o.burstQueries} queries for one name within ${o.burstWindowSeconds} s. For linkerd-dst-headless / linkerd-policy SRV names this is the TTL-0 re-resolution loop of linkerd2#13508. ` +
        `The offline rule also requires ${o.minPeriodicBursts} periodic bursts; an alert rule sees one window, so check the recurrence in Grafana.`,
    }),
  ];
}

export const dnsTtlZeroExporter: RuleExporter<DnsTtlZeroOptions> = { ruleId: 'dns-ttl-zero', reads: [], prometheus: dnsTtlZeroPrometheus, loki: dnsTtlZeroLoki };
export const dnsQueryStormExporter: RuleExporter<DnsQueryStormOptions> = { ruleId: 'dns-query-storm', reads: ['burstWindowSeconds', 'burstQueries', 'minPeriodicBursts'], prometheus: dnsQueryStormPrometheus, loki: dnsQueryStormLoki };
