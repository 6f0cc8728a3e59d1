// stale-endpoint-metrics' keys and bounds: the destination workload of an endpoint series as a map
// key, and how a proxy's state stays bounded without hiding a stale destination (issue 44). A proxy
// keeps at most MAX_WORKLOADS destinations (keepWorst, stale ones first) and MAX_PODS_PER_PROXY pod
// names across them. Once that pod budget is spent, destinations without stale generations are let
// go until half of it is free, so healthy destinations seen first never leave a stale one uncounted;
// nothing is freed when every destination is stale. Half a budget of new pods passes between two
// such passes, so the cost per pod stays constant.

export interface OwnerKey {
  namespace: string | null;
  kind: string;
  name: string;
  key: string;
}

export const NO_OWNER: OwnerKey = Object.freeze({ namespace: null, kind: '', name: '', key: '' });

/** `namespace/kind/name`; samples of one destination come in runs, so the last key is reused. */
export function workloadKey(state: { lastOwner: OwnerKey }, namespace: string | null, owner: { kind: string; name: string }): string {
  const last = state.lastOwner;
  if (last.namespace === namespace && last.kind === owner.kind && last.name === owner.name) return last.key;
  const key = `${namespace ?? ''}/${owner.kind}/${owner.name}`;
  state.lastOwner = { namespace, kind: owner.kind, name: owner.name, key };
  return key;
}

/**
 * Lets go of the workloads of `proxy` that are not stale (never `keep`, the one being counted),
 * oldest first, until at most `target` pods are tracked. `forget` takes each one's pods off the
 * budget; returns how many workloads went.
 */
export function releaseHealthy<W extends { pods: { counts: ReadonlyMap<string, number> } }>(
  proxy: { workloads: Map<string, W>; trackedPods: number },
  keep: W,
  target: number,
  isStale: (w: W) => boolean,
  forget: (w: W) => void,
): number {
  let released = 0;
  for (const [key, w] of [...proxy.workloads]) {
    if (proxy.trackedPods <= target) break;
    if (w === keep || isStale(w)) continue;
    proxy.workloads.delete(key);
    forget(w);
    released++;
  }
  return released;
}
