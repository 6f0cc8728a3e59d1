// Where a rule's fire/quiet cases live, in one place: today test/rule-cases/<id>.ts. When the cases
// move (e.g. into src/rules/<id>/), repoint caseFileOf and every harness follows.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RuleCases } from './rule-cases.js';

export function caseFileOf(ruleId: string): string {
  return fileURLToPath(new URL(`../rule-cases/${ruleId}.ts`, import.meta.url));
}

export async function loadRuleCases(ruleId: string): Promise<RuleCases> {
  const file = caseFileOf(ruleId);
  assert.ok(existsSync(file), `rule ${ruleId} has no fire/quiet cases (${file})`);
  const mod = (await import(pathToFileURL(file).href)) as { cases?: RuleCases };
  assert.ok(mod.cases, `${file} must export \`cases\``);
  return mod.cases;
}
