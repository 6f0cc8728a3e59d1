// Runs the metrics rules' shared fire/quiet cases (test/rule-cases/<id>.ts): firing cases must
// find something, quiet ones must look at their input and find nothing, and multi-input cases
// must give the same findings when their inputs are analysed apart and the states merged.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AnyRule } from '../../src/core/types.js';
import fdExhaustion from '../../src/rules/fd-exhaustion/index.js';
import ingressPodIpBypass from '../../src/rules/ingress-pod-ip-bypass/index.js';
import metricCardinality from '../../src/rules/metric-cardinality/index.js';
import staleEndpointMetrics from '../../src/rules/stale-endpoint-metrics/index.js';
import { cases as fdCases } from '../../src/rules/fd-exhaustion/cases.js';
import { cases as ingressCases } from '../../src/rules/ingress-pod-ip-bypass/cases.js';
import { cases as cardinalityCases } from '../../src/rules/metric-cardinality/cases.js';
import { cases as staleCases } from '../../src/rules/stale-endpoint-metrics/cases.js';
import type { RuleCases } from '../support/rule-cases.js';
import { runRule, runRuleMerged } from '../support/rule-tester.js';

const SUITES: [AnyRule, RuleCases][] = [
  [metricCardinality, cardinalityCases],
  [staleEndpointMetrics, staleCases],
  [ingressPodIpBypass, ingressCases],
  [fdExhaustion, fdCases],
];

for (const [rule, cases] of SUITES) {
  describe(`${rule.meta.id} cases`, () => {
    for (const c of cases.fires) {
      it(`fires: ${c.name}`, async () => {
        const run = await runRule(rule, c.inputs, c.options);
        assert.ok(run.findings.length > 0);
        for (const f of run.findings) for (const l of f.locations) assert.ok(Number.isInteger(l.line) && l.line >= 1, `location line ${l.line}`);
        c.check?.(run.findings);
        if (c.inputs.length > 1) assert.deepEqual(await runRuleMerged(rule, c.inputs, c.options ?? {}), run.findings);
      });
    }
    for (const c of cases.quiet) {
      it(`quiet: ${c.name}`, async () => {
        const run = await runRule(rule, c.inputs, c.options);
        assert.equal(run.skipped, false);
        assert.deepEqual(
          run.findings.map((f) => f.title),
          [],
        );
      });
    }
  });
}
