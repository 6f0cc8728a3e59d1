// What pod-restarts tells about each container it judged: the verdict (OOMKilled, crash loop,
// restarts, init failed), the finding's words and the fix for that role (proxy, controller, init
// container). The reducer (index.ts) gathers the container states; this file turns them into findings.

import type { FindingDraft, Severity } from '../../core/types.js';
import { workloadOfPod } from '../../util/path-meta.js';
import {
  type ContainerState,
  CONTROLLERS,
  initCauseText,
  initCauseTitle,
  type InitCause,
  LINKERD_CNI,
  MAX_SAMPLES,
  type PodRestartsOptions,
  type Role,
  roleOf,
} from './model.js';
import { podNetworkCause } from '../../knowledge/causes/kubernetes.js';

type Problem = 'oom' | 'crashloop' | 'restarts' | 'init-failed';

export interface Verdict {
  c: ContainerState;
  role: Role;
  problem: Problem;
  severity: Severity;
  crashLooping: boolean;
}

export function judge(c: ContainerState, o: PodRestartsOptions): Verdict | null {
  const role = roleOf(c.container, c.containerKind);
  if (role === null) return null;
  const oomKilled = c.reason === 'OOMKilled' || c.lastReason === 'OOMKilled' || c.oomEvents > 0;
  // The kubelet backs an init container off only once it failed, and the pod cannot start meanwhile: one back-off is enough.
  const crashLooping = c.reason === 'CrashLoopBackOff' || c.backOffEvents >= (role === 'init' ? 1 : o.minBackOffEvents);
  if (oomKilled) {
    const repeated = c.restartCount >= o.repeatedProxyOoms || c.oomEvents >= o.repeatedProxyOoms || crashLooping;
    const severity: Severity = role === 'proxy' && !repeated ? 'warning' : 'error';
    return { c, role, problem: 'oom', severity, crashLooping };
  }
  if (crashLooping) return { c, role, problem: 'crashloop', severity: 'error', crashLooping };
  // The init container's own log says it failed: the pod cannot start whatever its status shows.
  if (role === 'init' && c.initCause !== null) return { c, role, problem: 'init-failed', severity: 'error', crashLooping };
  // An init container that finished (Completed, exit 0) restarts nothing; only its failures count.
  const restarts = Math.max(c.restartCount, c.livenessKills);
  const old = c.lastRestartAgoSeconds !== null && c.lastRestartAgoSeconds > o.recentRestartSeconds;
  if (restarts >= o.minRestarts && !old) return { c, role, problem: 'restarts', severity: 'warning', crashLooping };
  return null;
}

function who(v: Verdict): string {
  if (v.role === 'controller') return `${v.c.container} controller`;
  if (v.c.container === LINKERD_CNI) return 'linkerd-cni plugin';
  if (v.role === 'init') return `${v.c.container} init container`;
  return 'linkerd-proxy';
}

const PROBLEM_WORDS: Record<Problem, string> = { oom: 'OOMKilled', crashloop: 'crash-looping', restarts: 'restarting', 'init-failed': 'failing' };

