// control-plane-unavailable live: the controllers' side of an outage, as the offline rule reads it
// — the proxies in front of the destination, policy and identity containers failing inbound
// control-plane requests or entering fail-fast (Loki), and controller pods restarting (Prometheus,
// from kube-state-metrics). Clients' reconnect loops are reconnect-storm's alerts.

import type { ControlPlaneUnavailableOptions } from './index.js';
import { FAILED_REQUEST_FILTERS, FAILFAST_FILTERS } from './patterns.js';
import { CONTROLLER_PORTS } from '../../knowledge/control-plane.js';
import { alertingRule, byClause, integersBelow, labelRef, literalAlternation, num, selector } from '../../kit/export/expr.js';
import type { AlertingRule, ExporterInput, ExportSettings, RuleExporter } from '../../kit/export/types.js';

const RULE_ID = 'control-plane-unavailable';

/**
 * Five times the 60 s maximum connect backoff of proxy v2.307+: clients retry several times in the
 * window, so minFailures failed requests mean the controller keeps refusing work, not one blip.
 */
const WINDOW_SECONDS = 300;

/** Restarts within an hour: a rollout replaces pods (their restart count starts at 0), a crash loop restarts them. */
const RESTART_WINDOW_SECONDS = 3600;

/** Pods of the Deployments that run the controllers (policy runs in linkerd-destination). */
const CONTROLLER_PODS = 'linkerd-(destination|identity)-.+';

const PORTS = literalAlternation(Object.keys(CONTROLLER_PORTS));

function controllerStreams(settings: ExportSettings): string {
  return selector(settings.logSelector, `${settings.podLabel}=~"${CONTROLLER_PODS}"`);
}

/**
 * The inbound controller port, from the first span: plain `inbound:server{port=8086}` or JSON
 * `{"name":"inbound"},{"port":8086,"name":"server"}`. Lines on other ports are dropped.
 */
const INBOUND_PORT = [
  '| regexp `inbound:server\\{port=(?P<port>[0-9]+)\\}`',
  '| regexp `\\{"name":"inbound"\\},\\{"port":"?(?P<port>[0-9]+)"?,"name":"server"\\}`',
  `| port=~"${PORTS}"`,
];

function loki(input: ExporterInput<ControlPlaneUnavailableOptions>): AlertingRule[] {
  const { options: o, settings } = input;
  const group = [...settings.groupBy, settings.namespaceLabel, 'port'];
  // Plain lines start with the proxy's uptime; failures in its first startupGraceSeconds are the
  // container still starting and do not count, as offline. JSON lines carry no uptime and count.
  const grace = Math.ceil(o.startupGraceSeconds);
  const startup = grace > 0 ? ['| regexp `^\\[ *(?P<uptime>[0-9]+)[.][0-9]*s\\]`', `| uptime!~"${integersBelow(grace)}"`] : [];
  const pipeline = (filters: readonly string[], extra: readonly string[]) =>
    [`${controllerStreams(settings)} ${filters.map((f) => `|~ "${f}"`).join(' ')}`, ...INBOUND_PORT, ...extra].join('\n    ');
  const window = `[${WINDOW_SECONDS / 60}m]`;
  const controller = `the controller on port ${labelRef('port')} (8086 destination, 8090 policy, 8080 identity) in ${labelRef(settings.namespaceLabel)}`;
  return [
    alertingRule({
      ruleId: RULE_ID,
      alert: 'LinkerdControllerFailingProxyRequests',
      expr: `sum ${byClause(group)} (\n  count_over_time(\n    ${pipeline(FAILED_REQUEST_FILTERS, startup)}\n  ${window})\n) >= ${num(o.minFailures)}`,
      severity: 'error',
      summary: `The Linkerd controller on port ${labelRef('port')} failed {{ $value }} proxy requests in 5m`,
      description:
        `The proxies in front of ${controller} failed at least ${o.minFailures} inbound control-plane requests in 5 minutes ` +
        `(after their first ${o.startupGraceSeconds} s of uptime): load shedding ("service unavailable"), fail-fast or a controller container that refuses connections. ` +
        'Proxies cannot get discovery, policy or certificates from it meanwhile. Scale the controller out or find why it is not serving.',
    }),
    alertingRule({
      ruleId: RULE_ID,
      alert: 'LinkerdControllerInFailfast',
      expr: `sum ${byClause(group)} (\n  count_over_time(\n    ${pipeline(FAILFAST_FILTERS, [])}\n  ${window})\n) >= ${num(o.minFailfastEpisodes)}`,
      severity: 'error',
      summary: `The Linkerd controller on port ${labelRef('port')} entered fail-fast {{ $value }} times in 5m`,
      description:
        `The proxies in front of ${controller} put their inbound service into fail-fast at least ${o.minFailfastEpisodes} times in 5 minutes: ` +
        'each time the controller did not answer for the whole fail-fast timeout.',
    }),
  ];
}

/** kube-state-metrics' restart counter; the offline rule counts the same restarts from the pods' logs. */
function prometheus(input: ExporterInput<ControlPlaneUnavailableOptions>): AlertingRule[] {
  const { options: o, settings } = input;
  const restarts = `kube_pod_container_status_restarts_total${selector(`${settings.podLabel}=~"${CONTROLLER_PODS}"`)}`;
  const pods = [...settings.groupBy, settings.namespaceLabel, settings.podLabel];
  return [
    alertingRule({
      ruleId: RULE_ID,
      alert: 'LinkerdControllerPodRestarting',
      expr: `max ${byClause(pods)} (increase(${restarts}[${RESTART_WINDOW_SECONDS / 3600}h])) >= ${num(o.minRestarts)}`,
      severity: 'warning',
      summary: `Linkerd controller pod ${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)} restarted {{ $value | humanize }} times in 1h`,
      description:
        `A container of the controller pod restarted at least ${o.minRestarts} times within an hour (kube_pod_container_status_restarts_total, from kube-state-metrics). ` +
        'While it restarts, proxies lose discovery, policy or identity; check `kubectl describe pod` for OOMKilled or failing probes and the previous container logs.',
    }),
  ];
}

export const controlPlaneUnavailableExporter: RuleExporter<ControlPlaneUnavailableOptions> = {
  ruleId: RULE_ID,
  reads: ['minFailures', 'minFailfastEpisodes', 'minRestarts', 'startupGraceSeconds'],
  prometheus,
  loki,
};
