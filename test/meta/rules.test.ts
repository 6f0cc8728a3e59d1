// Every registered rule is checked here, so a rule merged from another branch is held to the same
// bar without anyone adding it to a list: valid meta, options with defaults that fit their schema,
// a docs page with every section, `explain` renders it, and cases that fire and stay quiet
// (src/rules/<id>/cases.ts), run through the real pipeline, sequentially and merged in parallel.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { renderRuleDocs } from '../../src/cli/run-rules.js';
import { docsUrlFor } from '../../src/core/docs.js';
import { readRuleDocs } from '../../src/core/rule-docs.js';
import type { AnyRule } from '../../src/core/types.js';
import reconnectStorm from '../../src/rules/reconnect-storm/index.js';
import { RULES } from '../../src/rules/index.js';
import { loadRuleCases as loadCases } from '../support/rule-case-files.js';
import { expectedOf, type RuleCase } from '../support/rule-cases.js';
import { runRule, runRuleMerged } from '../support/rule-tester.js';
import { actionProblem } from '../support/actions.js';
import { docsProblems, metaProblems } from './rule-conformance.js';
import { GENERATE_COMMAND, ROOT, rulePageSource } from '../../scripts/generated-files.js';

describe('rule conformance', () => {
  it('registers at least one rule', () => assert.ok(RULES.length > 0));

  for (const rule of RULES) {
    const id = rule.meta.id;
    describe(id, () => {
      it('has valid meta and options with defaults that fit optionSchema', () => {
        assert.deepEqual(metaProblems(rule, RULES), []);
      });

      it('has its page src/rules/<id>/README.md with every section, and explain renders the published copy', async () => {
        const source = path.join(ROOT, rulePageSource(id));
        assert.deepEqual(docsProblems(id, existsSync(source) ? readFileSync(source, 'utf8') : null), []);
        assert.equal(
          readRuleDocs(id),
          readFileSync(source, 'utf8'),
          `docs/rules/${id}.md differs from its source ${rulePageSource(id)}: run \`${GENERATE_COMMAND}\``,
        );
        const page = await renderRuleDocs(rule, false);
        assert.match(page, new RegExp(`^${id} \\(${rule.meta.code}\\)`));
        for (const heading of ['What it means', 'Evidence', 'How to fix it', 'False positives', 'References']) assert.ok(page.includes(heading), heading);
      });

      it('declares as shared causes only kinds its firing cases produce, titled with their {count}', async () => {
        const { fires } = await loadCases(id);
        const kinds = new Set(fires.flatMap((c) => c.expect.map((e) => e.kind)));
        for (const shared of rule.meta.sharedCauses ?? []) {
          assert.ok(kinds.has(shared.kind), `sharedCauses names ${shared.kind}, which no firing case of ${id} produces`);
          assert.match(shared.title, /\{count\}/, `the folded title of ${shared.kind} does not say how many targets`);
          assert.ok(shared.targets.trim().length > 0, `sharedCauses ${shared.kind}: what a target is, in the plural`);
        }
      });

      it('has a state that survives structured cloning (parallel workers)', () => {
        assert.doesNotThrow(() => structuredClone(rule.createState({ ...rule.meta.defaultOptions })));
      });

      it('fires on every "fires" case exactly as expected, with derived docs URLs and usable locations', async () => {
        const { fires } = await loadCases(id);
        assert.ok(fires.length > 0, `src/rules/${id}/cases.ts has no case that fires`);
        for (const c of fires) {
          const run = await runRule(rule, c.inputs, c.options);
          assert.ok(c.expect.length > 0, `"${c.name}" expects no finding: it is a quiet case`);
          assert.deepEqual(expectedOf(run.findings), c.expect, `"${c.name}": findings (count, severity, kind, subject) differ`);
          for (const f of run.findings) {
            assert.equal(f.ruleId, id);
            assert.equal(f.docsUrl, docsUrlFor(id));
            assert.match(f.kind, /^[a-z0-9]+(?:[-/][a-z0-9]+)*$/, `"${c.name}": kind ${f.kind} is not a stable kebab-case id`);
            assert.ok(f.remediation.trim().length > 0, `"${c.name}": finding without a fix`);
            // The first step is something to do now, not an explanation (the golden reports are held to the same in finding-actions).
            const first = f.remediation.split('\n').find((l) => l.trim() !== '' && !l.startsWith('Version check')) ?? '';
            const problem = actionProblem(first);
            assert.equal(problem, null, `"${c.name}": first action ${problem}: ${first}`);
            for (const l of f.locations) assert.ok(Number.isInteger(l.line) && l.line >= 1, `"${c.name}": location line ${l.line}`);
          }
          c.check?.(run.findings);
        }
      });

      it('stays quiet on every "quiet" case (and was not merely skipped)', async () => {
        const { quiet } = await loadCases(id);
        assert.ok(quiet.length > 0, `src/rules/${id}/cases.ts has no case that stays quiet`);
        for (const c of quiet) {
          const run = await runRule(rule, c.inputs, c.options);
          assert.equal(run.skipped, false, `"${c.name}" was skipped for missing input; a quiet case must feed the rule its input kind`);
          assert.deepEqual(
            run.findings.map((f) => f.title),
            [],
            `"${c.name}" should stay quiet`,
          );
        }
      });

      it('finds the same when its inputs are analysed in parallel and merged', async () => {
        const { fires } = await loadCases(id);
        const multi: RuleCase[] = fires.filter((c) => c.inputs.length > 1);
        for (const c of multi) {
          const sequential = await runRule(rule, c.inputs, c.options);
          assert.deepEqual(await runRuleMerged(rule, c.inputs, c.options ?? {}), sequential.findings, `"${c.name}": merge differs from a sequential run`);
        }
      });
    });
  }
});