/** `replicas`: pods of the same workload and container seen in the input, the failing ones among them. */
export function describe(verdicts: Verdict[], replicas = verdicts.length): FindingDraft {
  const first = verdicts[0]!;
  const { c, role, problem } = first;
  const severity: Severity = verdicts.some((v) => v.severity === 'error') ? 'error' : first.severity;
  const workload = workloadOfPod(c.pod ?? undefined);
  const podCount = verdicts.length;
  // Without a workload the title says so once, instead of naming "a pod" twice in one sentence.
  const where = workload ? `${c.namespace ? `${c.namespace}/` : ''}${workload}` : c.template ? `${c.namespace ? `${c.namespace}/` : ''}${c.template}` : '';
  const inWhere = where ? ` in ${where}` : ' (pod not named in the paste)';
  const restarts = verdicts.reduce((n, v) => n + v.c.restartCount, 0);
  const ooms = verdicts.reduce((n, v) => n + Math.max(v.c.oomEvents, v.c.reason === 'OOMKilled' || v.c.lastReason === 'OOMKilled' ? 1 : 0), 0);
  const crashLooping = verdicts.filter((v) => v.crashLooping).length;
  const limits = [...new Set(verdicts.map((v) => v.c.memoryLimit).filter((l): l is string => l !== null))];
  const pods = `${podCount === 1 ? (c.pod ? `pod ${c.pod}` : 'a pod') : `${podCount} pods`}`;
  const controller = role === 'controller' ? CONTROLLERS[c.container] : undefined;
  const servedBy = role === 'proxy' ? controllerPodComponent(workload) : null;
  const parts: string[] = [];
  let title: string;
  if (problem === 'oom') {
    title = `${who(first)} OOMKilled${inWhere}`;
    parts.push(
      `The ${who(first)} of ${pods}${where ? ` in ${where}` : ''} was killed for exceeding its memory limit${limits.length ? ` (${limits.join(', ')})` : ''}${restarts > 0 ? `; ${restarts} restart${restarts === 1 ? '' : 's'} in total` : ''}${crashLooping ? `, and ${crashLooping === 1 ? 'it is' : `${crashLooping} are`} now in CrashLoopBackOff` : ''}.`,
    );
    if (controller)
      parts.push(
        `It provides ${controller.role}; each time it dies, every proxy connected to it loses its stream and reconnects at once, which can keep it overloaded.`,
      );
    else if (role === 'proxy') {
      parts.push(
        'Each kill drops every connection of the pod, and the proxy dies again once it has rebuilt the same state: grown endpoint-metric series (a client that dials pod IPs, linkerd2#12916), large buffered payloads (linkerd2#4899), or a limit below what the traffic needs.',
      );
      if (servedBy) parts.push(`This proxy fronts the ${servedBy} controller, so its clients lose ${servedBy} with it.`);
    }
  } else if (problem === 'crashloop') {
    title = `${who(first)} in CrashLoopBackOff${inWhere}${role === 'init' && c.initCause ? `: ${initCauseTitle(c.initCause)}` : ''}`;
    parts.push(
      `The ${who(first)} of ${pods}${where ? ` in ${where}` : ''} exits soon after starting${c.lastReason ? ` (last termination: ${c.lastReason}${c.lastExitCode !== null ? `, exit code ${c.lastExitCode}` : ''})` : ''}; the kubelet backs off 10 s → 5 min between attempts and the pod serves nothing meanwhile.`,
    );
    if (controller) parts.push(`It provides ${controller.role}.`);
    else if (role === 'init') parts.push(initStory(c));
    else if (servedBy) parts.push(`This proxy fronts the ${servedBy} controller: its clients cannot reach ${servedBy} while it loops.`);
    else
      parts.push(
        'A proxy usually exits at start-up when it cannot get its identity or reach a local controller port; its last termination message tells which.',
      );
  } else if (problem === 'init-failed' && c.initCause === 'capabilities-dropped') {
    const dropped = c.droppedCapabilities.map((cap) => cap.replace(/ \(by ALL\)$/, ''));
    title = `${who(first)} cannot run iptables${inWhere}: ${dropped.join(' and ')} dropped from its capabilities`;
    parts.push(
      `The securityContext of the ${who(first)} of ${pods}${where ? ` in ${where}` : ''} ${c.addedToo ? `adds ${dropped.join(' and ')} but also drops ${c.droppedCapabilities.join(' and ')}` : `drops ${c.droppedCapabilities.join(' and ')}`}, and it does not run privileged. ${initStory(c)}.`,
      'Without them its iptables calls are refused, the init container fails and the pod never starts its containers. Linkerd\'s proxy-init template only adds these capabilities: the drop usually comes from a policy or a mutating admission webhook that drops NET_RAW (or ALL) from every container (Azure Policy, Gatekeeper or Kyverno mutations enforcing CIS 5.2.8 "minimize the admission of containers with NET_RAW"), or from the Helm value proxyInit.capabilities.drop.',
    );
  } else if (problem === 'init-failed') {
    title = `${who(first)} failed${inWhere}: ${initCauseTitle(c.initCause!)}`;
    parts.push(`The ${who(first)} of ${pods}${where ? ` in ${where}` : ''} failed, so the pod never starts its containers. ${initStory(c)}`);
  } else {
    title = `${who(first)} restarting${inWhere}`;
    parts.push(
      `The ${who(first)} of ${pods}${where ? ` in ${where}` : ''} restarted ${restarts} time${restarts === 1 ? '' : 's'}${c.lastReason ? ` (last termination: ${c.lastReason}${c.lastExitCode !== null ? `, exit code ${c.lastExitCode}` : ''})` : ''}${verdicts.some((v) => v.c.livenessKills > 0) ? ', killed by its liveness probe' : ''}.`,
    );
    if (controller) parts.push(`It provides ${controller.role}; each restart disconnects its clients.`);
  }
  // Some replicas of a workload fail while others run: the workload still serves, with fewer replicas.
  const healthy = replicas - podCount;
  if (healthy > 0 && workload && role !== 'init') {
    const some = podCount === 1 ? 'One' : String(podCount);
    title = `${title} (${podCount} of ${replicas} replicas)`;
    parts.push(
      `${some} of the ${replicas} replicas ${podCount === 1 ? 'is' : 'are'} ${PROBLEM_WORDS[problem]} while the other ${healthy} ${healthy === 1 ? 'runs' : 'run'}: ${workload} still serves, but with fewer replicas, and requests that reach the failing ${podCount === 1 ? 'one' : 'ones'} (a CLI or dashboard call, a proxy's stream) fail until it recovers.`,
    );
  }
  const evidence: FindingDraft['evidence'] = {
    container: c.container,
    role,
    problem,
    pods: verdicts.slice(0, 50).map((v) => ({
      pod: v.c.pod ?? '(not named in the paste)',
      namespace: v.c.namespace,
      state: v.c.state,
      reason: v.c.reason,
      lastReason: v.c.lastReason,
      lastExitCode: v.c.lastExitCode,
      restartCount: v.c.restartCount,
      memoryLimit: v.c.memoryLimit,
      lastFinished: v.c.lastFinished === null ? null : new Date(v.c.lastFinished).toISOString(),
      events: { oomKills: v.c.oomEvents, backOffs: v.c.backOffEvents, livenessKills: v.c.livenessKills },
    })),
    restarts,
    replicas,
    oomKills: ooms,
    crashLooping,
    samples: verdicts.flatMap((v) => v.c.samples).slice(0, MAX_SAMPLES),
  };
  if (c.initCause) evidence.initCause = c.initCause;
  const served = controller?.serves ?? servedBy;
  if (served) evidence.controller = served;
  return {
    severity,
    kind: `${problem}/${c.container}`,
    title,
    message: parts.join(' '),
    subject: {
      ...(c.namespace ? { namespace: c.namespace } : {}),
      ...(workload ? { workload } : {}),
      ...(c.pod ? { pod: c.pod } : {}),
      target: workload ? `${workload}/${c.container}` : c.container,
    },
    evidence,
    locations: verdicts.slice(0, 10).map((v) => v.c.location),
    remediation: remediationFor(problem, role, c.container, podCount === 1 ? c.pod : null, c.namespace, c.initCause),
    // The figure is the evidence's own count (a pod in CrashLoopBackOff may show 0 restarts so far).
    keyFigure: { name: problem === 'oom' ? 'oomKills' : 'restarts', value: problem === 'oom' ? ooms : restarts },
  };
}

