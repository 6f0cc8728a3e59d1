// Causes of multicluster failures: the service mirror and the Links it keeps. Each cause cites
// the linkerd2 thread or source where it was established.

import { L2_ISSUE, type FailureKnowledge } from './types.js';

const MIRROR_SRC = 'https://github.com/linkerd/linkerd2/blob/edge-26.8.3/multicluster/service-mirror/cluster_watcher.go';

export const MULTICLUSTER_KNOWLEDGE: readonly FailureKnowledge[] = [
  {
    signature: 'service-mirror-link-status-rejected',
    failure: "The service mirror cannot record the mirrored services in its Link's status",
    causes: [
      {
        id: 'mirror-namespace-missing-no-local-ref',
        title: "An exported service's namespace does not exist here, and the Link status the mirror writes for it is rejected",
        why: 'For an exported service whose namespace is missing locally, the service mirror still writes a status condition without a local reference, which the Link CRD requires; the API server rejects the whole status patch.',
        action:
          'Create the namespaces that the "Skipping mirroring of service" lines name (`kubectl create namespace <namespace>`), or stop exporting those services, then upgrade the multicluster extension to a release with the fix.',
        tells: [
          { says: 'the same run shows the mirror skipping a service whose namespace does not exist', withSignature: 'service-mirror-namespace-missing' },
          { says: 'the rejected field is the local reference', line: 'localRef' },
        ],
        sources: [{ url: `${L2_ISSUE}14433`, versions: 'edge-25.x' }],
      },
      {
        id: 'mirror-link-crd-outdated',
        title: "The Link CRD is older than the service mirror, so the API server rejects the status's new fields",
        why: 'The multicluster CRDs were not upgraded with the extension: the status the new mirror writes has fields the installed CRD does not declare.',
        action: "Upgrade the multicluster CRDs to the extension's version (`linkerd multicluster install --crds | kubectl apply -f -`, or the chart's CRDs).",
        tells: [{ says: 'the API server names an unknown or undeclared field', line: 'unknown field|field not declared' }],
        sources: [{ url: MIRROR_SRC, versions: 'all' }],
      },
      {
        id: 'mirror-rbac-link-status',
        title: "The service mirror's ServiceAccount may not patch its Link's status",
        why: 'The ClusterRole or Role of the service mirror lacks patch on links/status (a partial upgrade of the extension).',
        action:
          "Check the permission: `kubectl auth can-i patch links.multicluster.linkerd.io/status -n linkerd-multicluster --as=system:serviceaccount:linkerd-multicluster:linkerd-service-mirror-<link>`; re-apply the Link's manifests.",
        tells: [{ says: 'the API server answered forbidden', line: 'forbidden' }],
        sources: [{ url: MIRROR_SRC, versions: 'all' }],
      },
    ],
  },
];
