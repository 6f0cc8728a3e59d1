// Linkerd containers that the kubelet or the kernel keeps killing, read from the Kubernetes objects
// users attach to a bundle (`kubectl describe pod`, `get events`, `get pods`). What matters is the
// mechanism behind the restart, not the count alone:
// - OOMKilled: the container outgrew its memory limit. A controller that dies this way drops every
//   proxy's watch at once, and all of them reconnect in a loop until it is back (reconnect storm);
//   a proxy that dies this way drops its pod's traffic, and does it again as soon as it has
//   rebuilt the same state (endpoint metrics, payload buffers), so a repeated OOMKill is an error.
// - CrashLoopBackOff: the container exits right after starting and the kubelet backs off
//   10 s → 5 min between attempts; the pod serves nothing meanwhile.
// - Restarts with neither: counted, since a Deployment's pods start at 0 and a pod that lived for
//   months may show one or two; only a count of minRestarts, recent when the listing says when,
//   makes a finding.

import { defineRule, type FindingDraft, type KubeEventRecord, type PodStatusRecord, type SampleLine, type Severity, type SourceLocation } from '../../core/types.js';
import { workloadOfPod } from '../../input/path-meta.js';
import { detach, mergeKeyed } from '../../util/stats.js';

export interface PodRestartsOptions {
  minRestarts: number;
  recentRestartSeconds: number;
  repeatedProxyOoms: number;
  minBackOffEvents: number;
}

/** Controller containers of the Linkerd control plane, and which proxies depend on each. */
const CONTROLLERS: Readonly<Record<string, { serves: 'destination' | 'policy' | 'identity' | null; role: string }>> = {
  destination: { serves: 'destination', role: 'service discovery for every proxy' },
  policy: { serves: 'policy', role: 'authorization policy for every proxy' },
  identity: { serves: 'identity', role: 'the certificates every proxy needs to start and to renew' },
  'proxy-injector': { serves: null, role: 'injecting proxies into new pods (its webhook fails or is skipped meanwhile)' },
  'sp-validator': { serves: null, role: 'validating ServiceProfiles' },
};
const PROXY_CONTAINER = 'linkerd-proxy';
const INIT_CONTAINERS = new Set(['linkerd-init', 'linkerd-network-validator']);
/** Control-plane pods by their Deployment, for `get pods` rows that name no container. */
const CONTROL_PLANE_POD = /^linkerd-(destination|identity|proxy-injector)-[a-z0-9]{8,10}-[a-z0-9]{5}$/;
/** Process names in kernel OOM messages (node-problem-detector's OOMKilling events). */
const OOM_PROCESSES: Readonly<Record<string, string>> = { 'linkerd2-proxy': PROXY_CONTAINER, 'policy-controller': 'policy' };
const MAX_CONTAINERS = 10_000;
const MAX_SAMPLES = 3;

interface ContainerState {
  namespace: string | null;
  pod: string | null;
  container: string;
  /** Current state (Running, Waiting, Terminated or the get-pods STATUS) and its reason. */
  state: string | null;
  reason: string | null;
  lastReason: string | null;
  lastExitCode: number | null;
  restartCount: number;
  lastRestartAgoSeconds: number | null;
  memoryLimit: string | null;
  lastFinished: number | null;
  image: string | null;
  containerKind: PodStatusRecord['containerKind'];
  /** From events: OOM kills, back-offs and liveness kills, summed over `count`. */
  oomEvents: number;
  backOffEvents: number;
  livenessKills: number;
  samples: SampleLine[];
  location: SourceLocation;
}

interface State {
  containers: Map<string, ContainerState>;
}

