// Linkerd pods the kubelet evicted: `kubectl get pods` shows them with STATUS `Evicted` (the pod's
// status.reason, set by the kubelet's eviction manager, kubernetes pkg/kubelet/eviction), and the
// kubelet records an `Evicted` event whose message names the resource the node ran short of
// ("The node was low on resource: memory."). An evicted pod is not restarted: it stays listed as
// Failed, and its ReplicaSet starts another pod elsewhere. Evictions of a Linkerd pod point at the
// node, not at Linkerd: the pods on it used more memory, disk or PIDs than it had.

import type { FindingDraft, SampleLine, SourceLocation } from '../../core/types.js';
import { keepSample } from '../../core/evidence.js';
import { stateCap } from '../../core/state-cap.js';
import { detach } from '../../util/stats.js';
import { workloadOfPod } from '../../util/path-meta.js';

/** Workloads with evicted pods that are tracked, and pods named per workload. */
export const MAX_EVICTED_WORKLOADS = stateCap(1_000);
const MAX_PODS_NAMED = 200;
const MAX_SAMPLES = 3;

export interface Evictions {
  namespace: string | null;
  workload: string;
  pods: Set<string>;
  /** Evicted pods past MAX_PODS_NAMED, counted only. */
  more: number;
  /** The eviction manager's words, when an event or a describe carried them. */
  resource: string | null;
  samples: SampleLine[];
  location: SourceLocation;
}

/** A pod of Linkerd's: its name (`linkerd-prometheus-…`) or its namespace (`linkerd`, `linkerd-viz`) says so. */
export function isLinkerdPod(pod: string, namespace: string | null): boolean {
  return pod.startsWith('linkerd-') || (namespace !== null && /^linkerd(?:-|$)/.test(namespace));
}

/** `The node was low on resource: memory.` / `ephemeral-storage`, in the eviction manager's message. */
const LOW_ON = /\bThe node (?:was|had condition:) (?:low on resource: )?\[?([a-zA-Z-]+)/;

/** Counts one evicted pod; false when the table is full and the pod's workload is not in it. */
export function addEviction(
  table: Map<string, Evictions>,
  pod: string,
  namespace: string | null,
  at: SourceLocation,
  sample: string,
  message: string | null,
): boolean {
  const workload = workloadOfPod(pod) ?? pod;
  const key = `${namespace ?? ''}/${workload}`;
  let e = table.get(key);
  if (!e) {
    if (table.size >= MAX_EVICTED_WORKLOADS) return false;
    e = {
      namespace: namespace === null ? null : detach(namespace),
      workload: detach(workload),
      pods: new Set(),
      more: 0,
      resource: null,
      samples: [],
      location: at,
    };
    table.set(detach(key), e);
  }
  if (!e.pods.has(pod)) {
    if (e.pods.size < MAX_PODS_NAMED) e.pods.add(detach(pod));
    else e.more++;
  }
  const low = message ? LOW_ON.exec(message) : null;
  if (low) e.resource = detach(low[1]!);
  keepSample(e.samples, MAX_SAMPLES, detach(at.path), at.line, detach(sample.slice(0, 400)));
  return true;
}

export function mergeEvictions(into: Map<string, Evictions>, from: Map<string, Evictions>): void {
  for (const [key, theirs] of from) {
    const mine = into.get(key);
    if (!mine) {
      if (into.size < MAX_EVICTED_WORKLOADS) into.set(key, theirs);
      continue;
    }
    for (const pod of theirs.pods) {
      if (mine.pods.has(pod)) continue;
      if (mine.pods.size < MAX_PODS_NAMED) mine.pods.add(pod);
      else mine.more++;
    }
    mine.more += theirs.more;
    mine.resource = mine.resource ?? theirs.resource;
    for (const s of theirs.samples) if (mine.samples.length < MAX_SAMPLES) mine.samples.push(s);
  }
}

export function describeEvictions(e: Evictions): FindingDraft {
  const count = e.pods.size + e.more;
  const where = `${e.namespace ? `${e.namespace}/` : ''}${e.workload}`;
  const pods = [...e.pods];
  const namespaceFlag = e.namespace ? `-n ${e.namespace} ` : '';
  const what = count === 1 ? `pod ${pods[0]} of ${e.workload} was evicted` : `${count} ${e.workload} pods were evicted`;
  return {
    severity: 'warning',
    kind: `evicted/${e.workload}`,
    title: `${count === 1 ? 'A pod' : `${count} pods`} of ${where} evicted`,
    message: [
      `${what[0]!.toUpperCase()}${what.slice(1)}: the kubelet evicted ${count === 1 ? 'it' : 'them'} because ${count === 1 ? 'its' : 'their'} node ran short of ${e.resource ?? 'a resource (memory, ephemeral storage or PIDs)'} (node pressure).`,
      `An evicted pod is not restarted: it stays listed as Failed with status Evicted, and its ReplicaSet starts a new pod, on a node without the pressure. Repeated evictions mean the node is overcommitted or ${e.workload} uses more than it requests.`,
    ].join(' '),
    subject: { ...(e.namespace ? { namespace: e.namespace } : {}), workload: e.workload, ...(count === 1 ? { pod: pods[0]! } : {}), target: e.workload },
    evidence: { problem: 'evicted', evictedPods: pods.slice(0, 50), evicted: count, resource: e.resource, samples: e.samples },
    locations: [e.location],
    remediation: [
      `1. See what the node ran short of: \`kubectl describe pod ${namespaceFlag}${pods[0] ?? '<pod>'}\` (its Status Message says "The node was low on resource: …") and \`kubectl describe node <node>\` (MemoryPressure, DiskPressure, PIDPressure and what runs there).`,
      `2. Give ${e.workload} requests that match what it uses (for Linkerd's Prometheus, the linkerd-viz value prometheus.resources; for a controller, its *Resources values), or move it to nodes with room; memory and disk used above the request are what the kubelet evicts first.`,
      `3. Clean up the evicted pods: \`kubectl delete pod ${namespaceFlag}--field-selector=status.phase=Failed\`.`,
    ].join('\n'),
    keyFigure: { name: 'evictedPods', value: count },
  };
}
