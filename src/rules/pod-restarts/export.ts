// pod-restarts live: what the offline rule reads from `kubectl describe pod` and `get pods`,
// kube-state-metrics exports per container: the restart counter, the last termination reason and
// the current waiting reason. The alerts keep the offline grading: a controller OOM kill and any
// crash loop are errors, a proxy OOM kill a warning once and an error when repeated, restarts
// alone a warning. Controller restarts without an OOM kill are control-plane-unavailable's
// `LinkerdControllerPodRestarting`, so the restart alert here covers the proxy only.

import type { PodRestartsOptions } from './index.js';
import { alertingRule, byClause, duration, labelRef, num, onClause, selector } from '../../kit/export/expr.js';
import type { AlertingRule, ExporterInput, ExportSettings, RuleExporter } from '../../kit/export/types.js';

const RULE_ID = 'pod-restarts';
const CONTROLLERS = 'destination|policy|identity|proxy-injector|sp-validator';
/** Pods of the Deployments that run the controllers, as the control-plane-unavailable exporter selects them. */
const CONTROLLER_PODS = 'linkerd-(destination|identity|proxy-injector)-.+';
const LINKERD_CONTAINERS = `linkerd-proxy|linkerd-init|linkerd-network-validator|${CONTROLLERS}`;
/**
 * The kubelet's crash back-off reaches 5 minutes, and a crash-looping container is Running between
 * attempts; a 10-minute look-back always sees its Waiting phase.
 */
const CRASHLOOP_LOOKBACK_SECONDS = 600;

function containerLabels(settings: ExportSettings): string[] {
  return [...settings.groupBy, settings.namespaceLabel, settings.podLabel, 'container'];
}

/** The last termination of matching containers was an OOM kill. */
function lastOomKilled(settings: ExportSettings, containers: string, extra: string): string {
  const labels = containerLabels(settings);
  return `max ${byClause(labels)} (kube_pod_container_status_last_terminated_reason${selector(containers, extra, 'reason="OOMKilled"')}) == 1`;
}

/** Restarts within `windowSeconds` of matching containers whose last termination was an OOM kill; the value is the restart count. */
function oomKilled(settings: ExportSettings, containers: string, windowSeconds: number, extra: string): string {
  const labels = containerLabels(settings);
  const restarts = `kube_pod_container_status_restarts_total${selector(containers, extra)}`;
  return `(max ${byClause(labels)} (increase(${restarts}[${duration(windowSeconds)}])) > 0)\n  and ${onClause(labels)}\n(${lastOomKilled(settings, containers, extra)})`;
}

function prometheus(input: ExporterInput<PodRestartsOptions>): AlertingRule[] {
  const { options: o, settings } = input;
  const labels = containerLabels(settings);
  const window = o.recentRestartSeconds;
  const windowText = duration(window);
  const who = `${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)} container ${labelRef('container')}`;
  const controllers = `container=~"${CONTROLLERS}"`;
  const controllerPods = `${settings.podLabel}=~"${CONTROLLER_PODS}"`;
  const proxy = 'container="linkerd-proxy"';
  return [
    alertingRule({
      ruleId: RULE_ID,
      alert: 'LinkerdControllerOOMKilled',
      expr: oomKilled(settings, controllers, window, controllerPods),
      severity: 'error',
      summary: `Linkerd controller ${who} was OOMKilled`,
      description:
        `A control-plane controller container restarted within ${windowText} and its last termination was OOMKilled (kube-state-metrics). ` +
        'Every proxy connected to it lost its stream at once and reconnects; raise its memory limit and run the control plane in HA mode.',
    }),
    alertingRule({
      ruleId: RULE_ID,
      alert: 'LinkerdProxyOOMKilled',
      expr: `(${oomKilled(settings, proxy, window, '')}) < ${num(o.repeatedProxyOoms)}`,
      severity: 'warning',
      summary: `linkerd-proxy of ${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)} was OOMKilled`,
      description: `The proxy restarted within ${windowText} after exceeding its memory limit: every connection of the pod was dropped. Raise config.linkerd.io/proxy-memory-limit, or find what grows it (endpoint metrics, large payloads).`,
    }),
    alertingRule({
      ruleId: RULE_ID,
      alert: 'LinkerdProxyOOMKilledRepeatedly',
      expr: `(${oomKilled(settings, proxy, window, '')}) >= ${num(o.repeatedProxyOoms)}`,
      severity: 'error',
      summary: `linkerd-proxy of ${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)} was OOMKilled {{ $value | humanize }} times in ${windowText}`,
      description: `The proxy restarted at least ${o.repeatedProxyOoms} times within ${windowText}, last for exceeding its memory limit: it dies again as soon as it rebuilds the same state.`,
    }),
    alertingRule({
      ruleId: RULE_ID,
      alert: 'LinkerdContainerCrashLooping',
      expr: `max ${byClause(labels)} (max_over_time(kube_pod_container_status_waiting_reason${selector(`container=~"${LINKERD_CONTAINERS}"`, 'reason="CrashLoopBackOff"')}[${duration(CRASHLOOP_LOOKBACK_SECONDS)}])) == 1`,
      severity: 'error',
      summary: `Linkerd container ${who} is in CrashLoopBackOff`,
      description:
        'A Linkerd container (the proxy, a controller, linkerd-init or linkerd-network-validator) was waiting in CrashLoopBackOff within the last 10 minutes: it exits right after starting and its pod serves nothing. ' +
        'Read `kubectl logs <pod> -c <container> --previous`.',
    }),
    alertingRule({
      ruleId: RULE_ID,
      alert: 'LinkerdProxyRestarting',
      // OOM kills are the two alerts above; this one counts the other restarts.
      expr: `(max ${byClause(labels)} (increase(kube_pod_container_status_restarts_total${selector(proxy)}[${windowText}])) >= ${num(o.minRestarts)})\n  unless ${onClause(labels)}\n(${lastOomKilled(settings, proxy, '')})`,
      severity: 'warning',
      summary: `linkerd-proxy of ${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)} restarted {{ $value | humanize }} times in ${windowText}`,
      description: `The proxy container restarted at least ${o.minRestarts} times within ${windowText}, not for an OOM kill: read its last termination reason (a liveness-probe kill, exit code 1 at start-up) and its previous log.`,
    }),
  ];
}

export const podRestartsExporter: RuleExporter<PodRestartsOptions> = {
  ruleId: RULE_ID,
  reads: ['minRestarts', 'recentRestartSeconds', 'repeatedProxyOoms'],
  prometheus,
  unsupported: { loki: "container restarts and OOM kills are not in the proxies' logs; use the Prometheus rules (kube-state-metrics)" },
};
