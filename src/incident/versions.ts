// Which proxy version each pod runs, learned once for every rule: from `proxy_build_info` in
// metric dumps (label `version`, or `git_version` before Linkerd 2.15) and from the
// `linkerd2_proxy: release X (sha) by linkerd on DATE` start-up banner in logs (proxy v2.207+).
// Go components (the controllers, and the proxy container's start-up wrapper in older releases)
// log `running version stable-2.14.9` instead: that is the Linkerd release of whatever logged it.
// It is a collector (engine/collector.ts): the caller hands it to the engine beside the rules, so
// it reads every record in the same pass and parallel runs merge it like a rule's state.

import { INPUT_KINDS, type RecordBase } from '../core/types.js';
import { defineCollector } from '../engine/collector.js';
import { workloadOfPod } from '../util/path-meta.js';
import { isGoLog } from '../kit/go-log.js';
import { componentsOfWorkload } from '../knowledge/control-plane.js';
import { compareVersions, formatVersion, linkerdReleaseFor, parseLinkerdRelease, parseProxyVersion } from '../knowledge/fixes.js';
import { bump, mergeCounts, mergeKeyed } from '../util/stats.js';

export const VERSION_COLLECTOR_ID = 'internal:proxy-versions';

/** Distinct pods tracked; a bundle of more proxies keeps only the version totals beyond this. */
const MAX_PODS = 20_000;

interface PodVersions {
  pod: string;
  namespace?: string;
  /** version → how many times it was seen, and where. */
  versions: Map<string, number>;
  /** Linkerd release → count, from `running version …` lines. */
  releases: Map<string, number>;
  sources: Set<'metrics' | 'log'>;
}

export interface VersionState {
  pods: Map<string, PodVersions>;
  overflow: Map<string, number>;
}

export interface PodVersion {
  pod: string;
  namespace?: string;
  workload?: string;
  /** Newest proxy version seen for the pod (a pod upgraded mid-capture counts as upgraded); null when only a release was logged. */
  version: string | null;
  /** Linkerd release the pod logged itself (`running version …`), when it did. */
  release: string | null;
  /** The Linkerd release, as logged or as mapped from the proxy version. */
  linkerd: string;
  sources: ('metrics' | 'log')[];
  controlPlane: boolean;
}

export interface ProxyVersions {
  byPod: Map<string, PodVersion>;
  /** Pods beyond the tracking cap, counted per version. */
  untracked: Map<string, number>;
}

export const versionCollector = defineCollector<VersionState, ProxyVersions>({
  id: VERSION_COLLECTOR_ID,
  inputs: [...INPUT_KINDS],
  lineInterest: { 'proxy-log': ['linkerd2_proxy: release '] },
  createState: () => ({ pods: new Map(), overflow: new Map() }),
  visitors: {
    'proxy-log'(state, record) {
      if (record.target === 'linkerd2_proxy' && record.message.startsWith('release ')) {
        const version = parseProxyVersion(record.message.slice('release '.length));
        if (version) note(state, record, record.pod, formatVersion(version), 'log');
      } else if (isGoLog(record) && record.message.startsWith('running version ')) {
        const release = parseLinkerdRelease(record.message.slice('running version '.length));
        if (release) note(state, record, record.pod, release.text, 'log', 'release');
      }
    },
    'metric-sample'(state, record) {
      if (record.family !== 'proxy_build_info' && record.name !== 'proxy_build_info') return;
      const version = parseProxyVersion(record.labels.version ?? record.labels.git_version);
      if (!version) return;
      // `# POD name (i of N)` sections name the pod in multi-pod dumps.
      const section = record.section?.includes('/') ? record.section.split('/').pop() : record.section;
      note(state, record, section ?? record.pod, formatVersion(version), 'metrics');
    },
  },
  merge(into, from) {
    mergeKeyed(
      into.pods,
      from.pods,
      (existing, p) => {
        mergeCounts(existing.versions, p.versions);
        mergeCounts(existing.releases, p.releases);
        for (const s of p.sources) existing.sources.add(s);
      },
      MAX_PODS,
      (p) => mergeCounts(into.overflow, p.versions),
    );
    mergeCounts(into.overflow, from.overflow);
  },
  result: (state) => proxyVersionsOf(state),
});

function note(
  state: VersionState,
  record: RecordBase,
  pod: string | undefined,
  version: string,
  source: 'metrics' | 'log',
  what: 'proxy' | 'release' = 'proxy',
): void {
  const name = pod ?? record.path;
  const key = `${record.namespace ?? ''}/${name}`;
  let p = state.pods.get(key);
  if (!p) {
    if (state.pods.size >= MAX_PODS) {
      bump(state.overflow, version);
      return;
    }
    p = { pod: name, ...(record.namespace ? { namespace: record.namespace } : {}), versions: new Map(), releases: new Map(), sources: new Set() };
    state.pods.set(key, p);
  }
  bump(what === 'proxy' ? p.versions : p.releases, version);
  p.sources.add(source);
}

export function proxyVersionsOf(state: VersionState | undefined): ProxyVersions {
  const byPod = new Map<string, PodVersion>();
  if (!state) return { byPod, untracked: new Map() };
  for (const p of state.pods.values()) {
    const newest = [...p.versions.keys()]
      .map((v) => parseProxyVersion(v)!)
      .sort(compareVersions)
      .pop();
    const release = [...p.releases.keys()]
      .map((r) => parseLinkerdRelease(r)!)
      .sort((a, b) => compareVersions(a.version, b.version))
      .pop();
    const workload = workloadOfPod(p.pod);
    const entry: PodVersion = {
      pod: p.pod,
      version: newest ? formatVersion(newest) : null,
      release: release?.text ?? null,
      linkerd: release?.text ?? (newest ? linkerdReleaseFor(newest) : 'unknown release'),
      sources: [...p.sources].sort(),
      controlPlane: componentsOfWorkload(workload).length > 0,
    };
    if (p.namespace) entry.namespace = p.namespace;
    if (workload) entry.workload = workload;
    // Keyed by pod name: findings name pods without their namespace.
    byPod.set(p.pod, entry);
  }
  return { byPod, untracked: new Map(state.overflow) };
}

/** Versions and how many pods run each, newest first, for reports. */
export function versionSummary(versions: ProxyVersions): { version: string; linkerd: string; pods: number }[] {
  const counts = new Map<string, { linkerd: string; pods: number }>();
  const add = (version: string, linkerd: string, n: number) => {
    const c = counts.get(version) ?? { linkerd, pods: 0 };
    c.pods += n;
    counts.set(version, c);
  };
  for (const p of versions.byPod.values()) add(p.version ?? p.release!, p.linkerd, 1);
  for (const [v, n] of versions.untracked) add(v, parseProxyVersion(v) ? linkerdReleaseFor(parseProxyVersion(v)!) : v, n);
  const rank = (v: string) => parseProxyVersion(v) ?? parseLinkerdRelease(v)?.version ?? { major: 0, minor: 0, patch: 0 };
  return [...counts]
    .map(([version, c]) => ({ version, linkerd: c.linkerd, pods: c.pods }))
    .sort((a, b) => compareVersions(rank(b.version), rank(a.version)) || a.version.localeCompare(b.version));
}