export default defineRule<PodRestartsOptions, State>({
  meta: {
    id: 'pod-restarts',
    code: 'LD5001',
    title: 'Linkerd containers OOMKilled, crash-looping or restarting',
    description: 'The proxy or a control-plane controller OOMKilled, in CrashLoopBackOff or restarting repeatedly, from kubectl describe pod, get events and get pods output.',
    defaultSeverity: 'error',
    inputs: ['kubectl', 'proxy-log'],
    // Describe and events lines inside a proxy log are read by the parser's kubectl hook, whatever
    // the filter; this rule reads no proxy-log record itself.
    lineInterest: { 'proxy-log': [] },
    defaultOptions: { minRestarts: 3, recentRestartSeconds: 3600, repeatedProxyOoms: 2, minBackOffEvents: 2 },
    optionSchema: {
      minRestarts: { type: 'integer', minimum: 1, description: 'Restarts of a Linkerd container, without an OOM kill or a crash loop, from which the rule fires.' },
      recentRestartSeconds: { type: 'integer', minimum: 60, description: 'When `kubectl get pods` says the last restart is older than this, the restart count alone is history, not an incident.' },
      repeatedProxyOoms: { type: 'integer', minimum: 1, description: 'Restarts of an OOMKilled proxy from which its OOM kills are an error rather than a warning.' },
      minBackOffEvents: { type: 'integer', minimum: 1, description: 'BackOff events for a container that count as a crash loop when no describe output shows its state.' },
    },
  },

  createState: () => ({ containers: new Map() }),

  visitors: {
    'pod-status'(state, record) {
      const container = record.container ?? (record.source === 'get-pods' ? controlPlaneContainerOf(record.pod) : null);
      if (!container || roleOf(container, record.containerKind) === null) return;
      const c = containerOf(state, record.namespace ?? null, record.pod ?? null, container, record);
      if (!c) return;
      // The last listing of a container wins (a bundle may hold an older describe first), counts never go down.
      c.state = record.state ?? c.state;
      c.reason = record.reason ?? (record.state === null ? c.reason : null);
      c.lastReason = record.lastReason ?? c.lastReason;
      c.lastExitCode = record.lastExitCode ?? c.lastExitCode;
      c.restartCount = Math.max(c.restartCount, record.restartCount ?? 0);
      c.lastRestartAgoSeconds = record.lastRestartAgoSeconds ?? c.lastRestartAgoSeconds;
      c.memoryLimit = record.memoryLimit ?? c.memoryLimit;
      c.lastFinished = record.lastFinished ?? c.lastFinished;
      c.image = record.image ?? c.image;
      c.containerKind = record.containerKind ?? c.containerKind;
      if (record.source === 'get-pods' && record.state && /OOMKilled|CrashLoopBackOff|Error/.test(record.state)) {
        // `kubectl get pods` shows the container's reason as the pod's STATUS.
        c.reason = record.state.replace(/^Init:/, '');
      }
    },
    'kube-event'(state, record) {
      const attributed = eventContainer(record);
      if (!attributed) return;
      const pod = record.object?.startsWith('pod/') ? record.object.slice(4) : null;
      const c = containerOf(state, record.namespace ?? null, pod, attributed.container, record);
      if (!c) return;
      if (attributed.kind === 'oom') c.oomEvents += record.count;
      else if (attributed.kind === 'backoff') c.backOffEvents += record.count;
      else c.livenessKills += record.count;
      if (c.samples.length < MAX_SAMPLES) c.samples.push({ path: detach(record.path), line: record.line, text: detach(`${record.type} ${record.reason} (x${record.count}): ${record.message}`.slice(0, 400)) });
    },
  },

  merge(into, from) {
    mergeKeyed(into.containers, from.containers, (mine, theirs) => {
      mine.namespace = mine.namespace ?? theirs.namespace;
      mine.state = theirs.state ?? mine.state;
      mine.reason = theirs.state !== null ? theirs.reason : mine.reason;
      mine.lastReason = theirs.lastReason ?? mine.lastReason;
      mine.lastExitCode = theirs.lastExitCode ?? mine.lastExitCode;
      mine.restartCount = Math.max(mine.restartCount, theirs.restartCount);
      mine.lastRestartAgoSeconds = theirs.lastRestartAgoSeconds ?? mine.lastRestartAgoSeconds;
      mine.memoryLimit = theirs.memoryLimit ?? mine.memoryLimit;
      mine.lastFinished = theirs.lastFinished ?? mine.lastFinished;
      mine.image = theirs.image ?? mine.image;
      mine.containerKind = theirs.containerKind ?? mine.containerKind;
      mine.oomEvents += theirs.oomEvents;
      mine.backOffEvents += theirs.backOffEvents;
      mine.livenessKills += theirs.livenessKills;
      for (const s of theirs.samples) if (mine.samples.length < MAX_SAMPLES) mine.samples.push(s);
    }, MAX_CONTAINERS);
  },

  finish(state, { options }) {
    const groups = new Map<string, Verdict[]>();
    for (const c of state.containers.values()) {
      const verdict = judge(c, options);
      if (!verdict) continue;
      const key = `${c.namespace ?? ''}/${c.pod === null ? c.location.path : workloadOfPod(c.pod)}/${c.container}/${verdict.problem}`;
      const list = groups.get(key);
      if (list) list.push(verdict);
      else groups.set(key, [verdict]);
    }
    const findings = [...groups.values()].map((verdicts) => describe(verdicts));
    return findings.sort((a, b) => SEVERITY_RANK[b.severity!] - SEVERITY_RANK[a.severity!] || (b.keyFigure?.value ?? 0) - (a.keyFigure?.value ?? 0) || a.title.localeCompare(b.title));
  },
});

