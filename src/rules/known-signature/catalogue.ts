// The catalogue of known Linkerd failure signatures: data only, read by the known-signature rule,
// by `explain <signature-id>` and by the docs/signatures.md generator. Each entry quotes the real
// line(s) it was drawn from (examples), which the tests feed back through the rule.
//
// Matching: a line is a candidate for an entry when it contains one of `literals` (a plain
// substring test, also the rule's lineInterest); `pattern` (a JavaScript regex source) is then
// tested against the line text: the payload as printed for plain, legacy and CoreDNS lines, and
// `spans: target: message key=value…` rebuilt for JSON lines, so one pattern fits every format.
// Patterns must not depend on the uptime, level or thread prefix (levels are matched apart).
// Entries are tried in order and the first that matches wins, so specific entries come first.

export type SignatureFamily =
  | 'identity'
  | 'failfast'
  | 'dns'
  | 'protocol-detection'
  | 'authorization'
  | 'http2'
  | 'policy-controller'
  | 'fd-exhaustion'
  | 'control-plane'
  | 'data-plane'
  | 'profile'
  | 'configuration'
  | 'coredns'
  | 'benign';

export interface SignatureExample {
  /** The line as it was pasted (collector prefixes kept when the paste had them). */
  line: string;
  /** Where it was pasted: thread URL (and who, when known). */
  source: string;
  /** Set when the line was joined or completed from the thread; says how. */
  note?: string;
}

export interface SignatureFix {
  /** Which releases the action applies to, e.g. "all", "≤ stable-2.9", "Linkerd ≥ 2.12". */
  versions: string;
  action: string;
}

export interface KnownSignature {
  /** kebab-case, unique, stable: it is the id `explain` takes and findings carry. */
  id: string;
  title: string;
  family: SignatureFamily;
  match: {
    /** Record kinds the entry reads. */
    records: readonly ('proxy-log' | 'coredns-message')[];
    /** One of these substrings is in every matching line (case-sensitive). */
    literals: readonly string[];
    /** Regex source tested against the line text. */
    pattern: string;
    /** Levels as parsed (proxy: TRACE…ERROR; CoreDNS: INFO, WARNING, ERROR, FATAL); any when absent. */
    levels?: readonly string[];
    /** Only while the proxy has been up less than this many seconds (start-up races). */
    maxUptimeSeconds?: number;
  };
  /** What the line means, one or two sentences. */
  meaning: string;
  /** Likely causes, most likely first. */
  causes: readonly string[];
  fix: readonly SignatureFix[];
  /** Id of an entry in src/knowledge/fixes.ts whose release changes this signature. */
  knownFix?: string;
  /** Threshold rules that judge the sustained form of this signature. */
  coveredBy?: readonly string[];
  /**
   * Healthy meshes log this now and then (rollouts, probes, keep-alive races), so a full log holds
   * some and its count alone means nothing. Reported from excerpts only, where no rate can be
   * judged; in longer logs the rules in `coveredBy` judge its sustained form.
   */
  background?: true;
  /** Upstream issues and PRs. */
  references: readonly string[];
  examples: readonly SignatureExample[];
}

/**
 * The most lines an input may hold to count as an excerpt: what users paste into a thread (3-30
 * lines), where no rate can be judged. A background signature is only reported from excerpts;
 * a proxy's full log holds minutes to days of lines, and the threshold rules judge those.
 */
export const EXCERPT_MAX_LINES = 50;

const L2 = 'https://github.com/linkerd/linkerd2/issues/';
const PROXY_PR = 'https://github.com/linkerd/linkerd2-proxy/pull/';
const CD = 'https://github.com/coredns/coredns/issues/';

