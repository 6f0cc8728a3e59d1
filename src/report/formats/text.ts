// The human report: findings grouped by severity, evidence rendered generically (scalars as a
// table, lists of objects as small tables, timelines as sparklines) so a new rule needs no
// formatter changes.

import { Chalk, type ChalkInstance } from 'chalk';
import Table from 'cli-table3';
import { type Finding, SEVERITIES, type SampleLine, type Severity, type Timeline } from '../../core/types.js';
import { compact, maxOf } from '../../util/stats.js';
import type { Report } from '../report.js';
import type { FormatOptions } from './index.js';
import { formatValue, humanize, truncate } from './values.js';

const SPARK = '▁▂▃▄▅▆▇█';
const BORDERLESS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '',
};
const MAX_LIST_ROWS = 5;

export function sparkline(counts: readonly number[]): string {
  const max = maxOf(counts);
  if (max === 0) return SPARK[0]!.repeat(counts.length);
  return counts.map((c) => (c === 0 ? ' ' : SPARK[Math.min(SPARK.length - 1, Math.floor((c / max) * (SPARK.length - 1)))]!)).join('');
}

export function formatText(report: Report, options: FormatOptions): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const out: string[] = [];
  const kinds = new Map<string, number>();
  for (const i of report.inputs) kinds.set(i.kind, (kinds.get(i.kind) ?? 0) + 1);
  const bytes = report.inputs.reduce((n, i) => n + i.bytes, 0);
  const records = report.inputs.reduce((n, i) => n + i.records, 0);
  out.push(
    c.bold(`${report.tool.name} ${report.tool.version}`) +
      c.dim(` · ${report.inputs.length} input${report.inputs.length === 1 ? '' : 's'} (${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ') || 'none'}) · ${formatBytes(bytes)} · ${compact(records)} records`),
  );
  const unparsed = report.inputs.filter((i) => i.unparsed > 0);
  if (unparsed.length > 0) {
    out.push(c.yellow(`  ${unparsed.reduce((n, i) => n + i.unparsed, 0)} lines did not parse in ${unparsed.length} input(s): ${unparsed.slice(0, 3).map((i) => `${i.path} (${i.unparsed})`).join(', ')}`));
  }
  if (report.proxyVersions && report.proxyVersions.length > 0) {
    out.push(c.dim(`  proxy versions: ${report.proxyVersions.slice(0, 4).map((v) => `${v.version} (${v.linkerd}) on ${v.pods} pod${v.pods === 1 ? '' : 's'}`).join(', ')}`));
  }
  out.push('');
  out.push(...renderIncidents(c, report));

  const visible = options.findings;
  for (const severity of SEVERITIES) {
    const group = visible.filter((f) => f.severity === severity);
    if (group.length === 0) continue;
    out.push(c.bold(severityLabel(c, severity, `${group.length} ${severity}${group.length === 1 ? '' : 's'}`)));
    out.push('');
    for (const f of group) out.push(...renderFinding(c, f), '');
  }
  if (visible.length === 0) out.push(c.green('No findings.'), '');

  if (report.skippedRules.length > 0) {
    out.push(c.dim(`Skipped rules (their inputs are missing): ${report.skippedRules.map((s) => `${s.ruleId} (${s.reason})`).join(', ')}`));
  }
  if (report.disabledRules.length > 0) out.push(c.dim(`Disabled rules: ${report.disabledRules.join(', ')}`));
  for (const e of report.errors) out.push(c.red(`error: ${e.path}${e.line ? `:${e.line}` : ''}: ${e.message}`));
  if (report.suppressedFindings?.length) out.push(c.dim(`Suppressed: ${report.suppressedFindings.length} finding(s) (${report.suppressedFindings.slice(0, 3).map((f) => `${f.ruleId}: ${f.suppression.reason ?? '--suppress'}`).join('; ')})`));
  const b = report.baseline;
  if (b) out.push(c.dim(`Baseline ${b.file}: ${b.new} new, ${b.worse} worse, ${b.unchanged} unchanged (not failing), ${b.fixed.length} fixed, ${b.stale.length} stale`));
  const hidden = report.findings.length - visible.length;
  out.push(
    `${c.bold('Summary:')} ${report.summary.error} error(s), ${report.summary.warning} warning(s), ${report.summary.info} info` +
      (hidden > 0 ? c.dim(` (${hidden} below --min-severity not shown)`) : '') +
      ` · ${report.status === 'error' ? c.red.bold('ERROR') : report.status === 'fail' ? c.red.bold('FAIL') : c.green.bold('PASS')}${report.errors.length ? c.red(' · input errors') : ''}`,
  );
  return out.join('\n') + '\n';
}

