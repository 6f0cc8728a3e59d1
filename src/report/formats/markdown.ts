// Markdown for PR comments and GitHub issues: a status line and one summary table first, then
// each finding in a collapsed <details> block, so a long report stays readable in a thread.

import { incidentsMarkdown } from '../../incident/markdown.js';
import type { Finding, SampleLine, Timeline } from '../../core/types.js';
import { compact } from '../../util/stats.js';
import { isFailing } from '../exit-code.js';
import { subjectKey } from '../fingerprint.js';
import type { Report, ReportFinding } from '../report.js';
import type { FormatOptions } from './index.js';
import { sparkline } from './text.js';
import { formatValue, humanize } from './values.js';

/** GitHub rejects comments over 65,536 characters; keep well below with room for the table. */
const MAX_DETAILS = 25;
const MAX_ROWS = 5;
const ICON = { error: '🔴', warning: '🟠', info: '🔵' } as const;

export function formatMarkdown(report: Report, options: FormatOptions): string {
  const out: string[] = [];
  const s = report.summary;
  const status = report.status === 'error' ? '⚠️ **ERROR**' : report.status === 'fail' ? '❌ **FAIL**' : '✅ **PASS**';
  out.push(
    `### ${report.tool.name} ${report.tool.version}: ${status}${report.errors.length ? ' · ⚠️ input errors' : ''}`,
    '',
    `${s.error} error(s), ${s.warning} warning(s), ${s.info} info · ${s.failing} at or above --fail-on ${report.failOn}` +
      (s.suppressed ? ` · ${s.suppressed} suppressed` : '') +
      ` · ${report.inputs.length} input(s)`,
    '',
  );
  const incidents = incidentsMarkdown(report.incidents);
  if (incidents) out.push(incidents.trimEnd(), '');

  const findings = options.findings;
  if (findings.length === 0) out.push('No findings.', '');
  else {
    const baseline = report.baseline !== null;
    out.push(`| Severity | Rule | Subject | Finding | Key figure |${baseline ? ' Baseline |' : ''}`, `|---|---|---|---|---|${baseline ? '---|' : ''}`);
    for (const f of findings) {
      const fails = isFailing(f, report.failOn) ? ' ⛔' : '';
      const cells = [
        `${ICON[f.severity]} ${f.severity}${fails}`,
        `[\`${f.ruleId}\`](${f.docsUrl})${f.code ? ` ${f.code}` : ''}`,
        cell(subjectKey(f.subject) || '—'),
        cell(f.title),
        f.keyFigure ? `${cell(f.keyFigure.name)} ${compact(f.keyFigure.value)}` : '—',
      ];
      if (baseline) cells.push(f.baseline ? f.baseline.state : '—');
      out.push(`| ${cells.join(' | ')} |`);
    }
    out.push('');
    for (const f of findings.slice(0, MAX_DETAILS)) out.push(...details(f), '');
    if (findings.length > MAX_DETAILS) out.push(`_${findings.length - MAX_DETAILS} more finding(s) not detailed here; see the JSON or SARIF report._`, '');
  }

  const notes: string[] = [];
  if (report.suppressedFindings.length) notes.push(`Suppressed: ${report.suppressedFindings.map((f) => `\`${f.ruleId}\` ${cell(subjectKey(f.subject))} (${cell(f.suppression.reason ?? '--suppress')})`).join(', ')}`);
  const unused = report.suppressions.filter((u) => u.matched === 0);
  if (unused.length) notes.push(`Unused suppressions: ${unused.map((u) => `\`${u.rule}${u.subject ? `=${u.subject}` : ''}\``).join(', ')}`);
  if (report.baseline) {
    const b = report.baseline;
    notes.push(`Baseline \`${b.file}\`: ${b.new} new, ${b.worse} worse, ${b.unchanged} unchanged, ${b.fixed.length} fixed${b.fixed.length ? ` (${b.fixed.map((e) => cell(e.title)).join('; ')})` : ''}, ${b.stale.length} stale`);
  }
  if (report.skippedRules.length) notes.push(`Not evaluated: ${report.skippedRules.map((r) => `\`${r.ruleId}\` (${r.reason})`).join(', ')}`);
  if (report.disabledRules.length) notes.push(`Disabled: ${report.disabledRules.map((id) => `\`${id}\``).join(', ')}`);
  for (const e of report.errors) notes.push(`⚠️ Error: \`${e.path}${e.line ? `:${e.line}` : ''}\`: ${cell(e.message)}`);
  const hidden = report.findings.length - findings.length;
  if (hidden > 0) notes.push(`${hidden} finding(s) below --min-severity not shown.`);
  if (notes.length) out.push(...notes.map((n) => `- ${n}`), '');
  return out.join('\n');
}

