// The pod-status record every kubectl reader starts from (describe, get pods, pod YAML).

import type { PodStatusRecord } from '../core/types.js';

/** A pod-status record that knows only where it was read; readers fill in what their layout shows. */
export function blankPodStatus(
  path: string,
  line: number,
  source: PodStatusRecord['source'],
  containerKind: PodStatusRecord['containerKind'],
): PodStatusRecord {
  return {
    kind: 'pod-status',
    path,
    line,
    source,
    containerKind,
    image: null,
    state: null,
    reason: null,
    exitCode: null,
    started: null,
    finished: null,
    lastState: null,
    lastReason: null,
    lastExitCode: null,
    lastStarted: null,
    lastFinished: null,
    lastMessage: null,
    ready: null,
    restartCount: null,
    lastRestartAgoSeconds: null,
    memoryLimit: null,
  };
}

/** Names the record's pod and namespace from what the reader saw, else from the input's path. */
export function placePodStatus(record: PodStatusRecord, pod: string | null | undefined, namespace: string | null | undefined): void {
  if (pod) record.pod = pod;
  if (namespace) record.namespace = namespace;
}

/** The largest Kubernetes count: Event.count and ContainerStatus.restartCount are int32 in the API. */
export const MAX_KUBE_COUNT = 2 ** 31 - 1;

/**
 * A count as Kubernetes can hold it: a whole number in [0, MAX_KUBE_COUNT]. Larger values (an
 * event with `count: 1.7e308`, a row with 400 digits) are not Kubernetes's and would sum to
 * Infinity in a rule, which a report and a baseline write as null (issue 44): they are clamped
 * where they enter, so any sum of them stays a finite number.
 */
export function kubeCount(n: number): number {
  if (Number.isNaN(n) || n <= 0) return 0;
  return n >= MAX_KUBE_COUNT ? MAX_KUBE_COUNT : Math.floor(n);
}
