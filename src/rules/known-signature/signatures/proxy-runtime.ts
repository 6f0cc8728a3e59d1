// Proxy messages beyond the failures users paste most: panics, its own configuration and trust
// anchors, shutdown, control-plane answers it cannot use, and the 2018-2020 wordings of failures
// the catalogue knows in their modern form. Drawn from data/inventory/inventory.json and from the
// proxy's release/v2.0.0 … v2.100 sources for the legacy lines.

import { L2, type KnownSignature } from '../signature.js';

const SRC = 'https://github.com/linkerd/linkerd2-proxy/blob/release/v2.366.0/';
const LEGACY_SRC = 'https://github.com/linkerd/linkerd2-proxy/blob/release/v2.0.0/';

/** Certificate validity comes before identity-invalid-certificate, which matches the same lines without the reason. */
export const CERT_VALIDITY_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'cert-not-valid-yet',
    title: 'Certificate not valid yet (clock skew or future-dated issuer)',
    family: 'identity',
    match: { records: ['proxy-log'], literals: ['CertNotValidYet'], pattern: 'CertNotValidYet' },
    meaning:
      "A certificate in the chain (the proxy's, the issuer's or a peer's) has a NotBefore in the future as seen by this node's clock, so TLS and identity fail until that time passes.",
    causes: [
      'The issuer certificate was just created on a machine whose clock is ahead (step/cert-manager output used immediately).',
      "The node's clock is behind (NTP not running).",
    ],
    fix: [
      {
        versions: 'all',
        action:
          "Compare `date -u` on the node with the issuer's NotBefore: `kubectl -n linkerd get secret linkerd-identity-issuer -o jsonpath='{.data.crt\\.pem}' | base64 -d | openssl x509 -noout -startdate`; fix NTP, or re-issue with a NotBefore in the past.",
      },
    ],
    references: [`${L2}6427`],
    examples: [
      {
        line: 'ERROR ThreadId(02) daemon:identity: linkerd2_proxy_identity::certify: Received invalid ceritficate: invalid certificate: CertNotValidYet',
        source: `${L2}6427 (tejeshwari)`,
      },
    ],
  },
  {
    id: 'cert-expired',
    title: 'Certificate expired',
    family: 'identity',
    match: { records: ['proxy-log'], literals: ['CertExpired'], pattern: 'CertExpired' },
    meaning:
      'A certificate in the chain has expired: the issuer certificate (most often) or the trust anchor. Proxies cannot renew their identity and mTLS between them fails as their own certificates lapse (24 h).',
    causes: [
      'The issuer certificate was not rotated (manual install without cert-manager; cert-manager Certificate failing).',
      'The trust anchor expired (default 1-year anchors from `linkerd install`).',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Run `linkerd check --proxy` (identity section) and rotate what expired: https://linkerd.io/2/tasks/replacing_expired_certificates/ ; then restart meshed workloads.',
      },
    ],
    references: [`${L2}3880`],
    examples: [
      {
        line: '[   120.004210s] ERROR ThreadId(02) daemon:identity: linkerd_app: Failed to obtain identity error=invalid certificate: CertExpired',
        source: `${SRC}linkerd/proxy/identity-client/src/certify.rs`,
        note: 'built from the call site with the webpki error the thread names',
      },
    ],
  },
];

