// Checks every registered rule must pass, as functions returning a list of problems so the
// meta-test can also prove each check fails on a broken rule.

import { docsUrlFor } from '../../src/core/docs.js';
import { docSections, findSection, REQUIRED_DOC_SECTIONS } from '../../src/core/rule-docs.js';
import { INPUT_KINDS, SEVERITIES, type AnyRule, type RuleOptionSpec } from '../../src/core/types.js';
import { optionProblem } from '../../src/config/options.js';

const KEBAB = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const CODE = /^LD([1-5])\d{3}$/;
/** LD1xxx logs, LD2xxx metrics, LD3xxx DNS, LD4xxx cross-signal, LD5xxx Kubernetes objects; CoreDNS logs are both a log and DNS. */
const CODE_FAMILIES: Record<string, string[]> = { 'proxy-log': ['1'], prometheus: ['2'], dig: ['3'], 'coredns-log': ['1', '3'], kubectl: ['5'] };

export function metaProblems(rule: AnyRule, all: readonly AnyRule[]): string[] {
  const { meta } = rule;
  const problems: string[] = [];
  if (!KEBAB.test(meta.id)) problems.push(`id ${JSON.stringify(meta.id)} is not kebab-case`);
  if (all.filter((r) => r.meta.id === meta.id).length > 1) problems.push(`id ${meta.id} is registered twice`);
  const code = CODE.exec(meta.code);
  if (!code) problems.push(`code ${JSON.stringify(meta.code)} is not LD1xxx–LD5xxx`);
  if (all.filter((r) => r.meta.code === meta.code).length > 1) problems.push(`code ${meta.code} is used by more than one rule`);
  for (const claim of meta.absorbs ?? []) {
    if (claim.rule === meta.id) problems.push('absorbs its own findings');
    else if (!all.some((r) => r.meta.id === claim.rule)) problems.push(`absorbs ${claim.rule}, which is not a registered rule`);
  }
  if (!meta.title?.trim()) problems.push('title is empty');
  if (!meta.description?.trim()) problems.push('description is empty');
  else if (meta.description.includes('\n')) problems.push('description must be one line (it is the `rules` listing)');
  if (!(SEVERITIES as readonly string[]).includes(meta.defaultSeverity))
    problems.push(`defaultSeverity ${JSON.stringify(meta.defaultSeverity)} is not one of ${SEVERITIES.join(', ')}`);
  if (!Array.isArray(meta.inputs) || meta.inputs.length === 0) problems.push('inputs is empty: the engine could never tell when to skip the rule');
  for (const kind of meta.inputs ?? [])
    if (!INPUT_KINDS.includes(kind) || kind === 'unknown') problems.push(`input kind ${JSON.stringify(kind)} is not a real input kind`);
  if (code && meta.inputs?.length) {
    const families = new Set(meta.inputs.flatMap((k) => CODE_FAMILIES[k] ?? []));
    // A rule reading several kinds may be filed under the family of its main signal or as LD4xxx.
    const allowed = [...families, '4'].sort();
    if (!allowed.includes(code[1]!))
      problems.push(`code ${meta.code} does not match its inputs (${meta.inputs.join(', ')}): expected LD${allowed.join('xxx or LD')}xxx`);
  }
  if (!docsUrlFor(meta.id).endsWith(`/docs/rules/${meta.id}.md`)) problems.push(`docsUrl ${docsUrlFor(meta.id)} is not derived from the id`);
  problems.push(...optionsProblems(rule));
  return problems;
}

export function optionsProblems(rule: AnyRule): string[] {
  const problems: string[] = [];
  const defaults = (rule.meta.defaultOptions ?? {}) as Record<string, unknown>;
  const schema = (rule.meta.optionSchema ?? {}) as Record<string, RuleOptionSpec>;
  for (const key of Object.keys(defaults)) if (!schema[key]) problems.push(`option ${key} has a default but no optionSchema entry`);
  for (const [key, spec] of Object.entries(schema)) {
    if (!(key in defaults)) {
      problems.push(`option ${key} has no default`);
      continue;
    }
    if (!spec.description?.trim()) problems.push(`option ${key} has no description`);
    const problem = optionProblem(spec, defaults[key]);
    if (problem) problems.push(`default of option ${key} ${problem}`);
  }
  return problems;
}

export function docsProblems(ruleId: string, markdown: string | null): string[] {
  if (markdown === null) return [`src/rules/${ruleId}/README.md is missing`];
  const problems: string[] = [];
  const sections = docSections(markdown);
  for (const name of REQUIRED_DOC_SECTIONS) {
    const body = findSection(sections, name);
    if (body === undefined) problems.push(`src/rules/${ruleId}/README.md has no "## ${name}" section`);
    else if (body.length < 40) problems.push(`src/rules/${ruleId}/README.md: "## ${name}" is too short to help anyone`);
  }
  const fix = findSection(sections, 'How to fix it');
  if (fix && !/\bv?\d+\.\d+|\bedge-\d|\bstable-\d/.test(fix))
    problems.push(`src/rules/${ruleId}/README.md: "How to fix it" names no version; say which releases need which fix`);
  const refs = findSection(sections, 'References');
  if (refs && !/#\d+|https?:\/\//.test(refs)) problems.push(`src/rules/${ruleId}/README.md: "References" cites no upstream issue, PR or link`);
  return problems;
}
