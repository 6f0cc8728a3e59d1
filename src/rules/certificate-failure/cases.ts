// Fire and quiet cases for certificate-failure, on real-shaped lines from linkerd2 threads (each
// file in test/data/certificates cites its thread in the README there): a controller's Go log in
// the layouts linkerd2 prints, Helm's upgrade output, the API server's own klog line, and the
// benign handshake EOFs the maintainers closed as harmless.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { RuleCases } from '../../../test/support/rule-cases.js';
import { healthyLogs, realHealthy } from '../../../test/support/log-inputs.js';

const read = (name: string) => readFileSync(new URL(`../../../test/data/certificates/${name}`, import.meta.url), 'utf8');

export const cases: RuleCases = {
  fires: [
    {
      name: 'Helm upgrade refused by the policy-validator webhook (unknown authority): the webhook serves its old certificate, restart linkerd-destination',
      expect: [
        { severity: 'error', kind: 'certificate/policy-validator-webhook/unknown-authority', subject: { target: 'linkerd-policy-validator.linkerd.io' } },
      ],
      inputs: [{ path: 'helm-upgrade.txt', content: read('helm-upgrade-policy-validator-unknown-authority.txt') }],
      check: (findings) => {
        const f = findings[0]!;
        assert.match(f.title, /policy-validator webhook still serves its old certificate/);
        assert.equal(f.evidence.likelyCause, 'webhook-certificate-not-reloaded');
        assert.match(f.remediation, /^1\. kubectl -n linkerd rollout restart deploy\/linkerd-destination\./);
        assert.match(f.message, /cert-manager rotated/, 'the other causes are listed');
      },
    },
    {
      name: "two tap replicas log `remote error: tls: bad certificate`: the API server does not trust tap's certificate (APIService caBundle)",
      expect: [{ severity: 'error', kind: 'certificate/tap-apiservice/bad-certificate', subject: { target: 'v1alpha1.tap.linkerd.io' } }],
      inputs: [{ path: 'tap.log', content: read('tap-bad-certificate-two-replicas.log') }],
      check: (findings) => {
        const f = findings[0]!;
        assert.match(f.title, /API server does not trust tap's certificate/);
        assert.equal(f.evidence.failures, 3);
        assert.deepEqual(f.evidence.tells, [
          { cause: 'tap-certificate-and-apiservice-differ', says: 'more than one tap replica logged the rejected handshakes' },
        ]);
        // Releases before the viz extension ran tap as linkerd-tap in the linkerd namespace.
        assert.match(f.remediation, /kubectl -n linkerd rollout restart deploy\/linkerd-tap/);
      },
    },
    {
      name: 'identity cannot sign CSRs: the issuer expired, with its date and the clock that judged it',
      expect: [
        {
          severity: 'error',
          kind: 'certificate/identity-issuer/expired',
          subject: { namespace: 'linkerd', pod: 'linkerd-identity-6c86f797-4b59v', target: 'linkerd-identity-issuer' },
        },
      ],
      inputs: [{ path: 'linkerd/linkerd-identity-6c86f797-4b59v/identity.log', content: read('identity-issuer-expired.log') }],
      check: (findings) => {
        const f = findings[0]!;
        assert.match(f.title, /identity issuer certificate expired on 2020-01-20T10:00:00Z/);
        assert.match(f.remediation, /^1\. Issue a new issuer from the current trust anchor \(step certificate create/);
        assert.match(f.remediation, /rollout restart deploy/);
      },
    },
    {
      name: 'the issuer starts four minutes after identity’s clock: named as clock skew, not as a bad certificate',
      expect: [{ severity: 'error', kind: 'certificate/identity-issuer/not-yet-valid', subject: { target: 'linkerd-identity-issuer' } }],
      inputs: [{ path: 'identity.log', content: read('identity-issuer-clock-skew.log') }],
      check: (findings) => {
        assert.match(findings[0]!.title, /^Clock skew/);
        assert.match(findings[0]!.remediation, /^1\. Synchronise the clocks/);
      },
    },
    {
      name: "tap cannot verify the API server's front-proxy client certificate (agg-ca): the front-proxy CA was rotated, restart tap",
      expect: [{ severity: 'error', kind: 'certificate/aggregator-client/unknown-authority', subject: { target: 'v1alpha1.tap.linkerd.io' } }],
      inputs: [{ path: 'tap.log', content: read('tap-front-proxy-ca-rotated.log') }],
      check: (findings) => assert.match(findings[0]!.remediation, /^1\. kubectl -n linkerd-viz rollout restart deploy\/tap\./),
    },
    {
      name: "the API server's dispatcher fails open on the injector webhook: no context decides the cause, so the causes are listed in order",
      expect: [{ severity: 'error', kind: 'certificate/proxy-injector-webhook/unknown-authority', subject: { target: 'linkerd-proxy-injector.linkerd.io' } }],
      inputs: [{ path: 'kube-apiserver.log', content: read('apiserver-injector-unknown-authority-klog.log') }],
      check: (findings) => {
        const f = findings[0]!;
        assert.match(f.title, /does not trust the proxy-injector webhook's serving certificate/);
        assert.equal(f.evidence.likelyCause, undefined);
        const causes = f.message.indexOf('Causes, most likely first: ');
        assert.ok(causes >= 0, f.message);
        assert.ok(f.message.indexOf('still serves its old certificate', causes) > causes, f.message);
      },
    },
  ],
  quiet: [
    { name: 'the healthy bundle and the real healthy excerpts', inputs: [...healthyLogs(), ...realHealthy()] },
    {
      name: "tap's handshake EOFs (clients that hang up; linkerd2 #10804) are no certificate failure",
      inputs: [{ path: 'tap.log', content: read('tap-handshake-eof-healthy.log') }],
    },
    {
      name: 'identity issuing certificates and a proxy-injector serving its webhook, healthy',
      inputs: [
        {
          path: 'linkerd/linkerd-identity-6c86f797-4b59v/identity.log',
          content: [
            'time="2024-05-02T10:21:07Z" level=info msg="running version stable-2.14.10"',
            'time="2024-05-02T10:21:07Z" level=info msg="starting admin server on :9990"',
            'time="2024-05-02T10:21:09Z" level=info msg="certifying linkerd-destination.linkerd.serviceaccount.identity.linkerd.cluster.local until 2024-05-03 10:21:29 +0000 UTC"',
            'time="2024-05-02T10:21:10Z" level=info msg="Loaded issuer cert: -----BEGIN CERTIFICATE-----"',
            '',
          ].join('\n'),
        },
      ],
    },
  ],
};
