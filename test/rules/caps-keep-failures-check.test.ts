// Issue 44, item 1, the rest of the audit: linkerd-check took checks first come up to its cap, so
// a failing check after enough passing ones (a paste of many `linkerd check` runs, one per cluster
// or per namespace) passed, and nothing said checks had been dropped. The cap is shrunk as in
// caps-keep-failures-scaled.test.ts (4 checks held, 2 kept); the runs have the layout of
// `linkerd check` (linkerd2 pkg/healthcheck/healthcheck_output.go, test/data/linkerd-cli/).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

process.env.LINKERD_DOCTOR_STATE_CAP_SCALE = '0.002';
const { default: linkerdCheck } = await import('../../src/rules/linkerd-check/index.js');
const { runRule, runRuleMerged } = await import('../support/rule-tester.js');

/** One run of `linkerd check --namespace <ns> --proxy` whose data-plane checks pass. */
const passing = (ns: string) =>
  [
    'linkerd-data-plane',
    '------------------',
    `√ data plane namespace "${ns}" exists`,
    `√ data plane proxies in "${ns}" are ready`,
    `√ data plane proxies in "${ns}" are up-to-date`,
    '',
  ].join('\n');
const failing = [
  'linkerd-identity',
  '----------------',
  '√ certificate config is valid',
  '× trust anchors are within their validity period',
  '    Invalid anchors:',
  '    * 1 identity.linkerd.cluster.local not valid anymore. Expired on 2021-03-05T08:14:00Z',
  '    see https://linkerd.io/2.10/checks/#l5d-identity-trustAnchors-are-time-valid for hints',
  '',
].join('\n');
const runs = Array.from({ length: 100 }, (_, i) => passing(`shop-${i}`));

describe('linkerd-check: a failed check is kept past the cap of checks (issue 44, item 1)', () => {
  for (const [order, content] of [
    ['after', [...runs, failing].join('\n')],
    ['before', [failing, ...runs].join('\n')],
  ] as const) {
    it(`a failed check ${order} 300 passing ones is an error that says the passing ones were only counted`, async () => {
      const { findings } = await runRule(linkerdCheck, [{ path: 'check.txt', content: `${content}\nStatus check results are ×\n` }]);
      assert.equal(findings.length, 1, findings.map((f) => f.title).join('\n'));
      assert.equal(findings[0]!.severity, 'error');
      assert.match(findings[0]!.title, /trust anchor/i);
      assert.match(findings[0]!.message, /more checks and failing rows than the rule keeps: \d+ that showed nothing wrong were only counted/);
    });
  }

  it('the same when the runs are split between workers and merged', async () => {
    const inputs = [0, 1, 2].map((k) => ({ path: `check-${k}.txt`, content: (k === 1 ? [...runs.slice(0, 50), failing] : runs.slice(50)).join('\n') }));
    const findings = await runRuleMerged(linkerdCheck, inputs);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.severity, 'error');
  });
});
