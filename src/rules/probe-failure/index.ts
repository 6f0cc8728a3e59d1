// Kubelet probes that fail on meshed pods, read from the `Unhealthy` events (`kubectl get events`
// in any layout, the Events table of `kubectl describe pod`) and the liveness kills that follow.
// The kubelet's message tells the mechanism, and with Linkerd in the pod each has a usual cause:
// - `statuscode: 403` on an application port: the proxy's authorization policy refused the probe
//   (a default-deny policy, or a Server on the port without an authorization for the probe);
// - `connection refused` on the probe port: the iptables redirect sends the probe to a proxy that
//   is not listening (still starting, or crashed), or nothing listens on the port;
// - `statuscode: 502/503/504` on a meshed pod: the proxy answered but could not reach the
//   application (it listens on another port, or only on 127.0.0.1);
// - a probe of the proxy itself (port 4191, /ready and /live): the proxy is not ready, most often
//   because it has no certificate yet;
// - a probe of a controller's admin port: the controller cannot start.
// One line is enough for a 403 (policy answers the same way every time); the others need
// `minFailures`, since a readiness probe or two failing at start-up is normal.

import {
  defineRule,
  type FindingDraft,
  type KubeEventRecord,
  type PodStatusRecord,
  type SampleLine,
  type Severity,
  type SourceLocation,
} from '../../core/types.js';
import { workloadOfPod } from '../../util/path-meta.js';
import { addDropped, detach, droppedKeys, droppedSentence, type DroppedKeys, keepTop, keepWorst, mergeKeyed } from '../../util/stats.js';
import { keepSample } from '../../core/evidence.js';
import { stateCap } from '../../core/state-cap.js';
import { lookupTable } from '../../util/dict.js';
import {
  CONTROL_PLANE_POD,
  controlPlaneReadiness,
  type ControlPlaneReadiness,
  degradedRemediation,
  degradedStory,
  foldIntoProxyProbes,
  MAX_CONTROL_PLANE_PODS,
} from './degraded.js';

export interface ProbeFailureOptions {
  minFailures: number;
}

const PROXY_CONTAINER = 'linkerd-proxy';
const PROXY_ADMIN_PORT = '4191';
/** Admin ports of the controllers, per control-plane Deployment (their probes hit /ready and /ping there). */
const CONTROLLER_PORTS: Readonly<Record<string, Readonly<Record<string, string>>>> = lookupTable({
  'linkerd-destination': lookupTable({ '9996': 'destination', '9990': 'policy', '9997': 'sp-validator' }),
  'linkerd-identity': lookupTable({ '9990': 'identity' }),
  'linkerd-proxy-injector': lookupTable({ '9995': 'proxy-injector' }),
});
const MAX_KEYS = stateCap(10_000);
const MAX_MESHED = stateCap(50_000);
const MAX_SAMPLES = 3;
/** Kubernetes' default failureThreshold of a probe (core/v1 Probe). */
const LIVENESS_FAILURE_THRESHOLD = 3;

export type ProbeCause =
  'policy-denied' | 'refused' | 'proxy-cannot-reach-app' | 'timeout' | 'proxy-not-ready' | 'controller-not-ready' | 'controller-timeout' | 'other';
type Probe = 'readiness' | 'liveness' | 'startup';

interface ProbeState {
  namespace: string | null;
  pod: string | null;
  container: string | null;
  cause: ProbeCause;
  probes: Probe[];
  failures: number;
  /** Of `failures`, those of the liveness probe. */
  livenessFailures: number;
  livenessKills: number;
  port: string | null;
  path: string | null;
  status: string | null;
  samples: SampleLine[];
  location: SourceLocation;
}

