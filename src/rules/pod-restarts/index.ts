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

import { defineRule, type KubeEventRecord, type PodStatusRecord, type ProxyLogRecord } from '../../core/types.js';
import type { ContainerSpecRecord } from '../../core/container-spec.js';
import { workloadOfPod } from '../../util/path-meta.js';
import { addDropped, detach, droppedKeys, droppedSentence, type DroppedKeys, keepWorst, mergeKeyed } from '../../util/stats.js';
import { keepSample } from '../../core/evidence.js';
import {
  CNI_NO_RESULT,
  type ContainerState,
  CONTROL_PLANE_POD,
  DEPLOYMENT_CONTAINER,
  INIT_CAUSES,
  INIT_CONTAINERS,
  LINKERD_CNI,
  LINKERD_CNI_SANDBOX,
  MAX_CONTAINERS,
  MAX_SAMPLES,
  OOM_PROCESSES,
  type PodRestartsOptions,
  PROXY_CONTAINER,
  PROXY_INIT_CAPABILITIES,
  roleOf,
  SEVERITY_RANK,
} from './model.js';
import { describe, judge, type Verdict } from './describe.js';
import { addEviction, describeEvictions, type Evictions, isLinkerdPod, mergeEvictions } from './evicted.js';
import { addMountFailure, describeMountFailure, isLinkerdMount, type MountFailure, mergeMountFailures } from './mount-failed.js';
import { addUnnamed, describeUnnamed, mergeUnnamed, unnamedFailures, type UnnamedFailures } from './unnamed.js';

export type { PodRestartsOptions } from './model.js';

interface State {
  containers: Map<string, ContainerState>;
  options: PodRestartsOptions;
  /** Containers let go to stay within MAX_CONTAINERS: the healthy ones first (keepWorst). */
  dropped: DroppedKeys;
  /** Linkerd pods the kubelet evicted, by workload. */
  evicted: Map<string, Evictions>;
  /** Volumes of Linkerd pods the kubelet cannot mount, by workload and volume. */
  mounts: Map<string, MountFailure>;
  /** OOM kills and crash loops of containers the paste does not name (unnamed.ts). */
  unnamed: UnnamedFailures;
}

