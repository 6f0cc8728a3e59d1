// The verdict on every message in data/inventory/inventory.json: which catalogue entry recognises
// it, or why it needs none. One rule covers many messages (all "Failed to subscribe …" variants);
// rules are tried in order, the first whose component and template pattern match decides.
// test/rules/known-signature-inventory.test.ts renders each message as its component prints it
// (tracing plain and JSON for the Rust components, logfmt and JSON for the Go ones) and checks that
// the named signature, and only a signature when one is named, comes out of the rule.

export interface RenderCase {
  /** Field values to print with the message (tracing `error=…`); unnamed fields print `x`. */
  fields: Record<string, string>;
  /** What `{}` placeholders print for this case, instead of the rule's values. */
  values?: readonly string[];
  signature: string;
}

export type Verdict =
  /** Recognised by this catalogue entry. */
  | { signature: string; cases?: undefined }
  /** The message carries an error value; the entry is chosen by that error. */
  | { cases: readonly RenderCase[]; signature?: undefined }
  | { benign: string }
  /** The whole message is a runtime value (an error printed alone): nothing fixed to match. */
  | { dynamic: string };

export interface VerdictRule {
  components: readonly string[];
  /** Regex source tested against the template (`{}` for placeholders). */
  template: string;
  /** What `{}` placeholders print, in order (the last repeats); `x` when absent. */
  values?: readonly string[];
  verdict: Verdict;
}

const GO_CONTROLLERS = ['destination', 'identity', 'proxy-injector', 'heartbeat', 'controller'];

const METRICS = 'Registering or updating its own Prometheus metric failed; only that metric is affected, traffic and discovery are not.';
const INFORMER =
  'Informer bookkeeping after a missed delete (tombstones, stale cache, duplicate unsubscribe); the informer resyncs and the controller recovers by itself, with nothing for a user to change.';
const TRACING = 'Distributed tracing is optional; without it the component works as before.';
const ADMIN =
  'A request to the proxy admin API (metrics scrape, log-level change, log stream) was malformed or aborted; only that admin request fails, traffic is unaffected.';

