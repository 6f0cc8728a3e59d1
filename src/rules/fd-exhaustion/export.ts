// fd-exhaustion live, from the proxies' own /metrics as the linkerd-viz `linkerd-proxy` job scrapes them.

import { alertingRule, byClause, labelRef, num, podLabels, selector } from '../../kit/export/expr.js';
import type { AlertingRule, ExporterInput, RuleExporter } from '../../kit/export/types.js';
import type { FdExhaustionOptions } from './index.js';
import { EMFILE } from './patterns.js';

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
      expr: `sum ${byClause(podLabels(settings))} (count_over_time(${selector(settings.logSelector)} |~ "${EMFILE}" [5m])) > 0`,
      severity: 'error',
      summary: `Proxy ${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)} logged {{ $value }} "Too many open files" errors in 5m`,
      description:
        'The proxy ran out of file descriptors (EMFILE, os error 24): accept() and connect() fail, so new connections are refused or cannot be opened. ' +
        'Raise the nofile limit of the proxy container and find what holds the descriptors.',
    }),
  ];
}

export const fdExhaustionExporter: RuleExporter<FdExhaustionOptions> = {
  ruleId: 'fd-exhaustion',
  reads: ['ratio', 'errorRatio'],
  prometheus: fdExhaustion,
  loki: fdExhaustionLoki,
};
