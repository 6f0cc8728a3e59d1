// Where a rule's fire/quiet cases live, in one place: src/rules/<id>/cases.ts, beside the rule they
// prove (kept out of the published build by tsconfig.build.json). Every harness finds them here.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RuleCases } from './rule-cases.js';

export function caseFileOf(ruleId: string): string {
  return fileURLToPath(new URL(`../../src/rules/${ruleId}/cases.ts`, import.meta.url));
}

export async function loadRuleCases(ruleId: string): Promise<RuleCases> {
  const file = caseFileOf(ruleId);
  assert.ok(existsSync(file), `rule ${ruleId} has no fire/quiet cases: add src/rules/${ruleId}/cases.ts exporting \`cases: RuleCases\``);
  const mod = (await import(pathToFileURL(file).href)) as { cases?: RuleCases };
  assert.ok(mod.cases, `${file} must export \`cases\``);
  return mod.cases;
}