export const VERDICT_RULES: readonly VerdictRule[] = [
  // ── proxy: failures the catalogue knows ──
  {
    components: ['proxy'],
    template: '^Failed to connect$',
    verdict: {
      cases: [
        { fields: { error: 'Connection refused (os error 111)' }, signature: 'endpoint-connection-refused' },
        { fields: { error: 'connect timed out after 1s' }, signature: 'endpoint-connect-timeout' },
        { fields: { error: 'No route to host (os error 113)' }, signature: 'endpoint-no-route-to-host' },
        { fields: { error: 'invalid peer certificate: UnknownIssuer' }, signature: 'trust-anchor-mismatch' },
      ],
    },
  },
  { components: ['proxy'], template: '^Service failed$', verdict: { signature: 'reconnect-service-failed' } },
  { components: ['proxy'], template: '^Failed to resolve control-plane component$', verdict: { signature: 'control-plane-dns-failed' } },
  {
    components: ['proxy'],
    template: '^Failed to obtain identity$',
    verdict: {
      cases: [
        { fields: { error: 'status: Unavailable' }, signature: 'identity-certify-failed' },
        { fields: { error: 'invalid certificate: CertExpired' }, signature: 'cert-expired' },
        { fields: { error: 'invalid certificate: CertNotValidYet' }, signature: 'cert-not-valid-yet' },
      ],
    },
  },
  { components: ['proxy'], template: '^Waiting for identity to be initialized', verdict: { signature: 'identity-not-ready' } },
  { components: ['proxy'], template: '^Service entering failfast after', values: ['3s'], verdict: { signature: 'stack-failfast' } },
  { components: ['proxy'], template: '^Service failed to recover$', verdict: { signature: 'stack-failfast' } },
  { components: ['proxy'], template: '^Unavailable; entering failfast$', verdict: { signature: 'balancer-failfast' } },
  {
    components: ['proxy'],
    template: '^Available; exit(?:ed|ing) failfast$',
    verdict: { benign: 'The service recovered from failfast; the failure it ends is reported by the "entering failfast" line.' },
  },
  { components: ['proxy'], template: '^Request denied$', verdict: { signature: 'http-request-denied' } },
  { components: ['proxy'], template: '^Connection denied$', verdict: { signature: 'tcp-connection-denied' } },
  { components: ['proxy'], template: '^Error resolving ServiceProfile$', verdict: { signature: 'profile-fetch-failed' } },
  { components: ['proxy'], template: '^Continuing after timeout', values: ['10s'], verdict: { signature: 'protocol-detection-timeout' } },
  { components: ['proxy'], template: '^Unexpected policy controller response', verdict: { signature: 'policy-controller-unexpected-response' } },
  {
    components: ['proxy'],
    template: '^Server failed to accept connection$',
    verdict: { cases: [{ fields: { error: 'Too many open files (os error 24)' }, signature: 'too-many-open-files' }] },
  },
  {
    components: ['proxy'],
    template: '^(?:Server failed to become ready|\\{\\} request failed|gRPC request failed|Remote proxy error|Unexpected error)$|^\\{error\\}$',
    verdict: {
      cases: [
        { fields: { error: 'http2 error', 'error.sources': '[stream error received: unexpected internal error encountered]' }, signature: 'h2-internal-error' },
        { fields: { error: 'http2 error: protocol error: frame with invalid size' }, signature: 'h2-frame-invalid-size' },
        { fields: { error: 'connection closed before message completed' }, signature: 'connection-closed-before-message-completed' },
      ],
    },
  },
  { components: ['proxy'], template: '^Graceful shutdown did not complete', values: ['120s'], verdict: { signature: 'proxy-shutdown-timeout' } },
  {
    components: ['proxy'],
    template:
      'is not valid: |^Not a valid |must be set|must be specified together|is not encoded in Unicode|must be less than|or none of them to use the default backoff|^Expected IP:PORT|^Invalid network$|Identity is must be enabled|^Could not read |^Failed to read identity documents$|^Spire support requires|has been deprecated; use|^Invalid backoff$',
    values: ['LINKERD2_PROXY_INBOUND_PORTS'],
    verdict: { signature: 'proxy-config-invalid' },
  },
  {
    components: ['proxy'],
    template: '^Ignoring invalid configuration$|was not set; using `all-unauthenticated`$',
    verdict: { signature: 'config-value-ignored' },
  },
  { components: ['proxy'], template: 'trust anchors', values: ['2'], verdict: { signature: 'trust-anchors-invalid' } },
  { components: ['proxy'], template: 'SVID|SPIRE Workload API', verdict: { signature: 'spire-svid-failed' } },
  {
    components: ['proxy'],
    template: 'misconfigured$|^Ignoring invalid (?:DNS identity|Server name|URI identity)|^server name missing for URI type identity$|returned `Unimplemented`',
    verdict: { signature: 'control-plane-answer-invalid' },
  },
  { components: ['proxy'], template: '^retry_budget |^error setting timeout for route$', verdict: { signature: 'service-profile-invalid' } },
  { components: ['proxy'], template: '^Buffer insufficient for TLS ClientHello$', verdict: { signature: 'tls-client-hello-too-large' } },
  { components: ['proxy'], template: 'failure-accrual breaker reopened$', verdict: { signature: 'failure-accrual-breaker-open' } },
  {
    components: ['proxy'],
    template: 'failure-accrual breaker closed$',
    verdict: { benign: 'The breaker closed: the endpoint recovered. The failure is reported by the "reopened" line.' },
  },
  // ── proxy: benign ──
  {
    components: ['proxy'],
    template:
      '^(?:Failed to format metrics|Failed to get/set tracing level|Failed to stream logs|Setting log level failed|Accept header|failed to serialize JSON value|Unsupported method)|^\\{error,status\\}$',
    verdict: { benign: ADMIN },
  },
  {
    components: ['proxy'],
    template: 'before the UNIX epoch|^Duration::as_micros would overflow|^Failed to register process metrics$|^Receive timeout overflowed',
    verdict: { benign: 'Telemetry arithmetic at the edge of its range (clock before 1970, overflowing durations); only a metric or a timer value is skipped.' },
  },
  {
    components: ['proxy'],
    template: '^failed to set (?:keepalive|nodelay|user timeout)',
    verdict: {
      benign:
        'A socket option could not be set, almost always because the peer already closed the socket; the connection proceeds (or is already gone) either way.',
    },
  },
  {
    components: ['proxy'],
    template: '^Failed to convert duration to protobuf$|^invalid tap request$',
    verdict: { benign: 'A `linkerd viz tap` request was invalid or a tap event could not be encoded; only that tap session is affected.' },
  },
  { components: ['proxy'], template: '^Failed to read trace attributes$', verdict: { benign: TRACING } },
  {
    components: ['proxy'],
    template: '^Failed to encode error header$|^identity not a valid header value$|^unknown \\{\\} header value|^A successful response to a CONNECT request',
    verdict: {
      benign:
        'A header the proxy adds or reads for its own bookkeeping (l5d-proxy-error, l5d-client-id, l5d-orig-proto) could not be encoded or was unknown; the request itself proceeds.',
    },
  },
  {
    components: ['proxy'],
    template: '^Invalid name$',
    verdict: { benign: "A peer's transport header named an invalid target; that single connection is refused, and only a misbehaving client produces it." },
  },
  {
    components: ['proxy'],
    template: '^tcp duplex error',
    verdict: {
      benign:
        'A proxied TCP/upgraded stream ended with an I/O error (a reset by either side); logged at INFO for each such connection, normal when clients or servers close abruptly.',
    },
  },
  {
    components: ['proxy'],
    template: 'balancer ignores the response-penalty estimator|^rtt_decay below minimum',
    verdict: { benign: 'A balancer setting outside its range is clamped or ignored, as the line says; load balancing still works with the defaults.' },
  },
  {
    components: ['proxy'],
    template:
      '^Invalid state: attempted to write from an empty buffer$|^unexpected error updating weights; giving up$|^upgrade body could not send upgrade future|unknown body frame has been buffered$',
    verdict: {
      benign:
        'An internal consistency check of the proxy that has no user-side cause or setting; the affected request or connection fails alone. If it recurs, report it upstream with the proxy version.',
    },
  },
  {
    components: ['proxy'],
    template: '^Failed to extract tls id from client end cert$|^SAN name \\{\\} could not be parsed$',
    verdict: {
      benign:
        'A TLS client outside the mesh presented a certificate without a Linkerd identity; the connection is handled as unauthenticated, which policy then judges.',
    },
  },

  // ── the proxy of stable-2.6/2.7 (2019-2020): wordings the current proxy no longer logs ──
  { components: ['proxy-legacy'], template: '^Failed to certify identity: ', verdict: { signature: 'identity-certify-failed' } },
  {
    components: ['proxy-legacy'],
    template: '^Received invalid ceritficate: ',
    values: ['invalid certificate: BadDER'],
    verdict: {
      cases: [
        { fields: {}, signature: 'identity-invalid-certificate' },
        { fields: {}, values: ['invalid certificate: CertNotValidYet'], signature: 'cert-not-valid-yet' },
        { fields: {}, values: ['invalid certificate: CertExpired'], signature: 'cert-expired' },
      ],
    },
  },
  {
    components: ['proxy-legacy'],
    template: 'must be (?:un)?set|must be specified when|^Failed to read (?:authentication token|Csr|key): |^Invalid key: |^No CSR found$',
    values: ['LINKERD2_PROXY_IDENTITY_DIR'],
    verdict: { signature: 'proxy-config-invalid' },
  },
  {
    components: ['proxy-legacy'],
    template: 'did not specify a certificate expiration|^Ignoring invalid identity: ',
    verdict: { signature: 'control-plane-answer-invalid' },
  },
  {
    components: ['proxy-legacy'],
    template: '^error fetching profile: |^profile service unexpected error: |^profile stream failed: ',
    verdict: { signature: 'profile-fetch-failed' },
  },
  { components: ['proxy-legacy'], template: 'SO_ORIGINAL_DST', verdict: { signature: 'original-dst-unreadable' } },
  {
    components: ['proxy-legacy'],
    template: '^failed to refine ',
    values: ['web.default.svc.cluster.local', 'deadline has elapsed'],
    verdict: { signature: 'dns-canonicalize-deadline' },
  },
  { components: ['proxy-legacy'], template: '^router at capacity', values: ['10000'], verdict: { signature: 'router-capacity-reached' } },
  { components: ['proxy-legacy'], template: 'max-in-flight reached$', verdict: { signature: 'legacy-max-in-flight' } },
  { components: ['proxy-legacy'], template: 'reached the configured dispatch deadline$', verdict: { signature: 'dispatch-deadline-reached' } },
  { components: ['proxy-legacy'], template: '^route timeout is negative', verdict: { signature: 'service-profile-invalid' } },
  { components: ['proxy-legacy'], template: 'trust anchors in trust anchors file$', values: ['2'], verdict: { signature: 'trust-anchors-invalid' } },
  { components: ['proxy-legacy'], template: '^(?:server|client) died$', verdict: { signature: 'legacy-proxy-task-died' } },
  {
    components: ['proxy-legacy'],
    template: '^unexpected error: ',
    verdict: {
      cases: [
        { fields: {}, values: ['http2 error: protocol error: unspecific protocol error detected'], signature: 'h2-unspecific-protocol-error' },
        { fields: {}, values: ['error trying to connect: Connection refused (os error 111)'], signature: 'endpoint-connection-refused' },
      ],
    },
  },
  {
    components: ['proxy-legacy'],
    template: 'process_(?:max|open)_fds|^failed to read process stats|^error getting \\{\\}: |^Gauge (?:over|under)flow$|^failed to lock metrics$',
    verdict: { benign: 'Process and metric telemetry of the old proxy (fd counts, gauges); only a metric value is skipped.' },
  },
  {
    components: ['proxy-legacy'],
    template: '^\\{\\}$',
    verdict: { dynamic: "The old metrics server's own error, logged as the bare error; only the metrics endpoint is affected." },
  },
  { components: ['proxy-legacy'], template: '[Hh]eader|^span dropped$', verdict: { benign: TRACING } },
  {
    components: ['proxy-legacy'],
    template: '^ClientAddr extension should always be set$|^denying request from non-loopback IP$|^error getting proxy log level$|^setting log level failed$',
    verdict: { benign: ADMIN },
  },
  {
    components: ['proxy-legacy'],
    template: '^invalid tap request|^tap capacity exceeded$',
    verdict: { benign: 'A `linkerd tap` session asked for more than the proxy serves, or was invalid; only that tap session is affected.' },
  },
  {
    components: ['proxy-legacy'],
    template: '^Identity is DISABLED$',
    verdict: {
      benign: 'States that identity was turned off by the install (`--disable-identity`, before 2.9); no failure, and traffic is not mTLS-ed by design.',
    },
  },
  {
    components: ['proxy-legacy'],
    template: '^concrete dst router did not contain target dst$|^could not recognize request$|^unexpected runtime timer error',
    verdict: { benign: 'An internal consistency check of the old proxy with no user-side cause or setting; the affected request fails alone.' },
  },

  // ── policy controller ──
  {
    components: ['policy-controller'],
    template:
      '^Invalid (?:MeshTLSAuthentication|NetworkAuthentication|authorization policy|rate limit policy|cluster ip|service port)$|^Illegal |^Port already matched by another server|^Failed to parse (?:accrual config|grpc retry|http retry|timeouts|load biaser config|honor-retry-after toggle|penalize-failures toggle)$|^Failed to convert route$|^skipping invalid|^Declining to convert invalid filter|^Invalid \\{\\} (?:duration|workload string)$',
    values: ['timeout'],
    verdict: { signature: 'policy-resource-invalid' },
  },
  {
    components: ['policy-controller'],
    template: '^Invalid default policy annotation value$|^Invalid ports list$|^Invalid probe path$',
    verdict: { signature: 'config-value-ignored' },
  },
  {
    components: ['policy-controller'],
    template: '^Denied$|^Invalid admission request$|^Failed to parse \\{\\} spec|^Failed to parse request body$',
    values: ['Server'],
    verdict: { signature: 'policy-admission-denied' },
  },
  {
    components: ['policy-controller'],
    template: 'patch|^Timed out$|^failed to make parent reference$|^Failed to (?:create Lease|fetch deployment), retrying',
    verdict: { signature: 'policy-status-write-failed' },
  },
  { components: ['policy-controller'], template: 'resource kind not found, skipping watches$', verdict: { signature: 'policy-route-crd-missing' } },
  {
    components: ['policy-controller'],
    template: '^Failed to get outbound policy rx$|^Unexpected state: EgressNetworks',
    verdict: { signature: 'policy-lookup-failed' },
  },
  {
    components: ['policy-controller'],
    template: '^Unexpected condition (?:type|status) found|^Namespace already deleted!$',
    verdict: {
      benign:
        'Status bookkeeping of the policy controller (a condition it does not manage, a namespace deleted while indexed); it skips the item and nothing is served differently.',
    },
  },
  {
    components: ['policy-controller'],
    template: '^Failed to convert protocol detect timeout to protobuf$',
    verdict: { benign: 'A detect timeout too large for the protobuf duration is left out of the answer; the proxy uses its default detect timeout.' },
  },
  {
    components: ['policy-controller'],
    template: '^\\{error\\}$',
    verdict: {
      dynamic:
        "The status controller logs the API server's error for a failed status patch on its own; its text is the Kubernetes error. The patch is retried; policy-status-write-failed names the other patch failures.",
    },
  },

  // ── destination ──
  {
    components: ['destination', 'controller'],
    template:
      '^error getting (?:endpoints|endpointSlice list|service|service profile|or creating profile publisher)|^Unable to get (?:endpoints|EndpointSlices|node)|^Could not fetch resource|^Failed to get service \\{\\}/|^Error getting pod owner|^failed to retrieve (?:job|replicaset)|^Failed to get deploy for pod|^Failed to get node topology zone|^Failed to get remote cluster|service memberships|^failed to find port for service|^failed to get service membership',
    verdict: { signature: 'destination-kube-lookup-failed' },
  },
  {
    components: ['destination'],
    template:
      "^Failed to subscribe to |^Failed to create endpoint translator|^Invalid remote discovery service|does not define port|^Error adding cluster \\{\\} to store|^Error processing 'Secret' object",
    verdict: { signature: 'destination-subscribe-failed' },
  },
  {
    components: ['destination'],
    template:
      'update queue full; aborting stream$|stream aborted$|^Error sending update|^failed to send (?:profile update|default service profile)|^Failed to send empty profile',
    verdict: { signature: 'destination-stream-dropped' },
  },
  {
    components: ['destination'],
    template:
      '^Failed to translate |^Failed to create endpoint for|^Unable to create new address|^failed to set address OpaqueProtocol|^Error computing opaque protocol|opaque ports annotation|^failed to parse (?:Pod|ExternalWorkload)Selector|^failed to create Selector',
    verdict: { signature: 'destination-endpoint-untranslatable' },
  },
  { components: ['destination'], template: '^found conflicting ', verdict: { signature: 'destination-ip-conflict' } },
  {
    components: ['destination', 'controller'],
    template: '^expected (?:cluster|trust) domain through args|^Invalid port range',
    verdict: { signature: 'config-value-ignored' },
  },
  {
    components: ['destination'],
    template:
      "DeletedFinalStateUnknown|[Tt]ombstone|^Cannot unsubscribe|^cannot unsubscribe|^Failed to remove \\S+ informer event handlers|^skipping update; nothing has changed|informer cache is out of date|^Expected \\((?:cur|old)\\) to be an EndpointSlice|^couldn't get ExternalWorkload from object|^Couldn't get key for EndpointSlice|^dropped Service \\{\\} out of update queue|^Invalid EndpointSlice provided|^failed to get (?:key for object|namespace from key)|^error processing (?:endpoints|EndpointSlice) resource, got",
    verdict: { benign: INFORMER },
  },
  {
    components: ['destination'],
    template: '^context token \\{\\} (?:is invalid|using old token format)',
    verdict: {
      benign:
        'A proxy sent a context token (its namespace and node, used for topology hints) in an old or unparsable format; the lookup is answered without those hints.',
    },
  },
  {
    components: ['destination'],
    template: '^\\{\\}$',
    verdict: {
      dynamic:
        'A ServiceProfile that could not be turned into a profile answer is logged as the bare error; the proxy keeps its default profile. service-profile-invalid names what the proxy rejects.',
    },
  },

  // ── every Go controller: start-up and shared code ──
  {
    components: GO_CONTROLLERS,
    template:
      '[Ff]ailed to initiali[sz]e (?:K8s|k8s|Kubernetes)(?: metadata)? API|^error (?:building|configuring) Kubernetes API|^Error configuring Kubernetes API client|^Failed to load kubeconfig|^failed to sync caches$|^Failed to construct k8s event recorder|^Failed to initialize Cluster Store|^Failed to start with EndpointSlices enabled|^Failed to create Linkerd CRD client',
    verdict: { signature: 'controller-kube-api-unavailable' },
  },
  {
    components: GO_CONTROLLERS,
    template:
      '^Failed to listen on|^failed to start (?:destination|identity) gRPC server|^failed to start (?:identity|webhook) admin server|^Admin server error|^Failed to initialize (?:destination server|identity service|External Workload Endpoints Controller)|stream-queue-capacity must be|needs to be true$|^Failed to parse meshed HTTP/2 client parameters|^invalid log-level|^Unknown value for .outboundTransportMode|^Invalid trust domain|^failed to initialize the webhook server',
    verdict: { signature: 'controller-server-failed' },
  },
  {
    components: GO_CONTROLLERS,
    template: 'fs watcher|^Error while watching|cert could not be read from disk|^Failed to start creds watcher|^Failed to initialized certificate',
    verdict: { signature: 'controller-cert-reload-failed' },
  },
  { components: GO_CONTROLLERS, template: 'metric|Prometheus gauge|client error counter', verdict: { benign: METRICS } },
  { components: GO_CONTROLLERS, template: '^failed to initialize tracing', verdict: { benign: TRACING } },
  {
    components: ['controller'],
    template: '^Error writing error to http response',
    verdict: { benign: "The client of a controller's HTTP API went away before the error reply was written." },
  },

  // ── identity ──
  {
    components: ['identity'],
    template: 'issuer is not ready|^Issuer certificate not ready|trust anchors|without key material|CA cert validation failure',
    verdict: { signature: 'identity-issuer-unusable' },
  },
  { components: ['identity'], template: '^authentication failed for|^invalid token provided for', verdict: { signature: 'identity-token-rejected' } },
  { components: ['identity'], template: '^Invalid (?:clock skew allowance|issuance lifetime)', verdict: { signature: 'config-value-ignored' } },
  {
    components: ['identity'],
    template: '^\\{\\}$',
    verdict: {
      dynamic:
        'Two messages built with Sprintf before logging: "Skipping issuer update as certs could not be read from disk: …" (identity-issuer-unusable) and "error validating token for …" (identity-token-rejected); both entries match their words.',
    },
  },

  // ── proxy-injector ──
  {
    components: ['proxy-injector'],
    template: "^failed to run webhook handler|^received empty payload$|^couldn't retrieve parent object",
    verdict: { signature: 'injector-webhook-failed' },
  },
  { components: ['proxy-injector'], template: 'annotation', values: ['config.linkerd.io/proxy-cpu-request'], verdict: { signature: 'config-value-ignored' } },
  {
    components: ['proxy-injector'],
    template: '^\\{\\}(?: \\(\\{\\}\\))?$',
    verdict: {
      dynamic:
        'An annotation value the injector cannot parse (proxy env, CPU/memory quantities), logged as the parse error and the annotation name; the value is ignored (config-value-ignored names the worded variants).',
    },
  },

  // ── heartbeat ──
  {
    components: ['heartbeat'],
    template: '',
    verdict: {
      benign:
        "The heartbeat CronJob only sends anonymous usage data to Linkerd's version check; its failures (no egress, no Prometheus, missing CRDs) change nothing in the mesh. Disable it with `--set disableHeartBeat=true`.",
    },
  },

  // ── node components ──
  {
    components: ['proxy-init'],
    template: '^aborting firewall configuration$|^invalid port configuration',
    verdict: { signature: 'proxy-init-iptables-failed' },
  },
  {
    components: ['proxy-init'],
    template: '^\\{\\}$',
    verdict: {
      dynamic:
        'The output of a failed `sysctl -w net.netfilter.nf_conntrack_tcp_timeout_close_wait=…` is logged as is; proxy-init-iptables-failed matches its key name.',
    },
  },
  { components: ['cni-plugin'], template: '', verdict: { signature: 'cni-plugin-failed' } },
  {
    components: ['network-validator'],
    template: '^Failed to validate networking configuration|^Unable to connect to validator|^Failed to write bytes to client',
    verdict: { signature: 'network-validator-failed' },
  },
  {
    components: ['network-validator'],
    template: '^Killed by ',
    verdict: { benign: 'The validator was stopped by a signal (pod deleted while it ran); it did not judge the network.' },
  },
  {
    components: ['network-validator'],
    template: '^\\{error\\}$',
    verdict: {
      dynamic:
        'The validation error is logged alone before the validator exits non-zero; network-validator-failed matches the worded line that accompanies it.',
    },
  },
  { components: ['cni-repair-controller'], template: '', verdict: { signature: 'cni-repair-failed' } },
];
