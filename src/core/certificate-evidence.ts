// The record the last look (parsers/last-look.ts) makes of a line where a certificate failed
// verification, in Go's crypto/x509 and crypto/tls words. It stands on its own so that the
// certificate finding (issue 46) can read it; `source: 'last-look'` on pod-status and kube-event
// records marks the others the last look makes.

/** The fields of types.ts's RecordBase, written out: that module imports this one. */
export interface CertificateEvidenceRecord {
  kind: 'certificate-evidence';
  path: string;
  line: number;
  pod?: string;
  namespace?: string;
  container?: string;
  /** Which verification failed, from the words. */
  failure: 'unknown-authority' | 'expired' | 'name-mismatch' | 'bad-certificate' | 'verify-failed';
  /** The line from the words on (at most 400 characters). */
  text: string;
  /**
   * What the line says before the words (at most 160 characters), which tells who rejected whom:
   * `http: TLS handshake error from …: remote error:` (the peer rejected this server's certificate),
   * `failed to verify client's certificate:` (this server rejected its client's).
   */
  lead?: string;
}
