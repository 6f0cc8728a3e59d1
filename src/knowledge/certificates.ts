// Certificates as one concept, whatever the input says about them: the Go x509 errors controllers
// and the API server print, the rustls / webpki errors of the proxy, and the lines `linkerd check`
// prints (linkerd2 pkg/issuercerts: `not valid anymore. Expired on …`, `will expire on …`, `not
// valid before: …`). classifyCertificateText() tells which failure a text names and when the
// certificate expired or starts; certificateOf() adds which certificate it is, from the names the
// text holds (a webhook's name, a CN, a Service's DNS name) or from what the caller knows (a check's
// anchor). rotation() and restartAfter() say how to replace it for the setup the evidence shows.
// Self-contained (no parser or rule imports) so any reader of failure text can call it.

/** Which certificate of a Linkerd mesh. */
export type CertificateRole =
  | 'trust-anchor'
  | 'identity-issuer'
  | 'proxy-leaf'
  | 'proxy-injector-webhook'
  | 'sp-validator-webhook'
  | 'policy-validator-webhook'
  | 'tap-apiservice'
  | 'aggregator-client'
  | 'multicluster-gateway'
  | 'webhook'
  | 'unknown';

/** What is wrong with it. */
export type CertificateProblem =
  | 'expired'
  | 'not-yet-valid'
  | 'expiring-soon'
  | 'unknown-authority'
  | 'bad-signature'
  | 'name-mismatch'
  | 'unsupported-algorithm'
  | 'anchors-mismatch'
  | 'bad-certificate';

export interface CertificateFinding {
  role: CertificateRole;
  problem: CertificateProblem;
  /** When it expired or expires (ISO), from the text. */
  notAfter: string | null;
  /** When it starts to be valid (ISO), for a certificate not valid yet. */
  notBefore: string | null;
  /** The clock of the machine that judged it (`current time … is after …`), ISO. */
  currentTime: string | null;
  /** A name the text gives the certificate (CN, DNS name, webhook). */
  name: string | null;
  /** True when the dates say a clock is wrong rather than the certificate (not valid yet by minutes). */
  clockSkew: boolean;
}

const ISO = /\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?/;
/** Go: `x509: certificate has expired or is not yet valid: current time 2021-03-05T08:14:00Z is after 2021-03-04T08:14:00Z`. */
const GO_VALIDITY = /current time (\S+) is (after|before) (\S+)/;
const EXPIRED_ON = /(?:Expired on|expired on|has expired on) (\S+)/;
const WILL_EXPIRE = /will expire on (\S+)/;
const NOT_BEFORE = /not valid before:? (\S+)/;
/** `trying to verify candidate authority certificate "linkerd-tap.linkerd.svc"`, `certificate is valid for a, b, not c`. */
const CANDIDATE = /candidate authority certificate "([^"]{1,200})"/;
const VALID_FOR = 'certificate is valid for ';

/** The host a name-mismatch error was checked for: `certificate is valid for a, b, not c` → c. Plain string search: a regex over the list is quadratic on a repeated prefix. */
function validForHost(text: string): string | null {
  const at = text.indexOf(VALID_FOR);
  if (at < 0) return null;
  const end = text.indexOf('\n', at);
  const line = text.slice(at + VALID_FOR.length, end < 0 ? undefined : end);
  const not = line.lastIndexOf(', not ');
  if (not < 0) return null;
  const host = line.slice(not + 6).split(/[\s,]/)[0] ?? '';
  return host === '' ? null : host.slice(0, 200);
}
const WEBHOOK = /webhook "([\w.-]{1,200})"/;

const ROLE_BY_NAME: readonly [string, CertificateRole][] = [
  ['proxy-injector', 'proxy-injector-webhook'],
  ['sp-validator', 'sp-validator-webhook'],
  ['policy-validator', 'policy-validator-webhook'],
  ['linkerd-tap', 'tap-apiservice'],
  ['tap.linkerd-viz', 'tap-apiservice'],
  ['tap.linkerd.io', 'tap-apiservice'],
  ['linkerd-gateway', 'multicluster-gateway'],
  ['identity.linkerd', 'trust-anchor'],
  ['root.linkerd', 'trust-anchor'],
];