function details(f: ReportFinding): string[] {
  const out = [`<details><summary>${ICON[f.severity]} <b>${html(f.title)}</b> · <code>${html(f.ruleId)}</code>${f.subject.target ? ` · <code>${html(f.subject.target)}</code>` : ''}</summary>`, ''];
  out.push(f.message, '');
  if (f.baseline?.state === 'worse') out.push(`**Worse than the baseline:** ${f.baseline.reason}`, '');
  const { rows, lists } = evidenceRows(f);
  if (rows.length) out.push('| Evidence | |', '|---|---|', ...rows.map(([k, v]) => `| ${cell(k)} | ${cell(v)} |`), '');
  out.push(...lists);
  const samples = (f.evidence as { samples?: unknown }).samples;
  if (Array.isArray(samples) && samples.length > 0) {
    out.push('**Samples**', '', '```text');
    for (const sample of samples.slice(0, 3) as SampleLine[]) out.push(`${sample.path}:${sample.line}`, `  ${fence(sample.text)}`);
    out.push('```', '');
  } else if (f.locations.length) {
    out.push(`**Where:** ${f.locations.slice(0, 5).map((l) => `\`${l.path}:${l.line}\``).join(', ')}`, '');
  }
  out.push('**Fix**', '', f.remediation, '', `[Docs](${f.docsUrl})`, '', '</details>');
  return out;
}

function evidenceRows(f: Finding): { rows: [string, string][]; lists: string[] } {
  const rows: [string, string][] = [];
  const lists: string[] = [];
  const { timeline, samples: _samples, ...rest } = f.evidence as Record<string, unknown> & { timeline?: Timeline };
  for (const [key, value] of Object.entries(rest)) {
    if (value === null || value === undefined) continue;
    if (Array.isArray(value)) {
      if (value.length === 0) continue;
      if (value.every((v) => typeof v !== 'object' || v === null)) rows.push([humanize(key), value.slice(0, 10).map(String).join(', ')]);
      else {
        const items = value.slice(0, MAX_ROWS) as Record<string, unknown>[];
        const columns = [...new Set(items.flatMap((i) => Object.keys(i)))];
        lists.push(`**${humanize(key)}**${value.length > MAX_ROWS ? ` (top ${MAX_ROWS} of ${value.length})` : ''}`, '', `| ${columns.map((c) => cell(humanize(c))).join(' | ')} |`, `|${columns.map(() => '---').join('|')}|`);
        for (const i of items) lists.push(`| ${columns.map((c) => cell(formatValue(i[c]))).join(' | ')} |`);
        lists.push('');
      }
    } else if (typeof value === 'object') {
      for (const [k2, v2] of Object.entries(value as Record<string, unknown>)) if (v2 !== null && v2 !== undefined && typeof v2 !== 'object') rows.push([`${humanize(key)} · ${humanize(k2)}`, formatValue(v2)]);
    } else rows.push([humanize(key), formatValue(value)]);
  }
  if (timeline && timeline.counts.length > 0) rows.push([timeline.label ?? 'timeline', `\`${sparkline(timeline.counts)}\` ${timeline.bucketSeconds} s buckets from ${timeline.start ?? 'start'}, peak ${compact(Math.max(...timeline.counts))}`]);
  return { rows, lists };
}

/** A table cell: one line, pipes escaped, HTML neutralised. */
function cell(s: string): string {
  return html(s).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function html(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Sample text inside a ``` block: a line of backticks would close it early. */
function fence(s: string): string {
  return s.replace(/```/g, '`\u200b``');
}
