// reconnect-storm live: linkerd_reconnect failures per reconnect loop (Loki) and many proxies failing
// against one controller at once (Loki and, through control_response_total, Prometheus).
//
// The offline rule calls a loop "sustained" while its failures stay at most maxGapSeconds apart for
// sustainSeconds. Live, "at least one failure in the last maxGapSeconds" is true for the whole run
// plus up to maxGapSeconds after its last failure, so the alert must hold for
// sustainSeconds + maxGapSeconds before the run is guaranteed to be sustainSeconds long.

import { CONTROLLER_ADDRESS_REGEX } from '../../knowledge/control-plane.js';
import type { ReconnectStormOptions } from './index.js';
import { RECONNECT_FAILURE, RECONNECT_TARGET } from './patterns.js';
import { alertingRule, byClause, duration, labelRef, num, podLabels, selector } from '../../kit/export/expr.js';
import type { AlertingRule, ExporterInput, RuleExporter } from '../../kit/export/types.js';

const RULE_ID = 'reconnect-storm';

/** Scrape intervals up to a minute still give increase() two samples in this window. */
const MIN_METRIC_WINDOW_SECONDS = 120;

/**
 * The failing lines with the loop's addresses extracted, for both log formats: plain spans
 * (`controller{addr=…}:endpoint{addr=…}`) and JSON span objects (`{"addr":"…","name":"endpoint"}`).
 * A line without a controller span is a data-plane loop; its target is the endpoint, as offline.
 */
export function reconnectFailureLines(input: ExporterInput<unknown>): string {
  return [
    `${selector(input.settings.logSelector)} |= "${RECONNECT_TARGET}" |~ "${RECONNECT_FAILURE}"`,
    '| regexp `controller\\{addr=(?P<controller>[^}]+)\\}`',
    '| regexp `endpoint\\{addr=(?P<endpoint>[^}]+)\\}`',
    '| regexp `"addr":"(?P<controller>[^"]+)","name":"controller"`',
    '| regexp `"addr":"(?P<endpoint>[^"]+)","name":"endpoint"`',
    '| label_format target="{{ if .controller }}{{ .controller }}{{ else }}{{ .endpoint }}{{ end }}"',
  ].join('\n    ');
}

function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}

function loki(input: ExporterInput<ReconnectStormOptions>): AlertingRule[] {
  const { options: o, settings } = input;
  const window = `[${duration(o.maxGapSeconds)}]`;
  const pods = podLabels(settings);
  const lines = reconnectFailureLines(input);
  const failingPods = (extra: string, filter: string) =>
    `sum ${byClause([...pods, 'target', ...(extra ? [extra] : [])])} (\n  count_over_time(\n    ${lines}${filter}\n  ${window})\n) > 0`;
  const podsPerTarget = (filter: string) => `count ${byClause([...settings.groupBy, 'target'])} (\n${indent(failingPods('', filter))}\n)`;
  const cpFilter = `\n    | target=~"${CONTROLLER_ADDRESS_REGEX}"`;
  const dataPlaneFilter = `\n    | target!~"${CONTROLLER_ADDRESS_REGEX}"`;
  const errorPods = Math.max(o.minPods, o.errorMinPods);

  const rules: AlertingRule[] = [
    alertingRule({
      ruleId: RULE_ID,
      alert: 'LinkerdProxyReconnectLoopSustained',
      expr: failingPods('endpoint', ''),
      forSeconds: o.sustainSeconds + o.maxGapSeconds,
      severity: 'warning',
      summary: `Proxy ${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)} keeps failing to connect to ${labelRef('target')}`,
      description:
        `The reconnect loop towards ${labelRef('target')} (endpoint ${labelRef('endpoint')}) has failed at least every ${o.maxGapSeconds} s for ${o.sustainSeconds} s or longer: ` +
        'the backoff is not letting it recover. Check that the target is up and reachable from this pod.',
    }),
    alertingRule({
      ruleId: RULE_ID,
      alert: 'LinkerdReconnectStormManyPods',
      expr: `${podsPerTarget(dataPlaneFilter)} >= ${num(o.minPods)}`,
      forSeconds: o.clusterRunSeconds + o.maxGapSeconds,
      severity: 'warning',
      summary: `{{ $value }} proxies are failing to connect to ${labelRef('target')}`,
      description: `At least ${o.minPods} pods have each failed to connect to ${labelRef('target')} for ${o.clusterRunSeconds} s or longer.`,
    }),
    alertingRule({
      ruleId: RULE_ID,
      alert: 'LinkerdControlPlaneReconnectStorm',
      expr: `${podsPerTarget(cpFilter)} >= ${num(errorPods)}`,
      forSeconds: o.clusterRunSeconds + o.maxGapSeconds,
      severity: 'error',
      summary: `{{ $value }} proxies are in a reconnect loop towards the control plane (${labelRef('target')})`,
      description:
        `At least ${errorPods} pods keep failing to connect to the Linkerd controller ${labelRef('target')}. Retrying proxies can keep a recovering control plane down; ` +
        'see the runbook for the backoff settings and the destination stream-limit fix.',
    }),
  ];
  if (o.minPods < o.errorMinPods) {
    rules.push(
      alertingRule({
        ruleId: RULE_ID,
        alert: 'LinkerdControlPlaneReconnectStormStarting',
        expr: `${podsPerTarget(cpFilter)} >= ${num(o.minPods)} < ${num(o.errorMinPods)}`,
        forSeconds: o.clusterRunSeconds + o.maxGapSeconds,
        severity: 'warning',
        summary: `{{ $value }} proxies are in a reconnect loop towards the control plane (${labelRef('target')})`,
        description: `Between ${o.minPods} and ${o.errorMinPods - 1} pods keep failing to connect to the Linkerd controller ${labelRef('target')}.`,
      }),
    );
  }
  return rules;
}

function prometheus(input: ExporterInput<ReconnectStormOptions>): AlertingRule[] {
  const { options: o, settings } = input;
  const window = `[${duration(Math.max(o.maxGapSeconds, MIN_METRIC_WINDOW_SECONDS))}]`;
  const errorPods = Math.max(o.minPods, o.errorMinPods);
  const failing = selector(settings.proxySelector, 'classification="failure"', `addr=~"${CONTROLLER_ADDRESS_REGEX}"`);
  const expr =
    `count ${byClause([...settings.groupBy, 'addr'])} (\n` +
    `  sum ${byClause(podLabels(settings, 'addr'))} (increase(control_response_total${failing}${window})) > 0\n` +
    `) >= ${num(errorPods)}`;
  return [
    alertingRule({
      ruleId: RULE_ID,
      alert: 'LinkerdControlPlaneRequestsFailingFleetWide',
      expr,
      forSeconds: o.clusterRunSeconds + o.maxGapSeconds,
      severity: 'error',
      summary: `{{ $value }} proxies see failing requests to the control plane (${labelRef('addr')})`,
      description:
        `At least ${errorPods} proxies have recorded failed control-plane requests (control_response_total, classification="failure") towards ${labelRef('addr')} ` +
        'in every recent scrape window. This is the metric side of a reconnect storm; the proxy logs show the loops.',
    }),
  ];
}

export const reconnectStormExporter: RuleExporter<ReconnectStormOptions> = {
  ruleId: RULE_ID,
  reads: ['sustainSeconds', 'maxGapSeconds', 'clusterRunSeconds', 'minPods', 'errorMinPods'],
  prometheus,
  loki,
};
