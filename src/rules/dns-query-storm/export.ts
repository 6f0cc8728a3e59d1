// dns-query-storm live: CoreDNS request rates (Prometheus) and, with the `log` plugin on, bursts
// of queries per name in its query log (Loki).

import { alertingRule, byClause, duration, labelRef, literalAlternation, num, quoted, selector } from '../../kit/export/expr.js';
import { serviceSet } from '../../knowledge/control-plane-dns.js';
import type { AlertingRule, ExporterInput, RuleExporter } from '../../kit/export/types.js';
import type { DnsQueryStormOptions } from './index.js';

/**
 * Query names (as CoreDNS logs them: lower-case, trailing dot) that belong to one of the
 * `controlPlaneNames` Services, the way the offline rules match them: `<svc>`, `<svc>.<ns>`,
 * `<svc>.<ns>.svc.<zone>`, or a record under one (`10-42-0-12.linkerd-dst-headless.linkerd.svc…`).
 * Null when the list is empty. Anchored by the engines, as label regexes are.
 */
export function controlPlaneNameRegex(controlPlaneNames: string): string | null {
  const services = [...serviceSet(controlPlaneNames)];
  if (services.length === 0) return null;
  return `(?i)([^.]+[.])*${literalAlternation(services)}([.][^.]+([.]svc([.].*)?)?)?[.]?`;
}

/**
 * node-local-dns caps cluster.local answers at 30 s, so a TTL-0 loop recurs each time the shared
 * cache entry expires: minPeriodicBursts bursts take about minPeriodicBursts × 30 s.
 */
const CACHE_PERIOD_SECONDS = 30;

/**
 * Warning: CoreDNS metrics have no per-name label, so this cannot tell a control-plane storm (an
 * error offline) from any other SRV storm.
 */
function dnsQueryStormPrometheus(input: ExporterInput<DnsQueryStormOptions>): AlertingRule[] {
  const { options: o, settings } = input;
  const burstRate = o.burstQueries / o.burstWindowSeconds;
  return [
    alertingRule({
      ruleId: 'dns-query-storm',
      alert: 'CoreDNSSrvQueryStorm',
      expr: `sum ${byClause([...settings.groupBy, 'job', 'instance'])} (rate(coredns_dns_requests_total${selector(settings.corednsSelector, 'type="SRV"')}[1m])) >= ${num(burstRate)}`,
      forSeconds: o.minPeriodicBursts * CACHE_PERIOD_SECONDS,
      severity: 'warning',
      summary: `CoreDNS ${labelRef('instance')} answers {{ $value | humanize }} SRV queries per second`,
      description:
        `SRV queries have stayed at or above the burst rate of the offline rule (${o.burstQueries} in ${o.burstWindowSeconds} s) for ${o.minPeriodicBursts} cache periods. ` +
        'Linkerd proxies discover the control plane with SRV lookups (linkerd-dst-headless, linkerd-policy, linkerd-identity-headless); a TTL-0 answer makes them re-query in a loop (linkerd2#13508). ' +
        'CoreDNS metrics have no per-name label, so confirm the name from the CoreDNS query log.',
    }),
  ];
}

/**
 * With the CoreDNS `log` plugin on, the query log names the client and the queried name, as the
 * offline rule sees them. As offline, a burst is burstQueries queries for one name within
 * burstWindowSeconds of which at least half are repeats — live, at least twice as many queries as
 * distinct clients (within a window shorter than any healthy TTL, a client's second query is a
 * repeat); many clients asking once each is a shared cache expiring. Control-plane names are
 * errors, other names warnings, as offline.
 */
function dnsQueryStormLoki(input: ExporterInput<DnsQueryStormOptions>): AlertingRule[] {
  const { options: o, settings } = input;
  const names = controlPlaneNameRegex(o.controlPlaneNames);
  const queries = `${selector(settings.corednsLogSelector)} |= " IN " | regexp \`(?P<client>[^ ]+):[0-9]+ - [0-9]+ "(?P<qtype>[A-Z0-9]+) IN (?P<qname>[^ "]+) \``;
  const perName = [...settings.groupBy, 'qname', 'qtype'];
  const window = `[${duration(o.burstWindowSeconds)}]`;
  const burst = (filter: string) => {
    const counted = `count_over_time(${queries}${filter} ${window})`;
    return (
      `sum ${byClause(perName)} (${counted}) >= ${num(o.burstQueries)}\n` +
      `and\nsum ${byClause(perName)} (${counted})\n  >= 2 * count ${byClause(perName)} (sum ${byClause([...perName, 'client'])} (${counted}))`
    );
  };
  const summary = `{{ $value }} queries for ${labelRef('qname')} ${labelRef('qtype')} within ${o.burstWindowSeconds} s`;
  const what = `CoreDNS logged at least ${o.burstQueries} queries for one name within ${o.burstWindowSeconds} s, at least twice as many as the clients asking: clients re-asking far sooner than any healthy TTL.`;
  const recurrence = `The offline rule also finds storms from ${o.minPeriodicBursts} bursts recurring on a steady period; an alert rule sees one window, so check the recurrence in Grafana.`;
  const rules: AlertingRule[] = [];
  if (names) {
    rules.push(
      alertingRule({
        ruleId: 'dns-query-storm',
        alert: 'CoreDNSQueryBurstForLinkerdControlPlane',
        expr: burst(` | qname=~${quoted(names)}`),
        severity: 'error',
        summary,
        description: `${what} ${labelRef('qname')} is a Linkerd control-plane Service: proxies re-resolving it in a loop on TTL-0 answers (linkerd2#13508). ${recurrence}`,
      }),
    );
  }
  rules.push(
    alertingRule({
      ruleId: 'dns-query-storm',
      alert: 'CoreDNSQueryBurstForOneName',
      expr: burst(names ? ` | qname!~${quoted(names)}` : ''),
      severity: 'warning',
      summary,
      description: `${what} Look for TTL-0 answers from a cache (dns-ttl-zero), an application without a DNS cache, or a retry loop on NXDOMAIN/SERVFAIL. ${recurrence}`,
    }),
  );
  return rules;
}

export const dnsQueryStormExporter: RuleExporter<DnsQueryStormOptions> = {
  ruleId: 'dns-query-storm',
  reads: ['burstWindowSeconds', 'burstQueries', 'minPeriodicBursts'],
  readsText: ['controlPlaneNames'],
  prometheus: dnsQueryStormPrometheus,
  loki: dnsQueryStormLoki,
};
