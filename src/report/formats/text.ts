// The human report, laid out for the terminal it is printed on (options.width: the TTY's columns,
// else COLUMNS, else 80). By default each finding takes a few lines: title with the rule code,
// subject, key figures, the first fix and the docs link; --verbose adds the message, every evidence
// field, the samples and the whole fix. The incident summary opens the report and its answer (the
// probable cause and the first action) is repeated as the last lines, so it is on the last screen.
// Evidence is rendered generically (scalars as key/value lines, lists of objects as small tables,
// timelines as sparklines) so a new rule needs no formatter changes.

import { Chalk, type ChalkInstance } from 'chalk';
import Table from 'cli-table3';
import stringWidth from 'string-width';
import { type Finding, SEVERITIES, type SampleLine, type Severity, type Timeline } from '../../core/types.js';
import { compact, maxOf } from '../../util/stats.js';
import type { Report, ReportFinding } from '../report.js';
import type { FormatOptions } from './options.js';
import { shortenToSentences, wrap } from './text-wrap.js';

export { shortenToSentences, wrap } from './text-wrap.js';
export { bucketName, fitCounts, sparkline, truncateMiddle } from './text-sparklines.js';
import { fitCounts, incidentSparklines, sparkline } from './text-sparklines.js';
import {
  explainTopic,
  formatTimeRange,
  formatTimeWithin,
  formatValue,
  humanize,
  listTotal,
  noFindingsText,
  skippedRulesWorthListing,
  subjectParts,
  truncate,
  unreadText,
} from './values.js';

const DEFAULT_WIDTH = 80;
const LIST_ROWS = 5;
const BRIEF_FIGURES = 4;
/** Lines the closing answer may take, so it and the summary fit the last screen of a 24-line terminal. */
const ANSWER_LINES = 8;
/** Rows of the terminal --summary is laid out for. */
const SUMMARY_ROWS = 24;

