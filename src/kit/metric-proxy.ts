// Which proxy a metric sample belongs to. A `linkerd diagnostics proxy-metrics` dump holds one
// proxy per `# POD` section; a plain dump is one proxy per file.

import type { FindingSubject, MetricSampleRecord, ProxyLogRecord } from '../core/types.js';
import { workloadOfPod } from '../util/path-meta.js';
import { detach } from '../util/stats.js';

/**
 * The last proxy and pod keys built, kept in the rule's state (the run's own, not this module's):
 * records come in long runs from one proxy or pod, so a key is built (and hashed) once per run,
 * not per record. Plain data, so a state holding it still crosses threads.
 */
export interface KeyMemo {
  path: string;
  section: string | null;
  proxyKey: string;
  pod: string;
  podKey: string;
}

export function keyMemo(): KeyMemo {
  return { path: '', section: null, proxyKey: '\u0000', pod: '', podKey: '' };
}

/** Key of the proxy that exposed a sample: file plus POD section. */
export function proxyKeyOf(record: MetricSampleRecord, memo: KeyMemo): string {
  if (record.path !== memo.path || record.section !== memo.section) {
    memo.path = record.path;
    memo.section = record.section;
    memo.proxyKey = `${record.path}\u0000${record.section ?? ''}`;
  }
  return memo.proxyKey;
}

/**
 * Key shared by a pod's metrics and its logs, so both signals land on one proxy when the pod is
 * known. The pod name alone: generated names are unique in practice, and a dump's POD header
 * names the pod without its namespace while a log path may carry one.
 */
export function podKeyOf(record: MetricSampleRecord | ProxyLogRecord, memo: KeyMemo): string {
  if (!record.pod) return record.kind === 'metric-sample' ? proxyKeyOf(record, memo) : record.path;
  if (record.pod !== memo.pod) {
    memo.pod = record.pod;
    memo.podKey = `pod:${record.pod}`;
  }
  return memo.podKey;
}

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