/** The role a certificate's name says (`linkerd-proxy-injector.linkerd.svc`, a webhook's name), or null. */
export function roleOfName(name: string): CertificateRole | null {
  const n = name.toLowerCase();
  for (const [part, role] of ROLE_BY_NAME) if (n.includes(part)) return role;
  return null;
}

function iso(text: string | undefined): string | null {
  if (text === undefined) return null;
  const m = ISO.exec(text);
  if (!m) return null;
  const ms = Date.parse(m[0].replace(' ', 'T'));
  return Number.isNaN(ms) ? m[0] : new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** Minutes between two ISO times, or null. */
function minutesBetween(a: string | null, b: string | null): number | null {
  if (a === null || b === null) return null;
  const x = Date.parse(a);
  const y = Date.parse(b);
  return Number.isNaN(x) || Number.isNaN(y) ? null : Math.abs(x - y) / 60_000;
}

/**
 * The certificate failure a text names, or null when it names none. `role` is what the caller
 * knows of the certificate (a check's anchor says which); otherwise it comes from names in the text.
 * Linear in the text; only the first 4,000 characters are read.
 */
export function classifyCertificateText(raw: string, role: CertificateRole | null = null): CertificateFinding | null {
  const text = raw.length > 4000 ? raw.slice(0, 4000) : raw;
  const lower = text.toLowerCase();
  let problem: CertificateProblem | null = null;
  let notAfter: string | null = null;
  let notBefore: string | null = null;
  let currentTime: string | null = null;

  const go = GO_VALIDITY.exec(text);
  if (go) {
    currentTime = iso(go[1]);
    if (go[2] === 'after') {
      problem = 'expired';
      notAfter = iso(go[3]);
    } else {
      problem = 'not-yet-valid';
      notBefore = iso(go[3]);
    }
  } else if (EXPIRED_ON.test(text) || lower.includes('not valid anymore')) {
    problem = 'expired';
    notAfter = iso(EXPIRED_ON.exec(text)?.[1]);
  } else if (NOT_BEFORE.test(text)) {
    problem = 'not-yet-valid';
    notBefore = iso(NOT_BEFORE.exec(text)?.[1]);
  } else if (WILL_EXPIRE.test(text) || lower.includes('expiring soon')) {
    problem = 'expiring-soon';
    notAfter = iso(WILL_EXPIRE.exec(text)?.[1]);
  } else if (
    lower.includes('certexpired') ||
    lower.includes('certificate has expired') ||
    lower.includes('invalidcertificate(expired)') ||
    lower.includes('certificate: expired') ||
    lower.includes('certificate expired')
  ) {
    problem = 'expired';
  } else if (lower.includes('certnotvalidyet') || lower.includes('notvalidyet') || lower.includes('not yet valid')) {
    problem = 'not-yet-valid';
  } else if (
    lower.includes('signed by unknown authority') ||
    lower.includes('unknownissuer') ||
    lower.includes('unknown issuer') ||
    lower.includes('unknown ca') ||
    lower.includes('not issued by the trust') ||
    lower.includes('issued by the trust anchor')
  ) {
    problem = 'unknown-authority';
  } else if (lower.includes('badsignature') || lower.includes('verification failure') || lower.includes('verification error')) {
    problem = 'bad-signature';
  } else if (lower.includes('certnotvalidforname') || lower.includes('notvalidforname') || validForHost(text) !== null) {
    problem = 'name-mismatch';
  } else if (lower.includes('must use p-256') || lower.includes('supported crypto')) {
    problem = 'unsupported-algorithm';
  } else if (lower.includes('does not match ca.crt') || lower.includes('do not share') || lower.includes('trust anchors do not match')) {
    problem = 'anchors-mismatch';
  } else if (lower.includes('tls: bad certificate') || lower.includes('invalid peer certificate') || lower.includes('invalidcertificate')) {
    problem = 'bad-certificate';
  }
  if (problem === null) return null;

  const name = CANDIDATE.exec(text)?.[1] ?? WEBHOOK.exec(text)?.[1] ?? validForHost(text);
  // `invalid issuer credentials: x509: … candidate authority certificate "identity.linkerd…"`: the
  // issuer is what failed to verify, the name is the root it was checked against.
  // Identity's `could not process CSR because of CA cert validation failure` is about the issuer it signs with.
  const issuer =
    lower.includes('issuer credentials') || lower.includes('issuer cert') || lower.includes('issuer certificate') || lower.includes('ca cert validation')
      ? 'identity-issuer'
      : null;
  const resolved = role ?? issuer ?? (name !== null ? roleOfName(name) : null) ?? roleOfName(text.slice(0, 1000)) ?? 'unknown';
  const skewMinutes = problem === 'not-yet-valid' ? minutesBetween(currentTime, notBefore) : null;
  return {
    role: resolved,
    problem,
    notAfter,
    notBefore,
    currentTime,
    name,
    clockSkew: problem === 'not-yet-valid' && (skewMinutes === null || skewMinutes < 24 * 60),
  };
}

const LABELS: Readonly<Record<CertificateRole, string>> = {
  'trust-anchor': 'the trust anchor (root certificate)',
  'identity-issuer': 'the identity issuer certificate',
  'proxy-leaf': "a proxy's workload certificate",
  'proxy-injector-webhook': "the proxy-injector webhook's serving certificate",
  'sp-validator-webhook': "the sp-validator webhook's serving certificate",
  'policy-validator-webhook': "the policy-validator webhook's serving certificate",
  'tap-apiservice': "the tap API server's serving certificate",
  'aggregator-client': "the API server's front-proxy client certificate",
  'multicluster-gateway': "the multicluster gateway's certificate",
  webhook: "a Linkerd webhook's serving certificate",
  unknown: 'a certificate',
};

/** Who checks the certificate, for a sentence saying who does not trust it. */
const CLIENTS: Readonly<Record<CertificateRole, string>> = {
  'trust-anchor': 'the proxies',
  'identity-issuer': "Linkerd's identity",
  'proxy-leaf': 'the peer proxy',
  'proxy-injector-webhook': 'the Kubernetes API server',
  'sp-validator-webhook': 'the Kubernetes API server',
  'policy-validator-webhook': 'the Kubernetes API server',
  'tap-apiservice': "the Kubernetes API server's aggregation layer",
  'aggregator-client': 'the tap server',
  'multicluster-gateway': "the source cluster's proxies",
  webhook: 'the Kubernetes API server',
  unknown: 'the client',
};

/**
 * The name findings about a certificate share as their target, whatever input told them: the
 * webhook's name (as the API server's `failed calling webhook "…"` and controller-api-errors say
 * it), the APIService, the Secret or ConfigMap that holds the certificate. Findings with one target
 * are one incident (src/incident/correlate.ts).
 */
export const CERTIFICATE_TARGETS: Readonly<Record<CertificateRole, string | null>> = {
  'trust-anchor': 'linkerd-identity-trust-roots',
  'identity-issuer': 'linkerd-identity-issuer',
  'proxy-leaf': null,
  'proxy-injector-webhook': 'linkerd-proxy-injector.linkerd.io',
  'sp-validator-webhook': 'linkerd-sp-validator.linkerd.io',
  'policy-validator-webhook': 'linkerd-policy-validator.linkerd.io',
  'tap-apiservice': 'v1alpha1.tap.linkerd.io',
  'aggregator-client': 'v1alpha1.tap.linkerd.io',
  'multicluster-gateway': 'linkerd-gateway',
  webhook: null,
  unknown: null,
};

/** The controller a certificate belongs to, for findings that share a controller to be one incident. */
export const CERTIFICATE_CONTROLLERS: Readonly<Partial<Record<CertificateRole, 'identity' | 'policy' | 'destination'>>> = {
  'trust-anchor': 'identity',
  'identity-issuer': 'identity',
  'policy-validator-webhook': 'policy',
  'sp-validator-webhook': 'destination',
};

/** `the trust anchor (root certificate)`, for a finding's sentence. */
export function certificateLabel(role: CertificateRole): string {
  return LABELS[role];
}

/** What a problem means in a sentence about `label`, with its date when known. */
export function describeCertificate(c: CertificateFinding): string {
  const label = certificateLabel(c.role);
  const day = (d: string | null) => (d ? ` on ${d}` : '');
  switch (c.problem) {
    case 'expired':
      return `${label} expired${day(c.notAfter)}${c.currentTime ? ` (the clock read ${c.currentTime})` : ''}`;
    case 'not-yet-valid':
      return c.clockSkew
        ? `${label} is not valid yet${c.notBefore ? ` (valid from ${c.notBefore}${c.currentTime ? `, the clock read ${c.currentTime}` : ''})` : ''}: clock skew between the machine that issued it and the one that checks it`
        : `${label} is not valid yet${c.notBefore ? `: it starts on ${c.notBefore}` : ''}`;
    case 'expiring-soon':
      return `${label} expires soon${day(c.notAfter)}`;
    case 'unknown-authority':
      if (c.role === 'identity-issuer')
        return `${label} is not signed by the trust anchors given${c.name ? ` (checked against ${c.name})` : ''}: a new trust anchor must be a bundle that contains the current root as well until the issuer is re-issued from the new one`;
      return `${CLIENTS[c.role]} does not trust ${label}: the CA bundle it holds and the certificate are out of sync${c.name ? ` (${c.name})` : ''}`;
    case 'bad-signature':
      return `${CLIENTS[c.role]} cannot verify ${label}: the CA bundle and the certificate are out of sync`;
    case 'name-mismatch':
      return `${label} does not name the host it is served for${c.name ? ` (${c.name})` : ''}`;
    case 'unsupported-algorithm':
      return `${label} does not use ECDSA P-256, the only key type Linkerd's identity accepts`;
    case 'anchors-mismatch':
      return `${label} differs between the places that must hold the same bundle`;
    case 'bad-certificate':
      return `${label} was rejected in the TLS handshake`;
  }
}

/** How the certificates are managed, as far as the evidence shows. */
export type CertificateSetup = 'cert-manager' | 'helm' | 'cli' | 'unknown';

/** The setup a run's text shows: cert-manager resources, Helm commands or values, `linkerd upgrade`/`install`. */
export function setupOf(text: string): CertificateSetup {
  const t = text.toLowerCase();
  if (t.includes('cert-manager') || t.includes('kubernetes.io/tls') || t.includes('external-issuer') || t.includes('externalca')) return 'cert-manager';
  if (t.includes('helm ') || t.includes('identitytrustanchorspem') || t.includes('--set-file')) return 'helm';
  if (t.includes('linkerd upgrade') || t.includes('linkerd install')) return 'cli';
  return 'unknown';
}

const STEP_ROOT = 'step certificate create root.linkerd.cluster.local ca.crt ca.key --profile root-ca --no-password --insecure --not-after 87600h';
const STEP_ISSUER =
  'step certificate create identity.linkerd.cluster.local issuer.crt issuer.key --profile intermediate-ca --not-after 8760h --no-password --insecure --ca ca.crt --ca-key ca.key';
const APPLY_CLI =
  'linkerd upgrade --identity-trust-anchors-file=ca.crt --identity-issuer-certificate-file=issuer.crt --identity-issuer-key-file=issuer.key | kubectl apply -f -';
const APPLY_HELM =
  'helm upgrade linkerd-control-plane linkerd/linkerd-control-plane -n linkerd --reuse-values --set-file identityTrustAnchorsPEM=ca.crt --set-file identity.issuer.tls.crtPEM=issuer.crt --set-file identity.issuer.tls.keyPEM=issuer.key';

/** The procedure that replaces the certificate, for the setup the evidence shows (both CLI and Helm when it shows none). */
export function rotation(c: Pick<CertificateFinding, 'role' | 'problem'>, setup: CertificateSetup): string {
  const apply = setup === 'helm' ? APPLY_HELM : setup === 'cli' ? APPLY_CLI : `${APPLY_CLI} (Helm: ${APPLY_HELM})`;
  switch (c.role) {
    case 'trust-anchor':
      if (setup === 'cert-manager')
        return 'Renew the root in the issuer cert-manager signs from (the trust-anchor Secret behind the linkerd-trust-anchor Issuer), then let cert-manager re-issue linkerd-identity-issuer (kubectl -n linkerd describe certificate linkerd-identity-issuer must show Ready) and update the trust bundle (linkerd-identity-trust-roots ConfigMap) with the new root';
      if (c.problem === 'expired')
        return `Replace both the trust anchor and the issuer at once (an expired root cannot be bundled): ${STEP_ROOT}; ${STEP_ISSUER}; ${apply}`;
      return `Rotate without downtime: create a new root (${STEP_ROOT.replace('ca.crt ca.key', 'ca-new.crt ca-new.key')}), bundle it with the current one (step certificate bundle ca-new.crt ca-old.crt bundle.crt) and apply the bundle as the trust anchors, restart every meshed workload, then issue a new issuer from the new root and apply it, and finally remove the old root from the bundle`;
    case 'identity-issuer':
      if (setup === 'cert-manager')
        return 'Make cert-manager re-issue it: kubectl -n linkerd describe certificate linkerd-identity-issuer (it must be Ready; fix the Issuer it names), or cmctl renew -n linkerd linkerd-identity-issuer';
      return `Issue a new issuer from the current trust anchor (${STEP_ISSUER}) and apply it: ${apply.replace(/--identity-trust-anchors-file=ca\.crt |--set-file identityTrustAnchorsPEM=ca\.crt /g, '')}`;
    case 'proxy-injector-webhook':
    case 'sp-validator-webhook':
    case 'policy-validator-webhook':
    case 'webhook':
      if (setup === 'cert-manager')
        return 'Make cert-manager re-issue the webhook certificates (kubectl -n linkerd get certificates: each must be Ready) and check that cainjector patched the webhook configurations';
      return 'Regenerate the webhook certificates and their CA bundles: linkerd upgrade | kubectl apply -f - (Helm: helm upgrade linkerd-control-plane linkerd/linkerd-control-plane -n linkerd --reuse-values, which issues new ones)';
    case 'tap-apiservice':
      if (setup === 'cert-manager')
        return 'Make cert-manager re-issue tap-k8s-tls (kubectl -n linkerd-viz get certificates) and check that the tap APIService caBundle was patched';
      return "Regenerate tap's certificate and the APIService's caBundle together: linkerd viz install | kubectl apply -f - (Helm: helm upgrade linkerd-viz linkerd/linkerd-viz -n linkerd-viz --reuse-values)";
    case 'aggregator-client':
      return "Nothing to re-issue on Linkerd's side: the API server's front-proxy CA (requestheader-client-ca-file in the kube-system/extension-apiserver-authentication ConfigMap) changed, and tap reads it only at start";
    case 'proxy-leaf':
      return "A proxy renews its certificate from identity every day: restore the issuer (linkerd check's linkerd-identity section) and identity's reachability; the proxy then gets a new one";
    case 'multicluster-gateway':
      return 'Give both clusters the same trust anchor (the issuer of each cluster signed by it), then re-link: linkerd --context=<target> multicluster link --cluster-name <target> | kubectl --context=<source> apply -f -';
    case 'unknown':
      return "Find which certificate it is (openssl s_client -connect <host:port> -showcerts, or step certificate inspect on the Secret's tls.crt) and renew it from its CA";
  }
}

/** What has to restart after the rotation for the new certificate to be used. */
export function restartAfter(role: CertificateRole): string {
  switch (role) {
    case 'trust-anchor':
    case 'identity-issuer':
      return 'kubectl -n linkerd rollout restart deploy (identity reads the new issuer; the other controllers get new certificates), then restart every meshed workload (kubectl rollout restart deploy -n <namespace>) so each proxy loads the new trust bundle';
    case 'proxy-injector-webhook':
      return 'kubectl -n linkerd rollout restart deploy/linkerd-proxy-injector';
    case 'sp-validator-webhook':
    case 'policy-validator-webhook':
      return 'kubectl -n linkerd rollout restart deploy/linkerd-destination (the sp-validator and policy-validator containers serve from it)';
    case 'webhook':
      return 'kubectl -n linkerd rollout restart deploy/linkerd-proxy-injector deploy/linkerd-destination';
    case 'tap-apiservice':
    case 'aggregator-client':
      return 'kubectl -n linkerd-viz rollout restart deploy/tap (older releases: deploy/linkerd-tap in linkerd)';
    case 'proxy-leaf':
      return 'kubectl rollout restart of the workload whose proxy holds it';
    case 'multicluster-gateway':
      return 'kubectl -n linkerd-multicluster rollout restart deploy/linkerd-gateway on the target, and deploy/linkerd-service-mirror-<target> on the source';
    case 'unknown':
      return 'restart the pods that serve it';
  }
}
