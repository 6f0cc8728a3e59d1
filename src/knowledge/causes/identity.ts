// Causes of identity failures seen in the identity controller's log: the issuer and trust anchors
// it is given. Each cause cites the docs page or linkerd2 thread where it was established.

import { DOCS, L2_ISSUE, type FailureKnowledge } from './types.js';

const GENERATE = `${DOCS}tasks/generate-certificates/`;

export const IDENTITY_KNOWLEDGE: readonly FailureKnowledge[] = [
  {
    signature: 'identity-issuer-unusable',
    failure: 'The identity controller has no usable issuer certificate, so new proxies get no identity',
    causes: [
      {
        id: 'issuer-expired-or-missing',
        title: 'The identity issuer certificate expired or is missing',
        why: "The issuer certificate in linkerd-identity-issuer is past its validity (issuers are often made for a year) or was never (re)issued, so identity cannot sign proxies' certificates.",
        action:
          "Check its dates: `kubectl -n linkerd get secret linkerd-identity-issuer -o jsonpath='{.data.tls\\.crt}' | base64 -d | openssl x509 -noout -dates`; re-issue it from the trust anchor and restart linkerd-identity.",
        tells: [
          { says: 'the lines say a certificate expired, is not yet valid, or could not be read', line: 'expired|not yet valid|could not be read|not ready' },
        ],
        sources: [
          { url: `${L2_ISSUE}3980`, versions: 'all' },
          { url: `${L2_ISSUE}15109`, versions: '≥ 2.12' },
          { url: `${DOCS}tasks/manually-rotating-control-plane-tls-credentials/`, versions: 'all' },
        ],
      },
      {
        id: 'trust-anchors-not-pem',
        title: 'The trust anchors value given to Linkerd is not a PEM certificate',
        why: 'The trust anchors reach identity through the Helm value (identityTrustAnchorsPEM) or the linkerd-identity-trust-roots ConfigMap; a value that is base64-encoded, escaped or indented is not a PEM block, and identity exits at start-up.',
        action:
          "Give Helm the file itself: `helm upgrade … --set-file identityTrustAnchorsPEM=ca.crt` (not `--set` with its content, not base64), then check it: `kubectl -n linkerd get cm linkerd-identity-trust-roots -o jsonpath='{.data.ca-bundle\\.crt}' | openssl x509 -noout -subject`.",
        tells: [{ says: 'identity says the trust anchors are not a PEM certificate', line: 'not a PEM|trust anchors PEM|Failed to read trust anchors' }],
        sources: [
          { url: `${L2_ISSUE}3414`, versions: '≥ 2.5' },
          { url: `${DOCS}tasks/install-helm/`, versions: 'all' },
        ],
      },
      {
        id: 'issuer-key-not-ecdsa',
        title: "The issuer's private key is not an ECDSA key in the encoding identity reads",
        why: 'Linkerd reads the issuer key as an ECDSA (P-256) key; an RSA key, or an EC key in another encoding, cannot be parsed and identity exits.',
        action:
          'Re-issue the issuer with an ECDSA P-256 key, e.g. `step certificate create identity.linkerd.cluster.local issuer.crt issuer.key --profile intermediate-ca --not-after 8760h --no-password --insecure --ca ca.crt --ca-key ca.key`, and store it in linkerd-identity-issuer.',
        tells: [{ says: 'identity could not parse the private key', line: 'private key|PKCS|EC key' }],
        sources: [
          { url: `${L2_ISSUE}3754`, versions: 'all' },
          { url: GENERATE, versions: 'all' },
        ],
      },
      {
        id: 'issuer-not-signed-by-anchor',
        title: 'The issuer was not signed by the trust anchors Linkerd was given',
        why: 'The issuer was rotated from another root than the one in linkerd-identity-trust-roots, so identity refuses it (or proxies refuse what it signs).',
        action:
          'Verify the chain: `openssl verify -CAfile ca.crt issuer.crt`; re-issue the issuer from the current anchor, or roll out a bundle of old and new anchors first.',
        tells: [{ says: 'the lines say the issuer did not validate against the anchors', line: 'validation failure|unknown authority' }],
        sources: [
          { url: `${L2_ISSUE}6427`, versions: 'all' },
          { url: GENERATE, versions: 'all' },
        ],
      },
    ],
  },
];