/** The controller a control-plane pod's proxy fronts: clients reach the controller through it. */
function controllerPodComponent(workload: string | undefined): 'destination' | 'identity' | null {
  if (workload === 'linkerd-destination') return 'destination';
  if (workload === 'linkerd-identity') return 'identity';
  return null;
}

function initStory(c: ContainerState): string {
  if (c.initCause) return `${c.container === LINKERD_CNI ? 'The event says' : 'Its log says'} ${initCauseText(c.initCause)}.`;
  if (c.container === 'linkerd-network-validator')
    return "The network validator only checks that the pod's traffic is redirected to the proxy, which linkerd-cni sets up from the node: it fails when the linkerd-cni plugin has not run for the pod, because its DaemonSet was not yet ready on the node or because the cluster CNI (Calico, Cilium…) rewrote its CNI config without linkerd-cni in the chain when it restarted (a start-up ordering race).";
  return "The pod never gets to its application containers: the proxy's iptables setup (linkerd-init) or the CNI plugin check (linkerd-network-validator) fails.";
}

function remediationFor(problem: Problem, role: Role, container: string, pod: string | null, namespace: string | null, initCause: InitCause | null): string {
  const steps: string[] = [];
  // The commands name the pod and namespace when the paste did.
  const target = `${namespace ? `-n ${namespace} ` : ''}${pod ?? '<pod>'}`;
  // The first step for a known init cause is the knowledge base's (src/knowledge/causes/kubernetes.ts).
  if (role === 'init' && initCause !== null && initCause !== 'iptables-failed') {
    steps.push(`1. ${podNetworkCause(initCause).action.replace('{target}', target)}`);
    if (initCause === 'capabilities-dropped')
      steps.push(
        '2. Or install linkerd-cni (`--set cniEnabled=true`): the CNI plugin configures iptables from the node, pods get no linkerd-init and need neither capability.',
      );
  }
  if (steps.length > 0) {
    steps.push(`${steps.length + 1}. Read the whole failure: \`kubectl logs <pod> -c ${container}\` (and --previous).`);
    steps.push('Reference: the Linkerd docs on the CNI plugin and on proxy-init\'s iptables modes (linkerd.io, "CNI Plugin" and "Proxy Init iptables modes").');
    return steps.join('\n');
  }
  if (problem === 'oom' && role === 'controller') {
    steps.push(
      `1. Raise the ${container} container's memory limit (Helm: \`${container === 'proxy-injector' ? 'proxyInjectorResources' : container === 'identity' ? 'identityResources' : 'destinationResources'}.memory.limit\`, or \`linkerd upgrade --set …\`) and run more replicas (\`--ha\` / \`controllerReplicas\`), so one kill does not drop every proxy's stream at once.`,
      '2. Find what grew it: the number of endpoints and pods watched (large clusters, frequent rollouts), many ServiceProfiles, or clients re-resolving in a loop (see reconnect-storm). `kubectl top pod -n linkerd --containers` shows the trend.',
      '3. Upgrade: proxies from v2.307.0 (edge-25.7.2 / Linkerd 2.19) back off up to 60 s instead of retrying every 500 ms, which keeps a restarting controller from being flooded (linkerd2-proxy #3992).',
    );
  } else if (problem === 'oom') {
    steps.push(
      '1. Raise the proxy memory limit for the workload: annotation `config.linkerd.io/proxy-memory-limit: 512Mi` (and `proxy-memory-request`) on the pod template, then roll it out.',
      '2. If its memory keeps growing, look for endpoint-metric growth (`linkerd diagnostics proxy-metrics` on the pod; see metric-cardinality and stale-endpoint-metrics) and for large request bodies buffered by retries; on Linkerd 2.14.x and older, upgrade (stale-endpoint fixes in stable-2.14.2, p2c balancer in 2.15).',
      `3. Check the previous container's log (\`kubectl logs ${target} -c linkerd-proxy --previous\`) for what it was doing before the kill.`,
    );
  } else if (role === 'init') {
    steps.push(
      `1. Read why it fails: \`kubectl logs ${target} -c ${container} --previous\`. linkerd-init needs NET_ADMIN/NET_RAW (or the CNI plugin); linkerd-network-validator fails when linkerd-cni has not configured the node yet.`,
      '2. With linkerd-cni, make sure the CNI DaemonSet runs on the node and is ordered after the cluster CNI; Linkerd 2.13+ ships the network validator for exactly this race.',
    );
  } else {
    steps.push(
      `1. Read the previous container's log: \`kubectl logs ${target} -c ${container} --previous\`, and its Last State (reason, exit code, message) in \`kubectl describe pod ${target}\`.`,
      role === 'controller'
        ? '2. A controller that exits at start-up usually cannot reach the Kubernetes API or its webhook certificate is wrong; one killed by its liveness probe is overloaded: raise its CPU/memory and run it in HA mode.'
        : '2. A proxy that exits at start-up usually cannot get its certificate (identity controller unreachable, trust anchors mismatch) or its controller ports are refused; one killed by its liveness probe (port 4191) is starved of CPU: raise `config.linkerd.io/proxy-cpu-request`. Upgrade proxies older than stable-2.12 first.',
    );
  }
  steps.push(
    'Upstream: linkerd2#4899 (proxy OOMKilled by 10 MB payloads, stable-2.8.1), linkerd2#12916 (endpoint metrics growing until OOMKill, 2.14.8), linkerd2#10643 (destination pod in CrashLoopBackOff).',
  );
  return steps.join('\n');
}
