// The Go controllers (destination, identity, proxy-injector) as their logs say it, in logfmt
// (`time=… level=error msg="…"`) or JSON (`{"level":"error","msg":"…"}`): patterns read the message
// words only, so both layouts match. Drawn from the log call sites in data/inventory/inventory.json;
// example lines are built in the layout the controllers print, from the call site named in source.

import { L2, type KnownSignature } from '../signature.js';

const SRC = 'https://github.com/linkerd/linkerd2/blob/edge-26.8.3/';

export const CONTROLLER_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'controller-kube-api-unavailable',
    title: 'Controller cannot start its Kubernetes API client',
    family: 'controller',
    match: {
      records: ['proxy-log'],
      literals: ['Failed to ', 'failed to ', 'rror building Kubernetes', 'rror configuring Kubernetes'],
      pattern:
        '[Ff]ailed to initiali[sz]e [^:]{1,60}: (?:Post|Get|Put|Patch) \\\\?"https://|[Ff]ailed to initiali[sz]e (?:K8s|k8s|Kubernetes)(?: metadata)? API|error (?:building|configuring) Kubernetes API|Error configuring Kubernetes API client|Failed to load kubeconfig|failed to sync caches|Failed to construct k8s event recorder|Failed to initialize Cluster Store|Failed to start with EndpointSlices enabled|Failed to create Linkerd CRD client',
    },
    meaning:
      'A Linkerd controller (destination, identity, proxy-injector, heartbeat) could not build or sync its Kubernetes API client and exits; the pod crash-loops and proxies lose discovery, identity or injection.',
    causes: [
      'The API server is unreachable from the pod: a NetworkPolicy, a CNI that is not ready, or a private API endpoint the node cannot reach.',
      "RBAC: the controller's ServiceAccount lacks list/watch on a resource (a ClusterRole left behind by a partial upgrade), so the informer caches never sync.",
      'The CRDs do not match the control plane (linkerd-crds older than linkerd-control-plane), so a watched kind is missing.',
      "A very large cluster: the informer caches take longer than the controller's fixed 60 s sync timeout (linkerd2 #8245, 17,000 Deployments).",
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Read the error after the colon: `kubectl -n linkerd logs deploy/linkerd-destination -c destination --previous`, then `kubectl auth can-i list endpointslices --as=system:serviceaccount:linkerd:linkerd-destination`; run `linkerd check` for RBAC and CRD mismatches.',
      },
      { versions: 'Linkerd ≥ 2.12', action: "Upgrade linkerd-crds to the control plane's version before the control plane (`helm upgrade linkerd-crds …`)." },
    ],
    references: [`${L2}7460`, `${L2}5679`, `${L2}4399`, `${L2}8245`],
    examples: [
      {
        line: 'time="2021-12-11T16:04:33Z" level=fatal msg="Failed to initialize identity service: Post \\"https://10.32.0.1:443/apis/authorization.k8s.io/v1/selfsubjectaccessreviews\\": net/http: TLS handshake timeout"',
        source: `${L2}7460 (tensor5)`,
      },
      { line: 'time="2022-04-08T13:05:08Z" level=fatal msg="failed to sync caches"', source: `${L2}8245 (carolosf)` },
      {
        line: 'time="2026-12-04T10:00:01Z" level=fatal msg="Failed to initialize K8s API: Get \\"https://10.96.0.1:443/api?timeout=32s\\": dial tcp 10.96.0.1:443: i/o timeout"',
        source: `${SRC}controller/cmd/destination/main.go`,
        note: 'built from the call site in the logfmt layout the controllers print',
      },
      {
        line: '{"level":"fatal","msg":"failed to sync caches","time":"2026-12-04T10:00:01Z"}',
        source: `${SRC}controller/k8s/api.go`,
        note: 'built from the call site in the JSON layout',
      },
    ],
  },
  {
    id: 'controller-kube-api-lost',
    title: 'Controller lost the Kubernetes API server',
    family: 'controller',
    match: {
      records: ['proxy-log'],
      literals: ['failed to list', 'failed to watch', 'Failed to watch'],
      pattern:
        '(?:[Ff]ailed to (?:list|watch) \\*?[\\w./]{1,80}: .{0,400}(?:i/o timeout|connection refused|no route to host|TLS handshake timeout|context deadline exceeded|connection reset by peer|http2: client connection lost|EOF))',
    },
    meaning:
      "client-go's reflector in a Linkerd controller could not list or watch a kind because the API server did not answer; until it does, the controller serves what it last saw, so proxies get no new endpoints or policy.",
    causes: [
      'The API server is unreachable from the controller pod (node networking, a NetworkPolicy, an API server restart or overload).',
      'A controller that stalled after the outage and never resynced (linkerd2 #12469): the errors stop but discovery does not recover.',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Check that nothing blocks the API server from the controller, then restart it once the errors stop: `kubectl -n linkerd rollout restart deploy/linkerd-destination`.',
      },
    ],
    // Sustained, with the API server's address, it is controller-api-errors' api-unreachable finding.
    coveredBy: ['controller-api-errors'],
    references: [`${L2}12469`, `${L2}7460`],
    examples: [
      {
        line: '{"level":"info","msg":"pkg/mod/k8s.io/client-go@v0.29.0/tools/cache/reflector.go:229: failed to list *v1.Job: Get \\"https://10.96.0.1:443/apis/batch/v1/jobs?resourceVersion=803143\\": dial tcp 10.96.0.1:443: i/o timeout","time":"2024-04-19T08:16:28Z"}',
        source: `${L2}12469`,
      },
      {
        line: 'time="2026-12-04T10:00:01Z" level=error msg="k8s.io/client-go/informers/factory.go:150: Failed to watch *v1.Pod: failed to list *v1.Pod: Get \\"https://10.96.0.1:443/api/v1/pods?limit=500\\": dial tcp 10.96.0.1:443: connect: connection refused"',
        source: `${L2}7460`,
        note: 'the reflector message of client-go in the logfmt layout the controllers print',
      },
    ],
  },
  {
    id: 'controller-server-failed',
    title: 'Controller cannot serve (listen, start or configuration failed)',
    family: 'controller',
    match: {
      records: ['proxy-log'],
      literals: ['Failed to ', 'failed to ', 'dmin server error', 'nvalid ', 'stream-queue-capacity', 'needs to be true', 'outboundTransportMode'],
      // RE2 has no look-ahead: the admin-server branch spells out "anything but `http: S…`", so the
      // benign shutdown message `http: Server closed` (#12796) stays quiet.
      pattern:
        'Failed to listen on|failed to start (?:destination|identity) gRPC server|failed to start (?:identity|webhook) admin server: (?:[^h]|h(?:[^t]|t(?:[^t]|t(?:[^p]|p(?:[^:]|:(?:[^ ]| [^S]))))))|Admin server error|Failed to initialize (?:destination server|identity service|External Workload Endpoints Controller)|stream-queue-capacity must be|needs to be true|Failed to parse meshed HTTP/2 client parameters|invalid log-level|Unknown value for .outboundTransportMode|Invalid trust domain|failed to initialize the webhook server',
    },
    meaning:
      'A controller could not open its port or rejected its own configuration at start-up and exits (or serves without the named part); its pod restarts until the setting or port is fixed.',
    causes: [
      'A value set through Helm/CLI that the controller rejects (a flag shown in the message).',
      'The port is already taken (hostNetwork, or two containers on one port).',
      'Control plane and chart versions mixed after a partial upgrade, so a flag the binary does not know is passed.',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Fix the flag or value named in the message (`kubectl -n linkerd get deploy <controller> -o yaml` shows the args), then `kubectl -n linkerd rollout restart deploy/<controller>`; keep chart and image versions equal.',
      },
    ],
    references: [`${SRC}controller/cmd/destination/main.go`],
    examples: [
      {
        line: 'time="2026-12-04T10:00:01Z" level=fatal msg="Failed to listen on :8086: listen tcp :8086: bind: address already in use"',
        source: `${SRC}controller/cmd/destination/main.go`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'destination-kube-lookup-failed',
    title: 'Destination controller could not read a Kubernetes object',
    family: 'controller',
    background: true,
    match: {
      records: ['proxy-log'],
      literals: ['rror getting', 'nable to ', 'ould not ', 'Failed to ', 'failed to '],
      pattern:
        'error getting (?:endpoints|endpointSlice list|service|service profile|or creating profile publisher)|Unable to get (?:endpoints|EndpointSlices|node)|Could not fetch resource|Failed to get service [^\\s/]+/\\S+: |Error getting pod owner|failed to retrieve (?:job|replicaset)|Failed to get deploy for pod|Failed to get node topology zone|Failed to get remote cluster|service memberships|failed to find port for service|failed to get service membership|failed to lookup pod',
    },
    meaning:
      'The destination controller looked up an object (Service, EndpointSlice, pod owner, node, ServiceProfile) and the lookup failed; proxies asking about it get no or stale endpoints until the next update.',
    causes: [
      'The object was deleted or not yet in the informer cache (rollouts, job pods that finished): transient.',
      'RBAC: the destination ServiceAccount cannot get the kind (custom workload controllers, nodes for topology zones).',
      'The API server throttles or times out the controller.',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Check that the object it names exists (`kubectl get <kind> -n <namespace> <name>`) and that the destination controller may read it (`kubectl auth can-i get <kind> --as=system:serviceaccount:linkerd:linkerd-destination`); one line alone is a race with a deletion and needs nothing.',
      },
    ],
    references: [`${SRC}controller/api/destination/watcher/endpoints_watcher.go`],
    examples: [
      {
        line: 'time="2026-12-04T10:00:01Z" level=error msg="error getting endpoints: endpoints \\"web\\" not found" addr=":8086" component=endpoints-watcher',
        source: `${SRC}controller/api/destination/watcher/endpoints_watcher.go`,
        note: 'built from the call site',
      },
      {
        line: 'time="2018-09-16T14:15:52Z" level=error msg="[100.96.15.9 inventory-6bcf6f57f7-tgqjc.ms] failed to lookup pod: pod \\"inventory-6bcf6f57f7-tgqjc\\" not found"',
        source: `${L2}1659 (benjdlambert)`,
        note: 'the 2018 wording',
      },
    ],
  },
  {
    id: 'destination-subscribe-failed',
    title: "Destination controller could not answer a proxy's lookup",
    family: 'controller',
    background: true,
    match: {
      records: ['proxy-log'],
      literals: ['Failed to ', 'nvalid ', 'does not define port', 'Error '],
      pattern:
        'Failed to subscribe to |Failed to create endpoint translator|Invalid remote discovery service|does not define port|Error adding cluster \\S+ to store|Error processing .Secret. object',
    },
    meaning:
      "A proxy asked the destination controller about a name or address it could not resolve to a Service, port or remote cluster; that proxy's requests to the name fail or go to the original destination.",
    causes: [
      'The client calls a Service or port that does not exist (typo, deleted Service, port not declared on the Service).',
      'Multicluster: the Link or mirrored service for a remote-discovery service is missing.',
      'An ExternalName Service or a headless Service name used with a port the controller cannot map.',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Check what the proxy asked for: `linkerd diagnostics endpoints <service>.<namespace>.svc.cluster.local:<port>` and `kubectl -n <namespace> get svc <service> -o yaml` (is the port declared?).',
      },
    ],
    references: [`${SRC}controller/api/destination/server.go`],
    examples: [
      {
        line: 'time="2026-12-04T10:00:01Z" level=error msg="Failed to subscribe to web.emojivoto.svc.cluster.local:8080: service \\"emojivoto/web\\" not found" addr=":8086" component=server',
        source: `${SRC}controller/api/destination/server.go`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'destination-stream-dropped',
    title: "Destination controller dropped a proxy's update stream",
    family: 'controller',
    background: true,
    match: {
      records: ['proxy-log'],
      literals: ['update queue full', 'stream aborted', 'Error ', 'failed to ', 'Failed to '],
      pattern:
        'update queue full; aborting stream|stream aborted|Error sending update|failed to send (?:profile update|default service profile)|Failed to send empty profile',
    },
    meaning:
      "The destination controller could not deliver endpoint or profile updates to a proxy and closed that proxy's stream; the proxy reconnects and resubscribes.",
    causes: [
      'The proxy went away (pod terminated) while updates were queued: normal in rollouts.',
      'A burst of endpoint changes filled the per-stream queue (large Services churning).',
      'The destination controller is CPU-throttled.',
    ],
    fix: [
      {
        versions: 'all',
        action:
          "Raise the destination controller's CPU limit and its `-stream-queue-capacity` flag when the drops are sustained, and watch its load with `kubectl -n linkerd top pod -l linkerd.io/control-plane-component=destination`.",
      },
    ],
    references: [`${SRC}controller/api/destination/endpoint_translator.go`],
    examples: [
      {
        line: 'time="2026-12-04T10:00:01Z" level=error msg="endpoint update queue full; aborting stream" addr=":8086" component=endpoint-translator',
        source: `${SRC}controller/api/destination/endpoint_translator.go`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'destination-endpoint-untranslatable',
    title: 'Destination controller could not turn an endpoint into an address',
    family: 'controller',
    match: {
      records: ['proxy-log'],
      literals: ['Failed to ', 'failed to ', 'nable to ', 'Error '],
      pattern:
        'Failed to translate |Failed to create endpoint for|Unable to create new address|failed to set address OpaqueProtocol|Error computing opaque protocol|opaque ports annotation|failed to parse (?:Pod|ExternalWorkload)Selector|failed to create Selector',
    },
    meaning:
      'An endpoint or Server could not be translated for proxies (bad opaque-ports annotation, invalid Server selector, pod without an owner); proxies get that endpoint without its protocol hints or not at all.',
    causes: [
      'An invalid `config.linkerd.io/opaque-ports` annotation value on the pod or Service.',
      'A Server whose podSelector/externalWorkloadSelector is invalid.',
      'A pod that disappeared between the endpoint update and its lookup (transient).',
    ],
    fix: [
      {
        versions: 'all',
        action:
          "Check the annotation and Servers of the workload in the message: `kubectl -n <namespace> get pod,svc -o jsonpath='{..annotations.config\\.linkerd\\.io/opaque-ports}'` and `kubectl -n <namespace> get server -o yaml`.",
      },
    ],
    references: [`${SRC}controller/api/destination/watcher/opaque_ports_watcher.go`],
    examples: [
      {
        line: 'time="2026-12-04T10:00:01Z" level=error msg="failed to get emojivoto/web service opaque ports annotation: invalid port range 80-" addr=":8086" component=opaque-ports-watcher',
        source: `${SRC}controller/api/destination/watcher/opaque_ports_watcher.go`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'destination-ip-conflict',
    title: 'Two workloads claim one IP',
    family: 'controller',
    match: { records: ['proxy-log'], literals: ['found conflicting'], pattern: 'found conflicting ' },
    meaning:
      'The destination controller found more than one pod (or a pod and a Service, or a host-network endpoint) with the IP a proxy asked about; it cannot tell which is meant, so the proxy gets no metadata (identity, opaque ports) for that address.',
    causes: [
      'Completed or evicted pods still holding a recycled IP (Jobs, evictions).',
      'hostNetwork pods sharing the node IP and port.',
      'A Service cluster IP overlapping the pod network.',
    ],
    fix: [
      {
        versions: 'all',
        action: 'Find the pods on that IP: `kubectl get pods -A -o wide --field-selector status.podIP=<ip>`; delete completed/evicted pods holding it.',
      },
    ],
    references: [`${L2}5394`, `${SRC}controller/api/destination/watcher/k8s.go`],
    examples: [
      {
        line: 'time="2026-12-04T10:00:01Z" level=warning msg="found conflicting 10.42.0.17 IP on the pod network: emojivoto/web-1,jobs/cleanup-x2" addr=":8086" component=ip-watcher',
        source: `${SRC}controller/api/destination/watcher/k8s.go`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'identity-issuer-unusable',
    title: 'Identity issuer certificate missing, invalid or not ready',
    family: 'identity',
    match: {
      records: ['proxy-log'],
      literals: [
        'Skipping issuer update',
        'Certificate issuer is not ready',
        'ssuer certificate not ready',
        'Failed to ',
        'ould not ',
        'certificate without key material',
        'CA cert validation failure',
      ],
      pattern:
        'Skipping issuer update as certs could not be read|Certificate issuer is not ready|Issuer certificate not ready|Failed to read trust anchors|could not read identity trust anchors PEM|certificate without key material|CA cert validation failure|Failed to read CA from ',
    },
    meaning:
      "The identity controller has no usable issuer certificate (missing, not yet issued, not signed by the trust anchors, or expired), so it cannot sign proxies' CSRs; new proxies never get an identity and stay not ready.",
    causes: [
      'The issuer Secret (linkerd-identity-issuer) is missing or its certificate expired; cert-manager has not (re)issued it, or linkerd-identity missed the rotation and kept the old issuer (linkerd2 #15109: restart linkerd-identity).',
      'The issuer was rotated with a different trust anchor than the one in linkerd-identity-trust-roots.',
      'The trust anchors PEM is malformed (extra indentation or text in the Helm value).',
    ],
    fix: [
      {
        versions: 'all',
        action:
          "Run `linkerd check --proxy` (identity section), inspect `kubectl -n linkerd get secret linkerd-identity-issuer -o jsonpath='{.data.tls\\.crt}' | base64 -d | openssl x509 -noout -dates -issuer`, and re-issue the issuer from the current trust anchor.",
      },
    ],
    // When its line names the x509 failure (expired, not yet valid, not signed by the anchors),
    // certificate-failure names the certificate with its dates and the rotation.
    coveredBy: ['certificate-failure'],
    references: [`${L2}3414`, `${L2}3980`, `${L2}15109`, `${L2}6427`],
    examples: [
      {
        line: 'time="2019-09-10T10:52:23Z" level=fatal msg="Failed to read trust anchors: not a PEM certificate"',
        source: `${L2}3414`,
        note: "the message quoted in the issue title, in the controller's logfmt layout",
      },
      {
        line: 'time="2020-01-23T21:12:23Z" level=error msg="could not process CSR because of CA cert validation failure: x509: certificate has expired or is not yet valid"',
        source: `${L2}3980 (adleong)`,
      },
      {
        line: 'time="2019-11-22T15:25:53Z" level=fatal msg="Failed to read CA from /var/run/linkerd/identity/issuer: x509: failed to parse EC private key: asn1: structure error: tags don\'t match"',
        source: `${L2}3754`,
        note: 'the structure error after it cut short',
      },
    ],
  },
  {
    id: 'identity-token-rejected',
    title: "Identity controller rejected a proxy's ServiceAccount token",
    family: 'identity',
    match: {
      records: ['proxy-log'],
      literals: ['uthentication failed for', 'nvalid ', 'rror validating token'],
      pattern: 'authentication failed for |invalid token provided for |error validating token for ',
    },
    meaning: 'A proxy presented a ServiceAccount token that the TokenReview rejected, so it gets no certificate and its pod stays not ready.',
    causes: [
      "The token's audience does not match (projected token `identity.l5d.io` vs the API server's audiences).",
      'The identity controller may not create TokenReviews (RBAC) or the API server rejects them.',
      'A clock far off on the node, so the token is not yet valid or expired.',
    ],
    fix: [
      {
        versions: 'all',
        action:
          "Read the error after the colon and check `kubectl auth can-i create tokenreviews --as=system:serviceaccount:linkerd:linkerd-identity`; for audience errors check the API server's `--api-audiences`.",
      },
    ],
    references: [`${SRC}pkg/identity/service.go`],
    examples: [
      {
        line: 'time="2026-12-04T10:00:01Z" level=info msg="authentication failed for web.emojivoto.serviceaccount.identity.linkerd.cluster.local: token audiences [\\"identity.l5d.io\\"] is invalid for the target audiences" component=identity',
        source: `${SRC}pkg/identity/service.go`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'controller-cert-reload-failed',
    title: 'Controller cannot read or reload its TLS certificate',
    family: 'controller',
    match: {
      records: ['proxy-log'],
      literals: ['Received error', 'Error ', 'ould not ', 'Failed to '],
      pattern:
        'Received error from fs watcher|Error while watching|cert could not be read from disk|Failed to start creds watcher|Failed to initialized certificate',
    },
    meaning:
      'A controller (webhooks, identity) could not load or watch its certificate files; it keeps serving the old certificate, or exits at start-up, so webhook calls or rotations fail once the old one expires.',
    causes: [
      'The Secret mounted for the webhook or issuer is missing or malformed (externalSecret=true without the secret).',
      'cert-manager wrote a certificate the controller cannot parse (wrong key type).',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Check the mounted Secret the message names (`kubectl -n linkerd get secret <name> -o yaml`) and restart the controller after fixing it; `linkerd check` reports webhook certificate validity.',
      },
    ],
    references: [`${L2}5149`],
    examples: [
      {
        line: 'time="2026-12-04T10:00:01Z" level=warning msg="Skipping update as cert could not be read from disk: tls: failed to find any PEM data in certificate input"',
        source: `${SRC}pkg/tls/cred.go`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'injector-webhook-failed',
    title: 'Proxy injector could not handle an admission request',
    family: 'controller',
    match: {
      records: ['proxy-log'],
      literals: ['failed to ', 'received empty payload', "ouldn't "],
      pattern: "failed to run webhook handler|received empty payload|couldn't retrieve parent object",
    },
    meaning:
      "The proxy injector failed on a pod's admission request; with the default failurePolicy the pod is created without a proxy (not meshed), or with owner metadata missing.",
    causes: [
      "The injector cannot read the pod's owner (RBAC, or the owner was deleted).",
      'An annotation value the injector rejects.',
      'API server sending requests the webhook cannot decode (version skew).',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Read `kubectl -n linkerd logs deploy/linkerd-proxy-injector -c proxy-injector`, then re-create the affected pods (`kubectl -n <namespace> rollout restart deploy/<workload>`) and confirm they have a linkerd-proxy container.',
      },
    ],
    references: [`${SRC}controller/webhook/server.go`],
    examples: [
      {
        line: 'time="2026-12-04T10:00:01Z" level=error msg="failed to run webhook handler. Reason: could not unmarshal request: unexpected end of JSON input"',
        source: `${SRC}controller/webhook/server.go`,
        note: 'built from the call site',
      },
    ],
  },
  {
    id: 'config-value-ignored',
    title: 'A configuration value was ignored',
    family: 'configuration',
    match: {
      records: ['proxy-log'],
      literals: ['nrecogni', 'nvalid ', 'domain through args', 'using `all-unauthenticated`'],
      pattern:
        'unrecogni[sz]ed (?:value|duration value|proxy-\\S+ duration value)|invalid (?:duration )?value used (?:for|on) the|Invalid (?:clock skew allowance|issuance lifetime|port range)|expected (?:cluster|trust) domain through args|Ignoring invalid configuration|was not set; using `all-unauthenticated`|Invalid default policy annotation value|Invalid ports list|Invalid probe path',
    },
    meaning:
      'A setting (pod annotation, flag, proxy environment variable) had a value the component does not accept; it was ignored and the default applies, so the behaviour you configured is not in effect.',
    causes: [
      'A typo or unit missing in an annotation value (`config.linkerd.io/proxy-outbound-connect-timeout: 5` instead of `5s`).',
      'An annotation set on the wrong object (Deployment instead of the pod template).',
    ],
    fix: [
      {
        versions: 'all',
        action:
          "Fix the value named in the message on the pod template: `kubectl -n <namespace> get deploy <workload> -o jsonpath='{.spec.template.metadata.annotations}'`, then roll the workload.",
      },
    ],
    references: ['https://linkerd.io/2/reference/proxy-configuration/'],
    examples: [
      {
        line: 'time="2026-12-04T10:00:01Z" level=warning msg="unrecognized proxy-outbound-connect-timeout duration value found on pod annotation: 5"',
        source: `${SRC}pkg/inject/inject.go`,
        note: 'built from the call site',
      },
    ],
  },
];