interface State {
  probes: Map<string, ProbeState>;
  /** Pods seen with a linkerd-proxy container (a describe, a pod YAML, a `Started container linkerd-proxy` event). */
  meshed: Set<string>;
  /** Liveness kills per pod/container (`Container X failed liveness probe, will be restarted`). */
  kills: Map<string, number>;
  minFailures: number;
  /** Probe keys and kills let go to stay within MAX_KEYS, the weakest first (keepWorst). */
  dropped: DroppedKeys;
  /** Meshed pods past MAX_MESHED: a 403 on a pod not in `meshed` may then be on a meshed one. */
  meshedUntracked: number;
  /** Linkerd control-plane pods a listing showed, and whether all their containers were ready. */
  controlPlane: Map<string, boolean>;
}

/** `Readiness probe failed: …` (also `Liveness`, `Startup`), as the kubelet's prober words it. */
const PROBE_FAILED = /^(Readiness|Liveness|Startup) probe failed: ?(.*)$/s;
/** The URL of an HTTP probe: `Get "http://10.244.1.5:8080/healthz":` (quoted since Go 1.14) or unquoted. */
const PROBE_URL = /Get "?https?:\/\/([^/:"\s]+):(\d{1,5})(\/[^"\s:]*)?"?:/;
/** A TCP probe or the dial under an HTTP one: `dial tcp 10.1.2.3:5432: connect: connection refused`. */
const DIAL = /dial tcp [^\s:]+:(\d{1,5}):/;
const STATUS_CODE = /statuscode: (\d{3})/;
const KILLED = /^Container ([a-z0-9][-a-z0-9]*) failed (liveness|startup) probe/;

export interface ProbeSignal {
  probe: Probe;
  port: string | null;
  path: string | null;
  status: string | null;
  refused: boolean;
  timeout: boolean;
}

/** What an Unhealthy event's message says about the probe; null when it is not a probe failure. */
export function probeSignal(message: string): ProbeSignal | null {
  const m = PROBE_FAILED.exec(message.trim());
  if (!m) return null;
  const detail = m[2]!;
  const url = PROBE_URL.exec(detail);
  return {
    probe: m[1]!.toLowerCase() as Probe,
    port: url?.[2] ?? DIAL.exec(detail)?.[1] ?? null,
    path: url?.[3] ?? null,
    status: STATUS_CODE.exec(detail)?.[1] ?? null,
    refused: detail.includes('connection refused'),
    timeout: /Client\.Timeout exceeded|context deadline exceeded|timed out|i\/o timeout/.test(detail),
  };
}

export default defineRule<ProbeFailureOptions, State>({
  meta: {
    id: 'probe-failure',
    code: 'LD5002',
    title: 'Kubelet probes failing on meshed pods',
    description:
      'Readiness, liveness and startup probes failing (Unhealthy events), naming the container and the likely cause: probes refused by Linkerd policy (403), a proxy not listening or not ready, a proxy that cannot reach the application, a controller that cannot start.',
    defaultSeverity: 'warning',
    inputs: ['kubectl', 'proxy-log'],
    // Events pasted inside a proxy log reach the rule through the parser's kubectl hook whatever the filter.
    lineInterest: { 'proxy-log': [] },
    defaultOptions: { minFailures: 3 },
    optionSchema: {
      minFailures: {
        type: 'integer',
        minimum: 1,
        description: "Probe failures (an event's count included) of one container and cause that fire the rule; a 403 from policy fires at the first.",
      },
    },
  },

  createState: (options) => ({
    probes: new Map(),
    meshed: new Set(),
    kills: new Map(),
    minFailures: options.minFailures,
    dropped: droppedKeys(),
    meshedUntracked: 0,
    controlPlane: new Map(),
  }),

  visitors: {
    'pod-status'(state, record: PodStatusRecord) {
      if (record.container === PROXY_CONTAINER && record.pod) addMeshed(state, record.pod);
      // A `get pods` row of a control-plane pod: READY 1/2 is a controller whose own proxy (or itself) is not ready.
      if (record.source === 'get-pods' && record.pod && record.ready !== null && CONTROL_PLANE_POD.test(record.pod)) {
        if (state.controlPlane.has(record.pod) || state.controlPlane.size < MAX_CONTROL_PLANE_PODS) state.controlPlane.set(detach(record.pod), record.ready);
      }
    },
    'kube-event'(state, record: KubeEventRecord) {
      const pod = record.object?.startsWith('pod/') ? record.object.slice(4) : (record.pod ?? null);
      if (pod && /\bcontainer:? "?linkerd-(?:proxy|init)\b/.test(record.message)) addMeshed(state, pod);
      if (record.reason === 'Killing') {
        const kill = KILLED.exec(record.message);
        const key = kill && pod ? `${pod}/${kill[1]}` : null;
        if (key !== null) addKills(state, key, record.count);
        return;
      }
      if (record.reason !== 'Unhealthy') return;
      const signal = probeSignal(record.message);
      if (!signal) return;
      const container = record.container ?? containerByPort(pod, signal.port);
      const cause = causeOf(signal, container ?? (adminPortProbe(signal) ? ADMIN_PORT_CONTROLLER : null));
      const key = `${pod ?? record.path}/${container ?? ''}/${cause}`;
      let p = state.probes.get(key);
      if (!p) {
        keepWorst(state.probes, MAX_KEYS, (x) => rankOf(x, state.minFailures), state.dropped);
        p = {
          namespace: record.namespace ? detach(record.namespace) : null,
          pod: pod ? detach(pod) : null,
          container: container ? detach(container) : null,
          cause,
          probes: [],
          failures: 0,
          livenessFailures: 0,
          livenessKills: 0,
          port: signal.port,
          path: signal.path ? detach(signal.path) : null,
          status: signal.status,
          samples: [],
          location: { path: record.path, line: record.line },
        };
        state.probes.set(detach(key), p);
      }
      if (!p.probes.includes(signal.probe)) p.probes.push(signal.probe);
      p.failures += record.count;
      if (signal.probe === 'liveness') p.livenessFailures += record.count;
      keepSample(p.samples, MAX_SAMPLES, detach(record.path), record.line, `${record.type} ${record.reason} (x${record.count}): ${record.message}`);
    },
  },

  merge(into, from) {
    mergeKeyed(into.probes, from.probes, (mine, theirs) => {
      mine.failures += theirs.failures;
      mine.livenessFailures += theirs.livenessFailures;
      for (const probe of theirs.probes) if (!mine.probes.includes(probe)) mine.probes.push(probe);
      for (const s of theirs.samples) if (mine.samples.length < MAX_SAMPLES) mine.samples.push(s);
      mine.namespace ??= theirs.namespace;
    });
    addDropped(into.dropped, from.dropped);
    keepWorst(into.probes, MAX_KEYS, (x) => rankOf(x, into.minFailures), into.dropped);
    into.meshedUntracked += from.meshedUntracked;
    for (const pod of from.meshed) addMeshed(into, pod);
    for (const [k, n] of from.kills) addKills(into, k, n);
    for (const [pod, ready] of from.controlPlane)
      if (into.controlPlane.has(pod) || into.controlPlane.size < MAX_CONTROL_PLANE_PODS) into.controlPlane.set(pod, ready);
  },

  finish(state, { options }) {
    // The kubelet names the container it kills: an application probe whose event named none takes it.
    const appKills = new Map<string, { container: string; count: number }>();
    for (const [key, count] of state.kills) {
      const slash = key.lastIndexOf('/');
      const container = key.slice(slash + 1);
      if (container !== PROXY_CONTAINER && !isController(container)) appKills.set(key.slice(0, slash), { container, count });
    }
    foldIntoProxyProbes(state.probes);
    const controlPlane = controlPlaneReadiness(state.controlPlane);
    const groups = new Map<string, { p: ProbeState; meshed: boolean }[]>();
    for (const p of state.probes.values()) {
      const appKill = p.pod && p.container === null ? appKills.get(p.pod) : undefined;
      if (appKill) p.container = appKill.container;
      p.livenessKills = p.pod && p.container ? (state.kills.get(`${p.pod}/${p.container}`) ?? 0) : 0;
      const meshed = p.pod !== null && state.meshed.has(p.pod);
      // Without Linkerd in the pod a 403 is the application's own answer: not this rule's story.
      // Once more pods were meshed than the rule keeps, a pod it has not kept may be meshed: reported.
      if (p.cause === 'policy-denied' && !meshed && p.container !== null && state.meshedUntracked === 0) continue;
      // Liveness probes start after the start-up delay and a failing one gets the container killed:
      // a controller failing its liveness probe is no start-up blip, unlike a readiness failure or two.
      const controller = p.cause === 'controller-not-ready' || p.cause === 'controller-timeout';
      const decisive = p.cause === 'policy-denied' || p.livenessKills > 0 || (controller && p.probes.includes('liveness'));
      if (!decisive && p.failures < options.minFailures) continue;
      const workload = p.pod ? (workloadOfPod(p.pod) ?? p.pod) : p.location.path;
      const key = `${p.namespace ?? ''}/${workload}/${p.container ?? ''}/${p.cause}`;
      const list = groups.get(key);
      if (list) list.push({ p, meshed });
      else groups.set(key, [{ p, meshed }]);
    }
    const findings = [...groups.values()].map((group) => describe(group, controlPlane));
    const dropped = droppedSentence(state.dropped, 'failing probes and liveness kills');
    if (dropped)
      for (const f of findings) {
        f.message = `${f.message} ${dropped}`;
        f.evidence = { ...f.evidence, probesNotTracked: state.dropped.healthy + state.dropped.signal };
      }
    return findings.sort((a, b) => (b.keyFigure?.value ?? 0) - (a.keyFigure?.value ?? 0) || a.title.localeCompare(b.title));
  },
});

/**
 * How much a probe key weighs against the verdict, for keepWorst: a decisive cause (a 403 from
 * policy, a controller that cannot start) above everything, then keys past minFailures, then the
 * rest by their failures. Start-up blips of ten thousand pods never push out one 403.
 */
function rankOf(p: ProbeState, minFailures: number): number {
  const failures = Math.min(p.failures, 1e9);
  if (p.cause === 'policy-denied' || p.cause === 'controller-not-ready') return 3e9 + failures;
  return p.failures >= minFailures ? 2e9 + failures : failures;
}

/** Liveness kills by pod/container: every kill is a failure, so the most-killed stay past the cap. */
function addKills(state: State, key: string, count: number): void {
  const had = state.kills.get(key);
  if (had !== undefined) state.kills.set(key, had + count);
  else {
    state.dropped.signal += keepTop(state.kills, MAX_KEYS, (n) => n);
    state.kills.set(detach(key), count);
  }
}

function addMeshed(state: State, pod: string): void {
  if (state.meshed.has(pod)) return;
  if (state.meshed.size < MAX_MESHED) state.meshed.add(detach(pod));
  else state.meshedUntracked++;
}

/** The container a probe on this port belongs to when the event does not name it. */
function containerByPort(pod: string | null, port: string | null): string | null {
  if (port === PROXY_ADMIN_PORT) return PROXY_CONTAINER;
  if (!pod || !port) return null;
  // By the Deployment's name, also when the pod's hashes were replaced in the paste (`linkerd-destination-randomhash`).
  const workload = workloadOfPod(pod);
  const deployment = workload && CONTROLLER_PORTS[workload] ? workload : Object.keys(CONTROLLER_PORTS).find((d) => pod.startsWith(`${d}-`));
  return deployment ? (CONTROLLER_PORTS[deployment]?.[port] ?? null) : null;
}

/**
 * A probe of /ready, /live or /ping on a port only Linkerd's controllers serve their admin on
 * (9990, 9995-9997): a controller's, even when the paste names no pod.
 */
function adminPortProbe(s: ProbeSignal): boolean {
  return s.port !== null && ADMIN_PORTS.has(s.port) && (s.path === '/ready' || s.path === '/live' || s.path === '/ping');
}
const ADMIN_PORTS = new Set(Object.values(CONTROLLER_PORTS).flatMap((ports) => Object.keys(ports)));
/** Stands for "a controller" in causeOf when the probe's port says so but nothing names which. */
const ADMIN_PORT_CONTROLLER = 'destination';

function isController(container: string | null): boolean {
  return container !== null && Object.values(CONTROLLER_PORTS).some((ports) => Object.values(ports).includes(container));
}

function causeOf(s: ProbeSignal, container: string | null): ProbeCause {
  if (container === PROXY_CONTAINER) return 'proxy-not-ready';
  // A liveness probe runs once the controller started: timing out, it answers too late; not ready, it never started serving.
  if (isController(container)) return s.timeout && s.probe === 'liveness' ? 'controller-timeout' : 'controller-not-ready';
  if (s.status === '403') return 'policy-denied';
  if (s.refused) return 'refused';
  if (s.status === '502' || s.status === '503' || s.status === '504') return 'proxy-cannot-reach-app';
  if (s.timeout) return 'timeout';
  return 'other';
}

const CAUSE_TEXT: Record<ProbeCause, { title: string; story: string }> = {
  'policy-denied': {
    title: 'refused by Linkerd authorization policy (403)',
    story:
      "The kubelet got 403 Forbidden: the pod's proxy refused the probe under its authorization policy. This happens with a default-deny inbound policy (config.linkerd.io/default-inbound-policy: deny, or cluster-authenticated/all-authenticated: the kubelet has no mesh identity) or when a Server selects the probe port and no AuthorizationPolicy allows the probe.",
  },
  refused: {
    title: 'connection refused on the probe port',
    story:
      "The connection to the probe port was refused. In a meshed pod the iptables redirect sends the probe to the proxy's inbound port, so a refusal means the proxy is not listening (still starting, or crashed), or the port is skipped and the application does not listen on it yet.",
  },
  'proxy-cannot-reach-app': {
    title: 'the proxy cannot reach the application',
    story:
      'The probe reached the proxy, which answered with a gateway error: it could not connect to the application on that port. The application listens on another port, only on 127.0.0.1, or is not up yet.',
  },
  timeout: {
    title: 'probe timeouts',
    story: 'The probe got no answer within its timeoutSeconds: the application is slow to answer, or the proxy (or the application) is starved of CPU.',
  },
  'proxy-not-ready': {
    title: 'the proxy is not ready',
    story:
      'The probes of the linkerd-proxy container itself (admin port 4191, /ready and /live) fail: the proxy has not become ready, most often because it has no certificate yet (identity controller unreachable, trust anchors mismatch), or it is starved of CPU.',
  },
  'controller-not-ready': {
    title: 'the controller cannot start',
    story:
      "The probes of a Linkerd controller's admin port fail: the controller has not started serving. It usually cannot reach the Kubernetes API (RBAC, network policy, API server down) or its own proxy has no certificate; its log says which.",
  },
  'controller-timeout': {
    title: 'the controller answers its probes too late',
    story:
      "The probes of a Linkerd controller's admin port time out: the controller answers after the probe's timeout (timeoutSeconds, 1 s in Linkerd's charts) or not at all. It is overloaded or starved of CPU (a large cluster, many watches, a noisy node), or the node's network to the pod is slow; a liveness timeout gets it restarted, which drops every proxy's stream to it.",
  },
  other: { title: 'probe failing', story: 'The probe fails with the message below.' },
};

function describe(group: { p: ProbeState; meshed: boolean }[], controlPlane: ControlPlaneReadiness): FindingDraft {
  const { p } = group[0]!;
  const meshed = group.some((g) => g.meshed);
  const failures = group.reduce((n, g) => n + g.p.failures, 0);
  const kills = group.reduce((n, g) => n + g.p.livenessKills, 0);
  const livenessFailures = group.reduce((n, g) => n + g.p.livenessFailures, 0);
  const probes = [...new Set(group.flatMap((g) => g.p.probes))];
  const workload = p.pod ? workloadOfPod(p.pod) : undefined;
  const where = workload ? `${p.namespace ? `${p.namespace}/` : ''}${workload}` : p.pod ? `pod ${p.pod}` : 'a pod the paste does not name';
  const container = p.container
    ? p.container === PROXY_CONTAINER || isController(p.container)
      ? p.container
      : `container ${p.container}`
    : p.cause === 'controller-timeout' || p.cause === 'controller-not-ready'
      ? `a Linkerd controller (admin port ${p.port ?? '?'})`
      : 'the application container';
  const cause = CAUSE_TEXT[p.cause];
  // Proxies that cannot become ready while the control plane's own pods are not ready: the control plane is the cause.
  const degraded = p.cause === 'proxy-not-ready' && controlPlane.notReady.length > 0;
  // The kubelet restarts a container at its liveness probe's failureThreshold (3 unless set): that many failures killed it.
  const severity: Severity =
    kills > 0 ||
    livenessFailures >= LIVENESS_FAILURE_THRESHOLD ||
    p.cause === 'controller-not-ready' ||
    p.cause === 'controller-timeout' ||
    p.cause === 'policy-denied'
      ? 'error'
      : 'warning';
  const target = p.port ? `${p.path ? `${p.path} on ` : ''}port ${p.port}` : 'its probe';
  const message = [
    `${probes.map((x) => x[0]!.toUpperCase() + x.slice(1)).join(' and ')} probe failures of ${container} in ${where}: ${failures} (${target})${kills > 0 ? `, and the kubelet restarted it ${kills} time${kills === 1 ? '' : 's'} for it` : livenessFailures >= LIVENESS_FAILURE_THRESHOLD ? `, ${livenessFailures} of the liveness probe, enough for the kubelet to restart it at the default failureThreshold of ${LIVENESS_FAILURE_THRESHOLD}` : ''}.`,
    !meshed && p.cause === 'policy-denied' ? `Nothing in the input shows the pod's containers; if it is meshed: ${cause.story}` : cause.story,
    meshed && p.cause !== 'proxy-not-ready' ? 'The pod runs a linkerd-proxy, so the probe passes through it.' : '',
    degraded ? degradedStory(controlPlane) : '',
  ]
    .filter((s) => s !== '')
    .join(' ');
  return {
    severity,
    kind: `${p.cause}${p.container ? `/${p.container}` : ''}`,
    title: `Probes of ${container} in ${where}: ${cause.title}${degraded ? ', the control plane is degraded' : ''}`,
    message,
    subject: {
      ...(p.namespace ? { namespace: p.namespace } : {}),
      ...(workload ? { workload } : {}),
      ...(group.length === 1 && p.pod ? { pod: p.pod } : {}),
      target: `${workload ?? p.pod ?? 'pod'}/${p.container ?? 'app'}`,
    },
    evidence: {
      container: p.container,
      cause: p.cause,
      probes,
      failures,
      livenessKills: kills,
      livenessFailures,
      port: p.port,
      path: p.path,
      statusCode: p.status,
      meshed,
      podsAffected: group.length,
      ...(degraded ? { controlPlanePods: controlPlane.pods, controlPlaneNotReady: controlPlane.notReady.slice(0, 20) } : {}),
      pods: group.slice(0, 50).map((g) => ({ pod: g.p.pod ?? '(not named in the paste)', failures: g.p.failures, livenessKills: g.p.livenessKills })),
      samples: group.flatMap((g) => g.p.samples).slice(0, MAX_SAMPLES),
    },
    locations: group.slice(0, 10).map((g) => g.p.location),
    remediation: degraded ? degradedRemediation(controlPlane) : remediationFor(p, where),
    keyFigure: { name: 'failures', value: failures },
  };
}

function remediationFor(p: ProbeState, where: string): string {
  const port = p.port ?? '<probe port>';
  switch (p.cause) {
    case 'policy-denied':
      return [
        `1. Allow the probe: an AuthorizationPolicy for the Server on port ${port} with a NetworkAuthentication for the kubelet's source (the node CIDR; 169.254.0.0/16 on GKE Dataplane V2), or an HTTPRoute for ${p.path ?? 'the probe path'} authorized for unauthenticated clients.`,
        '2. Linkerd 2.12+ authorizes probes to the paths in the pod spec only while no Server selects the port, and a deny / *-authenticated default policy refuses them: check `kubectl get pod -o yaml` for config.linkerd.io/default-inbound-policy and `kubectl get server,authorizationpolicy -n <ns>`.',
        `3. \`linkerd viz authz -n <ns> deploy/<workload>\` shows the denied probe traffic for ${where}.`,
      ].join('\n');
    case 'refused':
      return [
        `1. See whether the proxy was up: \`kubectl logs <pod> -c linkerd-proxy\` (and --previous); a proxy that never logs "Admin interface on" is still starting or crashed, and the probe reaches it through the iptables redirect.`,
        `2. Check the application listens on port ${port} on all addresses (0.0.0.0, not 127.0.0.1), and that initialDelaySeconds / a startupProbe leaves it time to start; config.linkerd.io/proxy-await: "enabled" (default since 2.11) makes the application wait for the proxy.`,
      ].join('\n');
    case 'proxy-cannot-reach-app':
      return [
        `1. Make the application listen on port ${port} on the pod IP (0.0.0.0): the proxy forwards inbound traffic to the pod's address, not to 127.0.0.1.`,
        '2. If it is only slow to start, add a startupProbe or raise initialDelaySeconds.',
      ].join('\n');
    case 'timeout':
      return [
        "1. Raise the probe's timeoutSeconds and look at the application's and the proxy's CPU (`kubectl top pod --containers`); raise config.linkerd.io/proxy-cpu-request if the proxy is throttled.",
        '2. Keep health endpoints free of downstream calls, so a slow dependency does not fail the probe.',
      ].join('\n');
    case 'proxy-not-ready':
      return [
        '1. Read the proxy log: `kubectl logs <pod> -c linkerd-proxy`. "Failed to certify identity" / "identity not ready" means the identity controller is unreachable or the trust anchors do not match (see identity-failure).',
        '2. A proxy starved of CPU answers its probes late: raise config.linkerd.io/proxy-cpu-request.',
      ].join('\n');
    case 'controller-timeout':
      return [
        `1. See whether the controller is starved: \`kubectl top pod -n linkerd --containers\` and its CPU throttling; raise its CPU request/limit (Helm: \`${p.container === 'policy' ? 'policyController.resources' : p.container === 'identity' ? 'identityResources' : 'destinationResources'}\`) and run it in HA mode.`,
        "2. If it is only slow now and then, raise the probe's timeoutSeconds above Linkerd's 1 s (a kustomize or Helm post-renderer patch of the Deployment where the chart does not expose it), so a slow answer does not restart it.",
        `3. Read its log around the failures: \`kubectl logs -n linkerd <pod> -c ${p.container ?? '<controller>'}\`.`,
      ].join('\n');
    case 'controller-not-ready':
      return [
        `1. Read the controller's log: \`kubectl logs -n linkerd <pod> -c ${p.container ?? '<controller>'}\`. "forbidden: User \\"system:serviceaccount:linkerd:…\\"" is missing RBAC (re-apply the control plane's ClusterRoles: \`linkerd upgrade | kubectl apply -f -\`), "connection refused" / "i/o timeout" to the API server is the network between the pod and the API server.`,
        '2. Then `linkerd check`: it names control-plane pods that are not ready and why.',
      ].join('\n');
    default:
      return `1. Read the probe's failure in \`kubectl describe pod\` and the container's log; compare with the probe definition (port ${port}, path, timeout).`;
  }
}
