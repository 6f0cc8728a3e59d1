import assert from 'node:assert/strict';
import type { RuleCases } from '../../../test/support/rule-cases.js';
import { healthyDump } from '../../../test/support/metrics-inputs.js';
import { every, healthyLogs, proxyLog, real, realHealthy, startup } from '../../../test/support/log-inputs.js';

const T0 = '2024-06-07T09:00:00Z';
const ID = (sa: string, ns: string) => `${sa}.${ns}.serviceaccount.identity.linkerd.cluster.local`;

/** Certification as 2.12+ proxies log it while the identity controller is down (shape of linkerd2 #10830). */
const OBTAIN_FAILED =
  'identity:identity{server.addr=linkerd-identity-headless.linkerd.svc.cluster.local:8080}:controller{addr=linkerd-identity-headless.linkerd.svc.cluster.local:8080}: linkerd_proxy_identity_client::certify: Failed to obtain identity error=status: Unknown, message: "controller linkerd-identity-headless.linkerd.svc.cluster.local:8080: service in fail-fast", details: [], metadata: MetadataMap { headers: {} } error.sources=[controller linkerd-identity-headless.linkerd.svc.cluster.local:8080: service in fail-fast, service in fail-fast]';
/** The 2.9/2.10 wording (linkerd2_app_core::identity / linkerd_app_core::identity). */
const CERTIFY_FAILED =
  'daemon:identity: linkerd_app_core::identity: Failed to certify identity: grpc-status: Unavailable, grpc-message: "the request could not be dispatched in a timely fashion"';
const WAITING = 'linkerd_app: Waiting for identity to be initialized...';
/** Trust anchor mismatch on the destination connection (shape of linkerd2 #11156). */
const UNKNOWN_ISSUER = (ip: string) =>
  `dst:controller{addr=linkerd-dst-headless.linkerd.svc.cluster.local:8086}:endpoint{addr=${ip}:8086}: linkerd_reconnect: Failed to connect error=endpoint ${ip}:8086: invalid peer certificate: UnknownIssuer error.sources=[invalid peer certificate: UnknownIssuer]`;

function identityDown() {
  // Three workloads restarted while linkerd-identity was down: each retries every ~10 s for a minute.
  return [
    { pod: 'web-7d9f8c6b5-x2x8k', ns: 'shop', body: OBTAIN_FAILED },
    { pod: 'cart-5f6d7c8b9-q7w2e', ns: 'shop', body: OBTAIN_FAILED },
    { pod: 'api-6c8d9f7b5-m3n4p', ns: 'payments', body: CERTIFY_FAILED },
  ].map(({ pod, ns, body }, i) =>
    proxyLog(
      `${ns}/${pod}/linkerd-proxy.log`,
      `2024-06-07T09:0${i}:00Z`,
      [...startup(ID(pod.split('-')[0]!, ns)), ...every(1.2, 10.3, 6, 'ERROR', body), ...every(15.001, 15, 4, 'WARN', WAITING)],
      2,
    ),
  );
}

function timestampedDump(expiry: number, scrapedAtMs: number): string {
  return [
    "# HELP identity_cert_expiration_timestamp_seconds Time when the this proxy's current mTLS identity certificate will expire (in seconds since the UNIX epoch).",
    '# TYPE identity_cert_expiration_timestamp_seconds gauge',
    `identity_cert_expiration_timestamp_seconds ${expiry} ${scrapedAtMs}`,
    '# TYPE process_start_time_seconds gauge',
    `process_start_time_seconds ${expiry - 86400} ${scrapedAtMs}`,
    '',
  ].join('\n');
}

const SCRAPED = Date.parse('2024-06-07T12:00:00Z');