export function formatText(report: Report, options: FormatOptions): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const width = Math.max(40, options.width ?? DEFAULT_WIDTH);
  const out: string[] = [];
  const kinds = new Map<string, number>();
  for (const i of report.inputs) kinds.set(i.kind, (kinds.get(i.kind) ?? 0) + 1);
  const bytes = report.inputs.reduce((n, i) => n + i.bytes, 0);
  const records = report.inputs.reduce((n, i) => n + i.records, 0);
  const head = `${report.tool.name} ${report.tool.version}`;
  const about = ` · ${report.inputs.length} input${report.inputs.length === 1 ? '' : 's'} (${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ') || 'none'}) · ${formatBytes(bytes)} · ${compact(records)} records`;
  wrap(head + about, width).forEach((l, i) => out.push(i === 0 ? c.bold(head) + c.dim(l.slice(head.length)) : c.dim(l)));
  const unparsed = report.inputs.filter((i) => i.unparsed > 0);
  if (unparsed.length > 0 && options.summaryOnly) {
    out.push(
      ...indent(wrap(`${unparsed.reduce((n, i) => n + i.unparsed, 0)} lines did not parse in ${unparsed.length} input(s)`, width - 2), 2).map((l) =>
        c.yellow(l),
      ),
    );
  } else if (unparsed.length > 0) {
    const text = `${unparsed.reduce((n, i) => n + i.unparsed, 0)} lines did not parse in ${unparsed.length} input(s): ${unparsed
      .slice(0, 3)
      .map((i) => `${i.path} (${i.unparsed})`)
      .join(', ')}`;
    out.push(...indent(wrap(text, width - 2), 2).map((l) => c.yellow(l)));
  }
  if (report.proxyVersions && report.proxyVersions.length > 0 && !options.summaryOnly) {
    const text = `proxy versions: ${report.proxyVersions
      .slice(0, 4)
      .map((v) => `${v.version} (${v.linkerd}) on ${v.pods} pod${v.pods === 1 ? '' : 's'}`)
      .join(', ')}`;
    out.push(...indent(wrap(text, width - 2), 2).map((l) => c.dim(l)));
  }
  // An input error comes before any verdict: "No findings." above it would read like a pass.
  for (const e of report.errors) out.push(...wrap(`error: ${e.path}${e.line ? `:${e.line}` : ''}: ${e.message}`, width).map((l) => c.red(l)));
  const readable = report.inputs.filter((i) => i.kind !== 'unknown').length;
  out.push('');
  const visible = options.findings;
  if (options.summaryOnly) {
    // One screen (SUMMARY_ROWS): each incident in a line or two, then whole finding titles, the worst
    // first, as many as the screen holds beside the closing answer.
    out.push(...renderIncidentHeadlines(c, report, width));
    // Below the findings: a blank line, the summary line and the closing answer.
    const closing = 2 + answer(c, report, visible, width).length;
    const room = Math.max(3, SUMMARY_ROWS - out.length - closing - 1);
    const lines = visible.map((f) => oneLine(c, f, width));
    let used = 0;
    let shown = 0;
    for (const l of lines) {
      // The last row is kept for "… N more" unless this is the last finding.
      if (used + l.length > room - (shown < lines.length - 1 ? 1 : 0)) break;
      out.push(...l);
      used += l.length;
      shown++;
    }
    if (shown < visible.length) out.push(c.dim(truncate(`… ${visible.length - shown} more finding(s); drop --summary to see them.`, width)));
    if (visible.length > 0) out.push('');
  } else {
    out.push(...renderIncidents(c, report, width));
    for (const severity of SEVERITIES) {
      const group = visible.filter((f) => f.severity === severity);
      if (group.length === 0) continue;
      out.push(c.bold(severityLabel(c, severity, `${group.length} ${severity}${group.length === 1 ? '' : 's'}`)), '');
      for (const f of group) out.push(...(options.verbose ? renderFull(c, f, width) : renderBrief(c, f, width)), '');
    }
  }
  if (visible.length === 0 && (report.errors.length === 0 || report.inputs.length === 0))
    out.push(report.inputs.length === 0 ? c.red(noFindingsText(report)) : c.green(noFindingsText(report)), '');
  else if (visible.length === 0 && readable > 0) out.push(...wrap(`No findings in the ${readable} input(s) that could be read.`, width), '');
  if (options.notShown && options.notShown > 0)
    out.push(c.dim(`${options.notShown} more finding(s) not shown (--max-findings); the JSON report has all of them.`));
  if (!options.verbose && !options.summaryOnly && visible.length > 0)
    out.push(...wrap('--verbose shows every finding with its full evidence, samples and fix.', width).map((l) => c.dim(l)));

  const notes: string[] = [];
  const skipped = skippedRulesWorthListing(report);
  // The list is for whoever asks (--verbose): a single pasted file skips most rules, and ten lines
  // of them would push the answer off the screen.
  if (skipped.length > 0 && !options.summaryOnly && readable > 0)
    notes.push(
      options.verbose
        ? `Skipped rules (their inputs are missing): ${skipped.map((s) => `${s.ruleId} (${s.reason})`).join(', ')}`
        : `${skipped.length} rule${skipped.length === 1 ? '' : 's'} skipped for want of their inputs (--verbose lists them).`,
    );
  if (report.suppressedFindings?.length)
    notes.push(
      `Suppressed: ${report.suppressedFindings.length} finding(s) (${report.suppressedFindings
        .slice(0, 3)
        .map((f) => `${f.ruleId}: ${f.suppression.reason ?? '--suppress'}`)
        .join('; ')})`,
    );
  if (report.disabledRules.length > 0) notes.push(`Disabled rules: ${report.disabledRules.join(', ')}`);
  const b = report.baseline;
  if (b)
    notes.push(`Baseline ${b.file}: ${b.new} new, ${b.worse} worse, ${b.unchanged} unchanged (not failing), ${b.fixed.length} fixed, ${b.stale.length} stale`);
  for (const n of notes) out.push(...wrap(n, width).map((l) => c.dim(l)));

  const hidden = report.findings.length - visible.length - (options.notShown ?? 0);
  const status =
    report.status === 'error'
      ? c.red.bold('ERROR')
      : report.status === 'fail'
        ? c.red.bold('FAIL')
        : report.status === 'incomplete'
          ? c.yellow.bold('INCOMPLETE')
          : c.green.bold('PASS');
  const summary = `Summary: ${report.summary.error} error(s), ${report.summary.warning} warning(s), ${report.summary.info} info${hidden > 0 ? ` (${hidden} below --min-severity not shown)` : ''} · `;
  // An input not understood is named in the verdict itself, whatever the verdict: a PASS beside it would be no answer.
  const unread = unreadText(report);
  const summaryLines = wrap(
    `${summary}${report.status.toUpperCase()}${unread ? ` · ${unread}` : ''}${report.errors.length ? ` · ${report.errors.length} input error(s)` : ''}`,
    width,
  );
  const first = summaryLines.shift()!;
  out.push(first.replace(/(PASS|FAIL|ERROR|INCOMPLETE)/, status).replace('Summary:', c.bold('Summary:')), ...summaryLines);
  out.push(...answer(c, report, visible, width));
  return out.join('\n') + '\n';
}

