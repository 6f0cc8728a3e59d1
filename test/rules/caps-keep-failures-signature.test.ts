// Issue 44, item 1, the rest of the audit: known-signature counts a signature's lines per source up
// to a cap, and a background signature (one healthy meshes also log) is reported only from
// excerpts, inputs of at most EXCERPT_MAX_LINES lines. Sources were taken first come, so full pod
// logs that each held the line filled the table and an excerpt pasted after them went uncounted:
// the paste's diagnosis vanished, in one order and not the other. A source known to be a full log
// now makes room first. (Past the sources a run names at all, MAX_SOURCES, a line is still counted
// without its source: that bound is not lifted here.) The cap is shrunk as in caps-keep-failures-scaled.test.ts (4 sources per
// signature); the lines have linkerd2-proxy's plain layout.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

process.env.LINKERD_DOCTOR_STATE_CAP_SCALE = '0.002';
const { default: knownSignature, EXCERPT_MAX_LINES } = await import('../../src/rules/known-signature/index.js');
const { runRule, runRuleMerged } = await import('../support/rule-tester.js');

const quiet = (i: number) =>
  `[ ${(100 + i).toFixed(6)}s]  INFO ThreadId(01) policy:controller{addr=linkerd-policy.linkerd.svc.cluster.local:8090}: linkerd_pool_p2c: Adding endpoint addr=172.31.116.${i % 250}:8090\n`;
const probe = (i: number) =>
  `[ ${(100 + i).toFixed(6)}s]  INFO ThreadId(01) inbound:server{port=4143}: linkerd_app_core::serve: Connection closed error=TLS detection timed out\n`;
/** A pod's full log: a healthy start, then the probe timeouts every mesh logs now and then. */
const fullLog = (pod: number) => ({
  path: `shop/web-6d4cf56db6-${String(pod).padStart(5, '0')}/linkerd-proxy.log`,
  content: Array.from({ length: EXCERPT_MAX_LINES + 10 }, (_, i) => quiet(i)).join('') + probe(1) + probe(2),
});
const paste = { path: 'paste.log', content: probe(3) + probe(4) + probe(5) };

describe('known-signature: an excerpt is diagnosed after any number of full logs (issue 44, item 1)', () => {
  // 15 logs: past the 4 sources a signature counts at this scale, within the 20 sources the run names.
  const logs = Array.from({ length: 15 }, (_, i) => fullLog(i));
  for (const [order, inputs] of [
    ['after', [...logs, paste]],
    ['before', [paste, ...logs]],
  ] as const) {
    it(`the pasted excerpt ${order} 15 full pod logs is reported, counting only the excerpt`, async () => {
      const { findings } = await runRule(knownSignature, [...inputs]);
      assert.deepEqual(
        findings.map((f) => [f.evidence.signature, f.evidence.lines]),
        [['tls-detection-timeout', 3]],
      );
    });
  }

  it('the same when the inputs are split between workers and merged', async () => {
    const findings = await runRuleMerged(knownSignature, [...logs.slice(0, 8), paste, ...logs.slice(8)]);
    assert.deepEqual(
      findings.map((f) => [f.evidence.signature, f.evidence.lines]),
      [['tls-detection-timeout', 3]],
    );
  });
});
