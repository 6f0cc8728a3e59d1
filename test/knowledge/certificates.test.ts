// The certificate classifier on the failure texts each input kind carries, worded as Go's
// crypto/x509, rustls / webpki and linkerd2's pkg/issuercerts print them: controller logs
// (linkerd/linkerd2#3497, #5350), proxy logs (`invalid peer certificate: Expired`), events of the
// API server calling a webhook (linkerd/linkerd2#2847), `linkerd check` details (the issue 46 text)
// and `linkerd upgrade` (linkerd/website#601).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyCertificateText, describeCertificate, restartAfter, rotation, setupOf } from '../../src/knowledge/certificates.js';

describe('certificate classifier', () => {
  it('reads the Go x509 validity error: expired, with both times', () => {
    const c = classifyCertificateText(
      'time="2021-03-05T09:00:01Z" level=error msg="x509: certificate has expired or is not yet valid: current time 2021-03-05T09:00:01Z is after 2021-03-05T08:14:00Z"',
      'identity-issuer',
    )!;
    assert.deepEqual(
      [c.problem, c.notAfter, c.currentTime, c.role, c.clockSkew],
      ['expired', '2021-03-05T08:14:00Z', '2021-03-05T09:00:01Z', 'identity-issuer', false],
    );
    assert.match(describeCertificate(c), /^the identity issuer certificate expired on 2021-03-05T08:14:00Z/);
  });

  it('names clock skew when a certificate is not valid yet by minutes', () => {
    const c = classifyCertificateText('x509: certificate has expired or is not yet valid: current time 2023-06-01T10:00:00Z is before 2023-06-01T10:04:00Z')!;
    assert.deepEqual([c.problem, c.notBefore, c.clockSkew], ['not-yet-valid', '2023-06-01T10:04:00Z', true]);
    assert.match(describeCertificate(c), /clock skew/);
  });

  it('reads linkerd check details: expired anchors, expiring issuer, not valid before', () => {
    const anchors = classifyCertificateText('* 1 identity.linkerd.cluster.local not valid anymore. Expired on 2021-03-05T08:14:00Z', 'trust-anchor')!;
    assert.deepEqual([anchors.problem, anchors.notAfter], ['expired', '2021-03-05T08:14:00Z']);
    assert.equal(classifyCertificateText('issuer certificate will expire on 2024-04-24T18:29:51Z', 'identity-issuer')!.problem, 'expiring-soon');
    assert.equal(classifyCertificateText('not valid before: 2030-01-01T00:00:00Z')!.notBefore, '2030-01-01T00:00:00Z');
  });

  it('reads the proxy`s rustls errors', () => {
    assert.equal(classifyCertificateText('WARN linkerd_app_core::errors: Failed to proxy request: invalid peer certificate: Expired')!.problem, 'expired');
    assert.equal(classifyCertificateText('error=TLS handshake failed: InvalidCertificate(NotValidYet)')!.problem, 'not-yet-valid');
    assert.equal(classifyCertificateText('received fatal alert: CertificateUnknown; invalid peer certificate: UnknownIssuer')!.problem, 'unknown-authority');
  });

  it('tells which webhook or API service from the names in the text', () => {
    const injector = classifyCertificateText(
      'Error creating: Internal error occurred: failed calling webhook "linkerd-proxy-injector.linkerd.io": Post "https://linkerd-proxy-injector.linkerd.svc:443/?timeout=10s": x509: certificate has expired or is not yet valid',
    )!;
    assert.deepEqual([injector.role, injector.problem], ['proxy-injector-webhook', 'expired']);
    const tap = classifyCertificateText(
      `Error: 'x509: certificate signed by unknown authority (possibly because of "crypto/rsa: verification error" while trying to verify candidate authority certificate "linkerd-tap.linkerd.svc")'`,
    )!;
    assert.deepEqual([tap.role, tap.problem, tap.name], ['tap-apiservice', 'unknown-authority', 'linkerd-tap.linkerd.svc']);
    const issuer = classifyCertificateText(
      'Failed to build upgrade configuration: invalid issuer credentials: x509: certificate signed by unknown authority (possibly because of "x509: ECDSA verification failure" while trying to verify candidate authority certificate "identity.linkerd.cluster.local")',
    )!;
    assert.equal(issuer.problem, 'unknown-authority');
  });

  it('says nothing of text without a certificate failure', () => {
    assert.equal(classifyCertificateText('dial tcp 10.0.0.1:8086: connect: connection refused'), null);
    assert.equal(classifyCertificateText('trust anchors are within their validity period'), null);
  });

  it('gives the rotation for the setup the evidence shows, and the restart it needs', () => {
    assert.equal(setupOf('helm upgrade linkerd2 --set-file identityTrustAnchorsPEM=ca.crt'), 'helm');
    assert.equal(setupOf('kubectl -n linkerd describe certificate.cert-manager.io linkerd-identity-issuer'), 'cert-manager');
    assert.match(rotation({ role: 'trust-anchor', problem: 'expired' }, 'cli'), /step certificate create root.*linkerd upgrade --identity-trust-anchors-file/);
    assert.match(rotation({ role: 'trust-anchor', problem: 'expiring-soon' }, 'unknown'), /step certificate bundle/);
    assert.match(rotation({ role: 'identity-issuer', problem: 'expired' }, 'cert-manager'), /certificate linkerd-identity-issuer/);
    assert.match(restartAfter('policy-validator-webhook'), /deploy\/linkerd-destination/);
    assert.match(restartAfter('trust-anchor'), /every meshed workload/);
  });
});
