// control-plane-unavailable live: proxies that cannot use the destination, policy or identity
// controllers, from their WARN/ERROR lines (Loki) and from control_response_total (Prometheus).

import { alertingRule, byClause, labelRef, num, podLabels, selector } from '../expr.js';
import type { AlertingRule, ExporterInput, RuleExporter } from '../types.js';

export interface ControlPlaneUnavailableOptions {
  minFailures: number;
}

const RULE_ID = 'control-plane-unavailable';

/**
 * Five times the 60 s maximum connect backoff of proxy v2.307+: even the slowest-retrying proxy
 * gets several attempts in the window, so minFailures means repeated failures, not one blip.
 */
const WINDOW_SECONDS = 300;

/** Lines that say the proxy could not use its control plane (messages from proxy-logs research §5). */
const CONTROL_PLANE_FAILURES = [
  'Failed to resolve control-plane component',
  'Unexpected (policy|destination) controller response',
  'Failed to obtain identity',
].join('|');

function loki(input: ExporterInput<ControlPlaneUnavailableOptions>): AlertingRule[] {
  const { options: o, settings, severity } = input;
  const expr =
    `sum ${byClause(podLabels(settings))} (\n` +
    `  count_over_time(${selector(settings.logSelector)} |~ "${CONTROL_PLANE_FAILURES}" [${WINDOW_SECONDS / 60}m])\n` +
    `) >= ${num(o.minFailures)}`;
  return [
    alertingRule({
      ruleId: RULE_ID,
      alert: 'LinkerdProxyControlPlaneUnavailable',
      expr,
      severity,
      summary: `Proxy ${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)} cannot use the Linkerd control plane ({{ $value }} failures in 5m)`,
      description:
        `The proxy logged at least ${o.minFailures} control-plane failures in 5 minutes (unresolvable controller names, failing destination/policy watches, or no identity). ` +
        'Without the control plane it cannot discover new endpoints or policies, and without identity it never becomes ready.',
    }),
  ];
}

function prometheus(input: ExporterInput<ControlPlaneUnavailableOptions>): AlertingRule[] {
  const { options: o, settings, severity } = input;
  const failing = selector(settings.proxySelector, 'classification="failure"');
  const expr = `sum ${byClause(podLabels(settings, 'addr'))} (increase(control_response_total${failing}[${WINDOW_SECONDS / 60}m])) >= ${num(o.minFailures)}`;
  return [
    alertingRule({
      ruleId: RULE_ID,
      alert: 'LinkerdProxyControlRequestsFailing',
      expr,
      severity,
      summary: `Proxy ${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)}: {{ $value | humanize }} failed requests to ${labelRef('addr')} in 5m`,
      description: `control_response_total counted at least ${o.minFailures} failed requests (classification="failure") from this proxy to the controller ${labelRef('addr')} in 5 minutes.`,
    }),
  ];
}

export const controlPlaneUnavailableExporter: RuleExporter<ControlPlaneUnavailableOptions> = { ruleId: RULE_ID, reads: ['minFailures'], prometheus, loki };
