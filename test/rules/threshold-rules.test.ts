// Behaviour of the threshold log rules that the fire/quiet cases do not pin down: bounded state,
// and the fail-fast service key shared by spans and error text.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import failfast from '../../src/rules/failfast/index.js';
import { runRule, runRuleMerged } from '../support/rule-tester.js';

const enter = (i: number, uptime: number) =>
  `[${uptime.toFixed(6).padStart(13)}s]  INFO ThreadId(01) outbound:proxy{addr=10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:80}: linkerd_proxy_balance_queue::worker: Unavailable; entering failfast timeout=3.0`;

describe('failfast state', () => {
  it('keeps at most 2 x 10 000 services, letting go of those furthest from a finding, never of one that fires', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 20_050; i++) lines.push(enter(i, 100 + i * 0.01));
    // A service seen once early and one seen once past the cap both flap later: neither was let go
    // for the services seen once (issue 44: a cap never hides a failure, whatever the order).
    lines.push(enter(20_049, 400), enter(20_049, 410));
    lines.push(enter(7, 420), enter(7, 430));
    const { findings } = await runRule(failfast, [{ path: 'shop/frontend-7d9f8c6b5-x2x8k/linkerd-proxy.log', content: lines.join('\n') + '\n' }]);
    assert.deepEqual(findings.map((f) => f.subject.target).sort(), ['10.0.0.7:80', '10.0.78.81:80']);
    // At 20,000 services, the 10,000 seen once after the first 10,000 went: one line each, counted.
    assert.equal(findings[0]!.evidence.untrackedServiceLines, 10_000);
  });

  it("keys a service the same from its span and from a failed request's error text", async () => {
    const span =
      '[   603.1s]  INFO ThreadId(01) outbound:proxy{addr=10.96.12.7:80}:service{ns=shop name=web port=80}: linkerd_proxy_balance_queue::worker: Unavailable; entering failfast timeout=3.0';
    const refused = (n: number) =>
      `[   ${604 + n}.2s]  INFO ThreadId(01) outbound:proxy{addr=10.96.12.7:80}:rescue{client.addr=10.42.3.7:5${1000 + n}}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=logical service web.shop.svc.cluster.local:80: service in fail-fast`;
    const content = [span, ...Array.from({ length: 10 }, (_, n) => refused(n))].join('\n') + '\n';
    const { findings } = await runRule(failfast, [{ path: 'shop/frontend-7d9f8c6b5-x2x8k/linkerd-proxy.log', content }]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.subject.target, 'web.shop:80');
    assert.equal(findings[0]!.evidence.episodes, 1);
    assert.equal(findings[0]!.evidence.refusedRequests, 10);
  });

  it('counts 1 200 proxies of a service exactly and lists the worst, in one pass and merged from two halves', async () => {
    const refused = (n: number) =>
      `[   ${604 + n}.2s]  INFO ThreadId(01) outbound:proxy{addr=10.96.12.7:80}:rescue{client.addr=10.42.3.7:5${1000 + n}}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=logical service web.shop.svc.cluster.local:80: service in fail-fast`;
    const inputs = Array.from({ length: 1_200 }, (_, p) => ({
      path: `shop/frontend-${p}/linkerd-proxy.log`,
      content: [refused(1), refused(2), refused(3)].join('\n') + '\n',
    }));
    for (const findings of [(await runRule(failfast, inputs)).findings, await runRuleMerged(failfast, inputs)]) {
      assert.equal(findings.length, 1);
      const evidence = findings[0]!.evidence;
      assert.equal(evidence.refusedRequests, 3_600);
      // One bit per proxy: exact, however many fail (up to the 10,000 pod names a state keeps).
      assert.equal(evidence.podsAffected, 1_200);
      assert.equal((evidence.pods as unknown[]).length, 10);
    }
  });
});
