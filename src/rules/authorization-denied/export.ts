// authorization-denied live: its Loki (and, where the signal is a metric, Prometheus) twin, whose line filters
// are built from ./patterns.ts, the module the offline rule matches with, so both count the same
// lines, plain and JSON alike (the patterns are on the message text, which both carry verbatim).

import { alertingRule, byClause, labelRef, num, selector } from '../../kit/export/expr.js';
import { lines, match, WINDOW } from '../../kit/export/log-query.js';
import type { AlertingRule, ExporterInput, RuleExporter } from '../../kit/export/types.js';
import type { AuthorizationDeniedOptions } from './index.js';
import { AUTHZ_DENIED } from './patterns.js';

const DENIED_SERVER = ['| regexp `server[.]name=(?P<server>[^ ]+)`', '| regexp `on (server|route) (?P<server>[A-Za-z0-9_.-]+)`'];

function authzLoki(input: ExporterInput<AuthorizationDeniedOptions>): AlertingRule[] {
  const { options: o, settings: s } = input;
  return [
    alertingRule({
      ruleId: 'authorization-denied',
      alert: 'LinkerdAuthorizationDenials',
      expr: `sum ${byClause([...s.groupBy, s.namespaceLabel, 'server'])} (\n  count_over_time(\n    ${lines(s, [match(AUTHZ_DENIED)], DENIED_SERVER)}\n  ${WINDOW})\n) >= ${num(o.minDenials)}`,
      severity: 'warning',
      summary: `{{ $value }} requests to server ${labelRef('server')} in ${labelRef(s.namespaceLabel)} denied by policy in 5m`,
      description:
        'Authorization policy refuses these requests or connections. From 169.254.x.x or to health paths it is kubelet probes (pods turn unready); otherwise clients not authorized for the server.',
    }),
  ];
}

function authzPrometheus(input: ExporterInput<AuthorizationDeniedOptions>): AlertingRule[] {
  const { options: o, settings: s } = input;
  const group = byClause([...s.groupBy, s.namespaceLabel, 'srv_name']);
  const sel = selector(s.proxySelector);
  // inbound_{http,tcp}_authz_deny_total (Linkerd 2.11+) count the same denials per Server.
  const alert = (protocol: 'http' | 'tcp', name: string, what: string) =>
    alertingRule({
      ruleId: 'authorization-denied',
      alert: name,
      expr: `sum ${group} (increase(inbound_${protocol}_authz_deny_total${sel}[5m])) >= ${num(o.minDenials)}`,
      severity: 'warning',
      summary: `{{ $value | humanize }} ${what} to server ${labelRef('srv_name')} in ${labelRef(s.namespaceLabel)} denied in 5m`,
      description: `inbound_${protocol}_authz_deny_total: authorization policy refused at least ${o.minDenials} ${what} in 5 minutes. Probes from an unexpected source (GKE Dataplane V2: 169.254.x.x) or clients without authorization.`,
    });
  return [alert('http', 'LinkerdAuthorizationHttpDenials', 'requests'), alert('tcp', 'LinkerdAuthorizationTcpDenials', 'connections')];
}

export const authorizationDeniedExporter: RuleExporter<AuthorizationDeniedOptions> = {
  ruleId: 'authorization-denied',
  reads: ['minDenials'],
  prometheus: authzPrometheus,
  loki: authzLoki,
};