describe('the conformance checks themselves', () => {
  const broken = {
    ...reconnectStorm,
    meta: {
      ...reconnectStorm.meta,
      id: 'Reconnect_Storm',
      code: 'LD2001',
      description: 'two\nlines',
      inputs: [],
      defaultOptions: { sustainSeconds: -1, orphan: 1 },
    },
  } as AnyRule;

  it('reject a rule with a bad id, code, description, inputs and options', () => {
    const problems = metaProblems(broken, [broken, reconnectStorm]).join('\n');
    for (const expected of [
      'not kebab-case',
      'one line',
      'inputs is empty',
      'has a default but no optionSchema entry',
      'default of option sustainSeconds must be ≥ 1',
      'option maxGapSeconds has no default',
    ]) {
      assert.ok(problems.includes(expected), `expected "${expected}" in:\n${problems}`);
    }
  });

  it('reject a duplicate code and a code from the wrong family', () => {
    const twin = { ...reconnectStorm, meta: { ...reconnectStorm.meta, id: 'twin' } } as AnyRule;
    assert.ok(metaProblems(twin, [twin, reconnectStorm]).some((p) => p.includes('used by more than one rule')));
    const metricsCodeOnLogs = { ...reconnectStorm, meta: { ...reconnectStorm.meta, code: 'LD2999' } } as AnyRule;
    assert.ok(metaProblems(metricsCodeOnLogs, [metricsCodeOnLogs]).some((p) => p.includes('does not match its inputs')));
  });

  it('reject a missing page, a missing section and a fix without versions', () => {
    assert.deepEqual(docsProblems('x', null), ['src/rules/x/README.md is missing']);
    const page = [
      '# x',
      '## What it means',
      'x'.repeat(50),
      '## Evidence',
      'x'.repeat(50),
      '## How to fix it',
      'Restart everything and hope for the best, it usually helps.',
      '## References',
      'See linkerd2 #1234 for the background.',
    ].join('\n');
    const problems = docsProblems('x', page).join('\n');
    assert.match(problems, /no "## False positives" section/);
    assert.match(problems, /names no version/);
  });

  it('fail for a rule id without a case registry', async () => {
    await assert.rejects(loadCases('no-such-rule'), /has no fire\/quiet cases/);
  });
});