export default defineRule<PodRestartsOptions, State>({
  meta: {
    id: 'pod-restarts',
    code: 'LD5001',
    title: 'Linkerd containers OOMKilled, crash-looping or restarting',
    description:
      'The proxy or a control-plane controller OOMKilled, in CrashLoopBackOff or restarting repeatedly, from kubectl describe pod, get events and get pods output.',
    defaultSeverity: 'error',
    // Signatures whose cause this rule's findings name: folded into them (one cause, one finding).
    absorbs: [{ rule: 'known-signature', targets: ['proxy-init-iptables-failed', 'network-validator-failed', 'control-plane-connect-refused'] }],
    inputs: ['kubectl', 'proxy-log'],
    // Describe and events lines inside a proxy log are read by the parser's kubectl hook, whatever
    // the filter. Of the proxy-log records it reads only the init containers' failures: proxy-init
    // logs through logrus (never filtered), the validator through tracing.
    lineInterest: { 'proxy-log': ['linkerd_network_validator'] },
    defaultOptions: { minRestarts: 3, recentRestartSeconds: 3600, repeatedProxyOoms: 2, minBackOffEvents: 2 },
    optionSchema: {
      minRestarts: {
        type: 'integer',
        minimum: 1,
        description: 'Restarts of a Linkerd container, without an OOM kill or a crash loop, from which the rule fires.',
      },
      recentRestartSeconds: {
        type: 'integer',
        minimum: 60,
        description: 'When `kubectl get pods` says the last restart is older than this, the restart count alone is history, not an incident.',
      },
      repeatedProxyOoms: {
        type: 'integer',
        minimum: 1,
        description: 'Restarts of an OOMKilled proxy from which its OOM kills are an error rather than a warning.',
      },
      minBackOffEvents: {
        type: 'integer',
        minimum: 1,
        description: 'BackOff events for a container that count as a crash loop when no describe output shows its state.',
      },
    },
  },

  createState: (options) => ({ containers: new Map(), options, dropped: droppedKeys(), evicted: new Map(), mounts: new Map(), unnamed: unnamedFailures() }),

  visitors: {
    'proxy-log'(state, record) {
      if (record.level !== 'ERROR') return;
      const container = record.target === 'linkerd_network_validator' ? 'linkerd-network-validator' : record.container;
      if (!container || !INIT_CONTAINERS.has(container)) return;
      const text = record.message + (record.fields.error ? ` ${record.fields.error}` : '');
      const cause = INIT_CAUSES.find(([pattern]) => pattern.test(text))?.[1];
      if (!cause) return;
      const c = containerOf(state, record.namespace ?? null, record.pod ?? null, container, record);
      c.containerKind = 'init';
      // The first specific cause wins over the generic abort that follows it.
      if (c.initCause === null || c.initCause === 'iptables-failed') c.initCause = cause;
      if (c.samples.length < MAX_SAMPLES) c.samples.push({ path: detach(record.path), line: record.line, text: detach(record.raw.slice(0, 400)) });
    },
    'pod-status'(state, record) {
      // `get pods` shows an init container's failure as `Init:CrashLoopBackOff` / `Init:Error`:
      // that is the pod's Linkerd init container, not its controller.
      // A line the last look read (`… Init:CrashLoopBackOff …`) names its pod as a get-pods row does.
      const listing = record.source === 'get-pods' || record.source === 'last-look';
      if ((record.state === 'Evicted' || record.reason === 'Evicted') && record.pod && isLinkerdPod(record.pod, record.namespace ?? null)) {
        // A pod-level status: the kubelet evicted the whole pod (its containers are gone, not restarting).
        const ready = record.ready === null ? '' : record.ready ? ' ready' : ' not ready';
        addEviction(state.evicted, record.pod, record.namespace ?? null, record, `${record.pod}${ready} Evicted`, null);
        return;
      }
      const initFailure = listing && record.state?.startsWith('Init:') === true;
      const container =
        record.container ??
        (listing ? (initFailure ? initContainerOf(record.pod) : controlPlaneContainerOf(record.pod)) : null) ??
        // A describe cut above the container's name: a termination message in the proxy's log format names it.
        (record.lastMessage !== null && PROXY_LOG_TEXT.test(record.lastMessage) ? PROXY_CONTAINER : null);
      if (!container) {
        addUnnamed(state.unnamed, record);
        return;
      }
      if (roleOf(container, record.containerKind) === null) return;
      const c = containerOf(state, record.namespace ?? null, record.pod ?? null, container, record);
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
      if (listing && record.state && /OOMKilled|CrashLoopBackOff|Error/.test(record.state)) {
        // `kubectl get pods` shows the container's reason as the pod's STATUS.
        c.reason = record.state.replace(/^Init:/, '');
      }
    },
    'container-spec'(state, record) {
      // linkerd-init runs iptables in the pod's network namespace: without NET_ADMIN and NET_RAW it
      // cannot, unless it runs privileged. The runtime applies drops after adds, so a drop of either
      // (or of ALL) takes it away whatever `add` says. With linkerd-cni there is no linkerd-init.
      if (record.container !== 'linkerd-init' || record.privileged === true) return;
      const dropsAll = record.capabilitiesDrop.includes('ALL');
      const dropped = PROXY_INIT_CAPABILITIES.filter((cap) => dropsAll || record.capabilitiesDrop.includes(cap));
      if (dropped.length === 0) return;
      const c = containerOf(state, record.namespace ?? null, record.pod ?? null, record.container, record);
      c.containerKind = 'init';
      c.droppedCapabilities = dropped.map((cap) => (dropsAll && !record.capabilitiesDrop.includes(cap) ? `${cap} (by ALL)` : cap));
      c.addedToo = dropped.some((cap) => record.capabilitiesAdd.includes(cap) || record.capabilitiesAdd.includes('ALL'));
      c.template = record.workload === null ? c.template : detach(record.workload);
      c.image = record.image ?? c.image;
      // The spec says why iptables is refused: more than the log's "Permission denied".
      if (c.initCause === null || c.initCause === 'iptables-failed' || c.initCause === 'capabilities') c.initCause = 'capabilities-dropped';
      keepSample(
        c.samples,
        MAX_SAMPLES,
        detach(record.path),
        record.line,
        detach(`securityContext.capabilities of ${record.container}: add [${record.capabilitiesAdd.join(', ')}], drop [${record.capabilitiesDrop.join(', ')}]`),
      );
    },
    'kube-event'(state, record) {
      if (record.reason === 'FailedCreatePodSandBox' && (LINKERD_CNI_SANDBOX.test(record.message) || CNI_NO_RESULT.test(record.message))) {
        // The CNI plugin runs in the kubelet's sandbox set-up, not in a container: the event is all there is.
        const pod = record.object?.startsWith('pod/') ? record.object.slice(4) : (record.pod ?? null);
        const c = containerOf(state, record.namespace ?? null, pod, LINKERD_CNI, record);
        c.containerKind = 'init';
        const cause = INIT_CAUSES.find(([pattern]) => pattern.test(record.message))?.[1] ?? 'cni-plugin-failed';
        if (c.initCause === null || c.initCause === 'iptables-failed' || c.initCause === 'cni-plugin-failed') c.initCause = cause;
        if (c.samples.length < MAX_SAMPLES)
          c.samples.push({
            path: detach(record.path),
            line: record.line,
            text: detach(`${record.type} ${record.reason} (x${record.count}): ${record.message}`.slice(0, 400)),
          });
        return;
      }
      if (record.reason === 'FailedMount') {
        const pod = record.object?.startsWith('pod/') ? record.object.slice(4) : (record.pod ?? null);
        if (isLinkerdMount(pod, record.namespace ?? null, record.message))
          addMountFailure(
            state.mounts,
            pod,
            record.namespace ?? null,
            record.message,
            record.count,
            record,
            `${record.type} ${record.reason} (x${record.count}): ${record.message}`,
          );
        return;
      }
      if (record.reason === 'Evicted') {
        const pod = record.object?.startsWith('pod/') ? record.object.slice(4) : (record.pod ?? null);
        if (pod && isLinkerdPod(pod, record.namespace ?? null))
          addEviction(state.evicted, pod, record.namespace ?? null, record, `${record.type} ${record.reason}: ${record.message}`, record.message);
        return;
      }
      const attributed = eventContainer(record);
      if (!attributed) return;
      // A describe cut above its Name: names the pod only through the input's path.
      const pod = record.object?.startsWith('pod/') ? record.object.slice(4) : (record.pod ?? null);
      const c = containerOf(state, record.namespace ?? null, pod, attributed.container, record);
      if (attributed.kind === 'oom') c.oomEvents += record.count;
      else if (attributed.kind === 'backoff') c.backOffEvents += record.count;
      else c.livenessKills += record.count;
      keepSample(
        c.samples,
        MAX_SAMPLES,
        detach(record.path),
        record.line,
        detach(`${record.type} ${record.reason} (x${record.count}): ${record.message}`.slice(0, 400)),
      );
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
      if (mine.initCause === null || mine.initCause === 'iptables-failed' || (mine.initCause === 'capabilities' && theirs.initCause === 'capabilities-dropped'))
        mine.initCause = theirs.initCause ?? mine.initCause;
      if (theirs.droppedCapabilities.length > 0) {
        mine.droppedCapabilities = theirs.droppedCapabilities;
        mine.addedToo = theirs.addedToo;
      }
      mine.template = mine.template ?? theirs.template;
      for (const s of theirs.samples) if (mine.samples.length < MAX_SAMPLES) mine.samples.push(s);
    });
    addDropped(into.dropped, from.dropped);
    mergeEvictions(into.evicted, from.evicted);
    mergeMountFailures(into.mounts, from.mounts);
    mergeUnnamed(into.unnamed, from.unnamed);
    keepWorst(into.containers, MAX_CONTAINERS, (c) => rankOf(c, into.options), into.dropped);
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
    // Replicas of each workload's container seen in the input, failing or not: one failing replica of three is not an outage.
    const replicas = new Map<string, number>();
    for (const c of state.containers.values()) {
      const workload = c.pod === null ? undefined : workloadOfPod(c.pod);
      if (workload) replicas.set(`${workload}/${c.container}`, (replicas.get(`${workload}/${c.container}`) ?? 0) + 1);
    }
    const findings = [...groups.values()].map((verdicts) => {
      const c = verdicts[0]!.c;
      const workload = c.pod === null ? undefined : workloadOfPod(c.pod);
      return describe(verdicts, workload ? (replicas.get(`${workload}/${c.container}`) ?? verdicts.length) : verdicts.length);
    });
    for (const e of state.evicted.values()) findings.push(describeEvictions(e));
    for (const m of state.mounts.values()) findings.push(describeMountFailure(m));
    // A status without its container's name only speaks when nothing named tells the story.
    const unnamed = findings.length === 0 ? describeUnnamed(state.unnamed) : null;
    if (unnamed) findings.push(unnamed);
    const dropped = droppedSentence(state.dropped, 'Linkerd containers');
    if (dropped)
      for (const f of findings) {
        f.message = `${f.message} ${dropped}`;
        f.evidence = { ...f.evidence, containersNotTracked: state.dropped.healthy + state.dropped.signal };
      }
    return findings.sort(
      (a, b) =>
        SEVERITY_RANK[b.severity!] - SEVERITY_RANK[a.severity!] || (b.keyFigure?.value ?? 0) - (a.keyFigure?.value ?? 0) || a.title.localeCompare(b.title),
    );
  },
});

