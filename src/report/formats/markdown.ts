// Markdown for PR comments and GitHub issues: a status line and one summary table first, then
// each finding in a collapsed <details> block, so a long report stays readable in a thread.
// Every value from the inputs goes through markdown-safe.ts. GitHub rejects a comment over 65,536
// characters, so the report is built to a budget: incidents, then the table (folded to one row per
// rule and title when it would not fit), then as many details as fit, and a pointer to the full
// report whenever something was left out.

import { incidentBlocks, incidentsHeading } from './incident-markdown.js';
import type { Finding, SampleLine, Timeline } from '../../core/types.js';
import { compact } from '../../util/stats.js';
import { isFailing } from '../exit-code.js';
import { subjectKey } from '../fingerprint.js';
import type { Report, ReportFinding } from '../report.js';
import type { FormatOptions } from './options.js';
import { fencedBlock, htmlText, mdCode, mdLink, mdProse, mdText } from './markdown-safe.js';
import { sparkline } from './text.js';
import { formatValue, humanize, noFindingsText, skippedRulesWorthListing, unreadText } from './values.js';

/** GitHub's limit for an issue or PR comment body, in characters. */
export const MARKDOWN_COMMENT_LIMIT = 65_536;
/** Kept free below the limit for the truncation notes and what counts characters differently. */
const SAFETY_MARGIN = 2_048;
const MAX_DETAILS = 25;
const MAX_ROWS = 5;
const MAX_NOTE_ITEMS = 20;
const ICON = { error: '🔴', warning: '🟠', info: '🔵' } as const;
const FULL_REPORT_HINT = 'the full report is in the JSON, SARIF or HTML output (e.g. `--format html --output report.html`)';

export function formatMarkdown(report: Report, options: FormatOptions): string {
  const s = report.summary;
  const status =
    report.status === 'error'
      ? '⚠️ **ERROR**'
      : report.status === 'fail'
        ? '❌ **FAIL**'
        : report.status === 'incomplete'
          ? '🟡 **INCOMPLETE**'
          : '✅ **PASS**';
  const unread = unreadText(report);
  const head = [
    `### ${mdText(report.tool.name)} ${mdText(report.tool.version)}: ${status}${unread ? ` · ${mdText(unread)}` : ''}${report.errors.length ? ` · ${report.errors.length} input error(s)` : ''}`,
    '',
    `${s.error} error(s), ${s.warning} warning(s), ${s.info} info · ${s.failing} at or above --fail-on ${mdText(report.failOn)}` +
      (s.suppressed ? ` · ${s.suppressed} suppressed` : '') +
      ` · ${report.inputs.length} input(s)`,
    '',
  ].join('\n');
  const notes = notesFor(report, options.findings);
  let budget = MARKDOWN_COMMENT_LIMIT - SAFETY_MARGIN - head.length - notes.length;
  const omitted: string[] = [];

  const incidents = incidentBlocks(report.incidents);
  const keptIncidents = takeWithin(incidents, Math.floor(budget * 0.3));
  if (keptIncidents.length < incidents.length) omitted.push(`${incidents.length - keptIncidents.length} of ${incidents.length} incident(s)`);
  const incidentsPart = keptIncidents.length > 0 ? [incidentsHeading(incidents.length), ...keptIncidents].join('\n') + '\n' : '';
  budget -= incidentsPart.length;

  const findings = options.findings;
  let tablePart = `${noFindingsText(report)}\n\n`;
  let detailsPart = '';
  if (findings.length > 0) {
    const tableBudget = Math.floor(budget * 0.5);
    let table = findingsTable(report, findings);
    if (table.length > tableBudget) {
      table = foldedTable(report, findings);
      if (table.length > tableBudget) {
        const rows = table.split('\n');
        const kept = takeWithin(rows.slice(2), tableBudget - rows[0]!.length - rows[1]!.length - 2);
        omitted.push(`${rows.length - 2 - kept.length} summary row(s)`);
        table = [rows[0], rows[1], ...kept].join('\n');
      } else omitted.push('one row per finding (rows are folded per rule and title)');
    }
    tablePart = table + '\n\n';
    budget -= tablePart.length;
    const blocks = findings.slice(0, MAX_DETAILS).map((f) => details(f).join('\n') + '\n\n');
    const keptDetails = takeWithin(blocks, budget);
    detailsPart = keptDetails.join('');
    const undetailed = findings.length - keptDetails.length;
    if (undetailed > 0) omitted.push(`details of ${undetailed} of ${findings.length} finding(s)`);
  }
  const pointer =
    omitted.length > 0
      ? `_Not shown here to stay within GitHub's ${MARKDOWN_COMMENT_LIMIT.toLocaleString('en-US')}-character comment limit: ${omitted.join('; ')}; ${FULL_REPORT_HINT}._\n\n`
      : '';
  return head + '\n' + incidentsPart + tablePart + detailsPart + pointer + notes;
}