export const PROXY_RUNTIME_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'proxy-panic',
    title: 'Proxy panicked',
    family: 'data-plane',
    match: {
      records: ['proxy-log'],
      literals: ['panicked at', "buffer's worker closed unexpectedly"],
      pattern: "^thread '[^']{1,64}' panicked at|buffer's worker closed unexpectedly",
    },
    meaning:
      'A proxy thread or task panicked: a bug in the proxy. On the main thread the proxy exits and the container restarts; when a task dies, the requests queued on it fail with "buffer\'s worker closed unexpectedly" until the pod restarts.',
    causes: [
      'A proxy bug triggered by a rare state (the thread names the file and line).',
      'A control-plane outage that leaves the proxy in a state it did not expect (linkerd2 #14333: after the destination controller was OOM-killed).',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Restart the pod to recover, then upgrade: search https://github.com/linkerd/linkerd2/issues for the file:line of the panic and report it with the proxy version (`linkerd version --proxy -n <namespace>`) if it is new.',
      },
    ],
    references: [`${L2}14333`, `${L2}8666`, `${L2}11529`],
    examples: [
      {
        line: "[1479104.724995s]  WARN ThreadId(01) outbound: linkerd_app_core::serve: Server failed to become ready error=buffer's worker closed unexpectedly client.addr=10.x.x.x:xxxx",
        source: `${L2}14333 (ketchoop)`,
      },
      {
        line: "thread 'main' panicked at /__w/linkerd2-proxy/linkerd2-proxy/linkerd/proxy/balance/queue/src/service.rs:73:18:",
        source: `${L2}14333 (ketchoop)`,
      },
      {
        line: "thread 'main' panicked at 'cancel sender lost', /usr/local/cargo/registry/src/github.com-1ecc6299db9ec823/hyper-0.14.19/src/client/dispatch.rs:186:13",
        source: `${L2}8666`,
        note: 'the message from the issue title, in the pre-1.73 Rust panic layout',
      },
    ],
  },
  {
    id: 'proxy-config-invalid',
    title: 'Proxy configuration rejected at start-up',
    family: 'configuration',
    match: {
      records: ['proxy-log'],
      literals: [
        'is not valid',
        'Not a valid ',
        'must be ',
        'No CSR found',
        'is not encoded in Unicode',
        'or none of them to use the default backoff',
        'Expected IP:PORT',
        'nvalid ',
        'ould not ',
        'Failed to ',
        'Spire support requires',
        'has been deprecated; use',
      ],
      pattern:
        '=[^\\s=]{0,256} is not valid: |Not a valid (?:address|identity name|port range)|must be (?:un)?set(?: with|\\.| if| or| when)|must be specified (?:together|when)|Failed to read (?:authentication token|Csr|key): |Invalid key: |No CSR found|is not encoded in Unicode|must be less than|or none of them to use the default backoff|Expected IP:PORT|Invalid network|Identity is must be enabled|Could not read \\S+: |Failed to read identity documents|Spire support requires|has been deprecated; use|Invalid backoff',
    },
    meaning:
      'The proxy rejected one of its LINKERD2_PROXY_* environment variables (or a file they point at) and exits at start-up, or used the default; the pod crash-loops on the linkerd-proxy container.',
    causes: [
      'An annotation or Helm value rendered into a bad env value (a port list, CIDR or duration with a typo).',
      'The injector and proxy versions differ, so a variable was renamed or removed (deprecated names).',
      'The identity token or trust-anchor file is not mounted.',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Read the variable named in the message from `kubectl -n <namespace> get pod <pod> -o yaml` (linkerd-proxy env) and fix the annotation or value it came from; keep injector and proxy versions equal.',
      },
    ],
    references: [`${SRC}linkerd/app/src/env.rs`],
    examples: [
      {
        line: '[     0.001012s] ERROR ThreadId(01) linkerd_app::env: LINKERD2_PROXY_INBOUND_PORTS_DISABLE_PROTOCOL_DETECTION=25,587,3306,4444,5432,6379,9300,11211,abc is not valid: invalid digit found in string',
        source: `${SRC}linkerd/app/src/env.rs`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'trust-anchors-invalid',
    title: 'Proxy trust anchors unusable',
    family: 'identity',
    match: {
      records: ['proxy-log'],
      literals: ['nvalid ', 'no valid certs', 'skipped '],
      pattern:
        'invalid trust anchors file|no valid certs in trust anchors file|Skipped \\d+ invalid trust anchors|skipped \\d+ trust anchors in trust anchors file',
    },
    meaning:
      'The proxy could not parse some or all of its trust anchors (LINKERD2_PROXY_IDENTITY_TRUST_ANCHORS); with none left it cannot verify any peer or the identity controller.',
    causes: [
      'The trust anchors PEM in linkerd-identity-trust-roots or the Helm value is malformed (indentation, missing END line).',
      'An anchor uses an algorithm the proxy does not support (RSA anchors are fine; a non-ECDSA-P256 issuer is not, before 2.12).',
    ],
    fix: [
      {
        versions: 'all',
        action:
          "Validate the bundle: `kubectl -n linkerd get cm linkerd-identity-trust-roots -o jsonpath='{.data.ca-bundle\\.crt}' | openssl crl2pkcs7 -nocrl -certfile /dev/stdin | openssl pkcs7 -print_certs -noout`, fix it, and restart meshed pods.",
      },
    ],
    references: [`${L2}3880`, `${L2}3414`],
    examples: [
      {
        line: '[     0.002104s]  WARN ThreadId(01) linkerd_meshtls::creds: no valid certs in trust anchors file',
        source: `${SRC}linkerd/meshtls/src/creds.rs`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'spire-svid-failed',
    title: 'Proxy cannot get its SVID from SPIRE',
    family: 'identity',
    match: {
      records: ['proxy-log'],
      literals: ['ould not ', 'Error ', 'Unexpected SPIRE'],
      pattern: 'could not parse SVID|Error processing SVID update|Unexpected SPIRE Workload API response',
    },
    meaning:
      "With SPIFFE/SPIRE identity, the proxy could not read or use the SVID from the SPIRE agent's Workload API; it has no identity and stays not ready.",
    causes: [
      'The SPIRE agent socket is not mounted or the agent is down on the node.',
      'No registration entry for the workload, or an SVID without a SPIFFE TLS id.',
    ],
    fix: [
      {
        versions: 'Linkerd ≥ 2.15',
        action: "Check the SPIRE agent on the node and the workload's registration entry (`spire-server entry show -selector k8s:pod-name:<pod>`).",
      },
    ],
    references: ['https://linkerd.io/2/tasks/adding-non-kubernetes-workloads/'],
    examples: [
      {
        line: '[     1.204100s] ERROR ThreadId(01) linkerd_proxy_spire_client: Error processing SVID update error=missing SPIFFE id',
        source: `${SRC}linkerd/proxy/spire-client/src/lib.rs`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'proxy-shutdown-timeout',
    title: 'Proxy shutdown cut connections',
    family: 'data-plane',
    match: { records: ['proxy-log'], literals: ['shutdown did not complete'], pattern: 'Graceful shutdown did not complete in' },
    meaning:
      'On pod termination the proxy waited its shutdown grace period for connections to drain and then closed the rest; clients of those connections see resets.',
    causes: ['Long-lived connections (gRPC streams, websockets) that never end on their own.', "A grace period shorter than the application's drain time."],
    fix: [
      {
        versions: 'all',
        action:
          "Raise `config.linkerd.io/proxy-shutdown-grace-period` (and the pod's terminationGracePeriodSeconds) on the workload, or make clients reconnect on GOAWAY.",
      },
    ],
    references: [`${SRC}linkerd2-proxy/src/main.rs`],
    examples: [
      {
        line: '[ 86400.120000s]  WARN ThreadId(01) linkerd2_proxy: Graceful shutdown did not complete in 120s, terminating now',
        source: `${SRC}linkerd2-proxy/src/main.rs`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'control-plane-answer-invalid',
    title: 'Proxy ignored an answer from the control plane',
    family: 'control-plane',
    match: {
      records: ['proxy-log'],
      literals: [
        'misconfigured',
        'nvalid ',
        'server name missing for URI type identity',
        'returned `Unimplemented`',
        'did not specify a certificate expiration',
      ],
      pattern:
        'did not specify a certificate expiration|(?:Server|Client policy) misconfigured|Ignoring invalid (?:DNS identity|Server name|URI identity|identity)|server name missing for URI type identity|returned `Unimplemented`',
    },
    meaning:
      'The destination or policy controller sent the proxy data it could not use (an invalid policy, an endpoint identity it cannot parse, or an API it does not implement); the proxy falls back (default policy, no mTLS to that endpoint).',
    causes: [
      'Control plane and proxies on different versions (upgrade in progress, or proxies not restarted after an upgrade).',
      'A policy resource the controller accepted but the proxy cannot apply.',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Compare versions with `linkerd check --proxy` (control-plane vs data-plane) and restart workloads still on old proxies (`kubectl -n <namespace> rollout restart deploy/<workload>`).',
      },
    ],
    references: [`${SRC}linkerd/app/gateway/src/discover.rs`],
    examples: [
      {
        line: '[     5.100000s]  WARN ThreadId(01) linkerd_app_gateway::discover: Policy controller returned `Unimplemented`, the control plane may be out of date.',
        source: `${SRC}linkerd/app/gateway/src/discover.rs`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'service-profile-invalid',
    title: 'ServiceProfile with an invalid retry budget or timeout',
    family: 'profile',
    match: {
      records: ['proxy-log'],
      literals: ['retry_budget', 'route timeout is negative', 'rror setting timeout'],
      pattern: 'retry_budget (?:is missing|ttl|retry_ratio|min_retries_per_second|nanos)|route timeout is negative|error setting timeout for route',
    },
    meaning:
      'The proxy received a ServiceProfile whose retry budget or route timeout is invalid and ignored that part: retries or timeouts you configured are not applied.',
    causes: ['A ServiceProfile with a negative or zero ttl, a retryRatio out of range, or a malformed timeout.'],
    fix: [
      {
        versions: 'all',
        action:
          'Fix the profile: `kubectl -n <namespace> get serviceprofile <service>.<namespace>.svc.cluster.local -o yaml` (spec.retryBudget, routes[].timeout).',
      },
    ],
    references: ['https://linkerd.io/2/reference/service-profiles/'],
    examples: [
      {
        line: '[    10.000000s]  WARN ThreadId(01) linkerd_service_profiles::proto: retry_budget ttl negative: -10s',
        source: `${SRC}linkerd/service-profiles/src/proto.rs`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'tls-client-hello-too-large',
    title: 'TLS ClientHello larger than the detection buffer',
    family: 'protocol-detection',
    match: { records: ['proxy-log'], literals: ['nsufficient for TLS ClientHello'], pattern: 'Buffer insufficient for TLS ClientHello' },
    meaning:
      "An inbound connection started with a TLS ClientHello too large for the proxy's detection buffer, so the proxy could not read its SNI and treats it as not meshed TLS.",
    causes: ['Clients that send post-quantum key shares (X25519Kyber768/ML-KEM in recent browsers, Go ≥ 1.23, OpenSSL 3.5) or many extensions.'],
    fix: [
      {
        versions: 'all',
        action:
          'Upgrade the proxy (later releases read larger ClientHellos), or mark the port opaque/skip it (`config.linkerd.io/opaque-ports` or `config.linkerd.io/skip-inbound-ports`).',
      },
    ],
    references: [`${SRC}linkerd/tls/src/server.rs`],
    examples: [
      {
        line: '[   300.000000s]  WARN ThreadId(01) inbound:accept{client.addr=10.0.0.5:51000}: linkerd_tls::server: Buffer insufficient for TLS ClientHello',
        source: `${SRC}linkerd/tls/src/server.rs`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'failure-accrual-breaker-open',
    title: 'Circuit breaker opened for an endpoint',
    family: 'data-plane',
    background: true,
    match: { records: ['proxy-log'], literals: ['failure-accrual breaker'], pattern: 'failure-accrual breaker (?:opened|reopened)' },
    meaning:
      "Consecutive failures to one endpoint tripped the proxy's failure-accrual breaker: it stops sending that endpoint requests until a probe succeeds.",
    causes: ['That endpoint is failing (5xx, connection errors) while others are healthy.'],
    fix: [
      {
        versions: 'Linkerd ≥ 2.13',
        action:
          'Find the endpoint in the span (`endpoint{addr=…}`) and check that pod: `kubectl get pods -A -o wide --field-selector status.podIP=<ip>`; tune `balancer.linkerd.io/failure-accrual-consecutive-*` if it trips on healthy pods.',
      },
    ],
    references: ['https://linkerd.io/2/reference/circuit-breaking/'],
    examples: [
      {
        line: '[   300.000000s]  INFO ThreadId(01) outbound:proxy{addr=10.96.0.20:80}:service{ns=emojivoto name=web port=80}:endpoint{addr=10.42.0.17:8080}: linkerd_app_outbound::http::breaker::consecutive_failures: Consecutive failure-accrual breaker reopened',
        source: `${SRC}linkerd/app/outbound/src/http/breaker/consecutive_failures.rs`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'h2-protocol-error',
    title: 'HTTP/2 protocol or stream error',
    family: 'http2',
    background: true,
    match: { records: ['proxy-log'], literals: ['http2 error'], pattern: 'http2 error(?::| error\\.sources=\\[)' },
    meaning:
      'An HTTP/2 connection or stream between the proxy and a peer failed (reset, GOAWAY, protocol violation); the request in flight fails, often with a 502 or a gRPC UNAVAILABLE/INTERNAL.',
    causes: [
      'The peer (application or other proxy) reset the stream or closed the connection: restarts, idle timeouts, load balancers between them.',
      'A peer that violates HTTP/2 (see the specific h2-* signatures).',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Read the reason after `http2 error:`; correlate with restarts of the peer (`kubectl get pods -o wide | grep <peer-ip>`) and capture debug logs of both proxies (`config.linkerd.io/proxy-log-level: linkerd=debug,warn`) if it persists.',
      },
    ],
    references: [`${L2}2918`, `${L2}4168`],
    examples: [
      {
        line: '[   512.120000s]  INFO ThreadId(01) inbound:server{port=8080}:rescue{client.addr=10.4.26.79:49978}: linkerd_app_core::errors::respond: HTTP/2.0 request failed error=http2 error error.sources=[stream error received: refused stream before processing any application logic]',
        source: `${SRC}linkerd/app/core/src/errors/respond.rs`,
        note: 'built from the call site with an h2 reset reason',
      },
    ],
  },
];

export const LEGACY_PROXY_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'legacy-proxy-task-died',
    title: 'Proxy server or client task died (legacy proxy)',
    family: 'data-plane',
    match: { records: ['proxy-log'], literals: ['server died', 'client died'], pattern: 'linkerd2?_app\\w{0,64}:? (?:server|client) died' },
    meaning:
      "A pre-2.8 proxy's main server or client task exited with an error: that half of the proxy stops serving until the container restarts, and the error says why.",
    causes: ['The listener could not be bound (port taken, no permission).', 'A fatal error in the task (the error= field).'],
    fix: [{ versions: '≤ stable-2.7', action: 'Restart the pod and read the error= field; upgrade, this proxy generation is long unsupported.' }],
    references: [`${LEGACY_SRC}linkerd/app/src/lib.rs`],
    examples: [
      {
        line: 'ERR! [     0.012000s] linkerd_app server died error=Address already in use (os error 98)',
        source: 'https://github.com/linkerd/linkerd2-proxy/blob/release/v2.81.0/linkerd/app/src/lib.rs',
        note: 'built from the release/v2.81.0 (stable-2.6.1) call site in the legacy layout',
      },
    ],
  },
  {
    id: 'legacy-destination-stream-reconnect',
    title: 'Destination stream lost, reconnecting (legacy proxy)',
    family: 'control-plane',
    background: true,
    match: { records: ['proxy-log'], literals: ['Destination.Get stream'], pattern: 'Destination\\.Get stream (?:error|ended immediately)' },
    meaning:
      'A pre-2.7 proxy lost its discovery stream to the destination controller and reconnects; while it does it serves stale endpoints, and repeated errors mean it keeps sending traffic to pods that are gone.',
    causes: ['The destination controller restarted or is overloaded.', 'Network between the pod and the linkerd namespace drops idle streams.'],
    fix: [
      { versions: '≤ stable-2.6', action: 'Check the destination (controller) pod restarts and logs; upgrade, this proxy generation is long unsupported.' },
    ],
    coveredBy: ['control-plane-unavailable'],
    references: [`${L2}2118`, `${L2}3388`],
    examples: [
      {
        line: 'Destination.Get stream errored for NameAddr { ... }: Grpc(Status { code: Unknown, error_message: "", binary_error_details: b"" })',
        source: `${L2}2118 (jon-walton)`,
      },
      {
        line: 'WARN [  1805.120000s] linkerd2_proxy::control::destination::background::destination_set Destination.Get stream error Status { code: Unavailable, message: "connection reset" }, must reconnect',
        source: `${LEGACY_SRC}src/control/destination/background/destination_set.rs`,
        note: 'built from the release/v2.0.0 call site in the legacy layout',
      },
    ],
  },
  {
    id: 'legacy-max-in-flight',
    title: 'Proxy overloaded: max in-flight requests reached (legacy proxy)',
    family: 'failfast',
    match: { records: ['proxy-log'], literals: ['max-in-flight reached'], pattern: 'server overloaded, max-in-flight reached' },
    meaning: 'An older proxy refused a request because it already had its maximum number of requests in flight (10,000 by default); callers see 503s.',
    causes: ['A slow backend holding requests open while clients keep sending.', 'A request storm (retries) against one service.'],
    fix: [{ versions: '≤ stable-2.9', action: 'Find the slow backend (latency in `linkerd viz stat`), fix it or scale it; upgrade the proxy.' }],
    references: [`${LEGACY_SRC}src/app/errors.rs`],
    examples: [
      {
        line: 'WARN [ 10120.000100s] proxy={server=in listen=0.0.0.0:4143 remote=10.1.2.3:51234} linkerd2_proxy::app::errors server overloaded, max-in-flight reached',
        source: `${LEGACY_SRC}src/app/errors.rs`,
        note: 'built from the release/v2.0.0 call site in the legacy layout',
      },
    ],
  },
  {
    id: 'original-dst-unreadable',
    title: 'Cannot read the original destination of a connection',
    family: 'data-plane',
    match: { records: ['proxy-log'], literals: ['SO_ORIGINAL_DST'], pattern: 'failed to read SO_ORIGINAL_DST|SO_ORIGINAL_DST' },
    meaning:
      'The proxy accepted a connection but could not ask the kernel where it was going: it was not redirected by iptables (reached the proxy port directly) or the redirect rules are broken.',
    causes: [
      'proxy-init/CNI rules missing or partly applied (the pod started before the CNI, or an init container reordered).',
      "A client connecting straight to the proxy's port (4140/4143).",
    ],
    fix: [
      {
        versions: 'all',
        action:
          "Check the pod's linkerd-init (or linkerd-network-validator) logs and the node's iptables: `kubectl -n <namespace> logs <pod> -c linkerd-init`.",
      },
    ],
    references: [`${LEGACY_SRC}src/transport/connection.rs`],
    examples: [
      {
        line: 'WARN [     2.000100s] proxy={server=out listen=127.0.0.1:4140 remote=10.1.2.3:51234} linkerd2_proxy::transport::connection failed to read SO_ORIGINAL_DST: Os { code: 2, kind: NotFound, message: "No such file or directory" }',
        source: `${LEGACY_SRC}src/transport/connection.rs`,
        note: 'built from the release/v2.0.0 call site in the legacy layout',
      },
    ],
  },
];
