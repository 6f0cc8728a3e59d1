// Causes of the Kubernetes statuses that matter with Linkerd, whatever input showed them (a
// describe, events, a pod's YAML, or a line no parser read): the pod-network set-up of an
// injected pod (linkerd-init, linkerd-cni and its network validator), OOM kills, crash loops,
// probes, mounts, evictions, the admission webhook and the API server, DNS and scrapes. The
// pod-restarts rule reads its init-container causes from here (`POD_NETWORK_CAUSES`), and every
// entry of the last look (parsers/last-look.ts) names the entry it is evidence for, so the one base
// holds what a Kubernetes status means, with where each cause was established.

import { DOCS, L2_ISSUE, type Cause, type FailureKnowledge } from './types.js';

/** Facts the rules derive from a run, for `context` tells. */
export const KUBERNETES_CONTEXTS = {
  /** The failing container is a control-plane controller. */
  controller: 'controller',
  /** The failing container is a data-plane proxy. */
  proxy: 'proxy',
  /** A pod's spec shows linkerd-init dropping a capability iptables needs. */
  specDropsCapability: 'spec-drops-capability',
} as const;

const CNI = `${DOCS}features/cni/`;
const NFT = `${DOCS}features/nft/`;
const K8S_RESTARTS = 'https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#container-restarts';
const K8S_PROBES = 'https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/';
const K8S_EVICTION = 'https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/';
const POLICY = `${DOCS}reference/authorization-policy/`;
const HA = `${DOCS}features/ha/`;

/**
 * Why an injected pod's network set-up fails, one cause per way linkerd-init, the linkerd-cni
 * plugin or the network validator say it: `id` is the pod-restarts rule's `initCause`. `title` is
 * what the finding's title says, `why` what its message says the log or event means, `action` the
 * first step of its fix (`{target}`: `-n <namespace> <pod>`).
 */
