// The multicluster extension's service mirror (one per Link), as its logs say it (logrus, logfmt
// or JSON). Messages from linkerd2's multicluster/service-mirror/cluster_watcher.go and
// probe_worker.go; the example lines are built from those call sites in the logfmt layout the
// controller prints, or pasted in the thread named.

import { L2, type KnownSignature } from '../signature.js';

const SRC = 'https://github.com/linkerd/linkerd2/blob/edge-26.8.3/multicluster/service-mirror/';
const DOCS = 'https://linkerd.io/2-edge/tasks/multicluster/';

export const MULTICLUSTER_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'service-mirror-namespace-missing',
    title: 'Service mirror skipped an exported service: its namespace does not exist here',
    family: 'multicluster',
    match: {
      records: ['proxy-log'],
      literals: ['Skipping mirroring of service'],
      pattern: 'Skipping mirroring of service [^ ]{1,300}: namespace [^ ]{1,63} does not exist',
    },
    meaning:
      'A service exported from the linked cluster lives in a namespace this cluster does not have, so no mirror service is created for it: clients here cannot reach `<service>-<link>`.',
    causes: [
      'The namespace exists only in the remote cluster: mirrors are created in the namespace of the same name, which must exist locally.',
      'The service was exported by a label selector broader than intended (`mirror.linkerd.io/exported`), catching namespaces nobody meant to mirror.',
    ],
    fix: [
      {
        versions: 'Linkerd ≥ 2.8',
        action:
          'Create the namespace in this cluster (`kubectl create namespace <namespace>`) if the service should be mirrored, or remove the export label from the remote service if not.',
      },
    ],
    references: [`${SRC}cluster_watcher.go`, `${L2}14433`],
    examples: [{ line: 'level=warning msg="Skipping mirroring of service bar/foo: namespace bar does not exist" cluster=c1', source: `${L2}14433` }],
  },
  {
    id: 'service-mirror-link-status-rejected',
    title: "Service mirror could not write its Link's status",
    family: 'multicluster',
    match: { records: ['proxy-log'], literals: ['Failed to patch link status'], pattern: 'Failed to patch link status ' },
    meaning:
      "The service mirror keeps the state of every mirrored service in its Link's status; the API server rejected the update, so `linkerd multicluster check` and the Link show stale or missing mirror state.",
    causes: [
      'A mirror condition without a local reference (an exported service whose namespace is missing here) that the Link CRD requires: a service-mirror bug (linkerd2 #14433).',
      'The Link CRD installed is older than the service mirror (CRDs not upgraded with the extension), so the status has fields it does not declare.',
      "The service mirror's ServiceAccount lacks RBAC to patch links/status.",
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Read the reason after the colon; create the missing namespaces the "Skipping mirroring" lines name, and upgrade the multicluster CRDs with the extension (`linkerd multicluster install --crds` or the chart).',
      },
    ],
    references: [`${SRC}cluster_watcher.go`, `${L2}14433`],
    examples: [
      {
        line: 'level=error msg="Failed to patch link status linkerd-multicluster/c1: Link.multicluster.linkerd.io \\"c1\\" is invalid: [status.federatedServices[1].conditions[0].localRef.name: Required value, status.federatedServices[1].conditions[0].localRef.namespace: Required value]" cluster=c1',
        source: `${L2}14433`,
      },
    ],
  },
  {
    id: 'service-mirror-gateway-unready',
    title: 'Service mirror found no ready gateway address: mirrored services are not ready',
    family: 'multicluster',
    match: {
      records: ['proxy-log'],
      literals: ['could not resolve gateway addresses', 'does not have ready addresses'],
      pattern: 'could not resolve gateway addresses for |gateway for [^ ]{1,300} does not have ready addresses',
    },
    meaning:
      "The mirror services' endpoints point at the remote cluster's gateway; with no resolvable or ready gateway address they are marked not ready, so requests to mirrored services fail here.",
    causes: [
      "The linked cluster's gateway Service has no external address (a LoadBalancer still pending, or a hostname that does not resolve from this cluster).",
      'The gateway is unhealthy: its probes fail (see the service mirror\'s "Marking as unhealthy" lines).',
    ],
    fix: [
      {
        versions: 'Linkerd ≥ 2.8',
        action:
          "Check the remote gateway's address and health: `linkerd multicluster gateways` and, in the remote cluster, `kubectl -n linkerd-multicluster get svc linkerd-gateway`.",
      },
    ],
    references: [`${SRC}cluster_watcher.go`, DOCS],
    examples: [
      {
        line: 'time="2026-12-04T10:00:01Z" level=warning msg="could not resolve gateway addresses for bar/foo; setting endpoint subsets to not ready" cluster=c1',
        source: `${SRC}cluster_watcher.go`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'service-mirror-gateway-probe-failed',
    title: "Service mirror marked the linked cluster's gateway unhealthy",
    family: 'multicluster',
    match: { records: ['proxy-log'], literals: ['Marking as unhealthy'], pattern: 'Failure threshold \\(\\d{1,5}\\) reached - Marking as unhealthy' },
    meaning:
      "The service mirror probes the remote gateway's health endpoint (port 4191 by default) through the gateway's address; after the failure threshold it marks the gateway unhealthy and the mirrored services stop getting traffic.",
    causes: [
      "The gateway's probe port is not reachable from this cluster (a firewall or security group between the clusters lets the traffic port through but not the probe port).",
      'The gateway pod is down or not ready in the remote cluster.',
    ],
    fix: [
      {
        versions: 'Linkerd ≥ 2.8',
        action:
          "Test the probe from this cluster to the gateway's address and probe port (`linkerd multicluster gateways` shows its state), and open that port between the clusters.",
      },
    ],
    references: [`${SRC}probe_worker.go`, DOCS],
    examples: [
      {
        line: 'time="2026-12-04T10:00:01Z" level=warning msg="Failure threshold (3) reached - Marking as unhealthy" probe-key=c1',
        source: `${SRC}probe_worker.go`,
        note: 'built from the call site',
      },
    ],
  },
];
