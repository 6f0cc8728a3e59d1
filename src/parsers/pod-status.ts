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
