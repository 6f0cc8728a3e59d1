import assert from 'node:assert/strict';
import { DESTINATION_STORM, POLICY_STORM, stormBundle } from '../../../scripts/fixtures/reconnect-storm.js';
import type { RuleCases } from '../../../test/support/rule-cases.js';

const ts = (second: number, ms = 0) => new Date(Date.UTC(2024, 5, 6, 11, 0, second, ms)).toISOString().replace('Z', '000000Z');

/** A proxy that fails towards the destination controller for a few seconds while it rolls, then recovers. */
function rolloutBlip(): string {
  const lines: string[] = [];
  for (let i = 0; i < 8; i++) {
    const s = Math.floor(i / 2);
    lines.push(
      `${ts(s, (i % 2) * 500)} [  ${(120 + i * 0.5).toFixed(6)}s]  WARN ThreadId(01) dst:controller{addr=linkerd-dst-headless.linkerd.svc.cluster.local:8086}:endpoint{addr=10.42.0.15:8086}: linkerd_reconnect: Failed to connect error=endpoint 10.42.0.15:8086: Connection refused (os error 111)`,
    );
  }
  lines.push(
    `${ts(5)} [   125.100000s]  INFO ThreadId(01) dst:controller{addr=linkerd-dst-headless.linkerd.svc.cluster.local:8086}: linkerd_pool_p2c: Adding endpoint addr=10.42.0.19:8086`,
  );
  return lines.join('\n') + '\n';
}

/**
 * One proxy's HTTP balancer dialling one endpoint of a Service every 500 ms for `seconds`, in the
 * span layout of current proxies: `proxy{addr}` (sidecar.rs), `service{ns name port}` and
 * `endpoint{addr}` (linkerd/app/outbound/src/http/concrete/balance.rs, linkerd2-proxy main).
 */
function endpointLoop(seconds: number, error: string, start = 0): string {
  const lines: string[] = [];
  for (let i = 0; i < seconds * 2; i++) {
    const at = start + i / 2;
    lines.push(
      `${ts(Math.floor(at), (i % 2) * 500)} [  ${(900 + at).toFixed(6)}s]  WARN ThreadId(01) outbound:proxy{addr=10.96.12.4:8080}:service{ns=shop name=cart port=8080}:endpoint{addr=10.42.3.17:8080}: linkerd_reconnect: Failed to connect error=${error}`,
    );
  }
  return lines.join('\n') + '\n';
}

export const cases: RuleCases = {
  fires: [
    {
      name: '24 pods refused by the destination and policy controllers for 60 s at the 500 ms backoff',
      expect: [
        { severity: 'error', kind: 'policy-storm', subject: { namespace: 'emojivoto', target: 'linkerd-policy.linkerd.svc.cluster.local:8090' } },
        { severity: 'error', kind: 'destination-storm', subject: { namespace: 'emojivoto', target: 'linkerd-dst-headless.linkerd.svc.cluster.local:8086' } },
      ],
      inputs: stormBundle({
        seed: 7,
        namespace: 'emojivoto',
        workloads: ['web', 'voting', 'emoji'],
        podsPerWorkload: 8,
        storms: [DESTINATION_STORM, POLICY_STORM],
        durationSeconds: 60,
      }),
      check: (findings) => {
        assert.equal(findings.length, 2);
        assert.ok(findings.every((f) => f.severity === 'error'));
        assert.deepEqual(findings.map((f) => f.subject.target).sort(), [DESTINATION_STORM.controller, POLICY_STORM.controller]);
      },
    },
    {
      name: 'one pod in a sustained loop is a warning below errorMinPods',
      expect: [
        {
          severity: 'warning',
          kind: 'destination-storm',
          subject: { namespace: 'shop', pod: 'cart-gvlxtq5jrc-rcthg', workload: 'cart', target: 'linkerd-dst-headless.linkerd.svc.cluster.local:8086' },
        },
      ],
      inputs: stormBundle({ seed: 8, namespace: 'shop', workloads: ['cart'], podsPerWorkload: 1, storms: [DESTINATION_STORM], durationSeconds: 45 }),
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.equal(findings[0]!.severity, 'warning');
      },
    },
    {
      name: 'two proxies dial one address of a Service for 5 min and nothing answers: a stale endpoint in discovery',
      expect: [{ severity: 'warning', kind: 'stale-endpoint', subject: { namespace: 'shop', target: '10.42.3.17:8080' } }],
      inputs: [
        { path: 'shop/web-6d5f8c9b7d-x2x8k/linkerd-proxy.log', content: endpointLoop(300, 'connect timed out after 1s') },
        { path: 'shop/web-6d5f8c9b7d-p4r7z/linkerd-proxy.log', content: endpointLoop(300, 'No route to host (os error 113)') },
      ],
      check: (findings) => {
        const f = findings[0]!;
        assert.match(f.title, /^Stale endpoint 10\.42\.3\.17:8080 of cart\.shop\.svc\.cluster\.local:8080/);
        assert.equal(f.evidence.service, 'cart.shop.svc.cluster.local:8080');
        assert.deepEqual(f.evidence.staleEndpoint, { address: '10.42.3.17:8080', unreachableSeconds: 300, unreachableShare: 100 });
        assert.match(f.remediation, /--field-selector status\.podIP=10\.42\.3\.17/);
        assert.match(f.remediation, /linkerd diagnostics endpoints cart\.shop\.svc\.cluster\.local:8080/);
        assert.match(f.remediation, /kubectl get endpointslices -n shop -l kubernetes\.io\/service-name=cart/);
      },
    },
    {
      name: 'an endpoint that refuses for 5 min has a host that answers: an endpoint storm, not a stale endpoint',
      expect: [
        {
          severity: 'warning',
          kind: 'endpoint-storm',
          subject: { namespace: 'shop', pod: 'web-6d5f8c9b7d-x2x8k', workload: 'web', target: '10.42.3.17:8080' },
        },
      ],
      inputs: [{ path: 'shop/web-6d5f8c9b7d-x2x8k/linkerd-proxy.log', content: endpointLoop(300, 'Connection refused (os error 111)') }],
    },
    {
      name: 'an endpoint unreachable for 60 s (under staleEndpointSeconds) is an endpoint storm',
      expect: [
        {
          severity: 'warning',
          kind: 'endpoint-storm',
          subject: { namespace: 'shop', pod: 'web-6d5f8c9b7d-x2x8k', workload: 'web', target: '10.42.3.17:8080' },
        },
      ],
      inputs: [{ path: 'shop/web-6d5f8c9b7d-x2x8k/linkerd-proxy.log', content: endpointLoop(60, 'connect timed out after 1s') }],
    },
  ],
  quiet: [
    {
      name: "a rollout: a replaced pod's address times out for 20 s until discovery drops it",
      inputs: [{ path: 'shop/web-6d5f8c9b7d-x2x8k/linkerd-proxy.log', content: endpointLoop(20, 'connect timed out after 1s') }],
    },
    {
      name: 'a 4 s blip during a controller rollout',
      inputs: [{ path: 'emojivoto/web-6d5f8c9b7d-x2x8k/linkerd-proxy.log', content: rolloutBlip() }],
    },
    {
      name: 'healthy proxies with no reconnect warnings',
      inputs: stormBundle({ seed: 9, namespace: 'emojivoto', workloads: ['web'], podsPerWorkload: 3, storms: [], durationSeconds: 60, quietLines: 20 }),
    },
  ],
};
