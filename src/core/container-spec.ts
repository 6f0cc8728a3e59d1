// What a Pod's (or a workload's pod template's) spec says of one container: how it is allowed to
// run (its securityContext), not how it is running. kubectl-object.ts reads it from a whole Pod or
// Deployment YAML/JSON and from a fragment that starts at `containers:` / `initContainers:` or at
// `spec:`; rules read it to tell a container that cannot work as configured (linkerd-init whose
// NET_RAW is dropped) before any status says so.

import type { RecordBase } from './record-base.js';

export interface ContainerSpecRecord extends RecordBase {
  kind: 'container-spec';
  /** Which list of the spec it is in. */
  containerKind: 'init' | 'app' | 'ephemeral';
  /** `deployment/name` (any workload kind, lower-cased) when the spec is a pod template; null for a Pod or a fragment. */
  workload: string | null;
  image: string | null;
  /** securityContext.privileged; null when not set. */
  privileged: boolean | null;
  /** securityContext.capabilities.add / .drop, upper-cased, without a `CAP_` prefix. */
  capabilitiesAdd: string[];
  capabilitiesDrop: string[];
  runAsUser: number | null;
  runAsNonRoot: boolean | null;
}
