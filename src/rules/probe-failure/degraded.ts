// Proxies that are not ready because the control plane is not: when a listing shows the Linkerd
// control-plane pods themselves not ready (READY 1/2) beside proxies failing their readiness probe
// on 4191, the proxies wait for the control plane (their certificate from identity, discovery from
// destination), and the finding says so instead of blaming each proxy (linkerd2#4624: nodes shut
// down or upgraded, the HA control plane degraded, rescheduled pods never ready).

import { stateCap } from '../../core/state-cap.js';
import { keepSample } from '../../core/evidence.js';
import type { SampleLine, SourceLocation } from '../../core/types.js';

/** What foldIntoProxyProbes reads and adds up of a probe key's state (index.ts's ProbeState). */
interface FoldableProbe {
  pod: string | null;
  container: string | null;
  port: string | null;
  cause: string;
  probes: string[];
  failures: number;
  livenessFailures: number;
  status: string | null;
  samples: SampleLine[];
  location: SourceLocation;
}
const MAX_SAMPLES = 3;

/** Pods of the Linkerd control plane (its HA Deployments), as `get pods` names them. */
export const CONTROL_PLANE_POD = /^linkerd-(?:destination|identity|proxy-injector|controller|sp-validator|tap|policy)-[a-z0-9]{6,10}-[a-z0-9]{5}$/;
export const MAX_CONTROL_PLANE_PODS = stateCap(200);

export interface ControlPlaneReadiness {
  pods: number;
  notReady: string[];
}

export function controlPlaneReadiness(pods: ReadonlyMap<string, boolean>): ControlPlaneReadiness {
  return { pods: pods.size, notReady: [...pods].filter(([, ready]) => !ready).map(([pod]) => pod) };
}

export function degradedStory(cp: ControlPlaneReadiness): string {
  const names = cp.notReady.slice(0, 5).join(', ') + (cp.notReady.length > 5 ? ', …' : '');
  return [
    `${cp.notReady.length === cp.pods ? `All ${cp.pods}` : `${cp.notReady.length} of the ${cp.pods}`} Linkerd control-plane pods in the input are not ready themselves (${names}): the control plane is degraded.`,
    "A proxy's /ready on its admin port 4191 answers 503 until it holds its certificate from the identity controller and has reached the control plane, so while the controllers are not ready the proxies that start cannot become ready, and the pods they front get no traffic.",
    'This is what nodes that were shut down, drained or upgraded leave behind: the control-plane pods are rescheduled at the same time as the workloads, and with HA replicas lost or not ready, the proxies of the rescheduled pods never become ready (inbound requests fail with 503).',
  ].join(' ');
}

export function degradedRemediation(cp: ControlPlaneReadiness): string {
  return [
    `1. Bring the control plane back first: \`kubectl -n linkerd get pods\`, \`linkerd check\`, and for a pod that is not ready (${cp.notReady[0] ?? '<pod>'}) \`kubectl -n linkerd describe pod ${cp.notReady[0] ?? '<pod>'}\` and the logs of its linkerd-proxy and controller container; the identity controller must be ready before any other proxy can get its certificate.`,
    '2. Keep HA replicas on separate nodes and drain one node at a time: the HA install adds PodDisruptionBudgets and anti-affinity (`--ha` / `enablePodAntiAffinity`, `enablePodDisruptionBudget`); check that no node upgrade takes several control-plane replicas down at once.',
    '3. Once the control plane is ready, restart the workloads whose proxies stayed not ready (`kubectl rollout restart deploy/<name>`).',
  ].join('\n');
}

/**
 * The kubelet's message for an HTTP probe answered with an error status names no URL (`HTTP
 * probe failed with statuscode: 503`): in a pod (or a paste naming none) whose other failures of
 * the same probe name the proxy's admin port, it is the same probe, the proxy's /ready answering
 * 503 while the proxy is not ready. Such failures are counted with the proxy's.
 */
export function foldIntoProxyProbes<P extends FoldableProbe>(probes: Map<string, P>): void {
  const proxy = new Map<string, P>();
  for (const p of probes.values()) if (p.cause === 'proxy-not-ready') proxy.set(p.pod ?? p.location.path, p);
  if (proxy.size === 0) return;
  for (const [key, p] of probes) {
    if (p.container !== null || p.port !== null || p.cause === 'proxy-not-ready' || p.cause === 'policy-denied') continue;
    const into = proxy.get(p.pod ?? p.location.path);
    if (!into || !p.probes.every((probe) => into.probes.includes(probe))) continue;
    into.failures += p.failures;
    into.livenessFailures += p.livenessFailures;
    into.status = into.status ?? p.status;
    for (const sample of p.samples) keepSample(into.samples, MAX_SAMPLES, sample.path, sample.line, sample.text);
    probes.delete(key);
  }
}