export const cases: RuleCases = {
  fires: [
    {
      name: 'identity controller down: three proxies fail certification every ~10 s and keep waiting for identity',
      expect: [
        { severity: 'error', kind: 'certify', subject: { target: 'linkerd-identity-headless:8080' } },
        { severity: 'warning', kind: 'not-ready', subject: { target: 'linkerd-identity-headless:8080' } },
      ],
      inputs: identityDown(),
      check: (findings) => {
        const certify = findings.find((f) => f.evidence.failureKind === 'certify');
        assert.ok(certify);
        assert.equal(certify.severity, 'error');
        assert.equal(certify.evidence.podsAffected, 3);
        assert.equal(certify.subject.target, 'linkerd-identity-headless:8080');
        const waiting = findings.find((f) => f.evidence.failureKind === 'not-ready');
        assert.equal(waiting?.severity, 'warning');
      },
    },
    {
      name: 'a proxy rejects the certificate identity issued it as not valid yet (linkerd2 #6427): clock skew between nodes, not an unreachable identity',
      expect: [{ severity: 'error', kind: 'certify', subject: { namespace: 'shop', pod: 'web-7d9f8c6b5-x2x8k', target: 'linkerd-identity-headless:8080' } }],
      inputs: [
        proxyLog('shop/web-7d9f8c6b5-x2x8k/linkerd-proxy.log', T0, [
          ...startup(ID('web', 'shop')),
          // The 2.9 wording, typo included.
          ...every(
            0.02,
            10.1,
            6,
            'ERROR',
            'daemon:identity: linkerd2_proxy_identity::certify: Received invalid ceritficate: invalid certificate: CertNotValidYet',
          ),
        ]),
      ],
      check: (findings) => {
        const f = findings[0]!;
        assert.match(f.title, /reject the certificate identity issued them: not valid yet, clock skew/);
        assert.match(f.remediation, /^1\. Synchronise the clocks/);
        assert.equal((f.evidence.certificate as { problem: string }).problem, 'not-yet-valid');
      },
    },
    {
      name: 'trust-anchor mismatch: two proxies get UnknownIssuer from both destination pods on every retry',
      expect: [{ severity: 'error', kind: 'trust-anchor', subject: { namespace: 'shop', target: 'linkerd-identity-headless:8080' } }],
      inputs: ['web-7d9f8c6b5-x2x8k', 'traefik-6b9c8d7f5-k8s9t'].map((pod, i) =>
        proxyLog(`shop/${pod}/linkerd-proxy.log`, T0, [
          ...startup(ID(pod.split('-')[0]!, 'shop')),
          ...every(0.11 + i, 0.5, 8, 'WARN', (n) => UNKNOWN_ISSUER(n % 2 ? '10.42.0.15' : '10.42.1.9')),
        ]),
      ),
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.equal(findings[0]!.evidence.failureKind, 'trust-anchor');
        assert.equal(findings[0]!.severity, 'error');
      },
    },
    {
      name: 'real #5932: AccessDenied on 9995 and 4191 from 23 s of uptime while the identity SRV lookup fails',
      expect: [
        { severity: 'warning', kind: 'tls-alert', subject: { pod: 'real/l2-5932-accessdenied-identity-srv.log', target: 'linkerd-identity-headless:8080' } },
      ],
      inputs: [real('l2-5932-accessdenied-identity-srv.log')],
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.equal(findings[0]!.evidence.failureKind, 'tls-alert');
        assert.equal(findings[0]!.evidence.accessDenied, 10);
      },
    },
    {
      name: "a timestamped dump: one proxy's certificate expired an hour before the scrape",
      expect: [
        {
          severity: 'error',
          kind: 'certificate-expired',
          subject: { namespace: 'shop', pod: 'web-7d9f8c6b5-x2x8k', target: 'linkerd-identity-headless:8080' },
        },
      ],
      inputs: [{ path: 'shop/web-7d9f8c6b5-x2x8k/metrics.prom', content: timestampedDump(SCRAPED / 1000 - 3600, SCRAPED) }],
      check: (findings) => {
        assert.equal(findings[0]!.severity, 'error');
        assert.equal(findings[0]!.evidence.expired, 1);
        assert.equal(findings[0]!.evidence.nowSource, 'sample timestamps of the dump');
      },
    },
    {
      name: 'an untimestamped dump with dumpTime set: 2 h left, past the 70 % renewal point',
      expect: [{ severity: 'warning', kind: 'certificate-expiring', subject: { pod: 'voting-wk6c2sclzz-dxmb5', target: 'linkerd-identity-headless:8080' } }],
      inputs: [{ path: 'dump.txt', content: healthyDump }],
      options: { dumpTime: new Date((1704778491 - 2 * 3600) * 1000).toISOString() },
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.equal(findings[0]!.severity, 'warning');
        assert.equal(findings[0]!.subject.pod, 'voting-wk6c2sclzz-dxmb5');
      },
    },
  ],
  quiet: [
    {
      name: 'the healthy bundle and dump (sections taken at different times, no timestamps)',
      inputs: [...healthyLogs(), { path: 'healthy.txt', content: healthyDump }],
    },
    { name: 'the real healthy start-up excerpts', inputs: realHealthy() },
    {
      name: 'start-up noise: AccessDenied while the first certificate is pending (real #5662, #9812) and one failed attempt before identity arrives',
      inputs: [
        real('l2-5662-accessdenied-wrapped.log'),
        real('l2-9812-policy-timeouts.log'),
        real('l2-8343-destination-startup.log'),
        proxyLog(
          'shop/web-7d9f8c6b5-x2x8k/linkerd-proxy.log',
          T0,
          [...startup(ID('web', 'shop')), { uptime: 1.3, level: 'ERROR', body: OBTAIN_FAILED }, { uptime: 15.001, level: 'WARN', body: WAITING }],
          2,
        ),
      ],
    },
    {
      name: 'a pasted single UnknownIssuer line',
      inputs: [{ path: 'paste.log', content: `[  1203.426853s]  WARN ThreadId(01) ${UNKNOWN_ISSUER('10.42.0.15')}\n` }],
    },
    {
      name: 'a timestamped dump with 20 h left',
      inputs: [{ path: 'shop/web-7d9f8c6b5-x2x8k/metrics.prom', content: timestampedDump(SCRAPED / 1000 + 20 * 3600, SCRAPED) }],
    },
  ],
};
