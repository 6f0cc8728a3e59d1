// Which proxy a metric sample belongs to. A `linkerd diagnostics proxy-metrics` dump holds one
// proxy per `# POD` section; a plain dump is one proxy per file.

import type { FindingSubject, MetricSampleRecord, ProxyLogRecord } from '../core/types.js';
import { workloadOfPod } from '../util/path-meta.js';
import { ownedByRun } from '../util/run-caches.js';
import { detach } from '../util/stats.js';

/** Key of the proxy that exposed a sample: file plus POD section. */
export function proxyKeyOf(record: MetricSampleRecord): string {
  // A section's samples come in one run: build (and hash) its key once per run, not per sample.
  if (record.path !== lastPath || record.section !== lastSection) {
    lastPath = record.path;
    lastSection = record.section;
    lastProxyKey = `${record.path}\u0000${record.section ?? ''}`;
  }
  return lastProxyKey;
}

let lastPath = '';
let lastSection: string | null = null;
let lastProxyKey = '\u0000';

/**
 * Key shared by a pod's metrics and its logs, so both signals land on one proxy when the pod is
 * known. The pod name alone: generated names are unique in practice, and a dump's POD header
 * names the pod without its namespace while a log path may carry one.
 */
export function podKeyOf(record: MetricSampleRecord | ProxyLogRecord): string {
  if (!record.pod) return record.kind === 'metric-sample' ? proxyKeyOf(record) : record.path;
  // Records come in long runs from one pod: build (and hash) its key once per run, not per record.
  if (record.pod !== lastPod) {
    lastPod = record.pod;
    lastPodKey = `pod:${record.pod}`;
  }
  return lastPodKey;
}

let lastPod = '';
let lastPodKey = '';

ownedByRun(() => {
  lastPath = '';
  lastSection = null;
  lastProxyKey = '\u0000';
  lastPod = '';
  lastPodKey = '';
});

export interface ProxyIdentity {
  path: string;
  section: string | null;
  pod: string | null;
  namespace: string | null;
  line: number;
}

export function identityOf(record: MetricSampleRecord | ProxyLogRecord): ProxyIdentity {
  return {
    path: record.path,
    section: record.kind === 'metric-sample' && record.section !== null ? detach(record.section) : null,
    pod: record.pod ? detach(record.pod) : null,
    namespace: record.namespace ?? null,
    line: record.line,
  };
}

/** How a finding names the proxy: the pod when known, else the file (and section). */
export function proxyLabel(id: ProxyIdentity): string {
  if (id.pod) return id.pod;
  return id.section ? `${id.path} (${id.section})` : id.path;
}

export function subjectOf(id: ProxyIdentity): FindingSubject {
  const workload = workloadOfPod(id.pod ?? undefined);
  return {
    ...(id.namespace ? { namespace: id.namespace } : {}),
    ...(id.pod ? { pod: id.pod } : {}),
    ...(workload ? { workload } : {}),
  };
}

/** A distinct-value set that stops growing at `cap`; `overflow` says more values were seen. */
export interface CappedSet {
  values: Set<string>;
  cap: number;
  overflow: boolean;
}

export function cappedSet(cap: number): CappedSet {
  return { values: new Set(), cap, overflow: false };
}

export function cappedAdd(set: CappedSet, value: string): void {
  if (set.values.has(value)) return;
  if (set.values.size < set.cap) set.values.add(detach(value));
  else set.overflow = true;
}

export function mergeCappedSet(into: CappedSet, from: CappedSet): void {
  for (const v of from.values) cappedAdd(into, v);
  into.overflow ||= from.overflow;
}

/** `812` or `≥ 2000` when the set hit its cap. */
export function distinctCount(set: { size: number; overflow: boolean | number }): string | number {
  return set.overflow ? `≥ ${set.size}` : set.size;
}