/** The story first: incidents of more than one finding, with their order, timeline and first action. */
function renderIncidents(c: ChalkInstance, report: Report): string[] {
  const incidents = (report.incidents ?? []).filter((i) => i.findings.length > 1);
  if (incidents.length === 0) return [];
  const lines = [c.bold(`${incidents.length} INCIDENT${incidents.length === 1 ? '' : 'S'}`), ''];
  incidents.forEach((inc, n) => {
    lines.push(`${severityLabel(c, inc.severity, `${n + 1}.`)} ${c.bold(inc.headline)}`);
    const when = inc.window ? `${inc.window.start.replace('T', ' ').replace(/\.\d+Z$/, 'Z')} → ${inc.window.end.slice(11).replace(/\.\d+Z$/, 'Z')}` : 'time unknown';
    lines.push(`   ${c.dim(`${when} · ${inc.findings.length} findings · order ${inc.ordering.confidence}`)}`);
    if (inc.timeline) {
      const total = inc.timeline.series[0]!.counts.map((_, i) => inc.timeline!.series.reduce((sum, s) => sum + (s.counts[i] ?? 0), 0));
      lines.push(`   ${c.dim(`all signals per ${inc.timeline.bucketSeconds / 60} min`)}  ${c.magenta(sparkline(total))}`);
      for (const s of inc.timeline.series) lines.push(`   ${c.dim(truncate(s.label, 44).padEnd(44))}  ${c.magenta(sparkline(s.counts))}`);
    }
    for (const f of inc.findings) lines.push(`   ${c.dim(`${f.role.padEnd(14)}`)} ${f.title} ${c.dim(`[${f.ruleId}]${f.firstSeen ? ` from ${f.firstSeen.slice(11, 19)}Z` : ''}`)}`);
    for (const r of inc.ordering.reasoning) lines.push(...wrap(r, 96).map((l, i) => `   ${i === 0 ? c.dim('why ') : '    '}${l}`));
    lines.push(...wrap(inc.firstAction, 92).map((l, i) => `   ${i === 0 ? c.bold('do now ') : '       '}${l}`));
    lines.push('');
  });
  return lines;
}

function severityLabel(c: ChalkInstance, severity: Severity, text: string): string {
  return severity === 'error' ? c.red(text.toUpperCase()) : severity === 'warning' ? c.yellow(text.toUpperCase()) : c.cyan(text.toUpperCase());
}

function renderFinding(c: ChalkInstance, f: Finding): string[] {
  const lines: string[] = [];
  lines.push(`${severityLabel(c, f.severity, f.severity.toUpperCase().padEnd(7))} ${c.bold(f.title)} ${c.dim(`[${f.ruleId}]`)}`);
  const subject = Object.entries(f.subject).filter(([, v]) => v).map(([k, v]) => `${k} ${c.cyan(String(v))}`).join(' · ');
  if (subject) lines.push(`  ${subject}`);
  lines.push(...wrap(f.message, 100).map((l) => `  ${l}`));

  const { timeline, samples, ...rest } = f.evidence as Record<string, unknown> & { timeline?: Timeline; samples?: unknown };
  const scalars = new Table({ chars: BORDERLESS, style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 }, colWidths: [30, 72], wordWrap: true });
  const lists: string[] = [];
  for (const [key, value] of Object.entries(rest)) {
    if (value === null || value === undefined) continue;
    if (Array.isArray(value)) {
      if (value.length > 0) lists.push(...renderList(c, key, value));
    } else if (typeof value === 'object') {
      const parts = Object.entries(value as Record<string, unknown>)
        .filter(([, v2]) => v2 !== null && v2 !== undefined && typeof v2 !== 'object')
        .map(([k2, v2]) => `${humanize(k2)} ${formatValue(v2)}`);
      if (parts.length > 0) scalars.push([c.dim(humanize(key)), parts.join(' · ')]);
    } else {
      scalars.push([c.dim(humanize(key)), formatValue(value)]);
    }
  }
  if (scalars.length > 0) lines.push(...scalars.toString().split('\n').map((l) => `  ${l.trimEnd()}`));
  if (timeline && timeline.counts.length > 0) {
    const max = maxOf(timeline.counts);
    const from = timeline.start ? timeline.start.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : 'start';
    lines.push(`  ${c.dim(timeline.label ?? 'timeline')}  ${c.magenta(sparkline(timeline.counts))}  ${c.dim(`${timeline.bucketSeconds} s buckets from ${from}, peak ${compact(max)}`)}`);
  }
  lines.push(...lists);
  if (Array.isArray(samples) && samples.length > 0) {
    lines.push(`  ${c.dim('samples')}`);
    for (const s of samples as SampleLine[]) {
      lines.push(`    ${c.dim(`${s.path}:${s.line}`)}`, `      ${truncate(s.text, 200)}`);
    }
  }
  lines.push(`  ${c.bold('Fix')}`);
  lines.push(...f.remediation.split('\n').flatMap((p) => wrap(p, 98)).map((l) => `    ${l}`));
  lines.push(`  ${c.dim('docs')} ${c.underline(f.docsUrl)}`);
  return lines;
}

function renderList(c: ChalkInstance, key: string, items: unknown[]): string[] {
  if (items.every((i) => typeof i !== 'object' || i === null)) return [`  ${c.dim(humanize(key))}  ${items.slice(0, 10).map(String).join(', ')}`];
  const rows = items.slice(0, MAX_LIST_ROWS) as Record<string, unknown>[];
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const table = new Table({ head: columns.map((h) => humanize(h)), style: { head: [], border: [], compact: true } });
  for (const r of rows) table.push(columns.map((col) => truncate(formatValue(r[col]), 60)));
  const more = items.length > MAX_LIST_ROWS ? c.dim(` (top ${MAX_LIST_ROWS} of ${items.length})`) : '';
  return [`  ${c.dim(humanize(key))}${more}`, ...table.toString().split('\n').map((l) => `    ${l}`)];
}

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(' ')) {
      if (line && line.length + word.length + 1 > width) {
        out.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    out.push(line);
  }
  return out;
}

export function formatBytes(n: number): string {
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(1)} GiB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KiB`;
  return `${n} B`;
}
