// Real lines (sources in test/data/real/README.md and the catalogue's examples).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RuleCases } from '../../../test/support/rule-cases.js';

const REAL = fileURLToPath(new URL('../../../test/data/real/', import.meta.url));
const real = (file: string) => readFileSync(`${REAL}${file}`, 'utf8');

export const cases: RuleCases = {
  fires: [
    {
      name: 'AccessDenied flood while the identity SRV lookup fails (linkerd2 #5932)',
      expect: [
        { severity: 'info', kind: 'tls-access-denied', subject: { pod: 'web-7d9f8c6b5-x2x9q', target: 'tls-access-denied' } },
        { severity: 'info', kind: 'control-plane-dns-failed', subject: { pod: 'web-7d9f8c6b5-x2x9q', target: 'control-plane-dns-failed' } },
      ],
      inputs: [{ path: 'web-7d9f8c6b5-x2x9q.log', content: real('proxy-log/l2-5932-accessdenied-identity-srv.log') }],
      check: (findings) => {
        assert.deepEqual(
          findings.map((f) => f.evidence.signature),
          ['tls-access-denied', 'control-plane-dns-failed'],
        );
        for (const f of findings) assert.equal(f.subject.pod, 'web-7d9f8c6b5-x2x9q');
      },
    },
    {
      name: 'a trust-anchor mismatch and a policy timeout in two pods',
      expect: [
        { severity: 'info', kind: 'trust-anchor-mismatch', subject: { pod: 'api-5c7d8b9f6-aaaaa', target: 'trust-anchor-mismatch' } },
        { severity: 'info', kind: 'tls-access-denied', subject: { pod: 'podname-655bc7c949-q25bt', target: 'tls-access-denied' } },
        { severity: 'info', kind: 'control-plane-connect-timeout', subject: { pod: 'podname-655bc7c949-q25bt', target: 'control-plane-connect-timeout' } },
      ],
      inputs: [
        {
          path: 'api-5c7d8b9f6-aaaaa.log',
          content:
            '[     1.785436s]  WARN ThreadId(02) identity:controller{addr=linkerd-identity-headless.linkerd.svc.cluster.local:8080}:endpoint{addr=10.129.192.22:8080}: linkerd_reconnect: Failed to connect error=endpoint 10.129.192.22:8080: invalid peer certificate contents: invalid peer certificate: UnknownIssuer error.sources=[invalid peer certificate contents: invalid peer certificate: UnknownIssuer]\n',
        },
        { path: 'podname-655bc7c949-q25bt.log', content: real('proxy-log/l2-9812-policy-timeouts.log') },
      ],
      check: (findings) =>
        assert.deepEqual(
          findings.map((f) => f.evidence.signature),
          ['trust-anchor-mismatch', 'tls-access-denied', 'control-plane-connect-timeout'],
        ),
    },
  ],
  quiet: [
    {
      name: 'healthy proxy start-up (linkerd2 #11697)',
      inputs: [{ path: 'injector.log', content: real('proxy-log/l2-11697-found-pods-injector-startup.log') }],
    },
    { name: 'healthy legacy start-up (linkerd2 #3620)', inputs: [{ path: 'legacy.log', content: real('proxy-log/l2-3620-legacy-info-startup.log') }] },
    {
      name: 'a healthy CoreDNS query log (linkerd2 #3542)',
      inputs: [{ path: 'coredns.log', content: real('coredns-log/l2-3542-coredns-search-path.log'), kind: 'coredns-log' }],
    },
  ],
};
