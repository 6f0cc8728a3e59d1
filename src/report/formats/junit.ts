// JUnit XML for CI test tabs: a testsuite per rule, a testcase per subject group of its findings.
// A testcase fails when one of its findings fails the run (isFailing, the same test as the exit
// code), so the test tab and the exit code agree. Rules that did not run are skipped testcases.

import { isFailing } from '../exit-code.js';
import { subjectKey } from '../fingerprint.js';
import type { Report, ReportFinding, SuppressedFinding } from '../report.js';
import type { FailOn } from '../severity.js';
import type { FormatOptions } from './options.js';

interface TestCase {
  name: string;
  failure?: { type: string; message: string; body: string };
  error?: { type: string; message: string };
  skipped?: string;
  out?: string;
}

export function formatJunit(report: Report, options: FormatOptions): string {
  const failOn = report.failOn;
  const visible = new Set<ReportFinding>(options.findings);
  // Failing findings are always listed, even below --min-severity, so no failure is invisible.
  const shown = report.findings.filter((f) => visible.has(f) || isFailing(f, failOn));
  const ruleIds = [...new Set([...report.evaluatedRules, ...shown.map((f) => f.ruleId), ...report.skippedRules.map((s) => s.ruleId), ...report.disabledRules])];
  const failures = new Map(report.errors.filter((e) => e.path.startsWith('rule:')).map((e) => [e.path.slice(5), e.message]));
  for (const id of failures.keys()) if (!ruleIds.includes(id)) ruleIds.push(id);

  const suites: { name: string; cases: TestCase[] }[] = [];
  for (const id of ruleIds) {
    const skipped = report.skippedRules.find((s) => s.ruleId === id);
    if (report.disabledRules.includes(id)) suites.push({ name: id, cases: [{ name: id, skipped: 'disabled in the config' }] });
    else if (skipped) suites.push({ name: id, cases: [{ name: id, skipped: `not evaluated: ${skipped.reason}` }] });
    else if (failures.has(id)) suites.push({ name: id, cases: [{ name: id, error: { type: 'rule-failure', message: failures.get(id)! } }] });
    else suites.push({ name: id, cases: casesForRule(id, shown, report.suppressedFindings, failOn) });
  }
  const inputErrors = report.errors.filter((e) => !e.path.startsWith('rule:'));
  if (inputErrors.length > 0) {
    suites.push({
      name: 'inputs',
      cases: inputErrors.map((e) => ({ name: e.path, error: { type: 'input-error', message: `${e.path}${e.line ? `:${e.line}` : ''}: ${e.message}` } })),
    });
  }

  const count = (cases: TestCase[], what: 'failure' | 'error' | 'skipped') => cases.filter((c) => c[what] !== undefined).length;
  const all = suites.flatMap((s) => s.cases);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  out.push(
    `<testsuites name="${TOOL}" tests="${all.length}" failures="${count(all, 'failure')}" errors="${count(all, 'error')}" skipped="${count(all, 'skipped')}">`,
  );
  for (const suite of suites) {
    out.push(
      `  <testsuite name="${attr(suite.name)}" tests="${suite.cases.length}" failures="${count(suite.cases, 'failure')}" errors="${count(suite.cases, 'error')}" skipped="${count(suite.cases, 'skipped')}">`,
    );
    for (const c of suite.cases) out.push(...renderCase(suite.name, c));
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return out.join('\n') + '\n';
}

const TOOL = 'linkerd-doctor';

function casesForRule(ruleId: string, findings: readonly ReportFinding[], suppressed: readonly SuppressedFinding[], failOn: FailOn): TestCase[] {
  const groups = new Map<string, { findings: ReportFinding[]; suppressed: SuppressedFinding[] }>();
  const group = (key: string) => groups.get(key) ?? groups.set(key, { findings: [], suppressed: [] }).get(key)!;
  for (const f of findings) if (f.ruleId === ruleId) group(subjectKey(f.subject) || ruleId).findings.push(f);
  for (const f of suppressed) if (f.ruleId === ruleId) group(subjectKey(f.subject) || ruleId).suppressed.push(f);
  if (groups.size === 0) return [{ name: ruleId, out: 'no findings' }];

  return [...groups].map(([name, g]): TestCase => {
    const failing = g.findings.filter((f) => isFailing(f, failOn));
    const notes = [
      ...g.findings
        .filter((f) => !failing.includes(f))
        .map((f) => `${describe(f)}${f.baseline?.state === 'unchanged' ? ' (known from the baseline)' : ' (below --fail-on)'}`),
      ...g.suppressed.map((f) => `${describe(f)} (suppressed: ${f.suppression.reason ?? 'with --suppress'})`),
    ];
    if (failing.length > 0) {
      const worst = failing[0]!;
      return {
        name,
        failure: { type: worst.severity, message: failing.map((f) => f.title).join('; '), body: failing.map(details).join('\n\n---\n\n') },
        ...(notes.length ? { out: notes.join('\n') } : {}),
      };
    }
    if (g.findings.length === 0) return { name, skipped: `suppressed: ${g.suppressed.map((f) => f.suppression.reason ?? 'with --suppress').join('; ')}` };
    return { name, out: notes.join('\n') };
  });
}

function describe(f: ReportFinding): string {
  return `${f.severity.toUpperCase()} ${f.title}${f.code ? ` (${f.code})` : ''}`;
}

function details(f: ReportFinding): string {
  const lines = [`${f.severity.toUpperCase()} ${f.title} [${f.code ? `${f.code} ` : ''}${f.ruleId}]`, f.message];
  if (f.baseline?.state === 'worse') lines.push(`Worse than the baseline: ${f.baseline.reason}`);
  if (f.baseline?.state === 'new') lines.push('New: not in the baseline.');
  if (f.keyFigure) lines.push(`${f.keyFigure.name}: ${f.keyFigure.value}`);
  for (const l of f.locations.slice(0, 5)) lines.push(`at ${l.path}:${l.line}`);
  lines.push(`Fix: ${f.remediation}`, `Docs: ${f.docsUrl}`);
  return lines.join('\n');
}

function renderCase(suite: string, c: TestCase): string[] {
  const open = `    <testcase classname="${attr(`${TOOL}.${suite}`)}" name="${attr(c.name)}"`;
  const inner: string[] = [];
  if (c.failure) inner.push(`      <failure type="${attr(c.failure.type)}" message="${attr(c.failure.message)}">${text(c.failure.body)}</failure>`);
  if (c.error) inner.push(`      <error type="${attr(c.error.type)}" message="${attr(c.error.message)}"/>`);
  if (c.skipped !== undefined) inner.push(`      <skipped message="${attr(c.skipped)}"/>`);
  if (c.out) inner.push(`      <system-out>${text(c.out)}</system-out>`);
  return inner.length === 0 ? [`${open}/>`] : [`${open}>`, ...inner, '    </testcase>'];
}

/** XML 1.0 cannot carry most control characters at all, escaped or not. */
function clean(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '\uFFFD');
}

function text(s: string): string {
  return clean(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function attr(s: string): string {
  return text(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}