const SEVERITY_RANK: Record<Severity, number> = { error: 3, warning: 2, info: 1 };

type Role = 'proxy' | 'controller' | 'init';

function roleOf(container: string, kind: PodStatusRecord['containerKind']): Role | null {
  if (container === PROXY_CONTAINER) return 'proxy';
  if (CONTROLLERS[container] && kind !== 'init') return 'controller';
  if (INIT_CONTAINERS.has(container)) return 'init';
  return null;
}

/** The controller a `get pods` row of a control-plane pod stands for (its main container). */
function controlPlaneContainerOf(pod: string | undefined): string | null {
  const m = pod ? CONTROL_PLANE_POD.exec(pod) : null;
  return m ? m[1]! : null;
}

function containerOf(state: State, namespace: string | null, pod: string | null, container: string, at: PodStatusRecord | KubeEventRecord): ContainerState | null {
  // By pod name, not namespace: `kubectl get pods -n x` and `get events -n x` print no namespace,
  // and a describe of the same pod must meet them. Pod names rarely repeat across namespaces.
  // A paste that names no pod is its own pod: two such pastes are not the same container.
  const key = pod !== null ? `${pod}/${container}` : `${at.path}\n${container}`;
  let c = state.containers.get(key);
  if (c) {
    if (c.namespace === null && namespace !== null) c.namespace = detach(namespace);
    return c;
  }
  if (state.containers.size >= MAX_CONTAINERS) return null;
  c = {
    namespace: namespace === null ? null : detach(namespace), pod: pod === null ? null : detach(pod), container: detach(container),
    state: null, reason: null, lastReason: null, lastExitCode: null, restartCount: 0, lastRestartAgoSeconds: null, memoryLimit: null, lastFinished: null, image: null,
    containerKind: null, oomEvents: 0, backOffEvents: 0, livenessKills: 0, samples: [], location: { path: at.path, line: at.line },
  };
  state.containers.set(detach(key), c);
  return c;
}

/**
 * Which Linkerd container an event is about, and what it says happened: kubelet names the
 * container in `Back-off restarting failed container X` and `Container X failed liveness probe`;
 * kernel OOM messages name the process.
 */
function eventContainer(e: KubeEventRecord): { container: string; kind: 'oom' | 'backoff' | 'liveness' } | null {
  if (e.reason === 'BackOff') {
    const m = /restarting failed container "?([a-z0-9][-a-z0-9]*)"?/.exec(e.message);
    return m && roleOf(m[1]!, null) ? { container: m[1]!, kind: 'backoff' } : null;
  }
  if (e.reason === 'OOMKilling' || e.reason === 'OOMKilled') {
    const m = /\(([-\w]+)\)/.exec(e.message);
    const container = m ? OOM_PROCESSES[m[1]!] : undefined;
    return container ? { container, kind: 'oom' } : null;
  }
  if (e.reason === 'Killing') {
    const m = /^Container ([a-z0-9][-a-z0-9]*) failed liveness probe/.exec(e.message);
    return m && roleOf(m[1]!, null) ? { container: m[1]!, kind: 'liveness' } : null;
  }
  return null;
}

type Problem = 'oom' | 'crashloop' | 'restarts';

interface Verdict {
  c: ContainerState;
  role: Role;
  problem: Problem;
  severity: Severity;
  crashLooping: boolean;
}

function judge(c: ContainerState, o: PodRestartsOptions): Verdict | null {
  const role = roleOf(c.container, c.containerKind);
  if (role === null) return null;
  const oomKilled = c.reason === 'OOMKilled' || c.lastReason === 'OOMKilled' || c.oomEvents > 0;
  const crashLooping = c.reason === 'CrashLoopBackOff' || c.backOffEvents >= o.minBackOffEvents;
  if (oomKilled) {
    const repeated = c.restartCount >= o.repeatedProxyOoms || c.oomEvents >= o.repeatedProxyOoms || crashLooping;
    const severity: Severity = role === 'proxy' && !repeated ? 'warning' : 'error';
    return { c, role, problem: 'oom', severity, crashLooping };
  }
  if (crashLooping) return { c, role, problem: 'crashloop', severity: 'error', crashLooping };
  // An init container that finished (Completed, exit 0) restarts nothing; only its failures count.
  const restarts = Math.max(c.restartCount, c.livenessKills);
  const old = c.lastRestartAgoSeconds !== null && c.lastRestartAgoSeconds > o.recentRestartSeconds;
  if (restarts >= o.minRestarts && !old) return { c, role, problem: 'restarts', severity: 'warning', crashLooping };
  return null;
}

