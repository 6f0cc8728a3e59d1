// Causes of control-plane and node-level failures: the Go controllers and the Kubernetes API they
// depend on, and the init container / CNI plugin / network validator that set up a pod's
// redirection. Each cause cites the docs page or linkerd2 thread where a maintainer established it.

import { DOCS, L2_ISSUE, type FailureKnowledge } from './types.js';

export const CONTROL_PLANE_KNOWLEDGE: readonly FailureKnowledge[] = [
  {
    signature: 'destination-endpoint-untranslatable',
    failure: 'The destination controller could not turn an endpoint into an address for proxies',
    causes: [
      {
        id: 'destination-endpoints-drift',
        title: "The destination controller's endpoints drifted from the EndpointSlices (proxies may dial stale IPs)",
        why: 'An EndpointSlice named a pod the controller could not find (deleted or not yet in its cache); from then on its view of the Service can differ from the EndpointSlices, so proxies are sent to IPs of pods that no longer exist.',
        action:
          'Compare what proxies are told with the EndpointSlices: `linkerd diagnostics endpoints <service>.<namespace>.svc.cluster.local:<port>` against `kubectl -n <namespace> get endpointslices -l kubernetes.io/service-name=<service> -o wide`; if they differ, restart the destination controller (`kubectl -n linkerd rollout restart deploy/linkerd-destination`) and upgrade.',
        tells: [{ says: 'the lines say a pod of the endpoint was not found', line: 'unable to fetch pod|not found' }],
        sources: [{ url: `${L2_ISSUE}10003`, versions: 'stable-2.12 – 2.13' }],
      },
      {
        id: 'opaque-ports-annotation-invalid',
        title: 'An opaque-ports annotation has an invalid value',
        why: 'The controller could not parse `config.linkerd.io/opaque-ports` on the pod or Service, so proxies get that endpoint without its protocol hint.',
        action: "Fix the annotation: `kubectl -n <namespace> get pod,svc -o jsonpath='{..annotations.config\\.linkerd\\.io/opaque-ports}'`.",
        tells: [{ says: 'the lines name the opaque ports annotation', line: 'opaque ports annotation|OpaqueProtocol|opaque protocol' }],
        sources: [{ url: `${DOCS}features/protocol-detection/`, versions: 'all' }],
      },
      {
        id: 'server-selector-invalid',
        title: 'A Server has an invalid pod selector',
        why: "A Server's podSelector or externalWorkloadSelector cannot be parsed, so its policy and protocol never reach the proxies.",
        action: 'Fix the selector of the Server named in the message: `kubectl -n <namespace> get server -o yaml`.',
        tells: [{ says: 'the lines name a selector', line: 'Selector' }],
        sources: [{ url: `${DOCS}reference/authorization-policy/`, versions: '≥ 2.11' }],
      },
    ],
  },
  {
    signature: 'controller-kube-api-lost',
    failure: 'A Linkerd controller lost its connection to the Kubernetes API server',
    causes: [
      {
        id: 'controller-stalls-after-api-loss',
        title: 'The destination or policy controller lost the Kubernetes API server and may have stalled',
        why: "The controller's watches could not list or watch objects (i/o timeout, connection refused); while they fail, proxies get no new endpoints or policy, and controllers of some releases never recovered without a restart.",
        action:
          'Check that nothing blocks the API server from the controller (`kubectl -n linkerd get networkpolicy`, the node running it), then restart the controller once the errors stop: `kubectl -n linkerd rollout restart deploy/linkerd-destination` (and its policy container with it).',
        tells: [],
        sources: [
          { url: `${L2_ISSUE}12469`, versions: '≥ stable-2.14' },
          { url: `${L2_ISSUE}7460`, versions: 'all' },
        ],
      },
      {
        id: 'controller-rbac-missing',
        title: "The controller's ServiceAccount lacks RBAC for a resource it watches",
        why: 'A ClusterRole left behind by a partial upgrade does not grant list/watch on a kind the new controller reads, so its informer never syncs.',
        action:
          'Check the permission: `kubectl auth can-i list <resource> --as=system:serviceaccount:linkerd:linkerd-destination`; re-apply the control plane of the running version so its ClusterRoles match.',
        // Forbidden lists and watches are the controller-api-errors rule's: no tell here.
        tells: [],
        sources: [{ url: `${L2_ISSUE}14605`, versions: 'edge-25.10' }],
      },
    ],
  },
  {
    signature: 'network-validator-failed',
    failure: "The network validator found that the pod's traffic is not redirected to the proxy",
    causes: [
      {
        id: 'cni-not-ready-when-pod-started',
        title: 'linkerd-cni had not configured the node when the pod started',
        why: 'The pod was created before the linkerd-cni DaemonSet wrote its configuration on the node (a new node, or a node that restarted and lost /etc/cni/net.d), so no iptables rules were set up for it.',
        action:
          'Check linkerd-cni on that node (`kubectl -n linkerd-cni get pods -o wide`), restart it if its configuration is missing from /etc/cni/net.d, then delete the failing pod; enable the CNI repair controller (`repairController.enabled=true`) so this heals itself.',
        tells: [{ says: 'the validator could not connect at all', line: 'Unable to connect to validator|Connection refused' }],
        sources: [
          { url: `${L2_ISSUE}11325`, versions: '≥ 2.13' },
          { url: `${L2_ISSUE}12490`, versions: '≥ 2.14' },
          { url: `${DOCS}features/cni/`, versions: 'all' },
        ],
      },
      {
        id: 'other-cni-overwrites-linkerd-cni',
        title: "Another CNI plugin overwrote linkerd-cni's configuration",
        why: 'A primary CNI in exclusive mode (Cilium by default) rewrites the chained configuration, so linkerd-cni never runs for new pods.',
        action: 'Run the primary CNI in chaining mode (Cilium: `cni.exclusive=false`) and restart linkerd-cni, then the failing pods.',
        tells: [],
        sources: [{ url: `${L2_ISSUE}11735`, versions: '≥ 2.13' }],
      },
      {
        id: 'validator-connect-address-unroutable',
        title: "The validator's connect address is not routable in this cluster",
        why: 'The validator checks redirection by dialing an outside address; where that address has no route (air-gapped clusters), it fails although the rules are fine.',
        action: 'Set `networkValidator.connectAddr` to an address routable from the pods.',
        tells: [{ says: 'the validator timed out rather than being refused', line: 'timeout=' }],
        sources: [{ url: `${L2_ISSUE}11597`, versions: '≥ 2.13' }],
      },
    ],
  },
  {
    signature: 'proxy-init-skipped-existing-chains',
    failure: "linkerd-init found its iptables chains already there and skipped setting up the pod's redirection",
    causes: [
      {
        id: 'init-restarted-half-applied',
        title: 'linkerd-init restarted with half-applied iptables rules and skipped setup',
        why: 'linkerd-init ran before in this pod (the init container or the pod sandbox restarted) and left its chains; seeing them, it assumes the rules are complete and skips setup, so a half-applied earlier run leaves traffic partly or not at all redirected.',
        action:
          "Delete the pod so it gets a fresh network namespace (`kubectl -n <namespace> delete pod <pod>`); if it recurs, find why linkerd-init's first run did not finish (`kubectl -n <namespace> logs <pod> -c linkerd-init --previous`).",
        tells: [],
        sources: [{ url: `${L2_ISSUE}9267`, versions: '≥ stable-2.12' }],
      },
    ],
  },
];