/** The incident summary's conclusion again, at the very end: the probable cause and the first action. */
function answer(c: ChalkInstance, report: Report, visible: readonly ReportFinding[], width: number): string[] {
  const incident = (report.incidents ?? []).find((i) => i.findings.length > 1);
  const top = visible[0];
  let cause: string;
  let action: string;
  if (incident) {
    cause = incident.headline;
    action = incident.firstAction;
  } else if (top) {
    cause = `${top.title}${subjectText(top) ? ` (${subjectText(top)})` : ''}`;
    action = firstStep(top);
  } else return [];
  const label = incident ? (incident.ordering.confidence === 'likely' ? 'Probable cause: ' : 'Signals (order unclear): ') : 'Worst finding: ';
  cause = cause.replace(/^Order unclear: /, '');
  const causeLines = wrap(label + shortenToSentences(cause, width - label.length, ANSWER_LINES / 2), width);
  const actionLines = wrap(`Do now: ${shortenToSentences(action, width - 8, ANSWER_LINES / 2)}`, width);
  return [
    ...causeLines.map((l, i) => (i === 0 ? c.bold(l.slice(0, label.length)) + l.slice(label.length) : l)),
    ...actionLines.map((l, i) => (i === 0 ? c.bold(l.slice(0, 7)) + l.slice(7) : l)),
  ];
}

/** The story first: incidents of more than one finding, with their order, timeline and first action. */
function renderIncidents(c: ChalkInstance, report: Report, width: number): string[] {
  const incidents = (report.incidents ?? []).filter((i) => i.findings.length > 1);
  if (incidents.length === 0) return [];
  const lines = [c.bold(`${incidents.length} INCIDENT${incidents.length === 1 ? '' : 'S'}`), ''];
  const inner = width - 3;
  incidents.forEach((inc, n) => {
    const number = `${n + 1}. `;
    wrap(inc.headline, width - number.length).forEach((l, i) =>
      lines.push(i === 0 ? `${severityLabel(c, inc.severity, number.trimEnd())} ${c.bold(l)}` : `${' '.repeat(number.length)}${c.bold(l)}`),
    );
    const when = inc.window ? formatTimeRange(inc.window.start, inc.window.end) : 'time unknown';
    lines.push(...indent(wrap(`${when} · ${inc.findings.length} findings · order ${inc.ordering.confidence}`, inner), 3).map((l) => c.dim(l)));
    if (inc.timeline) lines.push(...incidentSparklines(c, inc.timeline, inner).map((l) => `   ${l}`));
    for (const f of inc.findings) {
      const text = `${f.role.padEnd(14)} ${f.title} [${f.ruleId}]${f.firstSeen ? ` from ${formatTimeWithin(f.firstSeen, inc.window)}` : ''}`;
      lines.push(...indent(wrap(text, inner, 15), 3));
    }
    for (const r of inc.ordering.reasoning) lines.push(...labelled(c.dim('why'), r, inner).map((l) => `   ${l}`));
    lines.push(...labelled(c.bold('do now'), inc.firstAction, inner).map((l) => `   ${l}`));
    lines.push('');
  });
  return lines;
}

