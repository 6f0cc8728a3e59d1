// The policy controller's resource and status failures, and the node-level components
// (proxy-init, linkerd-cni, the network validator, the CNI repair controller). Drawn from the log
// call sites in data/inventory/inventory.json; examples are built in the layout each component
// prints (tracing for the Rust ones, logrus text for the Go ones) from the call site in source.

import { L2, type KnownSignature } from '../signature.js';

const POLICY_SRC = 'https://github.com/linkerd/linkerd2/blob/edge-26.8.3/policy-controller/';
const INIT_SRC = 'https://github.com/linkerd/linkerd2-proxy-init/blob/main/';

export const COMPONENT_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'policy-resource-invalid',
    title: 'Policy controller ignored an invalid policy or route resource',
    family: 'policy-controller',
    match: {
      records: ['proxy-log'],
      literals: ['nvalid ', 'llegal ', 'matched by another server', 'Failed to '],
      pattern:
        'Invalid (?:MeshTLSAuthentication|NetworkAuthentication|authorization policy|rate limit policy|cluster ip|service port)|Illegal (?:pod|external workload|server authorization|server ratelimit) update|Illegal match expression|Port already matched by another server|Failed to parse (?:accrual config|grpc retry|http retry|timeouts|load biaser config|honor-retry-after toggle|penalize-failures toggle)|Failed to convert route|skipping invalid \\S+ resource|Declining to convert invalid filter|Invalid \\S+ (?:duration|workload string)',
    },
    meaning:
      'The policy controller read a Server, authorization, route or annotation it cannot use and skipped it; proxies get the default policy (or no route) instead of what the resource says, which can deny or allow traffic unexpectedly.',
    causes: [
      'A resource that references a missing or mistyped target (Server name, ServiceAccount, port name).',
      'Two Servers selecting the same pod port (the second is skipped).',
      'An annotation on a Service (retries, timeouts, accrual) with a value it cannot parse.',
    ],
    fix: [
      {
        versions: 'Linkerd ≥ 2.11',
        action:
          'Fix the resource named in the line (`kubectl -n <namespace> get server,authorizationpolicy,meshtlsauthentication,httproute -o yaml`); `linkerd viz authz -n <namespace> deploy/<workload>` shows what is in effect.',
      },
    ],
    references: [`${POLICY_SRC}k8s/index/src/inbound/index.rs`],
    examples: [
      {
        line: '2026-12-04T10:00:01.000000Z  WARN linkerd_policy_controller_k8s_index::inbound::index: Port already matched by another server; skipping port=8080 server="web-http" conflict="web-all"',
        source: `${POLICY_SRC}k8s/index/src/inbound/index.rs`,
        note: "built from the call site in the controller's tracing layout",
      },
    ],
  },
  {
    id: 'policy-admission-denied',
    title: 'Policy admission webhook rejected a resource',
    family: 'policy-controller',
    match: {
      records: ['proxy-log'],
      literals: ['dmission: ', 'nvalid ', 'spec; admitting', 'Failed to '],
      pattern: 'admission: (?:Denied|Failed to parse \\S+ spec)|Invalid admission request|spec; admitting anyway|Failed to parse request body',
    },
    meaning:
      "The policy controller's validating webhook refused (or could not read) a policy resource someone applied; the apply failed and the resource is not in the cluster.",
    causes: [
      'The resource is invalid (selector, port or reference the webhook rejects); the denial reason is in error=.',
      'CRD version and controller version differ (a field the webhook does not know).',
    ],
    fix: [
      {
        versions: 'Linkerd ≥ 2.11',
        action: 'Re-apply the resource and read the reason kubectl prints; compare with `kubectl explain <kind>.spec` for the installed CRD version.',
      },
    ],
    references: [`${POLICY_SRC}runtime/src/admission.rs`],
    examples: [
      {
        line: '2026-12-04T10:00:01.000000Z  INFO linkerd_policy_controller_runtime::admission: Denied error=spec.podSelector: selector must not be empty ns=emojivoto name=web kind=Server',
        source: `${POLICY_SRC}runtime/src/admission.rs`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'policy-status-write-failed',
    title: 'Policy controller could not write route status or its lease',
    family: 'policy-controller',
    background: true,
    match: {
      records: ['proxy-log'],
      literals: ['Failed to ', 'failed to ', 'status::index: Timed out'],
      pattern:
        'Failed to (?:send (?:route|ratelimit|egress network) patch|create patch for resource)|k8s_status::index: Timed out|failed to make parent reference|Failed to create Lease, retrying|Failed to fetch deployment, retrying',
    },
    meaning:
      'The policy controller could not update the status of routes/policies or hold its leader lease; route status (Accepted/ResolvedRefs) goes stale, and without the lease no replica writes status.',
    causes: [
      'RBAC: the destination ServiceAccount lacks patch on `*/status` or on leases (partial upgrade).',
      'The API server is slow or unreachable from the controller.',
    ],
    fix: [
      {
        versions: 'Linkerd ≥ 2.13',
        action:
          'Check `kubectl auth can-i patch httproutes.gateway.networking.k8s.io/status --as=system:serviceaccount:linkerd:linkerd-destination` and `kubectl -n linkerd get lease`; re-apply the chart if RBAC is missing.',
      },
    ],
    references: [`${POLICY_SRC}k8s/status/src/index.rs`],
    examples: [
      {
        line: '2026-12-04T10:00:01.000000Z ERROR linkerd_policy_controller_k8s_status::index: Failed to send route patch id.namespace=emojivoto route=web error=channel closed',
        source: `${POLICY_SRC}k8s/status/src/index.rs`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'policy-lookup-failed',
    title: 'Policy controller could not answer an outbound policy lookup',
    family: 'policy-controller',
    match: {
      records: ['proxy-log'],
      literals: ['Failed to ', 'Unexpected state: EgressNetworks'],
      pattern: 'Failed to get outbound policy rx|Unexpected state: EgressNetworks',
    },
    meaning:
      'A proxy asked the policy controller for the outbound policy of an address and the controller could not build it (index not ready, or an EgressNetwork looked up by name); that proxy gets an error or an invalid backend for the target.',
    causes: [
      "The controller's index is not synced yet (just started, or lost its watches).",
      'An EgressNetwork matched in a way the controller does not expect (a controller bug; the line says it synthesizes an invalid backend).',
    ],
    fix: [
      {
        versions: 'Linkerd ≥ 2.16',
        action:
          "Check the policy container's readiness and restarts (`kubectl -n linkerd logs deploy/linkerd-destination -c policy`); if it persists with EgressNetworks, report it upstream with the resource.",
      },
    ],
    references: [`${POLICY_SRC}runtime/src/outbound.rs`],
    examples: [
      {
        line: '2026-12-04T10:00:01.000000Z ERROR linkerd_policy_controller_runtime: Failed to get outbound policy rx error=no such service',
        source: `${POLICY_SRC}runtime/src/lib.rs`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'policy-route-crd-missing',
    title: 'Route CRDs not installed: those routes are ignored',
    family: 'policy-controller',
    background: true,
    match: { records: ['proxy-log'], literals: ['resource kind not found'], pattern: 'resource kind not found, skipping watches' },
    meaning:
      'The policy controller found no CRD for a route kind (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute) and does not watch it: routes of that kind have no effect. Fine when you use none.',
    causes: ['Gateway API CRDs not installed (or installed after the controller started).', 'An older Gateway API version without the experimental kinds.'],
    fix: [
      {
        versions: 'Linkerd ≥ 2.14',
        action:
          'Install the Gateway API CRDs Linkerd supports when you use that route kind (`linkerd install --crds` with `installGatewayAPI=true`, or the upstream bundle), then `kubectl -n linkerd rollout restart deploy/linkerd-destination`.',
      },
    ],
    references: [`${POLICY_SRC}runtime/src/args.rs`],
    examples: [
      {
        line: '2026-12-04T10:00:01.000000Z  WARN linkerd_policy_controller_runtime::args: grpcroutes.gateway.networking.k8s.io resource kind not found, skipping watches',
        source: `${POLICY_SRC}runtime/src/args.rs`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'proxy-init-iptables-failed',
    title: 'proxy-init could not configure iptables',
    family: 'node',
    match: {
      records: ['proxy-log'],
      literals: ['borting firewall configuration', 'nvalid ', 'nf_conntrack_tcp_timeout_close_wait'],
      pattern: 'aborting firewall configuration|invalid port configuration of |nf_conntrack_tcp_timeout_close_wait',
    },
    meaning:
      'The linkerd-init container could not write the iptables rules that redirect traffic to the proxy; the pod stays in Init:CrashLoopBackOff (or runs unmeshed).',
    causes: [
      'The node lacks the iptables backend proxy-init uses (nft vs legacy): set `proxyInit.iptablesMode`.',
      'The init container lacks NET_ADMIN/NET_RAW (PodSecurity, restricted SCC).',
      'A skip/ignore port annotation with an invalid value.',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Read `kubectl -n <namespace> logs <pod> -c linkerd-init`; set `proxyInit.iptablesMode=nft` on nft-only nodes, or use the CNI plugin where NET_ADMIN is not allowed.',
      },
    ],
    references: [`${INIT_SRC}pkg/iptables/iptables.go`],
    examples: [
      {
        line: 'time="2026-12-04T10:00:01Z" level=error msg="aborting firewall configuration"',
        source: `${INIT_SRC}pkg/iptables/iptables.go`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'proxy-init-skipped-existing-chains',
    title: 'linkerd-init skipped iptables setup: chains already there',
    family: 'node',
    match: { records: ['proxy-log'], literals: ['existing chains'], pattern: 'skipping iptables setup: found \\d{1,4} existing chains' },
    meaning:
      "linkerd-init found its own chains in the pod's network namespace, so it ran before in this pod, and skipped setup: it trusts the earlier run. If that run did not finish, the pod's traffic is not (or only partly) redirected to the proxy.",
    causes: [
      'The init container or the pod sandbox restarted after a first run that was cut short, leaving half-applied rules (linkerd2 #9267).',
      'A normal re-run of linkerd-init after a complete first run (harmless).',
    ],
    fix: [
      {
        versions: 'Linkerd ≥ 2.12',
        action: 'Delete the pod so it gets a fresh network namespace: `kubectl -n <namespace> delete pod <pod>`.',
      },
    ],
    references: [`${L2}9267`],
    examples: [{ line: 'level=info msg="skipping iptables setup: found 1 existing chains"', source: `${L2}9267` }],
  },
  {
    id: 'cni-plugin-failed',
    title: 'linkerd-cni plugin failed for a pod',
    family: 'node',
    match: {
      records: ['proxy-log'],
      literals: ['linkerd-cni client err', 'rror loading args', 'rror parsing config'],
      pattern: 'linkerd-cni client err|error loading args|error parsing config: ',
    },
    meaning:
      "The linkerd-cni plugin failed while setting up a pod's network; the kubelet reports FailedCreatePodSandBox and the pod does not start (or starts without redirection).",
    causes: [
      "The plugin's kubeconfig (written by the linkerd-cni DaemonSet) is missing or its token expired.",
      'The CNI config chain is malformed (another CNI rewrote it).',
    ],
    fix: [
      {
        versions: 'all',
        action: "Check `kubectl -n linkerd-cni logs ds/linkerd-cni` and the node's `/etc/cni/net.d/` chain; restart the linkerd-cni pod on that node.",
      },
    ],
    references: [`${INIT_SRC}cni-plugin/main.go`],
    examples: [
      {
        line: 'time="2026-12-04T10:00:01Z" level=error msg="linkerd-cni client err in client.Pods().Get(): Unauthorized"',
        source: `${INIT_SRC}cni-plugin/main.go`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'network-validator-failed',
    title: 'Network validator: traffic is not redirected to the proxy',
    family: 'node',
    match: {
      records: ['proxy-log'],
      literals: ['Failed to ', 'nable to '],
      pattern: 'Failed to validate networking configuration|Unable to connect to validator|Failed to write bytes to client',
    },
    meaning:
      'The linkerd-network-validator init container found that outbound traffic is not rewritten to the proxy: the CNI plugin had not configured the pod when it started. The pod stays in Init:CrashLoopBackOff.',
    causes: [
      'linkerd-cni ran after the pod was scheduled (node just joined, CNI DaemonSet not ready yet; linkerd2 #11325).',
      "Another CNI in the chain overwrote linkerd-cni's configuration or runs in exclusive mode (Cilium: `cni.exclusive=false`; linkerd2 #11735).",
      "The validator's connect address is not routable in an air-gapped cluster (`networkValidator.connectAddr`; linkerd2 #11597).",
    ],
    fix: [
      {
        versions: 'Linkerd ≥ 2.13 (CNI mode)',
        action:
          'Delete the pod so it is re-created after linkerd-cni is ready (`kubectl -n <namespace> delete pod <pod>`), or enable the CNI repair controller (`repairController.enabled=true`).',
      },
    ],
    references: [
      'https://github.com/linkerd/linkerd2/issues/11325',
      'https://github.com/linkerd/linkerd2/issues/11735',
      'https://github.com/linkerd/linkerd2/issues/11597',
    ],
    examples: [
      {
        line: '2023-08-15T14:52:27.798011Z ERROR linkerd_network_validator: Failed to validate networking configuration. Please ensure iptables rules are rewriting traffic as expected. timeout=10s',
        source: 'https://github.com/linkerd/linkerd2/issues/11250 (joelcomp1)',
      },
    ],
  },
  {
    id: 'cni-repair-failed',
    title: 'CNI repair controller could not restart a pod',
    family: 'node',
    match: {
      records: ['proxy-log'],
      literals: ['Error ', 'deletion timed out', 'publishing timed out'],
      pattern: 'Error deleting pod|Pod deletion timed out|Error publishing event|Event publishing timed out',
    },
    meaning:
      'The CNI repair controller found a pod whose network validator failed but could not delete it (or record an event); the pod stays broken until someone deletes it.',
    causes: ['RBAC: the repair controller may not delete pods in that namespace.', 'The API server is slow or unreachable from the node.'],
    fix: [
      {
        versions: 'Linkerd ≥ 2.14',
        action: "Delete the pod named in the line (`kubectl -n <namespace> delete pod <name>`) and check the repair controller's RBAC.",
      },
    ],
    references: [`${INIT_SRC}cni-repair-controller/src/lib.rs`],
    examples: [
      {
        line: '2026-12-04T10:00:01.000000Z  WARN linkerd_cni_repair_controller: Error deleting pod err=pods "web-1" is forbidden namespace=emojivoto name=web-1',
        source: `${INIT_SRC}cni-repair-controller/src/lib.rs`,
        note: 'built from the call site',
      },
    ],
  },
];
