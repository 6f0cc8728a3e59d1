// Fire and quiet cases for linkerd-check. The inputs are the real-shaped pastes of
// test/data/linkerd-cli (its README cites the thread each is shaped after): linkerd check in the
// table, ASCII, -o short and -o json layouts, --pre, --proxy, the extensions' sections, and the
// errors linkerd top and linkerd upgrade end with.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { RuleCases } from '../../../test/support/rule-cases.js';

const read = (name: string) => readFileSync(new URL(`../../../test/data/linkerd-cli/${name}`, import.meta.url), 'utf8');
const input = (name: string) => ({ path: name, content: read(name), kind: 'linkerd-cli' as const });

export const cases: RuleCases = {
  fires: [
    {
      name: 'an expired trust anchor in the table layout, named with its date, and a Pending viz pod in the next run',
      expect: [
        { severity: 'error', kind: 'certificate/trust-anchor/expired', subject: { target: 'linkerd-identity-trust-roots' } },
        { severity: 'warning', kind: 'check/l5d-viz-pods-running', subject: { target: 'l5d-viz-pods-running' } },
      ],
      inputs: [input('check-table-two-runs.txt')],
      check: (findings) => {
        assert.match(findings[0]!.title, /^The trust anchor \(root certificate\) expired on 2021-03-05T08:14:00Z$/);
        assert.match(findings[0]!.remediation, /step certificate create root/);
        assert.match(findings[0]!.remediation, /every meshed workload/);
        assert.match(findings[1]!.remediation, /kubectl -n linkerd-viz describe pod grafana-6d9c8b7f5-q4x2z/);
      },
    },
    {
      name: 'only version warnings (-o short): info, each saying it alone breaks nothing',
      expect: [
        { severity: 'info', kind: 'check/l5d-version-cli', subject: { target: 'l5d-version-cli' } },
        { severity: 'info', kind: 'check/l5d-version-control', subject: { target: 'l5d-version-control' } },
        { severity: 'info', kind: 'check/l5d-cp-proxy-version', subject: { target: 'l5d-cp-proxy-version' } },
      ],
      inputs: [input('check-short-version-warnings.txt')],
      check: (findings) => assert.match(findings[0]!.message, /does not mean anything is broken/),
    },
    {
      name: '-o json: the proxy-injector webhook certificate expired, with the restart it needs',
      expect: [{ severity: 'error', kind: 'certificate/proxy-injector-webhook/expired', subject: { target: 'linkerd-proxy-injector.linkerd.io' } }],
      inputs: [input('check-json-elided.txt')],
      check: (findings) => {
        assert.match(findings[0]!.title, /proxy-injector webhook's serving certificate expired on 2022-06-01T10:00:00Z/);
        assert.match(findings[0]!.remediation, /rollout restart deploy\/linkerd-proxy-injector/);
      },
    },
    {
      name: '2.2-era layout: Prometheus unreachable because the cluster DNS has no record for it',
      expect: [{ severity: 'error', kind: 'check/l5d-api-control-api', subject: { target: 'l5d-api-control-api' } }],
      inputs: [input('check-2.2-brackets.txt')],
      check: (findings) =>
        assert.match(findings[0]!.message, /cluster DNS \(10\.96\.0\.10:53\) has no record for linkerd-prometheus\.linkerd\.svc\.cluster\.local/),
    },
    {
      name: '--pre in ASCII: NET_ADMIN failing, clock skew warning named as clock skew',
      expect: [
        { severity: 'warning', kind: 'check/pre-k8s-clock-skew', subject: { target: 'pre-k8s-clock-skew' } },
        { severity: 'error', kind: 'check/pre-k8s-cluster-net-admin', subject: { target: 'pre-k8s-cluster-net-admin' } },
      ],
      inputs: [input('check-ascii.txt')],
      check: (findings) => {
        assert.match(findings[1]!.message, /PSP admission controller is not enabled/);
        assert.match(findings[0]!.title, /^Clock skew/);
      },
    },
    {
      name: 'details and hint without the check line: the tap APIService unreachable by the API server',
      expect: [{ severity: 'warning', kind: 'check/l5d-tap-api', subject: { target: 'l5d-tap-api' } }],
      inputs: [input('check-detail-only.txt')],
      check: (findings) => assert.match(findings[0]!.message, /timed out/),
    },
    {
      name: '--proxy with the multicluster section: proxies on the old anchor, a missing credentials Secret, a dead gateway',
      expect: [
        {
          severity: 'error',
          kind: 'check/l5d-identity-data-plane-proxies-certs-match-ca',
          subject: { target: 'l5d-identity-data-plane-proxies-certs-match-ca', namespace: 'shop' },
        },
        { severity: 'error', kind: 'check/l5d-smc-target-clusters-access', subject: { target: 'l5d-smc-target-clusters-access' } },
        { severity: 'error', kind: 'check/l5d-multicluster-gateways-endpoints', subject: { target: 'l5d-multicluster-gateways-endpoints' } },
      ],
      inputs: [input('check-proxy-extension-mc.txt')],
      check: (findings) => {
        assert.match(findings[0]!.title, /still trust the old trust anchor: restart them \(web-7f9d8c6b5-abcde api-5c4d7b9f8-fghij\)/);
        assert.match(findings[1]!.remediation, /get secret cluster-credentials-east/);
      },
    },
    {
      name: 'linkerd top: the aggregation layer does not trust tap`s certificate',
      expect: [{ severity: 'error', kind: 'certificate/tap-apiservice/unknown-authority', subject: { target: 'v1alpha1.tap.linkerd.io' } }],
      inputs: [input('top-x509-error.txt')],
    },
    {
      name: 'linkerd upgrade with a new root that is not bundled with the current one',
      expect: [
        {
          severity: 'error',
          kind: 'certificate/identity-issuer/unknown-authority',
          subject: { target: 'linkerd-identity-issuer' },
        },
      ],
      inputs: [input('upgrade-unknown-authority.txt')],
      check: (findings) => assert.match(findings[0]!.remediation, /step certificate bundle/),
    },
    {
      name: 'viz stat: two deployments under 95 % success, the idle one and the healthy one quiet',
      expect: [
        { severity: 'warning', kind: 'success-rate/stat', subject: { target: 'voting', namespace: 'emojivoto' } },
        { severity: 'warning', kind: 'success-rate/stat', subject: { target: 'web', namespace: 'emojivoto' } },
      ],
      inputs: [input('viz-stat-failing.txt')],
      check: (findings) => assert.match(findings[0]!.remediation, /linkerd viz tap deploy\/voting -n emojivoto/),
    },
    {
      name: 'viz routes: one route at 52 % is an error; viz edges: an unmeshed client',
      expect: [
        { severity: 'error', kind: 'success-rate/routes', subject: { target: 'webapp', namespace: 'booksapp' } },
        { severity: 'warning', kind: 'edge-not-secured', subject: { target: 'booksapp/traffic -> booksapp/webapp', namespace: 'booksapp' } },
      ],
      inputs: [input('viz-routes-edges.txt')],
      check: (findings) => assert.match(findings[0]!.title, /route POST \/books of webapp/),
    },
    {
      name: 'viz top at 0 % on one path, viz tap with a 503 and a gRPC error',
      expect: [
        { severity: 'error', kind: 'success-rate/top', subject: { target: 'voting-5f5b555dff-p5w8x', namespace: 'emojivoto' } },
        { severity: 'warning', kind: 'tap-failures', subject: { target: 'voting-svc.emojivoto:8080' } },
        { severity: 'warning', kind: 'tap-failures', subject: { target: 'web-svc.emojivoto:80' } },
      ],
      inputs: [input('viz-top-tap.txt')],
    },
    {
      name: 'diagnostics endpoints with nothing found, and a linked gateway not alive',
      expect: [
        { severity: 'warning', kind: 'no-endpoints', subject: { target: 'books.booksapp.svc.cluster.local:7002', namespace: 'booksapp' } },
        { severity: 'error', kind: 'gateway-not-alive', subject: { target: 'west' } },
      ],
      inputs: [input('diagnostics-endpoints-gateways.txt')],
      check: (findings) => assert.match(findings[0]!.remediation, /get endpointslices -l kubernetes.io\/service-name=books/),
    },
    {
      name: 'linkerd install before the CRDs, linkerd upgrade with an issuer the running pods do not trust',
      expect: [
        { severity: 'error', kind: 'cli-error', subject: { target: 'linkerd install | kubectl apply -f -' } },
        {
          severity: 'error',
          kind: 'cli-error',
          subject: {
            target: 'linkerd upgrade --identity-issuer-certificate-file=issuer-2024.crt --identity-issuer-key-file=issuer-2024.key | kubectl apply -f -',
          },
        },
      ],
      inputs: [input('install-upgrade-errors.txt')],
      check: (findings) => {
        assert.match(findings[0]!.remediation, /linkerd install --crds \| kubectl apply -f -/);
        assert.match(findings[1]!.title, /still trust an older bundle/);
      },
    },
  ],
  quiet: [
    { name: 'a passing linkerd check', inputs: [input('check-all-green.txt')] },
    { name: 'viz stat at 99.6 % and more', inputs: [input('viz-stat-healthy.txt')] },
  ],
};