function severityLabel(c: ChalkInstance, severity: Severity, text: string): string {
  return severity === 'error' ? c.red(text.toUpperCase()) : severity === 'warning' ? c.yellow(text.toUpperCase()) : c.cyan(text.toUpperCase());
}

function ruleTag(f: ReportFinding): string {
  return `[${f.code ? `${f.code} ` : ''}${f.ruleId}]`;
}

function baselineTag(c: ChalkInstance, f: ReportFinding): string {
  if (!f.baseline) return '';
  const s = f.baseline.state;
  return ' ' + (s === 'new' ? c.red.bold('NEW') : s === 'worse' ? c.red.bold('WORSE') : c.dim('unchanged'));
}

function subjectText(f: Finding): string {
  return subjectParts(f)
    .map(([k, v]) => `${k} ${v}`)
    .join(' · ');
}

function titleLines(c: ChalkInstance, f: ReportFinding, width: number): string[] {
  const sev = f.severity.toUpperCase().padEnd(7);
  const tag = ruleTag(f);
  const baseline = f.baseline ? ` ${f.baseline.state === 'unchanged' ? 'unchanged' : f.baseline.state.toUpperCase()}` : '';
  const lines = wrap(`${sev} ${f.title} ${tag}${baseline}`, width, 8);
  // Colour after wrapping, so the widths are measured on the plain text.
  return lines.map((l, i) => {
    let s =
      i === 0
        ? severityLabel(c, f.severity, sev) + c.bold(l.slice(sev.length).replace(tag, '').replace(baseline, ''))
        : l.replace(tag, '').replace(baseline, '');
    if (l.includes(tag)) s += c.dim(tag);
    if (baseline && l.endsWith(baseline)) s += baselineTag(c, f);
    return s;
  });
}

/** The finding's whole title (wrapped if it must be), its subject only when it fits beside it. */
function oneLine(c: ChalkInstance, f: ReportFinding, width: number): string[] {
  const subject = subjectText(f);
  const head = `${f.severity.toUpperCase().padEnd(7)} ${f.title}`;
  const withSubject = subject ? `${head} · ${subject}` : head;
  const tag = ` ${ruleTag(f)}`;
  const text = [`${withSubject}${tag}`, `${head}${tag}`].find((t) => stringWidth(t) <= width) ?? head;
  const lines = wrap(text, width, 8);
  return lines.map((l, i) => (i === 0 ? severityLabel(c, f.severity, l.slice(0, 7)) + l.slice(7) : l));
}

/** --summary: each incident as its headline and time, no timeline or reasoning. */
function renderIncidentHeadlines(c: ChalkInstance, report: Report, width: number): string[] {
  const incidents = (report.incidents ?? []).filter((i) => i.findings.length > 1);
  if (incidents.length === 0) return [];
  const lines: string[] = [];
  incidents.slice(0, 3).forEach((inc, n) => {
    const when = inc.window ? formatTimeRange(inc.window.start, inc.window.end) : 'time unknown';
    // The first incident's headline is the closing answer's cause, a few lines below.
    // The others by their first signal only: the summary is one screen.
    const what = n === 0 ? 'its cause and first action close the report' : (inc.findings[0]?.title ?? '');
    lines.push(...wrap(`${n + 1}. ${inc.findings.length} findings, ${when}: ${what}`, width, 3).map((l) => c.bold(l)));
  });
  if (incidents.length > 3) lines.push(c.dim(`… ${incidents.length - 3} more incident(s)`));
  lines.push('');
  return lines;
}

/** Title, subject, a few key figures, the first fix step and the docs link. */
function renderBrief(c: ChalkInstance, f: ReportFinding, width: number): string[] {
  const lines = titleLines(c, f, width);
  const subject = subjectText(f);
  if (subject) lines.push(...indent(wrap(subject, width - 2), 2).map((l) => c.cyan(l)));
  const figures = keyFigures(f).slice(0, BRIEF_FIGURES);
  if (figures.length) lines.push(...indent(wrap(figures.join(' · '), width - 2), 2));
  if (f.baseline?.state === 'worse' && f.baseline.reason)
    lines.push(...indent(wrap(`worse than the baseline: ${f.baseline.reason}`, width - 2), 2).map((l) => c.red(l)));
  const step = firstStep(f);
  if (step) lines.push(...labelled(c.bold('fix'), step, width - 2).map((l) => `  ${l}`));
  lines.push(docsLine(c, f, width));
  return lines;
}

