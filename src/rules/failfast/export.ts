// failfast live: its Loki (and, where the signal is a metric, Prometheus) twin, whose line filters
// are built from ./patterns.ts, the module the offline rule matches with, so both count the same
// lines, plain and JSON alike (the patterns are on the message text, which both carry verbatim).

import { alertingRule } from '../../kit/export/expr.js';
import { countPerPod, exclude, lines, match, who } from '../../kit/export/log-query.js';
import type { AlertingRule, ExporterInput, RuleExporter } from '../../kit/export/types.js';
import type { FailfastOptions } from './index.js';
import { ENTER_FAILFAST, FAILFAST_REQUEST, LOAD_SHED } from './patterns.js';

/** The controllers' own fail-fast is control-plane-unavailable's and reconnect-storm's, as offline. */
const NOT_CONTROLLER = [exclude('controller[{]addr=|"name":"controller"|controller linkerd-'), exclude('inbound:server[{]port=(8086|8090)[}]')];

function failfastLoki(input: ExporterInput<FailfastOptions>): AlertingRule[] {
  const { options: o, settings: s } = input;
  return [
    alertingRule({
      ruleId: 'failfast',
      alert: 'LinkerdProxyServiceFailfastRepeated',
      expr: countPerPod(s, lines(s, [match(ENTER_FAILFAST), ...NOT_CONTROLLER]), o.minEpisodes),
      severity: 'warning',
      summary: `Proxy ${who(s)} put services into fail-fast {{ $value }} times in 5m`,
      description:
        "Each entry means no endpoint of the service was ready for the whole fail-fast timeout (1–3 s); a rollout causes one per client, repeated entries an outage. Check the service's endpoints (no endpoints, not ready) or the proxy's control-plane connection.",
    }),
    alertingRule({
      ruleId: 'failfast',
      alert: 'LinkerdProxyRequestsRefused',
      expr: countPerPod(
        s,
        lines(s, [match(`${FAILFAST_REQUEST}|${LOAD_SHED}`), match('[Rr]equest failed|Failed to proxy request'), ...NOT_CONTROLLER]),
        o.minRefusedRequests,
      ),
      severity: 'warning',
      summary: `Proxy ${who(s)} refused {{ $value }} requests in 5m (fail-fast or load shedding)`,
      description: 'Requests refused at once because their service is in fail-fast or an in-flight limit is reached.',
    }),
  ];
}

export const failfastExporter: RuleExporter<FailfastOptions> = {
  ruleId: 'failfast',
  reads: ['minEpisodes', 'minRefusedRequests'],
  loki: failfastLoki,
  unsupported: { prometheus: 'fail-fast episodes are only in the proxy logs; export it with --target loki' },
};