/** linkerd2-proxy's log, plain or JSON: a termination message quoting it is the proxy's. */
const PROXY_LOG_TEXT = /ThreadId\(\d+\)|"target":"linkerd|\blinkerd_[a-z_]+::/;

function initContainerOf(pod: string | undefined): string | null {
  return controlPlaneContainerOf(pod) === null ? null : 'linkerd-init';
}

function controlPlaneContainerOf(pod: string | undefined): string | null {
  const m = pod ? CONTROL_PLANE_POD.exec(pod) : null;
  return m ? (DEPLOYMENT_CONTAINER[m[1]!] ?? m[1]!) : null;
}

function containerOf(
  state: State,
  namespace: string | null,
  pod: string | null,
  container: string,
  at: PodStatusRecord | KubeEventRecord | ProxyLogRecord | ContainerSpecRecord,
): ContainerState {
  // By pod name, not namespace: `kubectl get pods -n x` and `get events -n x` print no namespace,
  // and a describe of the same pod must meet them. Pod names rarely repeat across namespaces.
  // A paste that names no pod is its own pod: two such pastes are not the same container.
  const key = pod !== null ? `${pod}/${container}` : `${at.path}\n${container}`;
  let c = state.containers.get(key);
  if (c) {
    if (c.namespace === null && namespace !== null) c.namespace = detach(namespace);
    return c;
  }
  keepWorst(state.containers, MAX_CONTAINERS, (x) => rankOf(x, state.options), state.dropped);
  c = {
    namespace: namespace === null ? null : detach(namespace),
    pod: pod === null ? null : detach(pod),
    container: detach(container),
    state: null,
    reason: null,
    lastReason: null,
    lastExitCode: null,
    restartCount: 0,
    lastRestartAgoSeconds: null,
    memoryLimit: null,
    lastFinished: null,
    image: null,
    containerKind: null,
    oomEvents: 0,
    backOffEvents: 0,
    livenessKills: 0,
    initCause: null,
    droppedCapabilities: [],
    addedToo: false,
    template: null,
    samples: [],
    location: { path: at.path, line: at.line },
  };
  state.containers.set(detach(key), c);
  return c;
}

/**
 * How much a container weighs against the verdict, for keepWorst: its finding's severity when it has
 * one, 1 while it holds part of a signal (restarts, back-offs, liveness kills below the thresholds),
 * 0 when nothing in it is wrong. A capped table keeps the failures and only counts healthy pods.
 */
function rankOf(c: ContainerState, options: PodRestartsOptions): number {
  const verdict = judge(c, options);
  if (verdict) return 1 + SEVERITY_RANK[verdict.severity];
  return c.restartCount > 0 || c.backOffEvents > 0 || c.livenessKills > 0 || c.oomEvents > 0 ? 1 : 0;
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