/**
 * The docs link, never cut in two (a broken URL is not clickable): on a narrow terminal the
 * `explain` command that prints the same page stands in for it.
 */
function docsLine(c: ChalkInstance, f: Finding, width: number): string {
  const explain = `linkerd-doctor explain ${explainTopic(f)}`;
  const both = `  docs ${f.docsUrl} · ${explain}`;
  if (stringWidth(both) <= width) return c.dim(both);
  const url = `  docs ${f.docsUrl}`;
  if (stringWidth(url) <= width && explainTopic(f) === f.ruleId) return c.dim(url);
  const command = `  docs: ${explain}`;
  return c.dim(stringWidth(command) <= width ? command : indent(wrap(explain, width - 2), 2).join('\n'));
}

/** The key figure first, then the top-level numbers of the evidence. */
function keyFigures(f: Finding): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  if (f.keyFigure) {
    out.push(`${humanize(f.keyFigure.name)} ${formatValue(f.keyFigure.value)}`);
    seen.add(f.keyFigure.name);
  }
  for (const [k, v] of Object.entries(f.evidence)) {
    if (seen.has(k) || typeof v !== 'number' || v === 0) continue;
    out.push(`${humanize(k)} ${formatValue(v)}`);
  }
  return out;
}

/** The first remediation step (rules number their steps), without the version checks. */
function firstStep(f: Finding): string {
  const line = f.remediation.split('\n').find((l) => l.trim() !== '' && !l.startsWith('Version check')) ?? '';
  return line.replace(/^\s*1\.\s*/, '').trim();
}

function renderFull(c: ChalkInstance, f: ReportFinding, width: number): string[] {
  const lines = titleLines(c, f, width);
  const subject = subjectText(f);
  if (subject) lines.push(...indent(wrap(subject, width - 2), 2).map((l) => c.cyan(l)));
  lines.push(...indent(wrap(f.message, width - 2), 2));
  if (f.baseline?.state === 'worse' && f.baseline.reason)
    lines.push(...indent(wrap(`worse than the baseline: ${f.baseline.reason}`, width - 2), 2).map((l) => c.red(l)));

  const { timeline, samples, ...rest } = f.evidence as Record<string, unknown> & { timeline?: Timeline; samples?: unknown };
  const scalars: [string, string][] = [];
  const lists: string[] = [];
  for (const [key, value] of Object.entries(rest)) {
    if (value === null || value === undefined) continue;
    if (Array.isArray(value)) {
      if (value.length > 0) lists.push(...renderList(c, key, value, listTotal(f.evidence, key, value), width));
    } else if (typeof value === 'object') {
      const parts = Object.entries(value as Record<string, unknown>)
        .filter(([, v2]) => v2 !== null && v2 !== undefined)
        .map(([k2, v2]) =>
          typeof v2 === 'object'
            ? `${humanize(k2)} ${Object.entries(v2 as Record<string, unknown>)
                .map(([k3, v3]) => `${k3} ${formatValue(v3)}`)
                .join(', ')}`
            : `${humanize(k2)} ${formatValue(v2)}`,
        );
      if (parts.length > 0) scalars.push([humanize(key), parts.join(' · ')]);
    } else {
      scalars.push([humanize(key), formatValue(value)]);
    }
  }
  if (scalars.length > 0) {
    const keyWidth = Math.min(Math.max(...scalars.map(([k]) => k.length)), Math.floor((width - 2) / 2));
    for (const [k, v] of scalars) {
      const keyLines = wrap(k, keyWidth);
      const valueLines = wrap(v, width - 2 - keyWidth - 2);
      for (let i = 0; i < Math.max(keyLines.length, valueLines.length); i++)
        lines.push(`  ${c.dim((keyLines[i] ?? '').padEnd(keyWidth))}  ${valueLines[i] ?? ''}`.trimEnd());
    }
  }
  if (timeline && timeline.counts.length > 0) {
    const max = maxOf(timeline.counts);
    const from = timeline.start ? timeline.start.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : 'start';
    const label = timeline.label ?? 'timeline';
    const counts = fitCounts(timeline.counts, width - 4);
    const factor = Math.ceil(timeline.counts.length / counts.length);
    lines.push(...indent(wrap(`${label}: ${timeline.bucketSeconds * factor} s buckets from ${from}, peak ${compact(max)}`, width - 2), 2).map((l) => c.dim(l)));
    lines.push(`    ${c.magenta(sparkline(counts))}`);
  }
  lines.push(...lists);
  if (Array.isArray(samples) && samples.length > 0) {
    lines.push(`  ${c.dim('samples')}`);
    for (const s of samples as SampleLine[]) lines.push(`    ${c.dim(truncate(`${s.path}:${s.line}`, width - 4))}`, `      ${truncate(s.text, width - 6)}`);
  }
  lines.push(`  ${c.bold('Fix')}`);
  lines.push(
    ...f.remediation
      .split('\n')
      .flatMap((p) => wrap(p, width - 4))
      .map((l) => `    ${l}`),
  );
  lines.push(docsLine(c, f, width));
  return lines;
}