export const POD_NETWORK_CAUSES: readonly Cause[] = [
  {
    id: 'capabilities',
    title: 'iptables refused, NET_ADMIN/NET_RAW missing',
    why: 'iptables was refused: the container lacks NET_ADMIN/NET_RAW (a PodSecurity or PSP policy, or a runtime that drops them)',
    action:
      'Let linkerd-init run iptables: it needs NET_ADMIN and NET_RAW. A restricted PodSecurity level or a policy engine (Kyverno, Gatekeeper) strips them; exempt the namespace, or install linkerd-cni (`--set cniEnabled=true`), which configures iptables from the node so no pod needs the capabilities.',
    tells: [{ says: 'iptables says it must be root, or the operation is not permitted', line: 'you must be root|Operation not permitted' }],
    sources: [
      { url: CNI, versions: 'all' },
      { url: `${L2_ISSUE}5505`, versions: 'all (linkerd-init runs as root with both capabilities)' },
    ],
  },
  {
    id: 'capabilities-dropped',
    title: 'its securityContext drops a capability iptables needs',
    why: "its securityContext drops a capability that iptables needs: proxy-init needs NET_ADMIN and NET_RAW, and the container runtime applies a container's drops after its adds (containerd's CRI plugin, WithCapabilities), so a dropped capability is gone even when `add` lists it",
    action:
      "Find what adds the drop: compare the pod's linkerd-init securityContext (`kubectl get pod {target} -o yaml`) with `linkerd inject` output, then list the mutating webhooks (`kubectl get mutatingwebhookconfigurations`) and the policy assignments (Azure Policy, Gatekeeper mutations, Kyverno) that drop NET_RAW or ALL; exempt linkerd-init (or the meshed namespaces) from that mutation, or remove proxyInit.capabilities.drop from Linkerd's values.",
    tells: [
      {
        says: "the pod's spec shows linkerd-init dropping NET_RAW, NET_ADMIN or ALL without privileged: true",
        context: KUBERNETES_CONTEXTS.specDropsCapability,
      },
    ],
    sources: [{ url: `${L2_ISSUE}6254`, versions: 'all (an AKS policy dropping NET_RAW)' }],
  },
  {
    id: 'iptables-mode',
    title: 'its iptables mode (legacy/nft) does not match the node',
    why: "iptables cannot use the node's packet filter: the iptables mode (legacy or nft) does not match the node kernel",
    action:
      "Match the node's iptables backend: `--set proxyInit.iptablesMode=nft` on nodes that only have nf_tables (RHEL 8+, Debian 11+, Bottlerocket), `legacy` otherwise (Linkerd 2.10+; proxy-init v2 and later choose `plain` iptables on Linkerd 2.15+).",
    tells: [{ says: 'iptables cannot fetch the rule set or find its table', line: 'Could not fetch rule set generation id|Table does not exist|nf_tables' }],
    sources: [
      { url: NFT, versions: '≥ edge-22.7.3 (the nft mode)' },
      { url: `${L2_ISSUE}9053`, versions: '2.12 (iptables-nft on Container-Optimized OS)' },
    ],
  },
  {
    id: 'cni-not-ready',
    title: 'linkerd-cni has not configured the node',
    why: "the network validator saw no redirect: linkerd-cni has not configured the node: its DaemonSet is not yet running there (a new node), a node restart left /etc/cni/net.d without linkerd-cni's configuration until the linkerd-cni pod restarts (linkerd2 #12490), or another CNI rewrote the chain without it (calico-node restarting, Cilium in exclusive mode: linkerd2 #11228, #11735)",
    action:
      'Make sure the linkerd-cni DaemonSet runs on the node and that its plugin is chained after the cluster CNI (`kubectl -n linkerd-cni logs ds/linkerd-cni`; `/etc/cni/net.d/*.conflist` on the node must list linkerd-cni); after a node restart or a restart of the cluster CNI, restart the linkerd-cni pod on that node so it writes its entry again. The validator (Linkerd 2.13+) fails the pod precisely so it is retried once the node is configured, so a pod created before that just needs a restart; the CNI repair controller (`repairController.enabled=true`) does it for you.',
    tells: [{ says: 'the network validator failed', line: 'Failed to validate networking configuration|Unable to connect to validator' }],
    sources: [
      { url: CNI, versions: '≥ 2.13 (the network validator)' },
      { url: `${L2_ISSUE}12490`, versions: '2.14' },
      { url: `${L2_ISSUE}11228`, versions: '2.13 (Calico rewrote the chain)' },
      { url: `${L2_ISSUE}11735`, versions: '2.14 (Cilium exclusive mode)' },
    ],
  },
  {
    id: 'iptables-failed',
    title: 'its iptables rules could not be applied',
    why: 'the iptables rules could not be applied',
    action:
      'Read why it fails: `kubectl logs {target} -c linkerd-init --previous`. linkerd-init needs NET_ADMIN/NET_RAW (or the CNI plugin) and an iptables mode that matches the node.',
    tells: [{ says: 'proxy-init aborted its firewall configuration', line: 'aborting firewall configuration' }],
    sources: [{ url: CNI, versions: 'all' }],
  },
  {
    id: 'cni-plugin-failed',
    title: 'the pod network could not be set up',
    why: "the linkerd-cni plugin failed while the kubelet set up the pod's network (it could not read the pod from the API server or apply its iptables rules), so the pod sandbox is not created",
    action:
      "Read the plugin's error in the event and in the linkerd-cni DaemonSet's log on that node (`kubectl -n linkerd-cni logs ds/linkerd-cni`): a kubeconfig the installer wrote with an expired token or a wrong API address (re-roll the DaemonSet), or iptables failing on the node (its iptables mode). Linkerd 2.13+ can repair such pods (linkerd-cni repair controller).",
    tells: [{ says: 'a FailedCreatePodSandBox event names the linkerd-cni plugin', line: 'plugin type="linkerd-cni"' }],
    sources: [{ url: CNI, versions: 'all' }],
  },
  {
    id: 'cni-api-unauthorized',
    title: 'the pod network could not be set up: its API token is stale (Unauthorized)',
    why: "the linkerd-cni plugin's call to the API server was refused as Unauthorized: the plugin authenticates with the service-account token the linkerd-cni installer copied into a kubeconfig on the node (ZZZ-linkerd-cni-kubeconfig) when it started, and that copy is stale once the token is rotated or expired (bound tokens expire; AKS and EKS rotate their signing keys), so every pod sandbox on the node fails",
    action:
      "Restart the linkerd-cni DaemonSet's pod on the node (`kubectl -n linkerd-cni rollout restart ds/linkerd-cni`): the installer writes a fresh token into the node's kubeconfig (/etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig) when it starts. Upgrade linkerd-cni if its installer does not refresh the token itself when it is rotated.",
    tells: [{ says: "the plugin's API call was answered Unauthorized", line: 'Unauthorized' }],
    sources: [{ url: `${L2_ISSUE}12573`, versions: '2.14 (AKS)' }],
  },
  {
    id: 'cni-api-via-proxy',
    title: 'the pod network could not be set up: an HTTP proxy answered 403 for the API server',
    why: "the linkerd-cni plugin's call to the API server got a bare 403 Forbidden, without the API server's RBAC wording (`is forbidden: User …`): something between the node and the API server answered, usually an HTTP proxy configured on the node (HTTPS_PROXY for the kubelet or the container runtime) whose NO_PROXY lacks the Kubernetes API address, so the plugin's request went through the proxy",
    action:
      "Add the Kubernetes API addresses (the `kubernetes` service IP, e.g. 10.96.0.1 or 172.20.0.1, its DNS names and the service CIDR) to NO_PROXY wherever the node sets HTTP_PROXY/HTTPS_PROXY (the kubelet's and the container runtime's environment), then restart them, so the plugin's API call does not go through the proxy.",
    tells: [{ says: 'a bare Forbidden without the API server’s RBAC wording', line: 'Forbidden' }],
    sources: [{ url: `${L2_ISSUE}11286`, versions: '2.13 (a squid proxy on the nodes)' }],
  },
  {
    id: 'cni-api-unreachable',
    title: 'the pod network could not be set up: the plugin cannot reach the Kubernetes API from the node',
    why: "the linkerd-cni plugin runs in the node's network namespace and cannot reach the Kubernetes API service IP from there (the host network does not route the service CIDR: some CNIs, flannel on OKE among them, only route it for pods), so every pod sandbox on the node fails",
    action:
      "Let the node reach the API: point linkerd-cni at an address the host network routes (the API server's own address, Helm value for the plugin's kubeconfig server), or make the cluster CNI route the service CIDR from the host; check with `curl -k https://<service IP>:443/version` from the node.",
    tells: [{ says: "the plugin's API call could not connect", line: 'cannotconnect|i/o timeout|connection refused|no route to host' }],
    sources: [{ url: `${L2_ISSUE}10413`, versions: '2.12 (flannel on OKE)' }],
  },
  {
    id: 'cni-no-result',
    title: 'the pod network could not be set up: a CNI plugin of the chain returned no result',
    why: 'a CNI plugin of the chain returned nothing to the kubelet (libcni: unexpected end of JSON input): a chained plugin that prints no result, as linkerd-cni does with a config that lacks cniVersion or runs without the previous result, so no pod sandbox can be created on the node',
    action:
      'Read the CNI config on the node (`/etc/cni/net.d/*.conflist`): every plugin of the chain needs a cniVersion and must return the previous result; a linkerd-cni entry written without cniVersion (older linkerd-cni releases) breaks the chain. Upgrade linkerd-cni and restart its DaemonSet so it rewrites the entry.',
    tells: [{ says: 'libcni read no result', line: 'unexpected end of JSON input' }],
    sources: [{ url: `${L2_ISSUE}4807`, versions: 'stable-2.8' }],
  },
];

