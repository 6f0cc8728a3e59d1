// Causes of certificate failures, whatever input showed them (controller logs, events, the API
// server's answers pasted from kubectl or Helm, a line no parser read): which certificate is not
// trusted, and why, in the order the linkerd2 threads and linkerd.io pages below establish them.
// The certificate-failure rule looks an entry up by the situation classifyCertificateText() and
// the component that logged the line give (src/knowledge/certificates.ts). Tells are tested on the
// matched lines (`line`) or on facts the rule derives from the run (`context`).

import { DOCS, L2_ISSUE, L2_PR, type FailureKnowledge } from './types.js';

/** Facts the certificate-failure rule derives from a run, for `context` tells. */
export const CERTIFICATE_CONTEXTS = {
  /** More than one replica of the component that serves the certificate logged the failure. */
  severalReplicas: 'several-replicas',
  /** The lines come from an upgrade: Helm's `cannot patch`/`UPGRADE FAILED`, `linkerd upgrade`. */
  upgrade: 'upgrade',
  /** cert-manager manages the certificate (its resources or annotations are named). */
  certManager: 'cert-manager',
} as const;

const WEBHOOK_ROTATION = `${DOCS}tasks/automatically-rotating-webhook-tls-credentials/`;
const REPLACING_EXPIRED = `${DOCS}tasks/replacing_expired_certificates/`;
const MANUAL_ROTATION = `${DOCS}tasks/manually-rotating-control-plane-tls-credentials/`;