export const SIGNATURES: readonly KnownSignature[] = [
  // ------------------------------------------------------------------ identity and certificates
  {
    id: 'trust-anchor-mismatch',
    title: 'Peer certificate from an unknown issuer (trust anchor mismatch)',
    family: 'identity',
    match: { records: ['proxy-log'], literals: ['UnknownIssuer'], pattern: 'invalid peer certificate.*UnknownIssuer' },
    meaning: 'The proxy rejected a TLS peer because its certificate chain does not lead to the trust anchor this proxy was given. When the peer is the identity or destination controller, no meshed connection can be set up.',
    causes: [
      'The trust anchor (identityTrustAnchorsPEM / linkerd-identity-trust-roots) was rotated or reinstalled without re-injecting the workloads, so old and new proxies trust different roots.',
      'The issuer certificate (linkerd-identity-issuer) is not signed by the configured trust anchor, e.g. cert-manager issued it from another CA.',
      'Two clusters or two control planes with different roots talk to each other (multicluster without a shared anchor).',
    ],
    fix: [
      { versions: 'all', action: 'Compare the anchor in the linkerd-identity-trust-roots ConfigMap with the root of the linkerd-identity-issuer secret (`linkerd check --proxy` reports the mismatch); make the issuer chain to the anchor, then restart the control plane and roll the workloads so every proxy gets the same anchor.' },
      { versions: 'Linkerd ≥ 2.12', action: 'During a rotation, ship both the old and the new anchor in the bundle until every proxy was restarted (see the "Rotating the trust anchor" task).' },
    ],
    coveredBy: ['identity-failure'],
    references: [`${L2}11156`, `${L2}6428`, 'https://linkerd.io/2-edge/tasks/manually-rotating-control-plane-tls-credentials/'],
    examples: [
      {
        line: '[     1.785436s]  WARN ThreadId(02) identity:controller{addr=linkerd-identity-headless.linkerd.svc.cluster.local:8080}:endpoint{addr=10.129.192.22:8080}: linkerd_reconnect: Failed to connect error=endpoint 10.129.192.22:8080: invalid peer certificate contents: invalid peer certificate: UnknownIssuer error.sources=[invalid peer certificate contents: invalid peer certificate: UnknownIssuer]',
        source: `${L2}11156 (mayank-ag-dev)`,
      },
    ],
  },
  {
    id: 'identity-invalid-certificate',
    title: 'Identity controller returned a certificate the proxy refuses',
    family: 'identity',
    match: { records: ['proxy-log'], literals: ['Received invalid ceritficate', 'Received invalid certificate'], pattern: 'Received invalid cer(?:it|ti)ficate' },
    meaning: 'The identity controller signed a certificate for this proxy, but the proxy could not validate it (the proxy spells it "ceritficate" in some releases), so the proxy never becomes ready.',
    causes: [
      '`CertNotValidYet`: the node clock is behind the issuer (clock skew), or the issuer certificate was created with a start time in the future.',
      '`UnknownIssuer`: the issuer certificate does not chain to the trust anchor the proxy was injected with.',
      '`CertExpired`: the issuer certificate expired; the identity controller keeps signing with it.',
    ],
    fix: [
      { versions: 'all', action: 'Read the reason after "invalid certificate:". For clock skew, fix NTP on the nodes; for an issuer problem, reissue linkerd-identity-issuer from the trust anchor (`step certificate create identity.linkerd.cluster.local issuer.crt issuer.key --profile intermediate-ca --ca ca.crt --ca-key ca.key`) and restart linkerd-identity.' },
    ],
    coveredBy: ['identity-failure'],
    references: [`${L2}6427`, `${L2}6428`],
    examples: [
      { line: 'ERROR ThreadId(02) daemon:identity: linkerd2_proxy_identity::certify: Received invalid ceritficate: invalid certificate: CertNotValidYet', source: `${L2}6427 (tejeshwari, Linkerd 2.9.5)` },
    ],
  },
  {
    id: 'identity-request-not-dispatched',
    title: 'Identity request could not be dispatched in a timely fashion',
    family: 'identity',
    match: { records: ['proxy-log'], literals: ['dispatched in a timely'], pattern: 'could not be dispatched in a timely' },
    meaning: 'The proxy asked for its certificate but the request sat in the client queue past the dispatch timeout: no connection to the identity controller could be made, so the proxy stays unready.',
    causes: [
      'The identity controller is unreachable from the pod: NetworkPolicy, a private cluster API/webhook setup, or a CNI problem on the node.',
      'The identity controller is not running or not ready (check the linkerd-identity pod and its proxy).',
      'DNS for linkerd-identity(-headless) fails from the pod (custom cluster domain, CoreDNS down).',
    ],
    fix: [
      { versions: '≤ stable-2.9', action: 'Check `kubectl -n linkerd get pods`, then connectivity from the failing pod to linkerd-identity:8080; on private AKS/GKE clusters open the control-plane ports between node pools.' },
      { versions: '≥ stable-2.10', action: 'The message became "Failed to obtain identity … service in fail-fast"; see identity-certify-failed.' },
    ],
    coveredBy: ['identity-failure'],
    references: [`${L2}3620`, `${L2}4184`, `${L2}3388`],
    examples: [
      {
        line: 'linkerd-controller-75f98dd669-zch6q linkerd-proxy ERR! [     5.005627s] admin={bg=identity} linkerd2_proxy::app::identity Failed to certify identity: grpc-status: Unknown, grpc-message: "the request could not be dispatched in a timely fashion"',
        source: `${L2}3388 (michalschott)`,
        note: 'the excerpt stored here is cut after "timely fa"; completed with the message text quoted in the titles of #3620 and #4184',
      },
    ],
  },
  {
    id: 'identity-certify-failed',
    title: 'Proxy failed to obtain its identity certificate',
    family: 'identity',
    match: { records: ['proxy-log'], literals: ['Failed to certify identity', 'Failed to obtain identity'], pattern: 'Failed to (?:certify|obtain) identity' },
    meaning: 'The proxy could not get a certificate from the identity controller. Until it does, it is not ready, the pod fails its readiness probe and meshed traffic to and from it fails.',
    causes: [
      'The identity controller is down or unreachable ("controller linkerd-identity-headless…: service in fail-fast" in the error).',
      'The service-account token cannot be validated (projected token audience, API server unreachable from linkerd-identity).',
      'Certificate problems in the control plane (expired issuer, trust anchor mismatch).',
    ],
    fix: [
      { versions: 'all', action: 'Run `linkerd check`; look at the linkerd-identity logs for the same pod name; fix reachability from the pod to linkerd-identity-headless:8080 (NetworkPolicy, node-pool security groups).' },
      { versions: 'Linkerd ≥ 2.14 on EKS/AKS with several node groups', action: 'Allow pod-to-pod traffic on 8080/8086/8090 between node groups; the control-plane pods may live in another group.' },
    ],
    coveredBy: ['identity-failure'],
    references: [`${L2}10830`, `${L2}11400`, `${L2}3937`],
    examples: [
      {
        line: '[ 3.059351s] ERROR ThreadId(02) identity: linkerd_proxy_identity_client::certify: Failed to obtain identity error=status: Unknown, message: "controller linkerd-identity-headless.linkerd.svc.cluster.local:8080: service in fail-fast", details: [], metadata: MetadataMap { headers: {} } error.sources=[controller linkerd-identity-headless.linkerd.svc.cluster.local:8080: service in fail-fast, service in fail-fast]',
        source: `${L2}11400 (fbarrerafalabella)`,
      },
    ],
  },
  {
    id: 'identity-not-ready',
    title: 'Proxy still waiting for its identity',
    family: 'identity',
    match: { records: ['proxy-log'], literals: ['Waiting for identity to be initialized'], pattern: 'Waiting for identity to be initialized' },
    meaning: 'Printed every 15 s while the proxy has no certificate yet; the pod stays unready and is eventually restarted by its liveness probe.',
    causes: ['See identity-certify-failed: the identity controller is unreachable, not ready, or refuses the request.', 'The control plane itself is still starting (first install, node reboot).'],
    fix: [{ versions: 'all', action: 'Find the preceding "Failed to obtain identity" / "Failed to certify identity" line: its error says why; fix that.' }],
    coveredBy: ['identity-failure'],
    references: [`${L2}11400`, `${L2}11624`],
    examples: [{ line: '[ 15.003545s] WARN ThreadId(01) linkerd_app: Waiting for identity to be initialized...', source: `${L2}11400 (fbarrerafalabella)` }],
  },
  {
    id: 'tls-no-server-certificate',
    title: 'TLS handshake refused: no server certificate yet',
    family: 'identity',
    match: { records: ['proxy-log'], literals: ['server certificate chain resolved'], pattern: '(?:no\\s+|^\\s*)server certificate chain resolved' },
    meaning: 'A client opened a TLS connection to this proxy before the proxy had its own certificate, so the proxy closed it. Expected for a few seconds after start; for longer, the proxy is not getting certified.',
    causes: ['Identity is slow to issue the certificate (identity controller overloaded, slow DNS for linkerd-identity-headless).', 'Probes or scrapers reach the admin port over TLS while the proxy is starting.'],
    fix: [{ versions: 'all', action: 'If it lasts more than the first seconds, treat it as identity-certify-failed and check the identity controller and DNS from the pod.' }],
    coveredBy: ['identity-failure'],
    references: [`${L2}5662`],
    examples: [
      {
        line: '[     4.391229s]  INFO ThreadId(02) daemon:admin{listen.addr=0.0.0.0:4191}:accept{peer.addr=10.44.2.101:38814 target.addr=10.44.5.98:4191}: linkerd2_app_core::serve: Connection closed error=unexpected error: no server certificate chain resolved',
        source: `${L2}5662 (RajKuni, Linkerd 2.9.2)`,
        note: 'the terminal wrapped this line after "no "; joined',
      },
    ],
  },
  {
    id: 'tls-access-denied',
    title: 'Proxy sent TLS alert AccessDenied',
    family: 'identity',
    match: { records: ['proxy-log'], literals: ['Sending fatal alert AccessDenied'], pattern: 'Sending fatal alert AccessDenied' },
    meaning: 'The proxy aborted an incoming TLS handshake because it cannot serve it, usually because it has no certificate of its own yet.',
    causes: ['The proxy has not been certified yet (see tls-no-server-certificate and identity-certify-failed).', 'The client asked for a server name this proxy does not serve (wrong SNI after pod IP reuse).'],
    fix: [{ versions: 'all', action: 'Look at the identity lines of the same pod; if identity is fine, check which client connects (peer.addr) and whether it targets a stale pod IP.' }],
    coveredBy: ['identity-failure'],
    references: [`${L2}5662`, `${L2}5932`, `${L2}9812`],
    examples: [{ line: '[    23.609332s]  WARN ThreadId(01) server{port=9995}: rustls::session: Sending fatal alert AccessDenied    ', source: `${L2}5932 (cortopy)` }],
  },
  {
    id: 'tls-bad-certificate',
    title: 'Proxy sent TLS alert BadCertificate',
    family: 'identity',
    match: { records: ['proxy-log'], literals: ['Sending fatal alert BadCertificate'], pattern: 'Sending fatal alert BadCertificate' },
    meaning: 'The proxy rejected the certificate a TLS peer presented. Next to identity or destination connections it means the control plane certificates do not validate.',
    causes: ['Trust anchor mismatch between this proxy and the peer (see trust-anchor-mismatch).', 'Expired or not-yet-valid issuer or peer certificate (clock skew).'],
    fix: [{ versions: 'all', action: 'Run `linkerd check --proxy`; compare trust roots and issuer validity; re-inject workloads after a rotation.' }],
    coveredBy: ['identity-failure'],
    references: [`${L2}11156`, `${L2}6427`, `${L2}7955`],
    examples: [
      {
        line: '[     2.287294s]  WARN ThreadId(02) identity:controller{addr=linkerd-identity-headless.linkerd.svc.cluster.local:8080}:endpoint{addr=10.129.192.22:8080}: rustls::conn: Sending fatal alert BadCertificate',
        source: `${L2}11156 (mayank-ag-dev)`,
      },
    ],
  },

  // ------------------------------------------------------------------ profiles (before HTTP/2: its errors quote h2 texts)
  {
    id: 'profile-fetch-failed',
    title: 'Could not fetch the ServiceProfile',
    family: 'profile',
    match: { records: ['proxy-log'], literals: ['Could not fetch profile', 'Error resolving ServiceProfile'], pattern: 'Could not fetch profile|Error resolving ServiceProfile' },
    meaning: 'The destination controller did not return a profile for a target, so the proxy routes without per-route policy (and, for old releases, may delay requests until the lookup times out).',
    causes: ['The destination controller was restarting or unreachable (often during an upgrade).', 'A control-plane extension the profile depends on (viz) was being reinstalled.', 'Proxy and control plane versions differ by more than one release.'],
    fix: [
      { versions: 'all', action: 'If it stops after the upgrade finishes, it was transient. If not, check the destination controller logs and `linkerd check --proxy` for version skew; restart workloads injected by an older release.' },
    ],
    coveredBy: ['control-plane-unavailable'],
    references: [`${L2}5881`],
    examples: [
      {
        line: '{"timestamp":"[   125.266342s]","level":"WARN","fields":{"message":"Could not fetch profile","error":"status: Unknown, message: \\"http2 error: protocol error: unexpected internal error encountered\\", details: [], metadata: MetadataMap { headers: {} }"},"target":"linkerd_service_profiles::client","threadId":"ThreadId(1)"}',
        source: `${L2}5881`,
      },
    ],
  },

  // ------------------------------------------------------------------ failfast and load shedding
  {
    id: 'control-plane-failfast',
    title: 'Control-plane client in failfast',
    family: 'control-plane',
    match: { records: ['proxy-log'], literals: ['entering failfast'], pattern: 'controller\\{addr=[^}]*\\}.*entering failfast' },
    meaning: 'The proxy has had no usable connection to a control-plane component (destination, policy or identity) for the failfast timeout, so lookups to it now fail at once.',
    causes: ['The controller pods are down, restarting or overloaded.', 'The connection is refused or times out (see the reconnect lines of the same controller address).', 'On a control-plane pod: the local controller container has not started yet.'],
    fix: [
      { versions: 'all', action: 'Check the controller named in the span (`controller{addr=…}`): pods, readiness, restarts, logs. Restart the destination deployment if it stays in failfast after the pods are healthy.' },
      { versions: '< edge-24.5.3 (Linkerd < 2.16)', action: 'Many proxies watching many services could exhaust the destination controller\'s stream limit; upgrade (linkerd2 #12598) or scale the destination controller.' },
    ],
    knownFix: 'destination-stream-limit',
    coveredBy: ['control-plane-unavailable'],
    references: [`${L2}11279`, `${L2}11156`, 'https://github.com/linkerd/linkerd2/pull/12598'],
    examples: [
      { line: '[950833.887787s]  WARN ThreadId(01) inbound:server{port=8086}:controller{addr=localhost:8086}: linkerd_stack::failfast: Service entering failfast after 1s', source: `${L2}11279` },
      { line: '[950842.896953s]  WARN ThreadId(01) watch{port=8086}:controller{addr=localhost:8090}: linkerd_stack::failfast: Service entering failfast after 10s', source: `${L2}11279` },
    ],
  },
  {
    id: 'balancer-failfast',
    title: 'Service balancer entered failfast (no ready endpoints)',
    family: 'failfast',
    background: true,
    match: { records: ['proxy-log'], literals: ['Unavailable; entering failfast'], pattern: 'Unavailable; entering failfast' },
    meaning: 'The load balancer for a service had no available endpoint for the failfast timeout (3 s): queued requests fail with 503/504 until an endpoint becomes available ("Available; exited failfast").',
    causes: ['The service has no ready endpoints (scaled to zero, failing readiness, all pods restarting).', 'Every endpoint is unreachable or circuit-broken (connection refused/timeouts to the pods).', 'The destination controller sent no endpoints (control plane unavailable, or "No endpoints").'],
    fix: [{ versions: 'Linkerd ≥ 2.15 (proxy ≥ v2.215)', action: 'Check the service named in `service{ns=… name=… port=…}`: `kubectl get endpoints`, pod readiness, and the proxy\'s reconnect lines for its endpoints.' }],
    coveredBy: ['failfast'],
    references: [`${L2}12720`, `${L2}11493`, `${PROXY_PR}2559`],
    examples: [
      {
        line: '[ 73137.020135s]  INFO ThreadId(01) outbound:proxy{addr=10.0.3.18:80}:service{ns=imodeljs name=svc-7ed19bdd30302ada2f8bab1286f9096fe1ee48b7 port=80}: linkerd_proxy_balance_queue::worker: Unavailable; entering failfast timeout=3.0',
        source: `${L2}12720 (andrewdinunzio)`,
      },
    ],
  },
  {
    id: 'stack-failfast',
    title: 'Service entered failfast',
    family: 'failfast',
    match: { records: ['proxy-log'], literals: ['entering failfast'], pattern: 'entering failfast after' },
    meaning: 'A proxy service (logical service, balancer, or the inbound server) could not process requests for the failfast timeout; requests now fail fast with 503 until it recovers.',
    causes: ['The target has no ready endpoints or they do not answer (overload, long GC, startup not finished).', 'On the inbound side: the application in this pod does not accept connections or is saturated.', 'The application limits concurrent HTTP/2 streams (e.g. 100) below the load the proxy multiplexes onto it.'],
    fix: [
      { versions: '≤ stable-2.10 (linkerd_timeout::failfast)', action: 'Look for the cause on the target pods (readiness, saturation); upgrading removes several spurious failfast cases fixed in 2.10/2.11.' },
      { versions: 'stable-2.11–2.14 (linkerd_stack::failfast)', action: 'Check endpoints and target pod health; raise the application\'s max concurrent streams if it is a gRPC server with a low limit.' },
    ],
    coveredBy: ['failfast'],
    references: [`${L2}5599`, `${L2}5541`, `${L2}8934`],
    examples: [
      { line: 'WARN ThreadId(01) inbound:accept{peer.addr=10.37.125.7:40084 target.addr=10.36.216.4:50053}: linkerd_timeout::failfast: HTTP Logical entering failfast after 1s', source: `${L2}5599 (hadican)` },
      { line: '[    53.360779s]  WARN ThreadId(01) outbound:accept{client.addr=10.36.31.175:43900 target.addr=10.36.30.70:8080}: linkerd_timeout::failfast: HTTP Server entering failfast after 3s', source: `${L2}5541 (joewilliams)` },
    ],
  },
  {
    id: 'request-failed-fail-fast',
    title: 'Requests rejected: service in fail-fast',
    family: 'failfast',
    match: { records: ['proxy-log'], literals: ['Failed to proxy request'], pattern: '[Ss]ervice in fail-fast' },
    meaning: 'A request (or connection) was answered with 503/504 because the service it targets is in failfast; one line per request, so counts follow traffic. Read from the per-request lines of proxies before 2.11; on later proxies the per-request lines (`HTTP/1.1 request failed … service in fail-fast`) repeat the "entering failfast" line of the same service once per request and are left to it (balancer-failfast, stack-failfast), since reading every request line of a storm costs more than it tells.',
    causes: ['See balancer-failfast / stack-failfast for the same service: no ready or reachable endpoints.', 'During a Linkerd upgrade: proxies briefly lose their destination controller.'],
    fix: [{ versions: 'all', action: 'Find the matching "entering failfast" line for the service (span `service{…}` / `logical service <addr>`) and fix its endpoints.' }],
    coveredBy: ['failfast'],
    references: [`${L2}14020`, `${L2}5599`, `${L2}6200`],
    examples: [
      { line: 'WARN ThreadId(01) inbound:accept{peer.addr=10.37.126.8:46412 target.addr=10.36.216.4:50053}: linkerd_app_core::errors: Failed to proxy request: HTTP Logical service in fail-fast', source: `${L2}5599 (hadican)` },
      {
        line: '2021-04-22T17:49:52.864787073Z {"timestamp":"[  1443.529894s]","level":"WARN","fields":{"message":"Failed to proxy request: Service in fail-fast"},"target":"linkerd2_app_core::errors","span":{"peer.addr":"172.21.2.157:53414","target.addr":"172.17.140.223:80","name":"accept"},"spans":[{"name":"outbound"},{"peer.addr":"172.21.2.157:53414","target.addr":"172.17.140.223:80","name":"accept"}],"threadId":"ThreadId(1)"}',
        source: `${L2}6053 (Abrishges)`,
      },
    ],
  },
  {
    id: 'dispatch-deadline-reached',
    title: 'Request aborted at the dispatch deadline',
    family: 'failfast',
    match: { records: ['proxy-log'], literals: ['dispatch deadline'], pattern: 'reached the configured dispatch deadline' },
    meaning: 'A request waited in the proxy\'s queue for a ready service longer than the dispatch deadline and was failed; in the 2.4 era all meshed deployments could hit this at once when discovery stalled.',
    causes: ['No ready endpoint for the target (discovery returned nothing or the endpoints do not answer).', 'The destination controller stopped sending updates (control-plane trouble under container churn).'],
    fix: [{ versions: '≤ stable-2.4', action: 'Check the destination controller and the target\'s endpoints; upgrade, later proxies replaced the dispatch deadline with failfast and load shedding.' }],
    coveredBy: ['failfast'],
    references: [`${L2}3112`],
    examples: [
      { line: 'proxy={server=out listen=127.0.0.1:4140 remote=10.10.45.84:41846} linkerd2_proxy::app::errors request aborted because it reached the configured dispatch deadline', source: `${L2}3112 (bjoernhaeuser, Linkerd 2.4.0)` },
    ],
  },
  {
    id: 'router-capacity-reached',
    title: 'Proxy router at capacity',
    family: 'failfast',
    match: { records: ['proxy-log'], literals: ['router capacity reached'], pattern: 'router capacity reached' },
    meaning: 'The proxy refused a request because its router already held the maximum number of distinct targets (100 by default in the 2.x releases of that era).',
    causes: ['Clients address many distinct authorities/hosts (e.g. one Host header per tenant or per pod IP).', 'Port scanners or health checkers hitting many target ports.'],
    fix: [
      { versions: '≤ stable-2.7', action: 'Raise LINKERD2_PROXY_INBOUND_ROUTER_CAPACITY / OUTBOUND_ROUTER_CAPACITY, or reduce the number of distinct targets; later releases removed the fixed router capacity.' },
      { versions: '≥ stable-2.8', action: 'Upgrade: the router cache no longer has this fixed limit.' },
    ],
    references: [`${L2}4048`],
    examples: [
      { line: 'inbound:accept{peer.addr=x.x.x.x:63058}:source{peer.id=None(NoPeerName(NotProvidedByRemote)) target.addr=x.x.x.x:8084}: linkerd2_app_core::errors: Failed to proxy request: router capacity reached (100)', source: `${L2}4048` },
    ],
  },

  // ------------------------------------------------------------------ DNS
  {
    id: 'control-plane-dns-failed',
    title: 'Control-plane name does not resolve',
    family: 'dns',
    match: { records: ['proxy-log'], literals: ['Failed to resolve control-plane component'], pattern: 'Failed to resolve control-plane component' },
    meaning: 'The proxy could not resolve the DNS name of a control-plane component (linkerd-identity-headless, linkerd-dst-headless, linkerd-policy); without it the proxy cannot get a certificate or discover services.',
    causes: ['CoreDNS is down, overloaded or unreachable from the pod.', 'The cluster domain is not cluster.local and the control plane was installed without --cluster-domain.', 'The control plane is not installed in the namespace the proxy expects, or its headless services have no ready endpoints ("no record found … SRV").'],
    fix: [{ versions: 'all', action: 'From the pod, `dig SRV linkerd-identity-headless.linkerd.svc.cluster.local`; fix CoreDNS or the cluster domain (`clusterDomain` Helm value); check that the linkerd pods are ready.' }],
    coveredBy: ['dns-resolution-failure'],
    references: [`${L2}5932`, `${L2}8343`, `${L2}11624`],
    examples: [
      {
        line: '[    25.008354s]  WARN ThreadId(01) daemon:identity: linkerd_app_core::control: Failed to resolve control-plane component error=no record found for name: linkerd-identity-headless.linkerd.svc.cluster.local. type: SRV class: IN',
        source: `${L2}5932 (cortopy)`,
      },
    ],
  },
  {
    id: 'dns-refinement-timeout',
    title: 'DNS refinement timed out',
    family: 'dns',
    match: { records: ['proxy-log'], literals: ['DNS refinement timed out'], pattern: 'DNS refinement timed out' },
    meaning: 'The proxy tried to canonicalize a destination name through DNS and got no answer within its deadline; it carried on with the name as given, after a delay on the request.',
    causes: ['Slow or failing upstream DNS for external names.', 'CoreDNS overloaded (search-path expansion multiplies queries).'],
    fix: [{ versions: '≤ stable-2.8', action: 'Fix DNS latency; upgrading removes canonicalization (later proxies resolve through the destination controller only).' }],
    coveredBy: ['dns-resolution-failure'],
    references: [`${L2}4905`],
    examples: [
      { line: 'INFO outbound:accept{peer.addr=10.240.2.xxx:xxxxx}:source{target.addr=10.240.5.xxx:80}:logical{addr=ppe.testhost.xxxx.com:80}: linkerd2_proxy_http::canonicalize: DNS refinement timed out', source: `${L2}4905` },
    ],
  },
  {
    id: 'dns-canonicalize-deadline',
    title: 'Failed to refine a name: DNS deadline elapsed',
    family: 'dns',
    match: { records: ['proxy-log'], literals: ['failed to refine'], pattern: 'failed to refine \\S+: deadline has elapsed' },
    meaning: 'The legacy proxy could not canonicalize a destination name through DNS before its deadline; each such request was delayed by the timeout.',
    causes: ['Slow upstream DNS (e.g. Consul or corporate resolvers behind CoreDNS forward).', 'Names outside the cluster sent through search-path expansion.'],
    fix: [{ versions: '≤ stable-2.2', action: 'Speed up or fix the upstream resolver; upgrading removed this code path.' }],
    coveredBy: ['dns-resolution-failure'],
    references: [`${L2}2069`],
    examples: [{ line: 'ERR! linkerd2_proxy::proxy::canonicalize failed to refine catalyst.elasticsearch.service.azure-west-us.consul: deadline has elapsed', source: `${L2}2069` }],
  },
  {
    id: 'destination-not-a-service',
    title: 'Destination lookup for a name that is not a service',
    family: 'dns',
    match: { records: ['proxy-log'], literals: ['not a service'], pattern: 'not a service: \\S+' },
    meaning: 'The destination controller was asked about a name that is not a Kubernetes service, typically a name doubled by the search path (`…svc.cluster.local.linkerd.svc.cluster.local`).',
    causes: ['CoreDNS autopath (or a client) expanding an already fully-qualified name through the search path.', 'Applications calling a name with a trailing namespace/domain mistake.'],
    fix: [{ versions: 'all', action: 'Use fully qualified names with a trailing dot, or disable autopath in the Corefile; the lookups are harmless but noisy.' }],
    references: [`${L2}2800`],
    examples: [
      {
        line: 'WARN [  1355.573770s] admin={bg=resolver} linkerd2_proxy::control::destination::background::destination_set Destination.Get stream errored for NameAddr { name: "linkerd-prometheus.linkerd.svc.cluster.local.linkerd.svc.cluster.local.", port: 9090 }: Status { code: Unknown, message: "resolver [&{k8sDNSZoneLabels:[] endpointsWatcher:0xc000728c60 profileWatcher:0xc000751350}] found error resolving host [linkerd-prometheus.linkerd.svc.cluster.local.linkerd.svc.cluster.local] port [9090]: not a service: linkerd-prometheus.linkerd.svc.cluster.local.linkerd.svc.cluster.local" }',
        source: `${L2}2800`,
      },
    ],
  },

  // ------------------------------------------------------------------ protocol detection
  {
    id: 'protocol-detection-timeout',
    title: 'Protocol detection timed out',
    family: 'protocol-detection',
    match: { records: ['proxy-log'], literals: ['protocol detection timed out'], pattern: 'protocol detection timed out after' },
    meaning: 'The client sent nothing within the detection timeout (10 s), so the proxy could not tell whether the connection is HTTP and forwarded it as opaque TCP after the delay. Server-speaks-first protocols (SMTP 25, MySQL 3306, NATS 4222, memcached 11211…) hit this on every connection.',
    causes: ['A server-speaks-first protocol on a port that is not marked opaque or skipped.', 'Idle clients that open a connection and wait before sending.'],
    fix: [
      { versions: 'Linkerd ≥ 2.10', action: 'Annotate the port with `config.linkerd.io/opaque-ports` (on the Service and the workload) or skip it (`config.linkerd.io/skip-outbound-ports`); the default opaque list covers 25, 587, 3306, 4444, 5432, 6379, 9300, 11211.' },
      { versions: '≤ stable-2.9', action: 'Use `config.linkerd.io/skip-inbound-ports` / `skip-outbound-ports`.' },
    ],
    coveredBy: ['protocol-detection-timeout'],
    references: [`${L2}12505`, `${L2}13364`, 'https://linkerd.io/2-edge/features/protocol-detection/'],
    examples: [
      {
        line: '{"timestamp":"[ 10132.943961s]","level":"INFO","fields":{"message":"Continuing after timeout: linkerd_proxy_http::version::Version protocol detection timed out after 10s"},"target":"linkerd_detect","spans":[{"name":"outbound"},{"addr":"10.163.70.5:9000","name":"proxy"}],"threadId":"ThreadId(2)"}',
        source: `${L2}12505`,
      },
    ],
  },
  {
    id: 'tls-detection-timeout',
    title: 'TLS detection timed out',
    family: 'protocol-detection',
    background: true,
    match: { records: ['proxy-log'], literals: ['TLS detection time'], pattern: 'TLS detection time(?:d out|out)' },
    meaning: 'An inbound connection sent no bytes before the detection timeout, so the proxy closed it. Usually a TCP health check or a load balancer probe that connects and waits.',
    causes: ['Load-balancer or kubelet TCP probes that open and hold connections.', 'Server-speaks-first clients on an inbound port that is not opaque/skipped.'],
    fix: [{ versions: 'all', action: 'Harmless for probes; for real clients mark the port opaque or skip it (`config.linkerd.io/skip-inbound-ports`).' }],
    coveredBy: ['protocol-detection-timeout'],
    references: [`${L2}6058`, `${L2}6200`, `${L2}6146`],
    examples: [
      { line: 'linkerd-destination-57df7f4bc-tvnq2 linkerd-proxy [    60.727567s]  INFO ThreadId(01) linkerd_app_core::serve: Connection closed error=TLS detection timed out', source: `${L2}6200 (davi5e)` },
      { line: 'Apr 27, 2021 @ 10:25:52.507[ 16767.292578s]  INFO ThreadId(01) inbound:accept{client.addr=10.244.78.84:46080 target.addr=10.244.42.122:80}: linkerd_app_core::serve: Connection closed error=TLS detection timeout', source: `${L2}6058 (mateiidavid quoting prasus)` },
    ],
  },

  // ------------------------------------------------------------------ authorization
  {
    id: 'unauthorized-connection',
    title: 'Connection refused by server authorization policy',
    family: 'authorization',
    match: { records: ['proxy-log'], literals: ['unauthorized connection on server'], pattern: 'unauthorized connection on server' },
    meaning: 'The inbound proxy denied a request or connection because no authorization allows the client on this Server; clients get 403 (HTTP) or a closed connection.',
    causes: ['A Server without a matching ServerAuthorization/AuthorizationPolicy for this client (e.g. unmeshed callers, node-local probes from 169.254.x.x).', 'A default policy of deny/cluster-authenticated and a client outside the mesh.'],
    fix: [
      { versions: 'Linkerd ≥ 2.11', action: 'Check `linkerd viz authz -n <ns> deploy/<name>`; add an authorization for the client (or a NetworkAuthentication for probe addresses), or relax the default policy.' },
    ],
    coveredBy: ['authorization-denied'],
    references: [`${L2}8608`, `${L2}8613`],
    examples: [
      { line: '[    54.614678s]  INFO ThreadId(01) inbound:server{port=55678}:rescue{client.addr=169.254.42.1:52388}: linkerd_app_core::errors::respond: Request failed error=unauthorized connection on server collector-opencensus', source: `${L2}8608` },
    ],
  },
  {
    id: 'unauthorized-route',
    title: 'Request refused by route authorization policy',
    family: 'authorization',
    match: { records: ['proxy-log'], literals: ['unauthorized request on route'], pattern: 'unauthorized request on route' },
    meaning: 'The inbound proxy answered 403 because the matched route (HTTPRoute or the default route of a Server) has no authorization for the client.',
    causes: ['Route-level AuthorizationPolicy missing for this client.', 'Scrapers or probes reaching the admin port (4191) of a pod whose policy does not allow them.'],
    fix: [{ versions: 'Linkerd ≥ 2.12', action: 'Add an AuthorizationPolicy targeting the route (or the Server) for the client identity or network.' }],
    coveredBy: ['authorization-denied'],
    references: [`${L2}13013`],
    examples: [
      { line: '[  1289.245771s]  INFO ThreadId(02) daemon:admin{listen.addr=0.0.0.0:4191}:rescue{client.addr=10.0.3.252:52222}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=unauthorized request on route', source: `${L2}13013 (florian-besser)` },
    ],
  },
  {
    id: 'http-request-denied',
    title: 'HTTP request denied by policy',
    family: 'authorization',
    match: { records: ['proxy-log'], literals: ['Request denied'], pattern: 'policy(?:::\\w+)*: Request denied' },
    meaning: 'The inbound policy layer denied an HTTP request; the line names the server (and route) and the client, so it tells who was refused where.',
    causes: ['A client without an authorization on this server/route (unmeshed, other identity, probe IP).', 'A policy change that removed the authorization (look for "Connection terminated due to policy change").'],
    fix: [{ versions: 'Linkerd ≥ 2.11', action: 'Authorize the client named in `client.ip`/`client.tls` on `server.name` (and `route.name`), or fix the client to use mTLS.' }],
    coveredBy: ['authorization-denied'],
    references: [`${L2}13013`, `${L2}8613`, `${PROXY_PR}1252`],
    examples: [
      {
        line: '[  1289.245238s]  INFO ThreadId(02) daemon:admin{listen.addr=0.0.0.0:4191}: linkerd_app_inbound::policy::http: Request denied server.group=policy.linkerd.io server.kind=server server.name=ops-rapid-testing-onboarding-linkerd route.group= route.kind=default route.name=default client.tls=None(NoClientHello) client.ip=10.0.3.252',
        source: `${L2}13013 (florian-besser)`,
      },
      { line: '[ 623.878567s] INFO ThreadId(01) inbound:server{port=8085}: linkerd_app_inbound::policy::authorize::http: Request denied server=metrics-api tls=None(NoClientHello) client=192.168.1.253:39024', source: `${L2}8613 (Diki-afk)` },
    ],
  },
  {
    id: 'tcp-connection-denied',
    title: 'TCP connection denied by policy',
    family: 'authorization',
    match: { records: ['proxy-log'], literals: ['Connection denied'], pattern: 'policy(?:::\\w+)*: Connection denied' },
    meaning: 'The inbound policy layer refused a connection before any request: the client is not authorized on this server at all.',
    causes: ['No authorization for the client identity on the Server (e.g. a viz component scraping a Prometheus server).', 'Identity-based authorization while the client connects without mTLS.'],
    fix: [{ versions: 'Linkerd ≥ 2.11', action: 'Authorize the identity in `tls=Some(Established { client_id … })` on `server.name`, or re-install the extension whose policies are missing (e.g. `linkerd viz allow-scrapes`).' }],
    coveredBy: ['authorization-denied'],
    references: ['https://github.com/linkerd/linkerd2/pull/9286'],
    examples: [
      {
        line: '[1892678.776921s]  INFO ThreadId(01) inbound:server{port=9090}: linkerd_app_inbound::policy::tcp: Connection denied server.group=policy.linkerd.io server.kind=server server.name=prometheus-admin tls=Some(Established { client_id: Some(ClientId(Name("metrics-api.linkerd-viz.serviceaccount.identity.linkerd.cluster.local"))), negotiated_protocol: None }) client=10.2.76.70:52118',
        source: 'https://github.com/linkerd/linkerd2/pull/9286 (omidraha)',
      },
    ],
  },

  // ------------------------------------------------------------------ HTTP/2
  {
    id: 'h2-connection-header-illegal',
    title: 'HTTP/2 request with a Connection header',
    family: 'http2',
    match: { records: ['proxy-log'], literals: ['Connection header illegal in HTTP/2'], pattern: 'Connection header illegal in HTTP/2' },
    meaning: 'A request carried a connection-specific header (Connection, Keep-Alive, Upgrade…) that HTTP/2 forbids; hyper rejects it, so the request fails between proxies.',
    causes: ['An HTTP/1.1 client or library adds `Connection: keep-alive`/`close`, which the proxy must translate when upgrading to HTTP/2 between proxies.', 'A gateway forwarding hop-by-hop headers.'],
    fix: [{ versions: 'all', action: 'Stop the client from sending hop-by-hop headers, or upgrade: later proxies strip them when translating HTTP/1 to HTTP/2 (see the thread).' }],
    references: [`${L2}10090`],
    examples: [{ line: 'inbound:server{port=<port>}: hyper::proto::h2: Connection header illegal in HTTP/2: connection', source: `${L2}10090` }],
  },
  {
    id: 'h2-frame-invalid-size',
    title: 'HTTP/2 frame with invalid size',
    family: 'http2',
    match: { records: ['proxy-log'], literals: ['frame with invalid size'], pattern: 'frame with invalid siz' },
    meaning: 'A peer sent an HTTP/2 frame larger than the negotiated maximum (or malformed), so the connection was torn down with a protocol error.',
    causes: ['A non-conforming HTTP/2 implementation in the peer (the thread: a Gloo/Envoy build).', 'A plaintext/TLS mix-up on the port.'],
    fix: [{ versions: 'all', action: 'Fix or upgrade the peer that sends the frames; as a workaround mark the port opaque so the proxy does not parse HTTP/2 on it.' }],
    references: [`${L2}4168`],
    examples: [
      {
        line: '2020-03-12T21:46:26.722947397Z [ 43748.439862226s]  WARN inbound:accept{peer.addr=10.47.48.228:35118}:source{peer.id=None(NoPeerName(NotProvidedByRemote)) target. addr=10.47.23.226:9222}: linkerd2_app_core::errors: Failed to proxy request: http2 error: protocol error: frame with invalid size       ',
        source: `${L2}4168`,
      },
    ],
  },
  {
    id: 'h2-unspecific-protocol-error',
    title: 'HTTP/2 unspecific protocol error',
    family: 'http2',
    match: { records: ['proxy-log'], literals: ['unspecific protocol error detected'], pattern: 'unspecific protocol error detected' },
    meaning: 'An HTTP/2 connection failed with PROTOCOL_ERROR without more detail; the request in flight fails (often with 502).',
    causes: ['The peer violated HTTP/2 (bad stream state, headers after end of stream).', 'A connection torn down by the peer or an intermediate while streams were open.'],
    fix: [{ versions: '≤ stable-2.5', action: 'Upgrade: several h2 protocol-error cases of that era were fixed in the proxy; otherwise capture debug logs of both proxies and report upstream.' }],
    references: [`${L2}2918`, `${L2}2682`],
    examples: [
      { line: 'ERR! [   388.710816s] proxy={server=in listen=0.0.0.0:4143 remote=10.24.23.122:35662} linkerd2_proxy::app::errors unexpected error: http2 error: protocol error: unspecific protocol error detected', source: `${L2}2918` },
      { line: 'DBUG [   388.710739s] proxy={client=in dst=10.24.26.128:9090 proto=Http2} linkerd2_proxy::proxy::http::h2 http2 conn error: http2 error: protocol error: unspecific protocol error detected', source: `${L2}2918` },
    ],
  },
  {
    id: 'h2-internal-error',
    title: 'HTTP/2 stream reset with INTERNAL_ERROR',
    family: 'http2',
    match: { records: ['proxy-log'], literals: ['unexpected internal error encountered'], pattern: 'unexpected internal error encountered' },
    meaning: 'The peer reset the stream with INTERNAL_ERROR; the proxy turns it into a 500 (HTTP) or an error status (gRPC).',
    causes: ['The application (or its HTTP/2 library) reset the stream, e.g. on large messages or trailers it cannot handle.', 'A proxy bug forwarding trailers of large gRPC messages (linkerd2 #15199).'],
    fix: [{ versions: 'all', action: 'Reproduce without the mesh on the same port; if only meshed traffic fails, report upstream with debug logs of both proxies (see #15199 for the trailer case).' }],
    references: [`${L2}15199`, 'https://github.com/linkerd/linkerd2-proxy/pull/18'],
    examples: [
      { line: 'ERR! proxy={server=in listen=0.0.0.0:4143 remote=127.0.0.1:57416} linkerd2_proxy turning Error caused by underlying HTTP/2 error: protocol error: unexpected internal error encountered into 500', source: 'https://github.com/linkerd/linkerd2-proxy/pull/18' },
      {
        line: '[   158.165469s]  INFO ThreadId(01) inbound:server{port=4143}:rescue{client.addr=10.4.26.79:49978}: linkerd_app_core::errors::respond: gRPC request failed error=http2 error error.sources=[stream error received: unexpected internal error encountered]',
        source: `${L2}15199`,
      },
    ],
  },

  // ------------------------------------------------------------------ policy controller and its Kubernetes watches
  {
    id: 'kube-api-tls-verify-failed',
    title: 'Controller cannot verify the Kubernetes API certificate',
    family: 'policy-controller',
    match: { records: ['proxy-log'], literals: ['certificate verify failed'], pattern: 'certificate verify failed' },
    meaning: 'The policy controller (a Rust kube client) could not verify the API server\'s TLS certificate, so its watches never start and the destination pod fails.',
    causes: ['A proxy in front of the API server (or a cert-manager/CA bundle setup) presenting a chain the service-account CA does not cover.', 'The projected service-account CA bundle mounted in the pod does not match the API server.'],
    fix: [{ versions: 'all', action: 'Check the API server certificate chain against /var/run/secrets/kubernetes.io/serviceaccount/ca.crt in the pod; remove the intercepting proxy or fix the CA bundle.' }],
    coveredBy: ['control-plane-unavailable'],
    references: [`${L2}10697`, `${L2}10994`],
    examples: [
      {
        line: '2023-04-06T00:47:10.527667Z ERROR servers: kube_client::client::builder: failed with error error trying to connect: error:1416F086:SSL routines:tls_process_server_certificate:certificate verify failed:../ssl/statem/statem_clnt.c:1914: (unable to get local issuer certificate)',
        source: `${L2}10697 (GeroL)`,
      },
    ],
  },
  {
    id: 'policy-watch-failed',
    title: 'Policy controller watch stream failed',
    family: 'policy-controller',
    match: { records: ['proxy-log'], literals: ['watch stream failed'], pattern: 'watch stream failed' },
    meaning: 'A Kubernetes watch of the policy controller broke (connection reset, timeout) and is restarted; while it is down the controller does not see policy changes.',
    causes: ['API server restarts, load-balancer idle timeouts or network resets between the controller and the API server.', 'API server overload.'],
    fix: [{ versions: 'stable-2.11', action: 'Occasional restarts are harmless; frequent ones point at the network path to the API server. Later releases use kubert with backoff and log "stream failed" instead.' }],
    references: [`${L2}8343`],
    examples: [
      {
        line: '2022-04-26T18:59:50.571586Z  INFO serverauthorizations: linkerd_policy_controller_k8s_api::watch: Failed error=watch stream failed: Error reading events stream: error reading a body from connection: error reading a body from connection: Connection reset by peer (os error 104)',
        source: `${L2}8343 (prydeep)`,
      },
    ],
  },
  {
    id: 'policy-watch-restarting',
    title: 'Policy controller restarting a watch',
    family: 'policy-controller',
    match: { records: ['proxy-log'], literals: ['Restarting'], pattern: 'k8s_api::watch: Restarting' },
    meaning: 'The policy controller restarts a Kubernetes watch after it failed; it follows a "watch stream failed" line.',
    causes: ['See policy-watch-failed.'],
    fix: [{ versions: 'stable-2.11', action: 'Count these against time: one every few minutes is normal churn, a tight loop means the API server is unreachable.' }],
    references: [`${L2}8343`],
    examples: [{ line: '2022-04-26T18:59:51.572722Z  INFO serverauthorizations: linkerd_policy_controller_k8s_api::watch: Restarting', source: `${L2}8343 (prydeep)` }],
  },
  {
    id: 'kubert-stream-failed',
    title: 'Controller Kubernetes watch failed (kubert)',
    family: 'policy-controller',
    match: { records: ['proxy-log'], literals: ['stream failed'], pattern: 'kubert::errors: stream failed' },
    meaning: 'A Kubernetes list/watch of the policy controller (or another kubert-based component) failed; kubert retries it with a backoff.',
    causes: ['The API server closed or reset the connection (upgrades, idle timeouts).', 'TLS or authentication errors towards the API server (read the error text).'],
    fix: [{ versions: 'Linkerd ≥ 2.12', action: 'Transient failures are retried; persistent ones block policy updates: fix the API server connectivity named in the error.' }],
    references: [`${L2}11156`, `${L2}10697`],
    examples: [
      { line: '2023-07-27T05:48:27.240045Z  INFO services: kubert::errors: stream failed error=failed to start watching object: HyperError: connection closed before message completed', source: `${L2}11156 (valentinwidmer)` },
    ],
  },
  {
    id: 'policy-controller-unexpected-response',
    title: 'Unexpected control-plane response, retrying',
    family: 'control-plane',
    match: { records: ['proxy-log'], literals: ['controller response; retrying with a backoff'], pattern: '(?:policy|destination) controller response; retrying with a backoff' },
    meaning: 'A policy or profile watch of the proxy ended with an error status and is retried with a backoff; one loop per watched port or target.',
    causes: ['`Deadline expired`: the controller accepted the stream but sent nothing within 3 s (overloaded or stream-limited controller).', '`Unavailable`/`service in fail-fast`: the controller pool is down.', 'Proxy and control plane versions that do not share the API (`Unimplemented`).'],
    fix: [
      { versions: '< edge-24.5.3 (Linkerd < 2.16)', action: 'Upgrade the control plane (linkerd2 #12598 removed the destination stream limit) or scale the controllers.' },
      { versions: 'all', action: 'Check the controller pods and their resource limits; restart proxies injected by an older release.' },
    ],
    knownFix: 'destination-stream-limit',
    coveredBy: ['control-plane-unavailable', 'reconnect-storm'],
    references: [`${L2}14298`, `${PROXY_PR}2587`],
    examples: [
      {
        line: '1753814397982\t2025-07-29T18:39:57.982Z\t[ 31502.170125s]  WARN ThreadId(01) watch{port=11211}: linkerd_app_inbound::policy::api: Unexpected policy controller response; retrying with a backoff grpc.status=Deadline expired before operation could complete grpc.message=""',
        source: `${L2}14298 (matt-mercer)`,
      },
    ],
  },

  // ------------------------------------------------------------------ file descriptors
  {
    id: 'too-many-open-files',
    title: 'Too many open files (os error 24)',
    family: 'fd-exhaustion',
    match: { records: ['proxy-log'], literals: ['Too many open files', 'os error 24'], pattern: 'Too many open files|os error 24' },
    meaning: 'The proxy hit its file-descriptor limit: accept() and connect() fail, so new connections are refused or cannot be opened.',
    causes: ['A low nofile limit in the container runtime (1024 on some nodes).', 'A connection leak or a connection storm (many clients, an ingress pooling to every pod IP).'],
    fix: [{ versions: 'all', action: 'Raise the runtime\'s nofile limit for the pod; find the connection source with `tcp_open_connections` in a metrics dump.' }],
    coveredBy: ['fd-exhaustion'],
    references: [`${L2}2322`],
    examples: [{ line: 'linkerd2_proxy::app::main outbound proxy background task failed: Too many open files (os error 24)', source: `${L2}2322 (jonrichards)` }],
  },

  // ------------------------------------------------------------------ control-plane connections
  {
    id: 'control-plane-startup-race',
    title: 'Local controller not listening yet (start-up)',
    family: 'benign',
    background: true,
    match: { records: ['proxy-log'], literals: ['Failed to connect'], pattern: 'controller\\{addr=localhost:\\d+\\}.*Failed to connect.*Connection refused', maxUptimeSeconds: 10 },
    meaning: 'On a control-plane pod, the proxy starts before the controller container next to it and is refused for its first seconds. Maintainers call this benign.',
    causes: ['Container start order in the destination/identity pod.'],
    fix: [{ versions: 'all', action: 'Nothing to do if it stops within the first seconds; if it continues, see control-plane-connect-refused.' }],
    references: [`${L2}11279`, `${L2}8343`, `${L2}11156`],
    examples: [
      { line: '[     0.002035s]  WARN ThreadId(01) policy:watch{port=8090}:controller{addr=localhost:8090}:endpoint{addr=127.0.0.1:8090}: linkerd_reconnect: Failed to connect error=Connection refused (os error 111)', source: `${L2}8343` },
    ],
  },
  {
    id: 'control-plane-connect-refused',
    title: 'Control-plane connection refused',
    family: 'control-plane',
    background: true,
    match: { records: ['proxy-log'], literals: ['Failed to connect'], pattern: 'controller\\{addr=[^}]*\\}.*Failed to connect.*Connection refused' },
    meaning: 'The proxy cannot connect to a control-plane component (destination 8086, policy 8090, identity 8080): the address answers but nothing listens. It retries every 0.5 s per endpoint (before Linkerd 2.19). A few seconds of this while the control plane rolls out or restarts are normal; if it persists, control-plane-unavailable and reconnect-storm fire.',
    causes: ['The controller container is crashing or not started (localhost addresses: the controller in the same pod).', 'Stale endpoint IPs of controller pods that are gone.'],
    fix: [
      { versions: 'all', action: 'Check the controller named in `controller{addr=…}`: pod status, restarts, container logs (policy container for 8090, destination for 8086).' },
      { versions: '< edge-25.7.2 (Linkerd < 2.19)', action: 'The 500 ms retry cap makes every proxy retry in lock-step; set the backoff env vars if a storm follows (see reconnect-storm).' },
    ],
    knownFix: 'connect-backoff-cap',
    coveredBy: ['control-plane-unavailable', 'reconnect-storm'],
    references: [`${L2}10643`, `${L2}9812`, `${L2}11156`, `${PROXY_PR}3992`],
    examples: [
      { line: '[   145.665928s]  WARN ThreadId(01) policy:watch{port=9997}:controller{addr=localhost:8090}:endpoint{addr=127.0.0.1:8090}: linkerd_reconnect: Failed to connect error=Connection refused (os error 111)', source: `${L2}10643 (hawkw)` },
    ],
  },
  {
    id: 'control-plane-connect-timeout',
    title: 'Control-plane connection timed out',
    family: 'control-plane',
    background: true,
    match: { records: ['proxy-log'], literals: ['Failed to connect'], pattern: 'controller\\{addr=[^}]*\\}.*Failed to connect.*connect timed out' },
    meaning: 'The proxy\'s TCP connect to a control-plane pod got no answer within the connect timeout (1 s): packets are dropped on the way, or the pod IP is gone. Brief bursts happen while controller pods are replaced.',
    causes: ['NetworkPolicy or security groups dropping traffic to the linkerd namespace (ports 8080, 8086, 8090).', 'Controller pod IPs that no longer exist (node gone), or an overloaded node.'],
    fix: [{ versions: 'all', action: 'Test connectivity from the pod\'s node to the endpoint in `endpoint{addr=…}`; allow the control-plane ports between node groups.' }],
    knownFix: 'connect-backoff-cap',
    coveredBy: ['control-plane-unavailable', 'reconnect-storm'],
    references: [`${L2}9812`, `${L2}11400`],
    examples: [
      {
        line: '[    13.328926s]  WARN ThreadId(01) policy:watch{port=4191}:controller{addr=linkerd-policy.linkerd.svc.cluster.local:8090}:endpoint{addr=10.0.1.234:8090}: linkerd_reconnect: Failed to connect error=connect timed out after 1s',
        source: `${L2}9812 (florian-besser)`,
      },
    ],
  },
  {
    id: 'legacy-control-plane-connect-error',
    title: 'Control-plane connect error (legacy proxy)',
    family: 'control-plane',
    background: true,
    match: { records: ['proxy-log'], literals: ['connect error to ControlAddr'], pattern: 'connect error to ControlAddr' },
    meaning: 'A pre-2.7 proxy could not connect to a control-plane service (identity, destination); it retries.',
    causes: ['Controller unreachable or not ready; DNS for the controller name slow or failing.'],
    fix: [{ versions: '≤ stable-2.6', action: 'Check the controller pods and connectivity; upgrade, this proxy generation is long unsupported.' }],
    coveredBy: ['control-plane-unavailable'],
    references: [`${L2}3388`],
    examples: [
      {
        line: 'linkerd-controller-75f98dd669-zch6q linkerd-proxy WARN [     0.510107s] linkerd-identity.linkerd.svc.cluster.local:8080 linkerd2_proxy::proxy::reconnect connect error to ControlAddr { addr: Name(NameAddr { name: "linkerd-identity.linkerd.svc.cluster.local", port: 8080 }), identity: Some("linkerd-identity.linkerd.serviceaccount.identity.linkerd.cluster.local") }: request timed out',
        source: `${L2}3388 (michalschott)`,
      },
    ],
  },

  // ------------------------------------------------------------------ data-plane connections
  {
    id: 'remote-proxy-app-connect-timeout',
    title: 'Remote proxy could not reach its application',
    family: 'data-plane',
    match: { records: ['proxy-log'], literals: ['Closing application connection for remote proxy'], pattern: 'Closing application connection for remote proxy' },
    meaning: 'The proxy on the server side could not connect to its own application within the inbound connect timeout (100 ms by default), so the client-side proxy closed the application connection.',
    causes: ['The application is not listening yet or is saturated (accept backlog full).', 'The application listens on localhost only or on another port than the Service targets.'],
    fix: [{ versions: 'all', action: 'Check the target pod: listening address and port, readiness, CPU; raise `config.linkerd.io/proxy-inbound-connect-timeout` only if the app is slow to accept by design.' }],
    references: [`${L2}10090`],
    examples: [{ line: 'linkerd_app_outbound::http::proxy_connection_close: Closing application connection for remote proxy error=connect timed out after 100ms', source: `${L2}10090` }],
  },
  {
    id: 'endpoint-no-route-to-host',
    title: 'No route to host (os error 113)',
    family: 'data-plane',
    match: { records: ['proxy-log'], literals: ['No route to host', 'os error 113'], pattern: 'No route to host|os error 113' },
    meaning: 'The proxy dialled a pod IP that no host answers for: the endpoint is gone.',
    causes: ['Stale endpoints: a pod was deleted but the proxy (or the destination controller) still lists its IP.', 'Node or CNI failure for that pod range.'],
    fix: [
      { versions: '≤ stable-2.14.1', action: 'Upgrade: stale-endpoint fixes landed in stable-2.14.2 (linkerd2-proxy #2484, #2486).' },
      { versions: 'all', action: 'Compare the IP with `kubectl get endpoints`; restart the destination controller if it serves gone IPs.' },
    ],
    references: [`${L2}3441`],
    examples: [{ line: 'linkerd-proxy ERR! [589538.085822s] linkerd2_proxy::app::errors unexpected error: error trying to connect: No route to host (os error 113) (address: 10.10.3.181:8080)', source: `${L2}3441 (bjoernhaeuser)` }],
  },
  {
    id: 'endpoint-connection-refused',
    title: 'Endpoint refused the connection',
    family: 'data-plane',
    background: true,
    match: { records: ['proxy-log'], literals: ['Failed to connect', 'Failed to proxy request', 'unexpected error'], pattern: '(?:Failed to connect|Failed to proxy request|unexpected error).*Connection refused' },
    meaning: 'A data-plane connection (to an application pod, or from the inbound proxy to its app) was refused: nothing listens on that IP and port. Read from the reconnect loop (and the per-request line of proxies before 2.11); the per-request lines of later proxies repeat what the loop says, one per request, and are left to it.',
    causes: ['The backend was scaled to zero or its pods are restarting.', 'The application listens on another port or on localhost only.', 'A stale endpoint IP reused by another pod.'],
    fix: [{ versions: 'all', action: 'Check the target in the span (`endpoint{addr=…}`, `target.addr`) against `kubectl get endpoints`; fix the listening port or the Service targetPort.' }],
    coveredBy: ['reconnect-storm'],
    references: [`${L2}4905`, `${L2}12681`],
    examples: [
      { line: 'WARN outbound:accept{peer.addr=10.240.2.xxx:xxxxx}:source{target.addr=10.240.5.xxx:80}: linkerd2_app_core::errors: Failed to proxy request: error trying to connect: Connection refused (os error 111)', source: `${L2}4905` },
      { line: '[951475.788267s]  WARN ThreadId(01) linkerd_reconnect: Failed to connect error=Connection refused (os error 111)', source: `${L2}11279` },
    ],
  },
  {
    id: 'endpoint-connect-timeout',
    title: 'Endpoint connection timed out',
    family: 'data-plane',
    background: true,
    match: { records: ['proxy-log'], literals: ['Failed to connect', 'Failed to proxy request'], pattern: 'Failed to connect.*connect timed out|Failed to proxy request: error trying to connect: request timed out' },
    meaning: 'The proxy\'s connection attempt to an endpoint got no answer within the connect timeout; requests to it fail or wait.',
    causes: ['The target pod is overloaded or its accept backlog is full (rollouts, slow start).', 'Packets dropped by NetworkPolicy or a dead node.'],
    fix: [{ versions: 'all', action: 'Check the target pod\'s health and the network path; with many such lines for one service see failfast.' }],
    coveredBy: ['reconnect-storm'],
    references: [`${L2}14801`, `${L2}4899`],
    examples: [
      { line: '{"timestamp":"2025-12-12T19:55:11.333411Z","level":"WARN","fields":{"message":"Failed to connect","error":"connect timed out after 1s"},"target":"linkerd_reconnect","threadId":"ThreadId(1)"}', source: `${L2}14801` },
      { line: '[    78.202515685s]  WARN inbound:accept{peer.addr=10.244.5.207:56284}:source{target.addr=10.244.0.145:9091}: linkerd2_app_core::errors: Failed to proxy request: error trying to connect: request timed out', source: `${L2}4899` },
    ],
  },
  {
    id: 'connection-closed-before-message-completed',
    title: 'Connection closed before message completed',
    family: 'data-plane',
    background: true,
    match: { records: ['proxy-log'], literals: ['connection closed before message completed'], pattern: 'connection closed before message completed' },
    meaning: 'The peer closed the connection while a request or response was in flight; the request fails (502/503 to the client).',
    causes: ['The application closes idle keep-alive connections at the moment the proxy reuses them (keep-alive timeout shorter than the proxy\'s).', 'The application crashed or was killed mid-request (OOM, rollout without graceful shutdown).'],
    fix: [{ versions: 'all', action: 'Make the application\'s keep-alive timeout longer than its clients\'; add graceful shutdown (preStop sleep) so in-flight requests finish.' }],
    references: [`${L2}9800`, `${L2}6352`, `${L2}5764`],
    examples: [
      { line: '[   318.223076s]  INFO ThreadId(01) inbound:server{port=9996}:rescue{client.addr=10.112.65.83:54968}: linkerd_app_core::errors::respond: Request failed error=connection closed before message completed', source: `${L2}9800 (hungran)` },
    ],
  },
  {
    id: 'reconnect-service-failed',
    title: 'Established connection failed',
    family: 'data-plane',
    background: true,
    match: { records: ['proxy-log'], literals: ['Service failed'], pattern: 'linkerd_reconnect: Service failed' },
    meaning: 'A connection the proxy had established broke; the proxy reconnects with a fresh backoff.',
    causes: ['The peer restarted or closed the connection ("channel closed").', 'Idle timeouts on a middlebox.'],
    fix: [{ versions: 'all', action: 'Harmless alone; many per minute for one target mean the peer keeps restarting.' }],
    coveredBy: ['reconnect-storm'],
    references: [`${L2}11279`],
    examples: [{ line: '[ 18093.017333s]  WARN ThreadId(01) linkerd_reconnect: Service failed error=channel closed', source: `${L2}11279` }],
  },

  // ------------------------------------------------------------------ benign and noise
  {
    id: 'transport-endpoint-not-connected',
    title: 'Connection closed: transport endpoint is not connected (os error 107)',
    family: 'benign',
    background: true,
    match: { records: ['proxy-log'], literals: ['os error 107'], pattern: 'os error 107' },
    meaning: 'The client had already gone when the proxy tried to use the socket. Maintainers call it benign: probes and clients that disconnect early.',
    causes: ['Health checks or clients closing the connection right after connecting.'],
    fix: [{ versions: 'all', action: 'Nothing to do; later releases log it at DEBUG.' }],
    references: [`${L2}5591`],
    examples: [
      { line: '{"timestamp": "[ 96886.162669s]", "level": "INFO", "fields": {"message": "Connection closed", "error": "connection error: Transport endpoint is not connected (os error 107)"}, "target": "linkerd2_app_core::serve", "spans": [{"name": "inbound"}, {"peer.addr": "100.96.8.61:57158", "target.addr": "100.96.8.230:8080", "name": "accept"}], "threadId": "ThreadId(1)"}', source: `${L2}5591`, note: 'pretty-printed over 25 lines in the thread; joined onto one line, the redundant "span" object left out' },
    ],
  },
  {
    id: 'admin-http-only',
    title: 'Admin server is HTTP-only',
    family: 'benign',
    background: true,
    match: { records: ['proxy-log'], literals: ['proxy admin server is HTTP-only'], pattern: 'proxy admin server is HTTP-only' },
    meaning: 'Something connected to the admin port (4191) with a non-HTTP protocol (a TCP probe, TLS); the proxy closed the connection. Innocuous per the maintainers.',
    causes: ['TCP or TLS probes pointed at 4191.'],
    fix: [{ versions: 'all', action: 'Point probes at /live or /ready over plain HTTP, or ignore.' }],
    references: [`${L2}5672`],
    examples: [
      { line: '{"timestamp":"...","level":"INFO","fields":{"message":"Connection closed","error":"proxy admin server is HTTP-only"},"target":"linkerd_app_core::serve","spans":[{"name": "daemon"},{"listen_addr": "0.0.0.0:4191","name": "admin"},{"client_addr": "10.1.26.203:45330","target_addr": "10.1.4.38:4191","name": "accept"}],"threadId":"ThreadId(2)"}', source: `${L2}5672 (tarvip)` },
    ],
  },
  {
    id: 'connection-closed-request-timed-out',
    title: 'Connection closed: request timed out',
    family: 'benign',
    background: true,
    match: { records: ['proxy-log'], literals: ['request timed out'], pattern: 'Connection closed\\W{1,4}error\\W{1,4}request timed out' },
    meaning: 'An inbound connection was closed because the client sent no complete request before the server\'s timeout; usually idle or half-open client connections.',
    causes: ['Clients (or probes) that connect and send nothing.', 'Very slow clients.'],
    fix: [{ versions: 'all', action: 'Usually nothing; correlate with client errors before acting.' }],
    references: [`${L2}5672`],
    examples: [
      { line: '{"timestamp":"...","level":"INFO","fields":{"message":"Connection closed","error":"request timed out"},"target":"linkerd_app_core::serve","spans":[{"name": "inbound"},{"client_addr": "10.1.21.79:33178","target_addr": "10.1.4.38:8080","name": "accept"}],"threadId":"ThreadId(1)"}', source: `${L2}5672 (tarvip)` },
    ],
  },

  // ------------------------------------------------------------------ configuration
  {
    id: 'proxy-env-missing',
    title: 'Proxy configuration variable not set',
    family: 'configuration',
    match: { records: ['proxy-log'], literals: ['is not set'], pattern: '(?:CONDUIT|LINKERD2)_PROXY_\\w+ is not set' },
    meaning: 'The proxy refused to start because a required environment variable is missing: the pod spec was not produced by a matching injector.',
    causes: ['A hand-written or stale injected manifest; an injector and proxy of different releases.'],
    fix: [{ versions: 'all', action: 'Re-inject the workload with the injector of the installed release (`linkerd inject` or the proxy-injector webhook) instead of editing proxy env by hand.' }],
    references: ['https://github.com/linkerd/linkerd2/pull/399'],
    examples: [{ line: 'E\tproxy/src/config.rs:194] conduit_proxy::config: CONDUIT_PROXY_CONTROL_URL is not set', source: 'https://github.com/linkerd/linkerd2/pull/399 (hawkw)' }],
  },

  // ------------------------------------------------------------------ CoreDNS
  {
    id: 'coredns-loop-detected',
    title: 'CoreDNS forwarding loop detected',
    family: 'coredns',
    match: { records: ['coredns-message'], literals: ['loop detected', ') detected for zone'], pattern: 'plugin/loop: (?:Loop \\(.*\\) detected for zone|Seen "HINFO IN .*" more than twice, loop detected)' },
    meaning: 'CoreDNS found that its upstream sends queries back to itself and exited; the CoreDNS pods crash-loop and cluster DNS fails, which stops proxies from resolving the control plane.',
    causes: ['The node\'s /etc/resolv.conf points at a local stub (systemd-resolved 127.0.0.53) that CoreDNS forwards to.', 'A forward target that is the cluster DNS service itself.'],
    fix: [{ versions: 'all', action: 'Point kubelet at the real resolv.conf (`--resolv-conf=/run/systemd/resolve/resolv.conf`) or forward to explicit upstream IPs, then restart CoreDNS.' }],
    coveredBy: ['dns-resolution-failure'],
    references: ['https://github.com/coredns/coredns/pull/2400', `${CD}2087`, 'https://coredns.io/plugins/loop#troubleshooting'],
    examples: [
      { line: '2018-12-16T10:11:03.696Z [FATAL] plugin/loop: Loop (127.0.0.1:51384 -> :1053) detected for zone ".", see https://coredns.io/plugins/loop#troubleshooting. Query: "HINFO 2781022615773629442.4133547885299871809."', source: 'https://github.com/coredns/coredns/pull/2400 (miekg)' },
      { line: '2018/09/06 13:02:45 [FATAL] plugin/loop: Seen "HINFO IN 2050421060481615995.5620656063561519376." more than twice, loop detected', source: `${CD}2087 (mritd)` },
    ],
  },
  {
    id: 'coredns-loop-probe-timeout',
    title: 'CoreDNS loop probe got no answer from upstream',
    family: 'coredns',
    match: { records: ['coredns-message'], literals: ['HINFO: read'], pattern: 'HINFO: read (?:udp|tcp) \\S+: i/o timeout' },
    meaning: 'At start-up the loop plugin sends a random HINFO query upstream; the upstream did not answer it. Harmless if other forwarded queries work, otherwise the upstream is unreachable.',
    causes: ['The upstream resolver ignores HINFO or queries outside its zones.', 'The upstream is unreachable from the CoreDNS pods (firewall, routing).'],
    fix: [{ versions: 'all', action: 'Resolve an external name through CoreDNS; if it works, ignore or drop the loop plugin; if not, fix the path to the upstream.' }],
    references: [`${CD}4211`, `${CD}5352`],
    examples: [{ line: '[ERROR] plugin/errors: 2 3797952284163317497.7063757873447144811. HINFO: read udp 192.168.209.17:36807->20.128.8.8:53: i/o timeout', source: `${CD}4211 (Jiangting1)` }],
  },
  {
    id: 'coredns-upstream-timeout',
    title: 'CoreDNS upstream did not answer',
    family: 'coredns',
    match: { records: ['coredns-message'], literals: ['i/o timeout'], pattern: 'plugin/errors: \\d+ \\S+ \\S+: read (?:udp|tcp) \\S+: i/o timeout' },
    meaning: 'CoreDNS forwarded a query and got no answer from the upstream in time; the client gets SERVFAIL after a delay. Proxies resolving external names through it are delayed too.',
    causes: ['Upstream resolver down, overloaded or filtered.', 'conntrack/UDP drops between CoreDNS and the upstream.', 'CoreDNS itself overloaded (forward max_concurrent reached).'],
    fix: [{ versions: 'all', action: 'Query the upstream directly from the node (`dig @<upstream> <name>`); fix routing/firewall, or add upstreams; reduce search-path expansion (ndots) to cut the query volume.' }],
    coveredBy: ['dns-resolution-failure'],
    references: [`${CD}5179`, 'https://github.com/kubernetes/kubernetes/issues/86762'],
    examples: [
      { line: '[ERROR] plugin/errors: 2 svc-datadog-agent-dogstatsd.datadog-agent.toyota-europe.com. SRV: read udp 192.168.86.18:56917->150.45.86.241:53: i/o timeout', source: `${CD}5179 (walter-heestermans-toyota)` },
      { line: '[ERROR] plugin/errors: 2 lcr.acjus.jus.br. A: read udp 169.254.25.10:16773->169.254.25.10:53: i/o timeout', source: 'https://github.com/kubernetes/kubernetes/issues/86762 (juliohm1978)' },
    ],
  },
  {
    id: 'coredns-kubernetes-forbidden',
    title: 'CoreDNS not allowed to read the Kubernetes API',
    family: 'coredns',
    match: { records: ['coredns-message'], literals: ['is forbidden'], pattern: 'plugin/kubernetes: .*is forbidden' },
    meaning: 'The CoreDNS service account lacks RBAC to list/watch a resource, so the kubernetes plugin never syncs and cluster names do not resolve (or resolve stale).',
    causes: ['The ClusterRole misses a resource the CoreDNS version needs (EndpointSlices since CoreDNS 1.8).'],
    fix: [{ versions: 'CoreDNS ≥ 1.8', action: 'Add `endpointslices` (discovery.k8s.io) list/watch to the CoreDNS ClusterRole.' }],
    coveredBy: ['dns-resolution-failure'],
    references: ['https://github.com/coredns/helm/issues/135'],
    examples: [
      {
        line: '[ERROR] plugin/kubernetes: pkg/mod/k8s.io/client-go@v0.26.1/tools/cache/reflector.go:169: Failed to watch *v1.EndpointSlice: failed to list *v1.EndpointSlice: endpointslices.discovery.k8s.io is forbidden: User "system:serviceaccount:kube-system:coredns-coredns" cannot list resource "endpointslices" in API group "discovery.k8s.io" at the cluster scope',
        source: 'https://github.com/coredns/helm/issues/135 (erikschul)',
      },
    ],
  },
  {
    id: 'coredns-kubernetes-watch-failed',
    title: 'CoreDNS lost its Kubernetes watch',
    family: 'coredns',
    match: { records: ['coredns-message'], literals: ['Failed to watch', 'Failed to list'], pattern: 'Failed to (?:watch|list) \\*v1' },
    meaning: 'CoreDNS\'s kubernetes plugin could not list or watch a resource; until it reconnects, answers for services and endpoints go stale.',
    causes: ['API server unreachable or restarting.', 'RBAC (see coredns-kubernetes-forbidden).'],
    fix: [{ versions: 'all', action: 'Check API server reachability from the CoreDNS pods; restart CoreDNS if it stays out of sync.' }],
    references: ['https://github.com/kubernetes/kubernetes/issues/109815', `${CD}3587`],
    examples: [
      {
        line: 'E0411 11:27:17.279482       1 reflector.go:322] github.com/coredns/coredns/plugin/kubernetes/controller.go:318: Failed to watch *v1.Namespace: Get https://172.20.252.1:443/api/v1/namespaces?resourceVersion=10192&timeoutSeconds=396&watch=true: ',
        source: 'https://github.com/kubernetes/kubernetes/issues/109815 (panbing520)',
      },
    ],
  },
  {
    id: 'coredns-unsynced-api',
    title: 'CoreDNS started with an unsynced Kubernetes API',
    family: 'coredns',
    match: { records: ['coredns-message'], literals: ['unsynced Kubernetes API'], pattern: 'starting server with unsynced Kubernetes API' },
    meaning: 'CoreDNS gave up waiting for its first Kubernetes sync and serves anyway: cluster names may not resolve until it syncs.',
    causes: ['API server unreachable from the CoreDNS pod at start (node restart, CNI not ready).', 'RBAC or endpoint configuration errors in the kubernetes plugin.'],
    fix: [{ versions: 'all', action: 'Check the next kubernetes-plugin lines for the reason; restart CoreDNS once the API is reachable.' }],
    coveredBy: ['dns-resolution-failure'],
    references: [`${CD}5274`, `${CD}5034`],
    examples: [{ line: '[WARNING] plugin/kubernetes: starting server with unsynced Kubernetes API', source: `${CD}5274 (vicky1999s)` }],
  },
  {
    id: 'coredns-legacy-errors',
    title: 'CoreDNS 2017 errors-plugin failure',
    family: 'coredns',
    match: { records: ['coredns-message'], literals: ['] no items found', '] invalid query name'], pattern: '\\[ERROR \\d+ \\S+ \\S+\\] (?:no items found|invalid query name)' },
    meaning: 'An early CoreDNS (errors plugin format `[ERROR <rcode> <name> <type>]`) failed a query in the kubernetes plugin; here search-path expansions of a short name.',
    causes: ['Clients resolving short names through the search path; early CoreDNS reported the misses as errors.'],
    fix: [{ versions: 'CoreDNS of 2017 (≤ 1.0)', action: 'Upgrade CoreDNS; use fully qualified names to avoid search-path expansion.' }],
    references: [`${CD}1265`],
    examples: [
      { line: '29/Nov/2017:23:16:11 +0000 [ERROR 0 kubernetes.monitoring.svc.cluster.local. A] no items found', source: `${CD}1265` },
      { line: '29/Nov/2017:23:16:11 +0000 [ERROR 0 kubernetes.svc.cluster.local. A] invalid query name', source: `${CD}1265` },
    ],
  },
];
