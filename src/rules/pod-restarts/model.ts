// The vocabulary pod-restarts' reducer (index.ts) and its findings (describe.ts) share: options, a
// container's gathered state, the control-plane controllers and the init-container causes.

import type { PodStatusRecord, SampleLine, Severity, SourceLocation } from '../../core/types.js';
import { stateCap } from '../../core/state-cap.js';
import { lookupTable } from '../../util/dict.js';
import { podNetworkCause } from '../../knowledge/causes/kubernetes.js';

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
/** The cause as a finding's title says it, and what its log or event means: the knowledge base's (src/knowledge/causes/kubernetes.ts). */
export const initCauseTitle = (cause: InitCause): string => podNetworkCause(cause).title;
export const initCauseText = (cause: InitCause): string => podNetworkCause(cause).why;

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