function renderList(c: ChalkInstance, key: string, items: unknown[], total: number, width: number): string[] {
  const more =
    total > LIST_ROWS && items.length > LIST_ROWS
      ? ` (top ${LIST_ROWS} of ${total.toLocaleString('en-US')})`
      : total > items.length
        ? ` (${items.length} of ${total.toLocaleString('en-US')})`
        : '';
  if (items.every((i) => typeof i !== 'object' || i === null))
    return labelled(c.dim(humanize(key) + more), items.slice(0, 10).map(String).join(', '), width - 2).map((l) => `  ${l}`);
  const rows = items.slice(0, LIST_ROWS) as Record<string, unknown>[];
  // Every column needs 6 characters and a border: the ones that do not fit are left to --format json.
  const fitting = Math.max(1, Math.floor((width - 5) / 7));
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))].slice(0, fitting);
  const cells = rows.map((r) =>
    columns.map((col) =>
      formatValue(
        typeof r[col] === 'object' && r[col] !== null
          ? Object.entries(r[col] as object)
              .map(([k, v]) => `${k} ${formatValue(v)}`)
              .join(', ')
          : r[col],
      ),
    ),
  );
  const head = columns.map((h) => humanize(h));
  const colWidths = fitColumns(
    columns.map((_, i) => Math.max(head[i]!.length, ...cells.map((r) => r[i]!.length)) + 2),
    width - 4 - (columns.length + 1),
  );
  const table = new Table({ head: head.map((h, i) => truncate(h, colWidths[i]! - 2)), style: { head: [], border: [], compact: true }, colWidths });
  for (const r of cells) table.push(r.map((v, i) => truncate(v, colWidths[i]! - 2)));
  return [
    ...labelled(c.dim(humanize(key) + more), '', width - 2).map((l) => `  ${l}`.trimEnd()),
    ...table
      .toString()
      .split('\n')
      .map((l) => `    ${l}`),
  ];
}

/** Shrinks the widest columns until the row fits `available`; every column keeps at least 6. */
function fitColumns(natural: number[], available: number): number[] {
  const widths = [...natural];
  while (widths.reduce((a, b) => a + b, 0) > available) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest]! <= 6) break;
    widths[widest]!--;
  }
  return widths;
}

/** `label text…` with the continuation lines indented under the text; the label may carry colour codes. */
function labelled(label: string, text: string, width: number): string[] {
  // eslint-disable-next-line no-control-regex
  const plain = label.replace(/\u001b\[[0-9;]*m/g, '');
  const pad = plain.length + 1;
  if (text === '') return [label];
  return wrap(text, width - pad).map((l, i) => (i === 0 ? `${label} ${l}` : `${' '.repeat(pad)}${l}`));
}

function indent(lines: string[], n: number, continuation = n): string[] {
  return lines.map((l, i) => `${' '.repeat(i === 0 ? n : continuation)}${l}`);
}

export function formatBytes(n: number): string {
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(1)} GiB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KiB`;
  return `${n} B`;
}