/** The leading items whose total length fits `budget`. */
function takeWithin(items: readonly string[], budget: number): string[] {
  const kept: string[] = [];
  let used = 0;
  for (const item of items) {
    if (used + item.length + 1 > budget) break;
    kept.push(item);
    used += item.length + 1;
  }
  return kept;
}

function findingsTable(report: Report, findings: readonly ReportFinding[]): string {
  const baseline = report.baseline !== null;
  const out = [`| Severity | Rule | Subject | Finding | Key figure |${baseline ? ' Baseline |' : ''}`, `|---|---|---|---|---|${baseline ? '---|' : ''}`];
  for (const f of findings) {
    const fails = isFailing(f, report.failOn) ? ' ⛔' : '';
    const cells = [
      `${ICON[f.severity]} ${f.severity}${fails}`,
      `${mdLink(mdCode(f.ruleId), f.docsUrl)}${f.code ? ` ${mdText(f.code)}` : ''}`,
      mdText(subjectKey(f.subject) || '—'),
      mdText(f.title),
      f.keyFigure ? `${mdText(humanize(f.keyFigure.name))} ${compact(f.keyFigure.value)}` : '—',
    ];
    if (baseline) cells.push(f.baseline ? f.baseline.state : '—');
    out.push(`| ${cells.join(' | ')} |`);
  }
  return out.join('\n');
}

const FOLDED_SUBJECTS = 3;

/** One row per rule and title: how many subjects, the first few, and the largest key figure. */
function foldedTable(report: Report, findings: readonly ReportFinding[]): string {
  const groups = new Map<string, ReportFinding[]>();
  for (const f of findings) {
    const key = `${f.ruleId}\u0000${f.title}`;
    const group = groups.get(key);
    if (group) group.push(f);
    else groups.set(key, [f]);
  }
  const out = ['| Severity | Rule | Subjects | Finding | Largest key figure |', '|---|---|---|---|---|'];
  for (const group of groups.values()) {
    const first = group[0]!;
    const failing = group.filter((f) => isFailing(f, report.failOn)).length;
    const subjects = group.slice(0, FOLDED_SUBJECTS).map((f) => mdText(subjectKey(f.subject) || '—'));
    const more = group.length > FOLDED_SUBJECTS ? ` … (${group.length} in all)` : '';
    const largest = group.reduce<ReportFinding['keyFigure']>(
      (best, f) => (f.keyFigure && (!best || f.keyFigure.value > best.value) ? f.keyFigure : best),
      undefined,
    );
    out.push(
      `| ${ICON[first.severity]} ${first.severity}${failing ? ` ⛔ ${failing}` : ''} | ${mdLink(mdCode(first.ruleId), first.docsUrl)}${first.code ? ` ${mdText(first.code)}` : ''} | ${subjects.join(', ')}${more} | ${mdText(first.title)} | ${largest ? `${mdText(humanize(largest.name))} ${compact(largest.value)}` : '—'} |`,
    );
  }
  return out.join('\n');
}

/** A bounded bullet list: the first items and a count of the rest. */
function capped(items: readonly string[]): string {
  return items.length > MAX_NOTE_ITEMS ? `${items.slice(0, MAX_NOTE_ITEMS).join(', ')} … and ${items.length - MAX_NOTE_ITEMS} more` : items.join(', ');
}

function notesFor(report: Report, findings: readonly ReportFinding[]): string {
  const notes: string[] = [];
  if (report.suppressedFindings.length)
    notes.push(
      `Suppressed: ${capped(report.suppressedFindings.map((f) => `${mdCode(f.ruleId)} ${mdText(subjectKey(f.subject))} (${mdText(f.suppression.reason ?? '--suppress')})`))}`,
    );
  const unused = report.suppressions.filter((u) => u.matched === 0);
  if (unused.length) notes.push(`Unused suppressions: ${capped(unused.map((u) => mdCode(`${u.rule}${u.subject ? `=${u.subject}` : ''}`)))}`);
  if (report.baseline) {
    const b = report.baseline;
    const fixed = b.fixed.map((e) => mdText(e.title ?? `${e.ruleId} ${subjectKey(e.subject ?? {})}`));
    notes.push(
      `Baseline ${mdCode(b.file)}: ${b.new} new, ${b.worse} worse, ${b.unchanged} unchanged, ${b.fixed.length} fixed${fixed.length ? ` (${capped(fixed)})` : ''}, ${b.stale.length} stale`,
    );
  }
  const skipped = skippedRulesWorthListing(report);
  if (skipped.length) notes.push(`Not evaluated: ${capped(skipped.map((r) => `${mdCode(r.ruleId)} (${mdText(r.reason)})`))}`);
  if (report.disabledRules.length) notes.push(`Disabled: ${capped(report.disabledRules.map((id) => mdCode(id)))}`);
  for (const e of report.errors.slice(0, MAX_NOTE_ITEMS))
    notes.push(`⚠️ Error: ${mdCode(`${e.path}${e.line ? `:${e.line}` : ''}`, false)}: ${mdText(e.message)}`);
  if (report.errors.length > MAX_NOTE_ITEMS) notes.push(`⚠️ … and ${report.errors.length - MAX_NOTE_ITEMS} more input error(s); ${FULL_REPORT_HINT}`);
  const hidden = report.findings.length - findings.length;
  if (hidden > 0) notes.push(`${hidden} finding(s) below --min-severity not shown.`);
  return notes.length ? notes.map((n) => `- ${n}`).join('\n') + '\n' : '';
}

