import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findRule } from '../src/rules/index.js';
import { runRule } from '../test/support/rule-tester.js';
const id = process.env.RULE!;
test(id, async () => {
  const { cases } = await import(`../test/rule-cases/${id}.ts`);
  const rule = findRule(id)!;
  for (const c of cases.fires) { const r = await runRule(rule, c.inputs, c.options); console.log('FIRE', c.name, r.findings.map((f: any) => `${f.severity} ${f.title}`)); }
  for (const c of cases.quiet) { const r = await runRule(rule, c.inputs, c.options); console.log('QUIET', c.name, r.findings.map((f: any) => `${f.severity} ${f.title} :: ${f.message}`)); }
});
