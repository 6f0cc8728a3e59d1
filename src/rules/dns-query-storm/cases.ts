import assert from 'node:assert/strict';
import { fixtureInputs } from '../../../test/support/fixture-inputs.js';
import type { RuleCases } from '../../../test/support/rule-cases.js';

const queryLogs = (name: string) => name.endsWith('.log');

export const cases: RuleCases = {
  fires: [
    {
      name: 'node-local-dns log: 50 proxies re-resolving the control-plane names in lock-step bursts',
      expect: [
        { severity: 'error', kind: 'control-plane-name-storm', subject: { target: 'linkerd-dst-headless.linkerd.svc.cluster.local.' } },
        { severity: 'error', kind: 'control-plane-name-storm', subject: { target: 'linkerd-policy.linkerd.svc.cluster.local.' } },
      ],
      inputs: fixtureInputs('fixtures/dns-ttl-zero', queryLogs),
      check: (findings) => assert.ok(findings.length >= 1 && findings.some((f) => f.severity === 'error')),
    },
  ],
  quiet: [{ name: 'node-local-dns log of a synchronised refresh, one query per proxy per TTL', inputs: fixtureInputs('fixtures/dns-healthy', queryLogs) }],
};
