// Identity and certificates: certify failures, trust anchors, TLS alerts.

import { L2, type KnownSignature } from '../signature.js';

export const IDENTITY_SIGNATURES: readonly KnownSignature[] = [
  {
    // Before trust-anchor-mismatch: its `Received invalid certificate: invalid certificate: UnknownIssuer`
    // is this proxy's own certificate, not a peer's.
    id: 'identity-invalid-certificate',
    title: 'Identity controller returned a certificate the proxy refuses',
    family: 'identity',
    match: {
      records: ['proxy-log'],
      literals: ['Received invalid ceritficate', 'Received invalid certificate'],
      pattern: 'Received invalid cer(?:it|ti)ficate',
    },
    meaning:
      'The identity controller signed a certificate for this proxy, but the proxy could not validate it (the proxy spells it "ceritficate" in some releases), so the proxy never becomes ready.',
    causes: [
      '`CertNotValidYet`: the node clock is behind the issuer (clock skew), or the issuer certificate was created with a start time in the future.',
      '`UnknownIssuer`: the issuer certificate does not chain to the trust anchor the proxy was injected with.',
      '`CertExpired`: the issuer certificate expired; the identity controller keeps signing with it.',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Read the reason after "invalid certificate:". For clock skew, fix NTP on the nodes; for an issuer problem, reissue linkerd-identity-issuer from the trust anchor (`step certificate create identity.linkerd.cluster.local issuer.crt issuer.key --profile intermediate-ca --ca ca.crt --ca-key ca.key`) and restart linkerd-identity.',
      },
    ],
    coveredBy: ['identity-failure'],
    references: [`${L2}6427`, `${L2}6428`],
    examples: [
      {
        line: 'ERROR ThreadId(02) daemon:identity: linkerd2_proxy_identity::certify: Received invalid ceritficate: invalid certificate: BadDER',
        source: `${L2}7275`,
        note: 'the error of that thread (title), in the proxy line layout of #6427; the CertNotValidYet line of #6427 is now cert-not-valid-yet',
      },
    ],
  },
  {
    id: 'trust-anchor-mismatch',
    title: 'Peer certificate from an unknown issuer (trust anchor mismatch)',
    family: 'identity',
    // rustls wrote `invalid certificate: UnknownIssuer` (≤ 0.19, Linkerd ≤ 2.10), `invalid peer certificate
    // contents: invalid peer certificate: UnknownIssuer` (0.20), `invalid peer certificate: UnknownIssuer` (0.21+).
    match: { records: ['proxy-log'], literals: ['UnknownIssuer'], pattern: 'invalid (?:peer )?certificate.*UnknownIssuer' },
    meaning:
      'The proxy rejected a TLS peer because its certificate chain does not lead to the trust anchor this proxy was given. When the peer is the identity or destination controller, no meshed connection can be set up.',
    causes: [
      'The trust anchor (identityTrustAnchorsPEM / linkerd-identity-trust-roots) was rotated or reinstalled without re-injecting the workloads, so old and new proxies trust different roots.',
      'The issuer certificate (linkerd-identity-issuer) is not signed by the configured trust anchor, e.g. cert-manager issued it from another CA.',
      'Two clusters or two control planes with different roots talk to each other (multicluster without a shared anchor).',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Compare the anchor in the linkerd-identity-trust-roots ConfigMap with the root of the linkerd-identity-issuer secret (`linkerd check --proxy` reports the mismatch); make the issuer chain to the anchor, then restart the control plane and roll the workloads so every proxy gets the same anchor.',
      },
      {
        versions: 'Linkerd ≥ 2.12',
        action:
          'During a rotation, ship both the old and the new anchor in the bundle until every proxy was restarted (see the "Rotating the trust anchor" task).',
      },
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
    id: 'identity-request-not-dispatched',
    title: 'Identity request could not be dispatched in a timely fashion',
    family: 'identity',
    match: { records: ['proxy-log'], literals: ['dispatched in a timely'], pattern: 'could not be dispatched in a timely' },
    meaning:
      'The proxy asked for its certificate but the request sat in the client queue past the dispatch timeout: no connection to the identity controller could be made, so the proxy stays unready.',
    causes: [
      'The identity controller is unreachable from the pod: NetworkPolicy, a private cluster API/webhook setup, or a CNI problem on the node.',
      'The identity controller is not running or not ready (check the linkerd-identity pod and its proxy).',
      'DNS for linkerd-identity(-headless) fails from the pod (custom cluster domain, CoreDNS down).',
    ],
    fix: [
      {
        versions: '≤ stable-2.9',
        action:
          'Check `kubectl -n linkerd get pods`, then connectivity from the failing pod to linkerd-identity:8080; on private AKS/GKE clusters open the control-plane ports between node pools.',
      },
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
    meaning:
      'The proxy could not get a certificate from the identity controller. Until it does, it is not ready, the pod fails its readiness probe and meshed traffic to and from it fails.',
    causes: [
      'The identity controller is down or unreachable ("controller linkerd-identity-headless…: service in fail-fast" in the error).',
      'The service-account token cannot be validated (projected token audience, API server unreachable from linkerd-identity).',
      'Certificate problems in the control plane (expired issuer, trust anchor mismatch).',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Run `linkerd check`; look at the linkerd-identity logs for the same pod name; fix reachability from the pod to linkerd-identity-headless:8080 (NetworkPolicy, node-pool security groups).',
      },
      {
        versions: 'Linkerd ≥ 2.14 on EKS/AKS with several node groups',
        action: 'Allow pod-to-pod traffic on 8080/8086/8090 between node groups; the control-plane pods may live in another group.',
      },
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
    causes: [
      'See identity-certify-failed: the identity controller is unreachable, not ready, or refuses the request.',
      'The control plane itself is still starting (first install, node reboot).',
    ],
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
    meaning:
      'A client opened a TLS connection to this proxy before the proxy had its own certificate, so the proxy closed it. Expected for a few seconds after start; for longer, the proxy is not getting certified.',
    causes: [
      'Identity is slow to issue the certificate (identity controller overloaded, slow DNS for linkerd-identity-headless).',
      'Probes or scrapers reach the admin port over TLS while the proxy is starting.',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Check the identity controller and DNS from the pod if it lasts more than the first seconds (treat it as identity-certify-failed); a few lines at start-up are expected.',
      },
    ],
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
    causes: [
      'The proxy has not been certified yet (see tls-no-server-certificate and identity-certify-failed).',
      'The client asked for a server name this proxy does not serve (wrong SNI after pod IP reuse).',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Look at the identity lines of the same pod; if identity is fine, check which client connects (peer.addr) and whether it targets a stale pod IP.',
      },
    ],
    coveredBy: ['identity-failure'],
    references: [`${L2}5662`, `${L2}5932`, `${L2}9812`],
    examples: [
      { line: '[    23.609332s]  WARN ThreadId(01) server{port=9995}: rustls::session: Sending fatal alert AccessDenied    ', source: `${L2}5932 (cortopy)` },
    ],
  },
  {
    id: 'tls-bad-certificate',
    title: 'Proxy sent TLS alert BadCertificate',
    family: 'identity',
    match: { records: ['proxy-log'], literals: ['Sending fatal alert BadCertificate'], pattern: 'Sending fatal alert BadCertificate' },
    meaning:
      'The proxy rejected the certificate a TLS peer presented. Next to identity or destination connections it means the control plane certificates do not validate.',
    causes: [
      'Trust anchor mismatch between this proxy and the peer (see trust-anchor-mismatch).',
      'Expired or not-yet-valid issuer or peer certificate (clock skew).',
    ],
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
  {
    id: 'identity-certified-without-name',
    title: 'Identity issued a certificate for a name without namespace or service account',
    family: 'identity',
    match: {
      records: ['proxy-log'],
      literals: ['certifying '],
      pattern: 'certifying (?:[a-z0-9-]{0,253}\\.\\.|\\.)[a-z0-9.-]{0,253}identity\\.',
    },
    meaning:
      "The identity controller signs each proxy's certificate for `<service account>.<namespace>.serviceaccount.identity.<ns>.<trust domain>`; a name with an empty part means the identity it derived from the proxy's token had no service account or namespace, so peers reject that proxy's certificate (bad certificate).",
    causes: [
      'The trust anchor and the issuer certificate share one subject name, so the chain is misread and the identities issued under it are malformed (linkerd2 #5350).',
      'A token that does not name its namespace and service account (a projected token with another audience).',
    ],
    fix: [
      {
        versions: 'all',
        action:
          "Compare the subjects: `openssl x509 -noout -subject` on the trust anchor and on the issuer (`kubectl -n linkerd get secret linkerd-identity-issuer -o jsonpath='{.data.crt\\.pem}' | base64 -d`); if they are the same, re-issue the issuer with its own name (`identity.linkerd.cluster.local`) from the anchor (`root.linkerd.cluster.local`).",
      },
    ],
    references: [`${L2}5350`, 'https://linkerd.io/2-edge/tasks/generate-certificates/'],
    examples: [
      {
        line: 'time="2020-12-27T23:49:30Z" level=info msg="certifying default..identity.linkerd.cluster.local until 2020-12-28 23:49:50 +0000 UTC"',
        source: `${L2}5350`,
      },
    ],
  },
];
