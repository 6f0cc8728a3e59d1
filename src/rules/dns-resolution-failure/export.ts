// dns-resolution-failure live: its Loki (and, where the signal is a metric, Prometheus) twin, whose line filters
// are built from ./patterns.ts, the module the offline rule matches with, so both count the same
// lines, plain and JSON alike (the patterns are on the message text, which both carry verbatim).

import { alertingRule } from '../../kit/export/expr.js';
import { afterUptime, countPerPod, lines, match, who } from '../../kit/export/log-query.js';
import type { AlertingRule, ExporterInput, RuleExporter } from '../../kit/export/types.js';
import type { DnsResolutionFailureOptions } from './index.js';
import { CONTROL_PLANE_NAME, CONTROL_PLANE_RESOLVE, COREDNS_CONTROL_PLANE_QUERY, FAILED_RCODE, NO_RECORD, REFINE_TIMEOUT } from './patterns.js';

function dnsLoki(input: ExporterInput<DnsResolutionFailureOptions>): AlertingRule[] {
  const { options: o, settings: s } = input;
  return [
    alertingRule({
      ruleId: 'dns-resolution-failure',
      alert: 'LinkerdProxyCannotResolveControlPlane',
      expr: countPerPod(
        s,
        lines(s, [match(`${CONTROL_PLANE_RESOLVE}|${NO_RECORD}`), match(`${CONTROL_PLANE_RESOLVE}|${CONTROL_PLANE_NAME}`)], afterUptime(o.startupGraceSeconds)),
        o.minControlPlaneFailures,
      ),
      severity: 'error',
      summary: `Proxy ${who(s)} failed {{ $value }} control-plane name lookups in 5m`,
      description: `After ${o.startupGraceSeconds} s of uptime the proxy still cannot resolve linkerd-dst-headless, linkerd-policy or linkerd-identity-headless. Headless Services have records only for ready pods: check the controller pods, the namespace and cluster domain, and CoreDNS.`,
    }),
    alertingRule({
      ruleId: 'dns-resolution-failure',
      alert: 'LinkerdControlPlaneNameNotResolving',
      expr: countPerPod(s, lines(s, [match(COREDNS_CONTROL_PLANE_QUERY), match(FAILED_RCODE)]), o.minControlPlaneFailures),
      severity: 'warning',
      summary: `CoreDNS ${who(s)} answered {{ $value }} control-plane name queries with NXDOMAIN or SERVFAIL in 5m`,
      description:
        'CoreDNS has no record for linkerd-dst-headless, linkerd-policy or linkerd-identity-headless: a headless Service publishes only ready pods, so no controller pod is ready (NXDOMAIN), or CoreDNS cannot answer (SERVFAIL). Check the controller pods and the CoreDNS log.',
    }),
    alertingRule({
      ruleId: 'dns-resolution-failure',
      alert: 'LinkerdProxyDnsRefinementTimingOut',
      expr: countPerPod(s, lines(s, [match(REFINE_TIMEOUT)]), o.minRefineTimeouts),
      severity: 'warning',
      summary: `Proxy ${who(s)} timed out {{ $value }} DNS refinements in 5m`,
      description: "The resolver is consistently slower than the proxy's canonicalisation deadline (old proxies).",
    }),
  ];
}

export const dnsResolutionFailureExporter: RuleExporter<DnsResolutionFailureOptions> = {
  ruleId: 'dns-resolution-failure',
  reads: ['minControlPlaneFailures', 'startupGraceSeconds', 'minRefineTimeouts'],
  loki: dnsLoki,
  unsupported: { prometheus: 'the proxies export no DNS failure metric; export it with --target loki' },
};