export const CERTIFICATE_KNOWLEDGE: readonly FailureKnowledge[] = [
  {
    signature: 'certificate:webhook-untrusted',
    failure: "The Kubernetes API server does not trust a Linkerd admission webhook's serving certificate",
    causes: [
      {
        id: 'webhook-certificate-not-reloaded',
        title: 'The {webhook} webhook still serves its old certificate: an upgrade issued a new one and {deployment} was not restarted',
        why: 'Each `linkerd upgrade` or Helm upgrade without external webhook certificates generates a new serving certificate and caBundle; the API server switches to the new caBundle at once, but the pod serving the webhook keeps the certificate it loaded at start until it restarts (the policy controller does not reload it; the checksum annotation that forces the restart was missing from 2.12 until edge-23.10.2).',
        action: 'kubectl -n {namespace} rollout restart deploy/{deployment}',
        tells: [
          { says: 'the failures come from an upgrade (Helm `cannot patch`, `UPGRADE FAILED`, `linkerd upgrade`)', context: 'upgrade' },
          {
            says: "Go names the certificate's own name as the candidate authority: a newly generated self-signed CA of the same name",
            line: 'parent certificate cannot sign this kind of certificate',
          },
        ],
        sources: [
          { url: `${L2_ISSUE}6940`, versions: 'edge-21.9 – 2.11.0 (fixed by #6954)' },
          { url: `${L2_PR}11440`, versions: '2.12 – edge-23.10.1 (fixed in edge-23.10.2)' },
        ],
      },
      {
        id: 'webhook-cert-manager-not-reloaded',
        title: 'cert-manager rotated the {webhook} webhook certificate, but {deployment} still serves the previous one',
        why: 'With cert-manager (externalSecret with injectCaFrom), the Secret and the caBundle change together on renewal; a policy controller older than the fix keeps the certificate it read at start, so admission fails from the first renewal on.',
        action: 'kubectl -n {namespace} rollout restart deploy/{deployment}, then upgrade to a release that reloads the webhook certificate',
        tells: [{ says: 'cert-manager manages the webhook certificates', context: 'cert-manager' }],
        sources: [
          { url: `${L2_ISSUE}7519`, versions: '2.11' },
          { url: WEBHOOK_ROTATION, versions: 'all' },
        ],
      },
      {
        id: 'webhook-cabundle-not-injected',
        title: "The {webhook} webhook's caBundle was not set from the CA that signed its certificate",
        why: "When the webhook certificates are external (externalSecret), the caBundle must be given too: by Helm's caBundle value or by cert-manager's CA injector through the injectCaFrom annotation; an empty or stale caBundle makes every admission call fail verification.",
        action:
          "kubectl get validatingwebhookconfiguration,mutatingwebhookconfiguration -o yaml | grep -B2 -A2 caBundle, and compare it with the Secret's ca.crt; with cert-manager, set {webhookValue}.injectCaFrom (or caBundle) and re-apply",
        tells: [{ says: 'the certificates are external (externalSecret, injectCaFrom, caBundle named)', line: 'externalSecret|injectCaFrom|caBundle' }],
        sources: [{ url: WEBHOOK_ROTATION, versions: 'all' }],
      },
    ],
  },
  {
    signature: 'certificate:tap-untrusted',
    failure: "The Kubernetes API server's aggregation layer does not trust the tap server's certificate",
    causes: [
      {
        id: 'tap-certificate-and-apiservice-differ',
        title: "The API server does not trust tap's certificate: the v1alpha1.tap.linkerd.io APIService's caBundle and the certificate tap serves differ",
        why: "tap, top and the dashboard reach the tap server through the API server, which checks tap's certificate against the APIService's caBundle; a certificate re-issued without the APIService (a re-render by an upgrade or a GitOps sync, or replicas holding different certificates) makes some or all calls fail, and restarting tap only helps while the one it loads matches.",
        action:
          "kubectl get apiservice v1alpha1.tap.linkerd.io -o jsonpath='{.spec.caBundle}' | base64 -d | openssl x509 -noout -subject -enddate, compare it with the certificate of the tap-k8s-tls Secret, then re-apply the manifests that render both (linkerd viz install; linkerd upgrade before 2.10) and restart tap: kubectl -n {namespace} rollout restart deploy/{deployment}",
        tells: [
          { says: 'more than one tap replica logged the rejected handshakes', context: 'several-replicas' },
          { says: 'the failures come from an upgrade', context: 'upgrade' },
        ],
        sources: [
          { url: `${L2_ISSUE}3497`, versions: 'stable-2.5' },
          { url: `${L2_ISSUE}4988`, versions: '2.8' },
        ],
      },
      {
        id: 'tap-secret-replaced',
        title: "tap's certificate was replaced without the APIService's caBundle (tap-k8s-tls created by hand or by cert-manager without injectCaFrom)",
        why: 'The Helm chart generates tap-k8s-tls and the APIService caBundle together; a Secret created by hand, or by cert-manager without tap.injectCaFrom, leaves the API server checking against a CA that did not sign it.',
        action:
          'Let the chart generate tap-k8s-tls, or with cert-manager set tap.externalSecret=true and tap.injectCaFrom=<namespace>/<certificate> and re-apply viz',
        tells: [{ says: 'the lines name tap-k8s-tls, cert-manager or injectCaFrom', line: 'tap-k8s-tls|cert-manager|injectCaFrom' }],
        sources: [
          { url: `${L2_ISSUE}9356`, versions: '2.12' },
          { url: `${L2_ISSUE}14059`, versions: '2.14+' },
        ],
      },
    ],
  },
  {
    signature: 'certificate:aggregator-client-untrusted',
    failure: "The tap server does not trust the client certificate the API server's aggregation layer presents",
    causes: [
      {
        id: 'front-proxy-ca-rotated',
        title: "The API server's front-proxy CA was rotated and tap still trusts the old one",
        why: 'The API server proxies tap calls with its front-proxy client certificate; tap reads the CA to verify it (requestheader-client-ca-file in kube-system/extension-apiserver-authentication) at start and does not watch it, so after a rotation every call fails until tap restarts.',
        action: 'kubectl -n {namespace} rollout restart deploy/{deployment}',
        tells: [{ says: 'the candidate authority is the aggregator CA (front-proxy-ca, agg-ca)', line: 'front-proxy|agg-ca|requestheader|aggregator' }],
        sources: [
          { url: `${L2_ISSUE}13196`, versions: '2.14' },
          { url: `${L2_ISSUE}3754`, versions: '2.6' },
        ],
      },
    ],
  },
  {
    signature: 'certificate:expired',
    failure: 'A Linkerd certificate expired',
    causes: [
      {
        id: 'certificate-not-rotated',
        title: '{certificate} expired on {notAfter} and was not rotated',
        why: 'Certificates made by `linkerd install`, the Helm chart or the step commands of the docs are valid for a year (webhooks, issuers) or the time given at creation (trust anchors); nothing rotates them unless cert-manager does.',
        action: '{rotation}',
        tells: [],
        sources: [
          { url: REPLACING_EXPIRED, versions: 'all' },
          { url: MANUAL_ROTATION, versions: 'all' },
        ],
      },
      {
        id: 'cert-manager-renewal-failed',
        title: 'cert-manager did not renew {certificate} before it expired',
        why: 'With cert-manager the Certificate is renewed before expiry unless its Issuer is not Ready (a missing CA Secret, a deleted Issuer); then the old certificate simply runs out.',
        action: 'kubectl -n {namespace} describe certificate (each must be Ready; fix the Issuer it names), then cmctl renew',
        tells: [{ says: 'cert-manager manages the certificate', context: 'cert-manager' }],
        sources: [{ url: `${DOCS}tasks/automatically-rotating-control-plane-tls-credentials/`, versions: 'all' }],
      },
    ],
  },
  {
    signature: 'certificate:not-yet-valid',
    failure: 'A Linkerd certificate is not valid yet',
    causes: [
      {
        id: 'clock-skew',
        title: "Clock skew: {certificate} starts after the checking machine's clock",
        why: 'A certificate issued by a machine whose clock runs ahead (or checked by one that runs behind) is not valid yet for the checker; minutes of difference are enough right after issuance.',
        action:
          'Synchronise the clocks (timedatectl status on the nodes and the machine that issued it; chronyd / systemd-timesyncd), then retry; re-issue only if the dates themselves are wrong',
        tells: [],
        sources: [
          { url: `${L2_ISSUE}2762`, versions: 'all' },
          { url: `${L2_ISSUE}3980`, versions: 'all' },
        ],
      },
    ],
  },
  {
    signature: 'certificate:issuer-untrusted',
    failure: 'The identity issuer is not signed by the trust anchors proxies hold',
    causes: [
      {
        id: 'trust-anchor-replaced-without-bundle',
        title: 'The trust anchor was replaced without keeping the old root in the bundle',
        why: 'Proxies verify peers against the trust bundle they loaded at start; a new root that is not bundled with the current one (or an issuer from another root) makes proxies reject each other until every one restarts with one bundle.',
        action:
          'Bundle the new root with the current one (step certificate bundle new-ca.crt current-ca.crt bundle.crt), apply the bundle as the trust anchors, restart the meshed workloads, then re-issue the issuer from the new root',
        tells: [],
        sources: [{ url: `${DOCS}tasks/manually-rotating-control-plane-tls-credentials/`, versions: 'all' }],
      },
    ],
  },
];