/** The pod-network cause of an id (the pod-restarts rule's `initCause`). */
export function podNetworkCause(id: string): Cause {
  const cause = POD_NETWORK_CAUSES.find((c) => c.id === id);
  if (!cause) throw new Error(`no pod-network cause ${id}`);
  return cause;
}

/** One failure of the base: its signature, what failed, and its causes most likely first. */
const entry = (signature: string, failure: string, causes: readonly Cause[]): FailureKnowledge => ({ signature, failure, causes });

export const KUBERNETES_KNOWLEDGE: readonly FailureKnowledge[] = [
  entry(
    'kubernetes:pod-network-setup-failed',
    "An injected pod's network set-up (linkerd-init, linkerd-cni or its network validator) fails, so the pod never starts",
    POD_NETWORK_CAUSES,
  ),
  entry('kubernetes:oom-killed', 'A Linkerd container was OOMKilled', [
    {
      id: 'controller-memory-too-low',
      title: 'The {container} controller outgrew its memory limit',
      why: 'A controller holds a watch of every endpoint, pod and ServiceProfile it serves, and a stream per connected proxy; a large cluster, frequent rollouts or proxies reconnecting in a loop grow it past the chart’s limit, and its kill drops every proxy’s stream at once.',
      action:
        'Raise the controller’s memory limit (Helm `destinationResources` / `identityResources` / `proxyInjectorResources`) and run it in HA mode (`controllerReplicas: 3`).',
      tells: [{ says: 'the killed container is a controller (destination, policy, identity, proxy-injector)', context: KUBERNETES_CONTEXTS.controller }],
      sources: [
        { url: HA, versions: 'all' },
        { url: `${L2_ISSUE}10643`, versions: '2.12' },
      ],
    },
    {
      id: 'proxy-endpoint-metrics-grow',
      title: 'The proxy grew with endpoint metrics it never evicts',
      why: 'Proxies of Linkerd 2.14.x and older keep per-endpoint series of pods long gone; an ingress that balances on pod IPs itself makes them grow with every rollout until the proxy is killed.',
      action:
        'Raise `config.linkerd.io/proxy-memory-limit` for the workload now, and upgrade (stale-endpoint fixes in stable-2.14.2, the p2c balancer in 2.15).',
      tells: [{ says: 'the killed container is a proxy and its metrics hold many endpoint series', context: KUBERNETES_CONTEXTS.proxy }],
      sources: [{ url: `${L2_ISSUE}12916`, versions: '≤ 2.14.8' }],
    },
    {
      id: 'proxy-buffers-large-payloads',
      title: 'The proxy buffered payloads larger than its memory limit',
      why: 'A proxy buffers request bodies it may retry and large gRPC or HTTP messages in flight; payloads of many megabytes (a metrics pushgateway, file uploads) push it past a small limit.',
      action: 'Raise `config.linkerd.io/proxy-memory-limit` (and `proxy-memory-request`) on the pod template, then roll it out.',
      tells: [],
      sources: [{ url: `${L2_ISSUE}4899`, versions: 'stable-2.8.1' }],
    },
  ]),
  entry('kubernetes:crash-loop', 'A Linkerd container is in CrashLoopBackOff or keeps restarting', [
    {
      id: 'proxy-without-identity',
      title: 'The proxy exits at start-up: it cannot get its certificate',
      why: 'A proxy that cannot reach the identity controller, or whose trust anchor does not match the issuer, never becomes ready, and its liveness probe restarts it; the kubelet then backs off from 10 s to 5 min between attempts.',
      action: 'Read the previous log: `kubectl logs {target} -c linkerd-proxy --previous`, then `linkerd check --proxy`.',
      tells: [{ says: 'the crash-looping container is the proxy', context: KUBERNETES_CONTEXTS.proxy }],
      sources: [
        { url: K8S_RESTARTS, versions: 'all' },
        { url: `${DOCS}tasks/troubleshooting/`, versions: 'all' },
      ],
    },
    {
      id: 'controller-cannot-start',
      title: 'The {container} controller exits at start-up',
      why: 'A controller that cannot reach the Kubernetes API, is denied by RBAC, or whose local proxy refuses its policy port exits and is restarted; one killed by its liveness probe is overloaded.',
      action: 'Read the previous log: `kubectl logs {target} -c {container} --previous`, and its Last State in `kubectl describe pod {target}`.',
      tells: [{ says: 'the crash-looping container is a controller', context: KUBERNETES_CONTEXTS.controller }],
      sources: [{ url: `${L2_ISSUE}10643`, versions: '2.12' }],
    },
  ]),
  entry('kubernetes:probe-failed', "The kubelet's probes of a meshed pod keep failing", [
    {
      id: 'probe-denied-by-policy',
      title: "Linkerd's authorization policy refuses the kubelet's probe",
      why: 'A default-deny or authenticated-only inbound policy, or a Server on the port without an authorization for the probe path, makes the proxy answer 403 to the kubelet, which has no mesh identity.',
      action:
        'Authorize the probe: an AuthorizationPolicy with a NetworkAuthentication for the node CIDR, or an HTTPRoute for the probe path authorized for unauthenticated clients.',
      tells: [{ says: 'the probe got HTTP 403', line: 'statuscode: 403' }],
      sources: [
        { url: POLICY, versions: '≥ 2.11' },
        { url: `${L2_ISSUE}8608`, versions: '2.11 (GKE Dataplane V2)' },
      ],
    },
    {
      id: 'app-listens-on-localhost',
      title: 'The proxy cannot reach the application on the probe port',
      why: 'The proxy forwards the probe to the pod IP; an application listening on 127.0.0.1 only, or on another port, makes the proxy answer 502/503/504.',
      action: 'Make the application listen on 0.0.0.0 (or the pod IP) on the probed port.',
      tells: [{ says: 'the probe got a gateway error from the proxy', line: 'statuscode: 502|statuscode: 503|statuscode: 504' }],
      sources: [{ url: K8S_PROBES, versions: 'all' }],
    },
    {
      id: 'controller-overloaded',
      title: 'A Linkerd controller answers its probes after their timeout',
      why: 'Liveness probes of a controller admin port that time out mean it is serving but slow: starved of CPU or overloaded by the proxies it serves; the kubelet restarts it, which drops every stream.',
      action: 'Raise the controller’s CPU and memory (Helm `destinationResources`, `policyController.resources`) and run it in HA mode.',
      tells: [{ says: 'a controller admin port timed out', line: ':9990/|:9995/|:9996/|:9997/' }],
      sources: [
        { url: `${L2_ISSUE}12803`, versions: '2.14.5' },
        { url: HA, versions: 'all' },
      ],
    },
  ]),
  entry('kubernetes:volume-mount-failed', 'A Linkerd pod cannot mount a Secret or ConfigMap, so it stays in ContainerCreating', [
    {
      id: 'identity-issuer-secret-missing',
      title: 'The identity issuer Secret the control plane mounts does not exist',
      why: 'With an external CA (cert-manager, `identity.externalCA`), the linkerd-identity-issuer Secret is not created by the install; until the issuer writes it, identity cannot mount it and no proxy gets a certificate.',
      action:
        'Create the issuer certificate (cert-manager Certificate `linkerd-identity-issuer` in the linkerd namespace) or re-install with the issuer given, then restart identity.',
      tells: [{ says: 'the missing Secret is linkerd-identity-issuer', line: 'linkerd-identity-issuer' }],
      sources: [{ url: `${DOCS}tasks/automatically-rotating-control-plane-tls-credentials/`, versions: 'all' }],
    },
  ]),
  entry('kubernetes:pod-evicted', 'Linkerd pods were evicted by the kubelet', [
    {
      id: 'node-pressure',
      title: 'The kubelet evicted Linkerd pods under node pressure',
      why: 'Under memory or disk pressure the kubelet evicts pods by priority and usage; evicted pods stay listed as Failed and are not restarted in place, so a control plane without spare replicas loses capacity.',
      action:
        'Give the control plane a priority class and requests that match its use, run it in HA mode, and delete the Failed pods once the node is healthy.',
      tells: [],
      sources: [
        { url: K8S_EVICTION, versions: 'all' },
        { url: `${L2_ISSUE}2554`, versions: 'stable-2.2' },
      ],
    },
  ]),
  entry('kubernetes:webhook-call-failed', "The API server cannot call Linkerd's admission webhook", [
    {
      id: 'webhook-port-blocked',
      title: "The API server cannot reach the proxy-injector's webhook port",
      why: 'On managed control planes (EKS, GKE private clusters) the API server reaches webhooks through the node security group or firewall; a rule that does not allow port 8443 to the nodes times the call out.',
      action:
        'Allow the control plane to reach the nodes on port 8443 (EKS security group, GKE firewall rule), and check NetworkPolicies in the linkerd namespace.',
      tells: [{ says: 'the call timed out', line: 'context deadline exceeded|i/o timeout' }],
      sources: [{ url: `${L2_ISSUE}9672`, versions: '2.12 (EKS)' }],
    },
    {
      id: 'webhook-not-ready',
      title: 'The proxy-injector has no ready pod to answer the webhook',
      why: 'The webhook Service routes to ready injector pods only; while none is ready (crash loop, rollout, its own proxy without identity) the call is refused.',
      action: 'kubectl -n linkerd get pods,endpoints -l linkerd.io/control-plane-component=proxy-injector, then read the injector’s logs.',
      tells: [{ says: 'the call was refused', line: 'connection refused|no endpoints available' }],
      sources: [{ url: `${L2_ISSUE}6530`, versions: 'stable-2.10' }],
    },
  ]),
  entry('kubernetes:rbac-forbidden', "A Linkerd controller is denied by the API server's RBAC", [
    {
      id: 'rbac-outdated',
      title: "The controller's ClusterRole lacks a permission its version needs",
      why: 'Each release may read new resources (EndpointSlices, HTTPRoutes, ExternalWorkloads); a control plane upgraded without its RBAC (a partial apply, a Helm chart of another version) is denied and keeps retrying.',
      action: 'Re-apply the control plane of the running version (`linkerd upgrade | kubectl apply -f -`, or the Helm chart of that version).',
      tells: [],
      sources: [{ url: `${DOCS}tasks/troubleshooting/`, versions: 'all' }],
    },
  ]),
  entry('kubernetes:api-server-unreachable', 'A Linkerd controller cannot reach the Kubernetes API server', [
    {
      id: 'api-blocked-from-pod',
      title: 'The control plane cannot connect to the Kubernetes API',
      why: "Controllers watch the API through the `kubernetes` Service; a NetworkPolicy, a firewall or a proxy skipping no port for it (a meshed controller's outbound to 443/6443) makes the dial time out or be refused.",
      action:
        'Check that the API is reachable from the linkerd namespace (`kubectl get --raw /version` from a pod there); review NetworkPolicies and `config.linkerd.io/skip-outbound-ports` for 443/6443.',
      tells: [],
      sources: [{ url: `${DOCS}tasks/troubleshooting/`, versions: 'all' }],
    },
  ]),
  entry('dns:control-plane-name-unresolvable', 'A Linkerd control-plane name does not resolve', [
    {
      id: 'headless-service-without-ready-pods',
      title: 'The headless Service has no ready pods',
      why: 'The controller Services are headless: DNS publishes records only for ready pods, so a name with no ready pod behind it is NXDOMAIN / "no such host".',
      action: 'Check the Service has ready endpoints (`kubectl -n linkerd get endpoints,pods`) and make the controller ready: its logs say why it is not.',
      tells: [{ says: 'the answer is NXDOMAIN or no such host', line: 'NXDOMAIN|no such host' }],
      sources: [{ url: `${L2_ISSUE}8343`, versions: 'all' }],
    },
    {
      id: 'dns-server-failing',
      title: 'The cluster DNS fails to answer',
      why: 'SERVFAIL is the DNS server failing (its upstream or the API it reads), not a missing name.',
      action: 'Read the CoreDNS log (`kubectl -n kube-system logs -l k8s-app=kube-dns`) for the upstream or API errors behind it.',
      tells: [{ says: 'the answer is SERVFAIL', line: 'SERVFAIL' }],
      sources: [{ url: 'https://kubernetes.io/docs/tasks/administer-cluster/dns-debugging-resolution/', versions: 'all' }],
    },
  ]),
  entry('scrape:target-down', "Prometheus cannot scrape Linkerd's proxies or controllers", [
    {
      id: 'admin-port-unreachable',
      title: "Prometheus cannot reach the proxies' admin port",
      why: "Prometheus scrapes each proxy's admin port (4191); a NetworkPolicy, a default-deny policy without an authorization for Prometheus, or a proxy not running makes the target DOWN.",
      action:
        'Authorize Prometheus on the admin port (linkerd-viz ships the policy for its own Prometheus; give a bring-your-own Prometheus the same), and check NetworkPolicies.',
      tells: [{ says: 'the scrape was refused or timed out', line: 'connection refused|context deadline exceeded|i/o timeout' }],
      sources: [{ url: `${DOCS}tasks/external-prometheus/`, versions: 'all' }],
    },
  ]),
];
