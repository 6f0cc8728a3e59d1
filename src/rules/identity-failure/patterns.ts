// The identity lines as regex sources valid in both JavaScript and RE2, so the offline rule and its
// LogQL twin (./export.ts) match the same lines.

/**
 * The proxy could not get (or keep) a certificate: `Failed to certify identity` (≤ 2.10 era),
 * `Failed to obtain identity` (linkerd_proxy_identity_client::certify), and the identity client
 * rejecting what the controller sent back, `Received invalid ceritficate` (sic, the proxy's typo).
 */
export const CERTIFY_FAILURE = 'Failed to certify identity|Failed to obtain identity|Received invalid cer(it|ti)ficate';

/** A peer certificate signed by a CA outside the proxy's trust anchors. */
export const TRUST_ANCHOR_MISMATCH = 'UnknownIssuer';

/** rustls refusing a handshake: AccessDenied when the proxy has no certificate to serve, BadCertificate when a peer's does not verify. */
export const TLS_ALERT = 'Sending fatal alert (BadCertificate|AccessDenied)';

/** The proxy still has no certificate and holds its readiness back (logged while it waits). */
export const IDENTITY_NOT_READY = 'Waiting for identity to be initialized';

export const CERT_EXPIRY_METRIC = 'identity_cert_expiration_timestamp_seconds';
