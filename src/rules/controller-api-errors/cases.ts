// Fire and quiet cases for controller-api-errors, on controller logs in the layouts linkerd2's
// pkg/flags sets up (logrus text; klog before logrusr; Go's standard logger for the webhook's HTTPS
// server) and a ReplicaSet's FailedCreate event; data in test/data/go-logs and test/data/kubectl.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { RuleCases } from '../../../test/support/rule-cases.js';
import { healthyLogs, realHealthy } from '../../../test/support/log-inputs.js';

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
const rbac = read('test/data/go-logs/destination-rbac-forbidden.log');
const refused = read('test/data/go-logs/destination-apiserver-refused-klog.log');
const webhookEvent = read('test/data/kubectl/events-webhook-timeout.txt');
const injectorTls = read('test/data/go-logs/injector-tls-bad-certificate.log');
/** linkerd/linkerd2#14605: the destination controller's JSON line as pasted from a terminal, broken at its width. */
const wrappedRbac = read('test/data/go-logs/destination-rbac-json-wrapped.log');

export const cases: RuleCases = {
  fires: [
    {
      name: 'the destination controller refused `list endpointslices` by RBAC: names the resource and the ClusterRole',
      expect: [
        {
          severity: 'error',
          kind: 'rbac-forbidden',
          subject: { namespace: 'linkerd', pod: 'linkerd-destination-5d8f7c6b9-x2x8k', target: 'linkerd-destination' },
        },
      ],
      inputs: [{ path: 'linkerd/linkerd-destination-5d8f7c6b9-x2x8k/destination.log', content: rbac }],
      check: (findings) => {
        const f = findings[0]!;
        assert.equal(f.title, 'linkerd-destination is not allowed to list endpointslices.discovery.k8s.io: its ClusterRole lacks the rule');
        assert.equal(f.evidence.clusterRole, 'linkerd-linkerd-destination');
        assert.equal(f.evidence.errors, 2);
        assert.match(f.remediation, /kubectl auth can-i list endpointslices\.discovery\.k8s\.io --as=system:serviceaccount:linkerd:linkerd-destination/);
      },
    },
    {
      name: 'a JSON line wrapped by the terminal it was copied from: the RBAC refusal is read whole (get statefulsets.apps)',
      expect: [
        {
          severity: 'error',
          kind: 'rbac-forbidden',
          subject: { namespace: 'linkerd', pod: 'linkerd-destination-7c9d8f6b5-q2w3e', target: 'linkerd-destination' },
        },
      ],
      inputs: [{ path: 'linkerd/linkerd-destination-7c9d8f6b5-q2w3e/destination.log', content: wrappedRbac }],
      check: (findings) => assert.match(findings[0]!.title, /linkerd-destination is not allowed to get statefulsets\.apps/),
    },
    {
      name: "klog reflector failures: the API server refuses the destination controller's connections",
      expect: [
        { severity: 'error', kind: 'api-unreachable', subject: { namespace: 'linkerd', pod: 'linkerd-destination-5d8f7c6b9-x2x8k', target: 'destination' } },
      ],
      inputs: [{ path: 'linkerd/linkerd-destination-5d8f7c6b9-x2x8k/destination.log', content: refused }],
      check: (findings) => assert.match(findings[0]!.title, /cannot reach the Kubernetes API server \(10\.96\.0\.1:443: connection refused\)/),
    },
    {
      name: 'a FailedCreate event: the API server times out calling the injector webhook (private-cluster firewall)',
      expect: [{ severity: 'error', kind: 'webhook-failed', subject: { target: 'linkerd-proxy-injector.linkerd.io' } }],
      inputs: [{ path: 'events.txt', content: webhookEvent }],
      check: (findings) => assert.match(findings[0]!.remediation, /port 8443/),
    },
    {
      name: 'the injector logs TLS handshakes the API server aborted: its caBundle does not match',
      expect: [
        { severity: 'error', kind: 'webhook-tls', subject: { namespace: 'linkerd', pod: 'linkerd-proxy-injector-5b6c7d8f9-z2x4c', target: 'proxy-injector' } },
      ],
      inputs: [{ path: 'linkerd/linkerd-proxy-injector-5b6c7d8f9-z2x4c/proxy-injector.log', content: injectorTls }],
    },
  ],
  quiet: [
    { name: 'the healthy bundle and the real healthy excerpts', inputs: [...healthyLogs(), ...realHealthy()] },
    {
      name: 'two list failures while the API server restarts are a blip',
      inputs: [{ path: 'linkerd/linkerd-destination-5d8f7c6b9-x2x8k/destination.log', content: refused.split('\n').slice(0, 3).join('\n') + '\n' }],
    },
  ],
};
