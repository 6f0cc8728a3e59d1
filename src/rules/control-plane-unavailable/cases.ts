import assert from 'node:assert/strict';
import { fixtureInputs } from '../../../test/support/fixture-inputs.js';
import type { RuleCases } from '../../../test/support/rule-cases.js';
import type { TestInput } from '../../../test/support/rule-tester.js';

/** An application that serves HTTP on 8080 and logs failed requests: not a controller. */
function appOn8080(): TestInput {
  const lines = Array.from({ length: 200 }, (_, i) => {
    const t = new Date(Date.parse('2024-06-07T09:00:00Z') + i * 250).toISOString();
    return `${t} [  ${(3600 + i / 4).toFixed(6)}s]  INFO ThreadId(01) inbound:server{port=8080}:rescue{client.addr=10.2.7.${i % 9}:4100${i % 10}}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=server 10.2.3.4:8080: service unavailable`;
  });
  return { path: 'shop/web-7d9f8c6b5-x2x8k/linkerd-proxy.log', content: lines.join('\n') + '\n' };
}

export const cases: RuleCases = {
  fires: [
    {
      name: 'the storm bundle: both destination pods shed inbound gRPC calls as service unavailable',
      expect: [
        {
          severity: 'error',
          kind: 'destination-unavailable',
          subject: { namespace: 'linkerd', workload: 'linkerd-destination', target: 'linkerd-dst-headless.linkerd.svc.cluster.local:8086' },
        },
      ],
      inputs: fixtureInputs('fixtures/storm/linkerd'),
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.equal(findings[0]!.severity, 'error');
        assert.equal(findings[0]!.evidence.controller, 'destination');
      },
    },
  ],
  quiet: [
    { name: 'the healthy rollout bundle', inputs: fixtureInputs('fixtures/healthy', (name) => name.endsWith('.log')) },
    { name: 'an application failing requests on port 8080 is not the identity controller', inputs: [appOn8080()] },
  ],
};
