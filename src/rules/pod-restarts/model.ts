// The vocabulary pod-restarts' reducer (index.ts) and its findings (describe.ts) share: options, a
// container's gathered state, the control-plane controllers and the init-container causes.

import type { PodStatusRecord, SampleLine, Severity, SourceLocation } from '../../core/types.js';
import { stateCap } from '../../core/state-cap.js';
import { lookupTable } from '../../util/dict.js';

export interface PodRestartsOptions {
  minRestarts: number;
  recentRestartSeconds: number;
  repeatedProxyOoms: number;
  minBackOffEvents: number;
}

/** What linkerd-init needs to run iptables in the pod's network namespace (Linkerd's proxy-init template adds both). */
export const PROXY_INIT_CAPABILITIES = ['NET_ADMIN', 'NET_RAW'] as const;

/** Controller containers of the Linkerd control plane, and which proxies depend on each. */
export const CONTROLLERS: Readonly<Record<string, { serves: 'destination' | 'policy' | 'identity' | null; role: string }>> = lookupTable({
  destination: { serves: 'destination', role: 'service discovery for every proxy' },
  policy: { serves: 'policy', role: 'authorization policy for every proxy' },
  identity: { serves: 'identity', role: 'the certificates every proxy needs to start and to renew' },
  'proxy-injector': { serves: null, role: 'injecting proxies into new pods (its webhook fails or is skipped meanwhile)' },
  'sp-validator': { serves: null, role: 'validating ServiceProfiles' },
  'public-api': {
    serves: null,
    role: 'the public API that the CLI, the dashboard and `linkerd check` call (the linkerd-controller Deployment of Linkerd 2.9 and older)',
  },
});
export const PROXY_CONTAINER = 'linkerd-proxy';
export const INIT_CONTAINERS = new Set(['linkerd-init', 'linkerd-network-validator']);
/** Control-plane pods by their Deployment, for `get pods` rows that name no container. */
export const CONTROL_PLANE_POD = /^linkerd-(destination|identity|proxy-injector|controller)-[a-z0-9]{8,10}-[a-z0-9]{5}$/;
/** The main container of a control-plane Deployment whose name is not its container's. */
export const DEPLOYMENT_CONTAINER: Readonly<Record<string, string>> = lookupTable({ controller: 'public-api' });
/** Process names in kernel OOM messages (node-problem-detector's OOMKilling events). */
export const OOM_PROCESSES: Readonly<Record<string, string>> = lookupTable({ 'linkerd2-proxy': PROXY_CONTAINER, 'policy-controller': 'policy' });
export const MAX_CONTAINERS = stateCap(10_000);
export const MAX_SAMPLES = 3;

export interface ContainerState {
  namespace: string | null;
  pod: string | null;
  container: string;
  /** Current state (Running, Waiting, Terminated or the get-pods STATUS) and its reason. */
  state: string | null;
  reason: string | null;
  lastReason: string | null;
  lastExitCode: number | null;
  restartCount: number;
  lastRestartAgoSeconds: number | null;
  memoryLimit: string | null;
  lastFinished: number | null;
  image: string | null;
  containerKind: PodStatusRecord['containerKind'];
  /** From events: OOM kills, back-offs and liveness kills, summed over `count`. */
  oomEvents: number;
  backOffEvents: number;
  livenessKills: number;
  /** Why an init container fails, from its own log (iptables, capabilities, CNI) or its spec. */
  initCause: InitCause | null;
  /** Of the capabilities linkerd-init needs, those its spec's securityContext drops (a drop wins over an add). */
  droppedCapabilities: string[];
  /** Whether the spec also lists the dropped capabilities under `add` (the conflict a policy creates). */
  addedToo: boolean;
  /** `deployment/name` when the spec is a workload's pod template (no pod yet). */
  template: string | null;
  samples: SampleLine[];
  location: SourceLocation;
}

/**
 * Why linkerd-init or linkerd-network-validator fails, from the lines they log (proxy-init's
 * pkg/iptables/iptables.go and the iptables output it relays; validator/src/main.rs).
 */
export type InitCause =
  | 'capabilities'
  | 'capabilities-dropped'
  | 'iptables-mode'
  | 'cni-not-ready'
  | 'iptables-failed'
  | 'cni-plugin-failed'
  | 'cni-api-unauthorized'
  | 'cni-api-via-proxy'
  | 'cni-api-unreachable'
  | 'cni-no-result';
/** The CNI plugin as the sandbox events name it: `plugin type="linkerd-cni" name="linkerd-cni" failed (add)`. */
export const LINKERD_CNI = 'linkerd-cni';
export const LINKERD_CNI_SANDBOX = /plugin type="linkerd-cni"|linkerd-cni: /;
/**
 * A CNI plugin of the chain that returned nothing to the kubelet (`unexpected end of JSON input`
 * from libcni): a chained plugin (linkerd-cni among them) printing no result, e.g. a config without
 * cniVersion. The event need not name linkerd-cni.
 */