function details(f: ReportFinding): string[] {
  const out = [
    `<details><summary>${ICON[f.severity]} <b>${htmlText(f.title)}</b> · <code>${htmlText(f.ruleId)}</code>${f.subject.target ? ` · <code>${htmlText(f.subject.target)}</code>` : ''}</summary>`,
    '',
  ];
  out.push(mdProse(f.message, { keepLines: true }), '');
  if (f.baseline?.state === 'worse') out.push(`**Worse than the baseline:** ${mdProse(f.baseline.reason ?? '')}`, '');
  const { rows, lists } = evidenceRows(f);
  if (rows.length) out.push('| Evidence | |', '|---|---|', ...rows.map(([k, v]) => `| ${k} | ${v} |`), '');
  out.push(...lists);
  const samples = (f.evidence as { samples?: unknown }).samples;
  if (Array.isArray(samples) && samples.length > 0) {
    out.push(
      '**Samples**',
      '',
      ...fencedBlock((samples.slice(0, 3) as SampleLine[]).flatMap((sample) => [`${sample.path}:${sample.line}`, `  ${sample.text}`])),
      '',
    );
  } else if (f.locations.length) {
    out.push(
      `**Where:** ${f.locations
        .slice(0, 5)
        .map((l) => mdCode(`${l.path}:${l.line}`, false))
        .join(', ')}`,
      '',
    );
  }
  // The blank line before </details> ends any table or list, so the tag is read as HTML again.
  out.push('**Fix**', '', mdProse(f.remediation, { keepLines: true }), '', mdLink('Docs', f.docsUrl), '', '</details>');
  return out;
}

/** Evidence as [key, value] table rows (already escaped) and small tables for lists of objects. */
function evidenceRows(f: Finding): { rows: [string, string][]; lists: string[] } {
  const rows: [string, string][] = [];
  const lists: string[] = [];
  const { timeline, samples: _samples, ...rest } = f.evidence as Record<string, unknown> & { timeline?: Timeline };
  for (const [key, value] of Object.entries(rest)) {
    if (value === null || value === undefined) continue;
    if (Array.isArray(value)) {
      if (value.length === 0) continue;
      if (value.every((v) => typeof v !== 'object' || v === null)) rows.push([mdText(humanize(key)), mdText(value.slice(0, 10).map(String).join(', '))]);
      else {
        const items = value.slice(0, MAX_ROWS) as Record<string, unknown>[];
        const columns = [...new Set(items.flatMap((i) => Object.keys(i)))];
        lists.push(
          `**${mdText(humanize(key))}**${value.length > MAX_ROWS ? ` (top ${MAX_ROWS} of ${value.length})` : ''}`,
          '',
          `| ${columns.map((c) => mdText(humanize(c))).join(' | ')} |`,
          `|${columns.map(() => '---').join('|')}|`,
        );
        for (const i of items) lists.push(`| ${columns.map((c) => mdText(formatValue(i[c]))).join(' | ')} |`);
        lists.push('');
      }
    } else if (typeof value === 'object') {
      for (const [k2, v2] of Object.entries(value as Record<string, unknown>))
        if (v2 !== null && v2 !== undefined && typeof v2 !== 'object') rows.push([mdText(`${humanize(key)} · ${humanize(k2)}`), mdText(formatValue(v2))]);
    } else rows.push([mdText(humanize(key)), mdText(formatValue(value))]);
  }
  if (timeline && timeline.counts.length > 0)
    rows.push([
      mdText(timeline.label ?? 'timeline'),
      `${mdCode(sparkline(timeline.counts))} ${timeline.bucketSeconds} s buckets from ${mdText(timeline.start ?? 'start')}, peak ${compact(Math.max(...timeline.counts))}`,
    ]);
  return { rows, lists };
}