function who(v: Verdict): string {
  if (v.role === 'controller') return `${v.c.container} controller`;
  if (v.role === 'init') return `${v.c.container} init container`;
  return 'linkerd-proxy';
}

function describe(verdicts: Verdict[]): FindingDraft {
  const first = verdicts[0]!;
  const { c, role, problem } = first;
  const severity: Severity = verdicts.some((v) => v.severity === 'error') ? 'error' : first.severity;
  const workload = workloadOfPod(c.pod ?? undefined);
  const podCount = verdicts.length;
  // Without a workload the title says so once, instead of naming "a pod" twice in one sentence.
  const where = workload ? `${c.namespace ? `${c.namespace}/` : ''}${workload}` : '';
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
    parts.push(`The ${who(first)} of ${pods}${where ? ` in ${where}` : ''} was killed for exceeding its memory limit${limits.length ? ` (${limits.join(', ')})` : ''}${restarts > 0 ? `; ${restarts} restart${restarts === 1 ? '' : 's'} in total` : ''}${crashLooping ? `, and ${crashLooping === 1 ? 'it is' : `${crashLooping} are`} now in CrashLoopBackOff` : ''}.`);
    if (controller) parts.push(`It provides ${controller.role}; each time it dies, every proxy connected to it loses its stream and reconnects at once, which can keep it overloaded.`);
    else if (role === 'proxy') {
      parts.push('Each kill drops every connection of the pod, and the proxy dies again once it has rebuilt the same state: grown endpoint-metric series (a client that dials pod IPs, linkerd2#12916), large buffered payloads (linkerd2#4899), or a limit below what the traffic needs.');
      if (servedBy) parts.push(`This proxy fronts the ${servedBy} controller, so its clients lose ${servedBy} with it.`);
    }
  } else if (problem === 'crashloop') {
    title = `${who(first)} in CrashLoopBackOff${inWhere}`;
    parts.push(`The ${who(first)} of ${pods}${where ? ` in ${where}` : ''} exits soon after starting${c.lastReason ? ` (last termination: ${c.lastReason}${c.lastExitCode !== null ? `, exit code ${c.lastExitCode}` : ''})` : ''}; the kubelet backs off 10 s → 5 min between attempts and the pod serves nothing meanwhile.`);
    if (controller) parts.push(`It provides ${controller.role}.`);
    else if (role === 'init') parts.push('The pod never gets to its application containers: the proxy\'s iptables setup (linkerd-init) or the CNI plugin check (linkerd-network-validator) fails.');
    else if (servedBy) parts.push(`This proxy fronts the ${servedBy} controller: its clients cannot reach ${servedBy} while it loops.`);
    else parts.push('A proxy usually exits at start-up when it cannot get its identity or reach a local controller port; its last termination message tells which.');
  } else {
    title = `${who(first)} restarting${inWhere}`;
    parts.push(`The ${who(first)} of ${pods}${where ? ` in ${where}` : ''} restarted ${restarts} time${restarts === 1 ? '' : 's'}${c.lastReason ? ` (last termination: ${c.lastReason}${c.lastExitCode !== null ? `, exit code ${c.lastExitCode}` : ''})` : ''}${verdicts.some((v) => v.c.livenessKills > 0) ? ', killed by its liveness probe' : ''}.`);
    if (controller) parts.push(`It provides ${controller.role}; each restart disconnects its clients.`);
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
    oomKills: ooms,
    crashLooping,
    samples: verdicts.flatMap((v) => v.c.samples).slice(0, MAX_SAMPLES),
  };
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
    remediation: remediationFor(problem, role, c.container, podCount === 1 ? c.pod : null, c.namespace),
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

function remediationFor(problem: Problem, role: Role, container: string, pod: string | null, namespace: string | null): string {
  const steps: string[] = [];
  // The commands name the pod and namespace when the paste did.
  const target = `${namespace ? `-n ${namespace} ` : ''}${pod ?? '<pod>'}`;
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
  steps.push('Upstream: linkerd2#4899 (proxy OOMKilled by 10 MB payloads, stable-2.8.1), linkerd2#12916 (endpoint metrics growing until OOMKill, 2.14.8), linkerd2#10643 (destination pod in CrashLoopBackOff).');
  return steps.join('\n');
}