export const CNI_NO_RESULT = /\bcni\b[^\n]*unexpected end of JSON input/;
export const INIT_CAUSES: readonly [RegExp, InitCause][] = [
  // The linkerd-cni plugin's own call to the API server (it reads the pod), as the sandbox event quotes it.
  [/failed \(add\): Unauthorized/, 'cni-api-unauthorized'],
  [/failed \(add\): (?:Get|Post|Patch|Put) "[^"]*": Forbidden$/, 'cni-api-via-proxy'],
  [
    /failed \(add\): (?:Get|Post|Patch|Put) "[^"]*": (?:cannotconnect|dial tcp \S+: (?:i\/o timeout|connect: (?:connection refused|no route to host)))/,
    'cni-api-unreachable',
  ],
  [CNI_NO_RESULT, 'cni-no-result'],
  [/Permission denied \(you must be root\)|Operation not permitted|could not get iptables lock/, 'capabilities'],
  [/Could not fetch rule set generation id|Table does not exist|do you need to insmod|Couldn't load target|nf_tables|iptables-legacy/, 'iptables-mode'],
  [/Failed to validate networking configuration|Unable to connect to validator/, 'cni-not-ready'],
  [/aborting firewall configuration/, 'iptables-failed'],
];
/** The cause as a finding's title says it. */
export const INIT_CAUSE_TITLE: Record<InitCause, string> = {
  capabilities: 'iptables refused, NET_ADMIN/NET_RAW missing',
  'capabilities-dropped': 'its securityContext drops a capability iptables needs',
  'iptables-mode': 'its iptables mode (legacy/nft) does not match the node',
  'cni-not-ready': 'linkerd-cni has not configured the node',
  'iptables-failed': 'its iptables rules could not be applied',
  'cni-plugin-failed': 'the pod network could not be set up',
  'cni-api-unauthorized': 'the pod network could not be set up: its API token is stale (Unauthorized)',
  'cni-api-via-proxy': 'the pod network could not be set up: an HTTP proxy answered 403 for the API server',
  'cni-api-unreachable': 'the pod network could not be set up: the plugin cannot reach the Kubernetes API from the node',
  'cni-no-result': 'the pod network could not be set up: a CNI plugin of the chain returned no result',
};
export const INIT_CAUSE_TEXT: Record<InitCause, string> = {
  capabilities: 'iptables was refused: the container lacks NET_ADMIN/NET_RAW (a PodSecurity or PSP policy, or a runtime that drops them)',
  'capabilities-dropped':
    "its securityContext drops a capability that iptables needs: proxy-init needs NET_ADMIN and NET_RAW, and the container runtime applies a container's drops after its adds (containerd's CRI plugin, WithCapabilities), so a dropped capability is gone even when `add` lists it",
  'iptables-mode': "iptables cannot use the node's packet filter: the iptables mode (legacy or nft) does not match the node kernel",
  'cni-not-ready':
    "the network validator saw no redirect: linkerd-cni has not configured the node: its DaemonSet is not yet running there (a new node), a node restart left /etc/cni/net.d without linkerd-cni's configuration until the linkerd-cni pod restarts (linkerd2 #12490), or another CNI rewrote the chain without it (calico-node restarting, Cilium in exclusive mode: linkerd2 #11228, #11735)",
  'iptables-failed': 'the iptables rules could not be applied',
  'cni-plugin-failed':
    "the linkerd-cni plugin failed while the kubelet set up the pod's network (it could not read the pod from the API server or apply its iptables rules), so the pod sandbox is not created",
  'cni-api-unauthorized':
    "the linkerd-cni plugin's call to the API server was refused as Unauthorized: the plugin authenticates with the service-account token the linkerd-cni installer copied into a kubeconfig on the node (ZZZ-linkerd-cni-kubeconfig) when it started, and that copy is stale once the token is rotated or expired (bound tokens expire; AKS and EKS rotate their signing keys), so every pod sandbox on the node fails",
  'cni-api-via-proxy':
    "the linkerd-cni plugin's call to the API server got a bare 403 Forbidden, without the API server's RBAC wording (`is forbidden: User …`): something between the node and the API server answered, usually an HTTP proxy configured on the node (HTTPS_PROXY for the kubelet or the container runtime) whose NO_PROXY lacks the Kubernetes API address, so the plugin's request went through the proxy",
  'cni-api-unreachable':
    "the linkerd-cni plugin runs in the node's network namespace and cannot reach the Kubernetes API service IP from there (the host network does not route the service CIDR: some CNIs, flannel on OKE among them, only route it for pods), so every pod sandbox on the node fails",
  'cni-no-result':
    'a CNI plugin of the chain returned nothing to the kubelet (libcni: unexpected end of JSON input): a chained plugin that prints no result, as linkerd-cni does with a config that lacks cniVersion or runs without the previous result, so no pod sandbox can be created on the node',
};

export const SEVERITY_RANK: Record<Severity, number> = { error: 3, warning: 2, info: 1 };

export type Role = 'proxy' | 'controller' | 'init';

export function roleOf(container: string, kind: PodStatusRecord['containerKind']): Role | null {
  if (container === PROXY_CONTAINER) return 'proxy';
  if (CONTROLLERS[container] && kind !== 'init') return 'controller';
  if (INIT_CONTAINERS.has(container) || container === LINKERD_CNI) return 'init';
  return null;
}

/** The controller a `get pods` row of a control-plane pod stands for (its main container). */
/**
 * The init container an `Init:` status of a control-plane pod stands for: `get pods` does not name
 * it; linkerd-init unless linkerd-cni replaced it with linkerd-network-validator (a describe tells).
 */
