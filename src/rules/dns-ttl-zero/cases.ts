import assert from 'node:assert/strict';
import { fixtureInputs } from '../../../test/support/fixture-inputs.js';
import type { RuleCases } from '../../../test/support/rule-cases.js';

const digLoops = (name: string) => name.startsWith('dig-');

export const cases: RuleCases = {
  fires: [
    {
      name: 'dig loops in which the control-plane SRV TTL decays to 0 (cache serving stale)',
      expect: [
        { severity: 'error', kind: 'control-plane-answer', subject: { target: 'linkerd-dst-headless.linkerd.svc.cluster.local.', namespace: 'linkerd' } },
        { severity: 'error', kind: 'control-plane-answer', subject: { target: 'linkerd-policy.linkerd.svc.cluster.local.', namespace: 'linkerd' } },
      ],
      inputs: fixtureInputs('fixtures/dns-ttl-zero', digLoops),
      check: (findings) => {
        assert.ok(findings.length >= 2);
        assert.ok(findings.every((f) => f.severity === 'error'));
      },
    },
  ],
  quiet: [{ name: 'dig loops with healthy 30 s TTLs counting down', inputs: fixtureInputs('fixtures/dns-healthy', digLoops) }],
};
