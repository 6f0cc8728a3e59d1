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

import { defineRule, type FindingDraft, type KubeEventRecord, type PodStatusRecord, type ProxyLogRecord, type SampleLine, type Severity, type SourceLocation } from '../../core/types.js';
import { workloadOfPod } from '../../util/path-meta.js';
import { detach, mergeKeyed } from '../../util/stats.js';
import { keepSample } from '../../core/evidence.js';
import { stateCap } from '../../core/state-cap.js';

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
const MAX_CONTAINERS = stateCap(10_000);
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
  /** Why an init container fails, from its own log (iptables, capabilities, CNI). */
  initCause: InitCause | null;
  samples: SampleLine[];
  location: SourceLocation;
}

/**
 * Why linkerd-init or linkerd-network-validator fails, from the lines they log (proxy-init's
 * pkg/iptables/iptables.go and the iptables output it relays; validator/src/main.rs).
 */
export type InitCause = 'capabilities' | 'iptables-mode' | 'cni-not-ready' | 'iptables-failed' | 'cni-plugin-failed';
/** The CNI plugin as the sandbox events name it: `plugin type="linkerd-cni" name="linkerd-cni" failed (add)`. */
const LINKERD_CNI = 'linkerd-cni';
const LINKERD_CNI_SANDBOX = /plugin type="linkerd-cni"|linkerd-cni: /;
const INIT_CAUSES: readonly [RegExp, InitCause][] = [
  [/Permission denied \(you must be root\)|Operation not permitted|could not get iptables lock/, 'capabilities'],
  [/Could not fetch rule set generation id|Table does not exist|do you need to insmod|Couldn't load target|nf_tables|iptables-legacy/, 'iptables-mode'],
  [/Failed to validate networking configuration|Unable to connect to validator/, 'cni-not-ready'],
  [/aborting firewall configuration/, 'iptables-failed'],
];
/** The cause as a finding's title says it. */
const INIT_CAUSE_TITLE: Record<InitCause, string> = {
  capabilities: 'iptables refused, NET_ADMIN/NET_RAW missing',
  'iptables-mode': 'its iptables mode (legacy/nft) does not match the node',
  'cni-not-ready': 'linkerd-cni has not configured the node',
  'iptables-failed': 'its iptables rules could not be applied',
  'cni-plugin-failed': 'the pod network could not be set up',
};
const INIT_CAUSE_TEXT: Record<InitCause, string> = {
  capabilities: 'iptables was refused: the container lacks NET_ADMIN/NET_RAW (a PodSecurity or PSP policy, or a runtime that drops them)',
  'iptables-mode': 'iptables cannot use the node\'s packet filter: the iptables mode (legacy or nft) does not match the node kernel',
  'cni-not-ready': 'the network validator saw no redirect: linkerd-cni has not configured the node (CNI plugin ordering, or the DaemonSet not yet running there)',
  'iptables-failed': 'the iptables rules could not be applied',
  'cni-plugin-failed': 'the linkerd-cni plugin failed while the kubelet set up the pod\'s network (it could not read the pod from the API server or apply its iptables rules), so the pod sandbox is not created',
};

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
    // the filter. Of the proxy-log records it reads only the init containers' failures: proxy-init
    // logs through logrus (never filtered), the validator through tracing.
    lineInterest: { 'proxy-log': ['linkerd_network_validator'] },
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
    'proxy-log'(state, record) {
      if (record.level !== 'ERROR') return;
      const container = record.target === 'linkerd_network_validator' ? 'linkerd-network-validator' : record.container;
      if (!container || !INIT_CONTAINERS.has(container)) return;
      const text = record.message + (record.fields.error ? ` ${record.fields.error}` : '');
      const cause = INIT_CAUSES.find(([pattern]) => pattern.test(text))?.[1];
      if (!cause) return;
      const c = containerOf(state, record.namespace ?? null, record.pod ?? null, container, record);
      if (!c) return;
      c.containerKind = 'init';
      // The first specific cause wins over the generic abort that follows it.
      if (c.initCause === null || c.initCause === 'iptables-failed') c.initCause = cause;
      if (c.samples.length < MAX_SAMPLES) c.samples.push({ path: detach(record.path), line: record.line, text: detach(record.raw.slice(0, 400)) });
    },
    'pod-status'(state, record) {
      // `get pods` shows an init container's failure as `Init:CrashLoopBackOff` / `Init:Error`:
      // that is the pod's Linkerd init container, not its controller.
      const initFailure = record.source === 'get-pods' && record.state?.startsWith('Init:') === true;
      const container = record.container ?? (record.source === 'get-pods' ? (initFailure ? initContainerOf(record.pod) : controlPlaneContainerOf(record.pod)) : null);
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
      // A crashed init container's termination message is its error: the same causes as its log.
      if (record.lastMessage && roleOf(container, record.containerKind) === 'init') {
        const cause = INIT_CAUSES.find(([pattern]) => pattern.test(record.lastMessage!))?.[1];
        if (cause && (c.initCause === null || c.initCause === 'iptables-failed')) c.initCause = cause;
      }
      c.image = record.image ?? c.image;
      c.containerKind = record.containerKind ?? c.containerKind;
      if (record.source === 'get-pods' && record.state && /OOMKilled|CrashLoopBackOff|Error/.test(record.state)) {
        // `kubectl get pods` shows the container's reason as the pod's STATUS.
        c.reason = record.state.replace(/^Init:/, '');
      }
    },
    'kube-event'(state, record) {
      if (record.reason === 'FailedCreatePodSandBox' && LINKERD_CNI_SANDBOX.test(record.message)) {
        // The CNI plugin runs in the kubelet's sandbox set-up, not in a container: the event is all there is.
        const pod = record.object?.startsWith('pod/') ? record.object.slice(4) : (record.pod ?? null);
        const c = containerOf(state, record.namespace ?? null, pod, LINKERD_CNI, record);
        if (!c) return;
        c.containerKind = 'init';
        const cause = INIT_CAUSES.find(([pattern]) => pattern.test(record.message))?.[1] ?? 'cni-plugin-failed';
        if (c.initCause === null || c.initCause === 'iptables-failed' || c.initCause === 'cni-plugin-failed') c.initCause = cause;
        if (c.samples.length < MAX_SAMPLES) c.samples.push({ path: detach(record.path), line: record.line, text: detach(`${record.type} ${record.reason} (x${record.count}): ${record.message}`.slice(0, 400)) });
        return;
      }
      const attributed = eventContainer(record);
      if (!attributed) return;
      const pod = record.object?.startsWith('pod/') ? record.object.slice(4) : null;
      const c = containerOf(state, record.namespace ?? null, pod, attributed.container, record);
      if (!c) return;
      if (attributed.kind === 'oom') c.oomEvents += record.count;
      else if (attributed.kind === 'backoff') c.backOffEvents += record.count;
      else c.livenessKills += record.count;
      keepSample(c.samples, MAX_SAMPLES, detach(record.path), record.line, detach(`${record.type} ${record.reason} (x${record.count}): ${record.message}`.slice(0, 400)));
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
      if (mine.initCause === null || mine.initCause === 'iptables-failed') mine.initCause = theirs.initCause ?? mine.initCause;
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
  if (INIT_CONTAINERS.has(container) || container === LINKERD_CNI) return 'init';
  return null;
}

/** The controller a `get pods` row of a control-plane pod stands for (its main container). */
/**
 * The init container an `Init:` status of a control-plane pod stands for: `get pods` does not name
 * it; linkerd-init unless linkerd-cni replaced it with linkerd-network-validator (a describe tells).
 */
function initContainerOf(pod: string | undefined): string | null {
  return controlPlaneContainerOf(pod) === null ? null : 'linkerd-init';
}

function controlPlaneContainerOf(pod: string | undefined): string | null {
  const m = pod ? CONTROL_PLANE_POD.exec(pod) : null;
  return m ? m[1]! : null;
}

function containerOf(state: State, namespace: string | null, pod: string | null, container: string, at: PodStatusRecord | KubeEventRecord | ProxyLogRecord): ContainerState | null {
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
    containerKind: null, oomEvents: 0, backOffEvents: 0, livenessKills: 0, initCause: null, samples: [], location: { path: at.path, line: at.line },
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

type Problem = 'oom' | 'crashloop' | 'restarts' | 'init-failed';

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
    title = `${who(first)} in CrashLoopBackOff${inWhere}${role === 'init' && c.initCause ? `: ${INIT_CAUSE_TITLE[c.initCause]}` : ''}`;
    parts.push(`The ${who(first)} of ${pods}${where ? ` in ${where}` : ''} exits soon after starting${c.lastReason ? ` (last termination: ${c.lastReason}${c.lastExitCode !== null ? `, exit code ${c.lastExitCode}` : ''})` : ''}; the kubelet backs off 10 s → 5 min between attempts and the pod serves nothing meanwhile.`);
    if (controller) parts.push(`It provides ${controller.role}.`);
    else if (role === 'init') parts.push(initStory(c));
    else if (servedBy) parts.push(`This proxy fronts the ${servedBy} controller: its clients cannot reach ${servedBy} while it loops.`);
    else parts.push('A proxy usually exits at start-up when it cannot get its identity or reach a local controller port; its last termination message tells which.');
  } else if (problem === 'init-failed') {
    title = `${who(first)} failed${inWhere}: ${INIT_CAUSE_TITLE[c.initCause!]}`;
    parts.push(`The ${who(first)} of ${pods}${where ? ` in ${where}` : ''} failed, so the pod never starts its containers. ${initStory(c)}`);
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
  if (c.initCause) return `Its log says ${INIT_CAUSE_TEXT[c.initCause]}.`;
  return 'The pod never gets to its application containers: the proxy\'s iptables setup (linkerd-init) or the CNI plugin check (linkerd-network-validator) fails.';
}

function remediationFor(problem: Problem, role: Role, container: string, pod: string | null, namespace: string | null, initCause: InitCause | null): string {
  const steps: string[] = [];
  // The commands name the pod and namespace when the paste did.
  const target = `${namespace ? `-n ${namespace} ` : ''}${pod ?? '<pod>'}`;
  if (role === 'init' && initCause === 'capabilities') {
    steps.push('1. Let linkerd-init run iptables: it needs NET_ADMIN and NET_RAW. A restricted PodSecurity level or a policy engine (Kyverno, Gatekeeper) strips them; exempt the namespace, or install linkerd-cni (`--set cniEnabled=true`), which configures iptables from the node so no pod needs the capabilities.');
  } else if (role === 'init' && initCause === 'iptables-mode') {
    steps.push('1. Match the node\'s iptables backend: `--set proxyInit.iptablesMode=nft` on nodes that only have nf_tables (RHEL 8+, Debian 11+, Bottlerocket), `legacy` otherwise (Linkerd 2.10+; proxy-init v2 and later choose `plain` iptables on Linkerd 2.15+).');
  } else if (role === 'init' && initCause === 'cni-plugin-failed') {
    steps.push('1. Read the plugin\'s error in the event and in the linkerd-cni DaemonSet\'s log on that node (`kubectl -n linkerd-cni logs ds/linkerd-cni`): a kubeconfig the installer wrote with an expired token or a wrong API address (re-roll the DaemonSet), or iptables failing on the node (its iptables mode). Linkerd 2.13+ can repair such pods (linkerd-cni repair controller).');
  } else if (role === 'init' && initCause === 'cni-not-ready') {
    steps.push('1. Make sure the linkerd-cni DaemonSet runs on the node and that its plugin is chained after the cluster CNI (`kubectl -n linkerd-cni logs ds/linkerd-cni`); the validator (Linkerd 2.13+) fails the pod precisely so it is retried once the node is configured, so a pod created before the DaemonSet was ready just needs a restart.');
  }
  if (steps.length > 0) {
    steps.push(`2. Read the whole failure: \`kubectl logs <pod> -c ${container}\` (and --previous).`);
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
  steps.push('Upstream: linkerd2#4899 (proxy OOMKilled by 10 MB payloads, stable-2.8.1), linkerd2#12916 (endpoint metrics growing until OOMKill, 2.14.8), linkerd2#10643 (destination pod in CrashLoopBackOff).');
  return steps.join('\n');
}
