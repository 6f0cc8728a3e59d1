// Issue 44, item 1 (audit round 3, f1-cap-pod-restarts.sh and f1-cap-probe-failure.sh): a rule's
// bounded state never drops a failure. pod-restarts and probe-failure took no new container or
// probe key past 10,000, so 5,001 healthy meshed pods (two containers each counted) before one
// OOMKilled proxy, or 10,000 start-up readiness blips before one policy 403, passed with exit 0,
// and the verdict depended on the order of the input. This file runs the rules at their real caps
// on the audit's shapes, in both orders; caps-keep-failures-scaled.test.ts shrinks the caps to
// prove what happens once keys are dropped.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import podRestarts from '../../src/rules/pod-restarts/index.js';
import probeFailure from '../../src/rules/probe-failure/index.js';
import { runRule } from '../support/rule-tester.js';
import { describePod, EVENTS_HEADER, eventRow, READINESS_403, READINESS_REFUSED } from '../support/kube-shapes.js';

const healthyPods = (n: number) =>
  Array.from({ length: n }, (_, i) => describePod({ name: `web-6d4cf56db6-${String(i).padStart(5, '0')}`, namespace: 'shop' }));
const oomPod = describePod({ name: 'payments-7f9c8d6b5-zzzzz', namespace: 'shop', oomRestarts: 6 });

describe('caps never drop a failure (issue 44, item 1)', () => {
  for (const [order, content] of [
    ['after', [...healthyPods(5_001), oomPod].join('')],
    ['before', [oomPod, ...healthyPods(5_001)].join('')],
  ] as const) {
    it(`pod-restarts: an OOMKilled proxy ${order} 5,001 healthy meshed pods is an error`, async () => {
      const { findings } = await runRule(podRestarts, [{ path: 'describe-pods.txt', content }]);
      assert.equal(findings.length, 1);
      assert.equal(findings[0]!.severity, 'error');
      assert.equal(findings[0]!.subject?.pod, 'payments-7f9c8d6b5-zzzzz');
    });
  }

  const blips = Array.from({ length: 10_000 }, (_, i) => eventRow('shop', `web-6d4cf56db6-${String(i).padStart(5, '0')}`, 'Unhealthy', READINESS_REFUSED));
  const denied = eventRow('shop', 'api-7f9c8d6b5-zzzzz', 'Unhealthy', READINESS_403);
  for (const [order, rows] of [
    ['after', [...blips, denied]],
    ['before', [denied, ...blips]],
  ] as const) {
    it(`probe-failure: a policy 403 ${order} 10,000 start-up readiness blips is reported`, async () => {
      const { findings } = await runRule(probeFailure, [{ path: 'events.txt', content: [EVENTS_HEADER, ...rows, ''].join('\n') }]);
      const policy = findings.filter((f) => f.evidence.cause === 'policy-denied');
      assert.equal(policy.length, 1);
      assert.equal(policy[0]!.severity, 'error');
      // One blip per pod is a normal start-up: none of them fires.
      assert.equal(findings.length, 1);
    });
  }
});
