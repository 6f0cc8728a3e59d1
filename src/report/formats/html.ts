// A single self-contained HTML page to attach to a ticket: the incident story first, then a
// sortable findings table and every finding's evidence and fix. Charts are inline SVG built here,
// so tables and charts render with JavaScript off; the only script sorts the table. A strict
// Content-Security-Policy forbids any fetch, so the file never phones out when opened, and allows
// that one script by its hash: a script that got into the page any other way does not run.

import { type Finding, type FixStatus, SEVERITIES, type SampleLine, type Timeline } from '../../core/types.js';
import type { Incident, IncidentTimeline } from '../../incident/correlate.js';
import { createHash } from 'node:crypto';
import { scaleUtc } from 'd3-scale';
import { utcFormat } from 'd3-time-format';
import { compact } from '../../util/stats.js';
import type { Report } from '../report.js';
import type { FormatOptions } from './options.js';
import {
  formatInstant,
  formatTimeRange,
  formatTimeWithin,
  formatValue,
  subjectParts,
  humanize,
  listTotal,
  noFindingsText,
  skippedRulesWorthListing,
  truncate,
  unreadText,
} from './values.js';

const SERIES_COLOURS = 6;
const MAX_BARS = 12;

export function escapeHtml(text: unknown): string {
  return String(text ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Escapes text and renders its Markdown code spans (`like this`) as <code>, the only markup fixes use. */
export function inlineHtml(text: unknown): string {
  return String(text ?? '')
    .split(/(`[^`\n]+`)/)
    .map((part) => (part.length > 2 && part.startsWith('`') && part.endsWith('`') ? `<code>${escapeHtml(part.slice(1, -1))}</code>` : escapeHtml(part)))
    .join('');
}

export function formatHtml(report: Report, options: FormatOptions): string {
  const findings = options.findings;
  const incidents = (report.incidents ?? []).filter((i) => i.findings.length > 1);
  const anchors = new Map(findings.map((f, i) => [findingKey(f), `finding-${i + 1}`]));
  const body = [
    header(report),
    `<section aria-labelledby="incidents-h"><h2 id="incidents-h">Incidents</h2>`,
    incidents.length > 0
      ? incidents.map((inc) => renderIncident(inc, anchors)).join('\n')
      : `<p class="muted">No incident links several findings${findings.length ? '; each finding below stands on its own' : ''}.</p>`,
    `</section>`,
    findingsTable(report, findings),
    // A healthy report has no evidence to show: no empty section.
    findings.length > 0
      ? `<section aria-labelledby="details-h"><h2 id="details-h">Evidence and fixes</h2>\n${findings.map((f, i) => renderFinding(f, i)).join('\n')}\n</section>`
      : '',
    footer(report),
  ].join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src '${SCRIPT_SOURCE}'; img-src data:">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>${escapeHtml(`${report.tool.name} report · ${report.status.toUpperCase()}`)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

function header(report: Report): string {
  const kinds = new Map<string, number>();
  for (const i of report.inputs) kinds.set(i.kind, (kinds.get(i.kind) ?? 0) + 1);
  const versions = (report.proxyVersions ?? []).map((v) => `${v.version} (${v.linkerd}) on ${v.pods} pod${v.pods === 1 ? '' : 's'}`);
  return `<header>
<h1>${escapeHtml(report.tool.name)} report <span class="badge ${report.status}">${report.status.toUpperCase()}</span></h1>
<p class="summary" id="summary">${report.summary.error} error(s), ${report.summary.warning} warning(s), ${report.summary.info} info · ${report.inputs.length} input(s) (${escapeHtml([...kinds].map(([k, n]) => `${n} ${k}`).join(', ') || 'none')})${unreadText(report) ? ` · <strong class="sev-warning">${escapeHtml(unreadText(report)!)}</strong>` : ''}${report.errors.length ? ` · <strong class="sev-error">${report.errors.length} input error(s)</strong>` : ''}</p>
${versions.length ? `<p class="muted">Proxy versions: ${escapeHtml(versions.join(', '))}</p>` : '<p class="muted">Proxy versions: unknown (no proxy_build_info or release banner in the inputs)</p>'}
<p class="muted">Generated ${escapeHtml(generatedAt())}</p>
${inputList(report)}
</header>`;
}

/** When the report was written: SOURCE_DATE_EPOCH (reproducible builds, golden reports) when set, else now. */
function generatedAt(): string {
  const epoch = Number(process.env.SOURCE_DATE_EPOCH);
  const when = process.env.SOURCE_DATE_EPOCH && Number.isFinite(epoch) ? new Date(epoch * 1000) : new Date();
  return formatInstant(when.toISOString());
}

/** Inputs listed in the report, so an attached page says what it was made from. */
const MAX_LISTED_INPUTS = 200;

function inputList(report: Report): string {
  if (report.inputs.length === 0) return '';
  const rows = report.inputs
    .slice(0, MAX_LISTED_INPUTS)
    .map((i) => `<li><code>${escapeHtml(i.path)}</code> <span class="muted">${escapeHtml(i.kind)} · ${escapeHtml(compact(i.records))} records</span></li>`)
    .join('');
  const more = report.inputs.length > MAX_LISTED_INPUTS ? `<li class="muted">… ${report.inputs.length - MAX_LISTED_INPUTS} more</li>` : '';
  return `<details class="inputs"><summary>Inputs (${report.inputs.length})</summary><ul>${rows}${more}</ul></details>`;
}

function footer(report: Report): string {
  const parts: string[] = [];
  const skipped = skippedRulesWorthListing(report);
  if (skipped.length) parts.push(`Skipped rules: ${skipped.map((s) => `${s.ruleId} (${s.reason})`).join(', ')}`);
  for (const e of report.errors) parts.push(`error: ${e.path}${e.line ? `:${e.line}` : ''}: ${e.message}`);
  parts.push(`${report.tool.name} ${report.tool.version}`);
  return `<footer>${parts.map((p) => `<p>${escapeHtml(p)}</p>`).join('')}</footer>`;
}

function findingKey(f: { ruleId: string; title: string; subject: object }): string {
  return `${f.ruleId}\u0000${f.title}\u0000${JSON.stringify(f.subject)}`;
}

function renderIncident(inc: Incident, anchors: ReadonlyMap<string, string>): string {
  const title = (f: Incident['findings'][number]) => {
    const anchor = anchors.get(findingKey(f));
    return anchor ? `<a href="#${anchor}">${escapeHtml(f.title)}</a>` : escapeHtml(f.title);
  };
  const when = inc.window ? formatTimeRange(inc.window.start, inc.window.end) : 'time unknown';
  return `<article class="incident sev-border-${inc.severity}" id="${escapeHtml(inc.id)}">
<h3 class="headline">${escapeHtml(inc.headline)}</h3>
<p class="muted">${escapeHtml(when)} · ${inc.findings.length} findings · order <strong>${escapeHtml(inc.ordering.confidence)}</strong></p>
${inc.timeline ? timelineChart(inc.timeline, `Signals per ${bucketWords(inc.timeline.bucketSeconds)}`) : '<p class="muted">No wall-clock timeline for these signals.</p>'}
<ol class="chain">${inc.findings.map((f) => `<li><span class="role">${escapeHtml(f.role)}</span> <span class="sev-${f.severity}">${title(f)}</span> <code>${escapeHtml(f.ruleId)}</code>${f.firstSeen ? ` <span class="muted">from ${escapeHtml(formatTimeWithin(f.firstSeen, inc.window))}</span>` : ''}</li>`).join('')}</ol>
${inc.ordering.reasoning.length ? `<details open><summary>Why this order</summary><ul>${inc.ordering.reasoning.map((r) => `<li>${inlineHtml(r)}</li>`).join('')}</ul></details>` : ''}
<p class="action"><strong>Do now:</strong> ${inlineHtml(inc.firstAction)}</p>
</article>`;
}

type ChartTimeline = IncidentTimeline | { start: string | null; bucketSeconds: number; series: { label: string; counts: number[] }[] };

/**
 * The signals of a timeline on one time axis. One signal is one chart; several are small
 * multiples, one labelled chart each (a stack would add up failed calls and log lines), all on one
 * y scale so bar heights compare across charts. Signals within a factor of COMPARABLE_PEAKS share a
 * linear scale; beyond it (33 M log lines against 400 failed calls) a linear scale would flatten the
 * small ones, so they share a logarithmic one with a gridline per power of ten.
 */
export function timelineChart(t: ChartTimeline, caption: string): string {
  const buckets = Math.max(...t.series.map((s) => s.counts.length), 1);
  const multiple = t.series.length > 1;
  const peaks = t.series.map((s) => Math.max(...s.counts, 0));
  const scale = sharedScale(peaks);
  // Peaks far apart (317 against 5,752 failures) would look alike on one log scale: each chart then
  // gets its own linear scale, its top labelled, so shapes read true and values are read off the label.
  const own = scale.log;
  const charts = t.series.map((s, i) =>
    seriesChart(
      t,
      s,
      i,
      buckets,
      multiple ? 64 : 160,
      multiple ? `${s.label}` : caption,
      i === t.series.length - 1,
      own ? { top: peaks[i]!, log: false } : scale,
    ),
  );
  const legend = t.series
    .map(
      (s, i) =>
        `<li><span class="swatch s${i % SERIES_COLOURS}"></span>${escapeHtml(s.label)} <span class="muted">(peak ${compact(Math.max(...s.counts, 0))} per ${bucketWords(t.bucketSeconds)})</span></li>`,
    )
    .join('');
  const scaleWords = own ? ' · one chart per signal, each on its own scale (see the value at its top left)' : ' · one chart per signal, all on one scale';
  return `<figure class="chart-box${multiple ? ' multiples' : ''}">
${charts.join('\n')}
<figcaption>${escapeHtml(caption)}${multiple ? scaleWords : ''}<ul class="legend">${legend}</ul></figcaption>
</figure>`;
}

/** Peaks further apart than this factor get a logarithmic scale. */
const COMPARABLE_PEAKS = 10;

interface ChartScale {
  /** The value at the top of every chart. */
  top: number;
  log: boolean;
}

function sharedScale(peaks: readonly number[]): ChartScale {
  const top = Math.max(...peaks, 0);
  const smallest = Math.min(...peaks.filter((p) => p > 0));
  if (top <= 0 || top / smallest <= COMPARABLE_PEAKS) return { top, log: false };
  return { top: 10 ** Math.ceil(Math.log10(top)), log: true };
}

/** Height of `value` on the scale, as a fraction of the plot; a non-zero value stays visible. */
function scaled(value: number, scale: ChartScale): number {
  if (scale.top <= 0) return 0;
  return scale.log ? Math.log10(Math.max(1, value)) / Math.log10(scale.top) : value / scale.top;
}

function bucketWords(seconds: number): string {
  return seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}

function seriesChart(
  t: ChartTimeline,
  s: { label: string; counts: number[] },
  index: number,
  buckets: number,
  height: number,
  label: string,
  withAxis: boolean,
  scale: ChartScale,
): string {
  const width = 720;
  const left = 48;
  const top = 16;
  const bottom = withAxis ? 22 : 4;
  const plotW = width - left - 8;
  const plotH = height - bottom - top;
  const barW = plotW / buckets;
  const peak = Math.max(...s.counts, 0);
  const bars: string[] = [];
  s.counts.forEach((value, b) => {
    if (value <= 0) return;
    const h = Math.max(1, scaled(value, scale) * plotH);
    bars.push(
      `<rect class="bar s${index % SERIES_COLOURS}" x="${(left + b * barW + 1).toFixed(1)}" y="${(top + plotH - h).toFixed(1)}" width="${Math.max(1, barW - 2).toFixed(1)}" height="${h.toFixed(1)}"><title>${escapeHtml(`${bucketTime(t, b)} · ${s.label}: ${value.toLocaleString('en-US')}`)}</title></rect>`,
    );
  });
  const decades = scale.log ? Array.from({ length: Math.round(Math.log10(scale.top)) - 1 }, (_, i) => 10 ** (i + 1)) : [];
  const grid = decades
    .map(
      (v) =>
        `<line class="grid" x1="${left}" y1="${(top + plotH - scaled(v, scale) * plotH).toFixed(1)}" x2="${width - 8}" y2="${(top + plotH - scaled(v, scale) * plotH).toFixed(1)}"/>`,
    )
    .join('');
  const axis = withAxis ? timeAxis(t, buckets, left, width - 8, height - 6) : '';
  return `<svg class="chart timeline" role="img" viewBox="0 0 ${width} ${height}" width="100%" preserveAspectRatio="xMinYMin meet" aria-label="${escapeHtml(`${label}, peak ${peak.toLocaleString('en-US')}`)}">
<text x="${left}" y="11">${escapeHtml(truncate(label, 90))}</text>
<line class="axis" x1="${left}" y1="${top + plotH}" x2="${width - 8}" y2="${top + plotH}"/>${grid}
<text x="${left - 6}" y="${top + 8}" text-anchor="end">${escapeHtml(compact(scale.top))}</text><text x="${left - 6}" y="${top + plotH}" text-anchor="end">${scale.log ? '1' : '0'}</text>
${bars.join('\n')}
${axis}
</svg>`;
}

/**
 * Tick labels under a timeline, placed and worded by d3-scale/d3-time-format (round times, fewer
 * when narrow): the date on the first tick and wherever a day begins when the span crosses days,
 * the clock alone within one day. End ticks are anchored inwards so no label is clipped.
 */
function timeAxis(t: ChartTimeline, buckets: number, x0: number, x1: number, y: number): string {
  if (!t.start) return `<text x="${x0}" y="${y}" text-anchor="start">#1</text><text x="${x1}" y="${y}" text-anchor="end">#${buckets}</text>`;
  const start = new Date(t.start);
  const end = new Date(Date.parse(t.start) + buckets * t.bucketSeconds * 1000);
  const x = scaleUtc().domain([start, end]).range([x0, x1]);
  const ticks = x.ticks(5);
  const crossesDays = start.toISOString().slice(0, 10) !== new Date(end.getTime() - 1).toISOString().slice(0, 10);
  const clock = utcFormat(t.bucketSeconds < 60 ? '%H:%M:%SZ' : '%H:%MZ');
  const dated = utcFormat(t.bucketSeconds < 60 ? '%Y-%m-%d %H:%M:%SZ' : '%Y-%m-%d %H:%MZ');
  const day = utcFormat('%Y-%m-%d');
  let lastDay = '';
  return ticks
    .map((tick, i) => {
      const today = day(tick);
      const label = crossesDays && today !== lastDay ? dated(tick) : clock(tick);
      lastDay = today;
      const px = x(tick);
      const anchor = i === 0 && px - x0 < 60 ? 'start' : x1 - px < 60 ? 'end' : 'middle';
      return `<text x="${px.toFixed(1)}" y="${y}" text-anchor="${anchor}">${escapeHtml(label)}</text>`;
    })
    .join('');
}

function bucketTime(t: { start: string | null; bucketSeconds: number }, b: number): string {
  if (!t.start) return `#${b + 1}`;
  return new Date(Date.parse(t.start) + b * t.bucketSeconds * 1000).toISOString().slice(11, t.bucketSeconds < 60 ? 19 : 16) + 'Z';
}

/** Horizontal bars for a top-k list (`{name, count}`-like objects). */
export function barChart(items: readonly { label: string; value: number }[], caption: string): string {
  const rows = items.slice(0, MAX_BARS);
  const max = Math.max(...rows.map((r) => r.value), 1);
  const rowH = 22;
  const labelW = 260;
  const width = 720;
  const height = rows.length * rowH + 4;
  const bars = rows
    .map((r, i) => {
      const w = Math.max(1, (r.value / max) * (width - labelW - 80));
      const y = i * rowH + 2;
      return `<text x="${labelW - 6}" y="${y + 15}" text-anchor="end">${escapeHtml(truncate(r.label, 40))}</text><rect class="bar s0" x="${labelW}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowH - 6}"><title>${escapeHtml(`${r.label}: ${r.value.toLocaleString('en-US')}`)}</title></rect><text x="${(labelW + w + 6).toFixed(1)}" y="${y + 15}">${escapeHtml(compact(r.value))}</text>`;
    })
    .join('\n');
  return `<figure class="chart-box"><svg class="chart bars" role="img" viewBox="0 0 ${width} ${height}" width="100%" preserveAspectRatio="xMinYMin meet" aria-label="${escapeHtml(caption)}">${bars}</svg><figcaption>${escapeHtml(caption)}${items.length > MAX_BARS ? ` (top ${MAX_BARS} of ${items.length})` : ''}</figcaption></figure>`;
}

const PREFERRED_VALUE_KEYS = ['count', 'series', 'lines', 'failures', 'value', 'total', 'queries'];

/** Reads an array as `{label, value}` bars when each item has one text field and a number: top families, pods, clients… */
export function asBars(items: readonly unknown[]): { label: string; value: number }[] | null {
  if (items.length === 0 || !items.every((i) => i !== null && typeof i === 'object' && !Array.isArray(i))) return null;
  const first = items[0] as Record<string, unknown>;
  const labelKey = Object.keys(first).find((k) => typeof first[k] === 'string');
  const numeric = Object.keys(first).filter((k) => typeof first[k] === 'number');
  const valueKey = PREFERRED_VALUE_KEYS.find((k) => numeric.includes(k)) ?? numeric[0];
  if (!labelKey || !valueKey) return null;
  const bars = (items as Record<string, unknown>[]).map((i) => ({ label: String(i[labelKey] ?? ''), value: Number(i[valueKey]) }));
  return bars.every((b) => Number.isFinite(b.value)) ? bars : null;
}

function codeOf(f: Finding & { code?: string }): string {
  return f.code ?? '';
}

function findingsTable(report: Report, findings: readonly Finding[]): string {
  const rows = findings
    .map((f, i) => {
      const subject = subjectParts(f)
        .map(([k, v]) => `${k} ${v}`)
        .join(' · ');
      return `<tr><td data-value="${SEVERITIES.length - SEVERITIES.indexOf(f.severity)}"><span class="sev-${f.severity}">${f.severity}</span></td><td><code>${escapeHtml(f.ruleId)}</code>${codeOf(f) ? ` <span class="muted">${escapeHtml(codeOf(f))}</span>` : ''}</td><td><a href="#finding-${i + 1}">${escapeHtml(f.title)}</a></td><td>${escapeHtml(subject)}</td><td data-value="${f.keyFigure?.value ?? ''}">${f.keyFigure ? `${escapeHtml(humanize(f.keyFigure.name))} ${escapeHtml(compact(f.keyFigure.value))}` : ''}</td></tr>`;
    })
    .join('\n');
  return `<section aria-labelledby="findings-h"><h2 id="findings-h">Findings (${findings.length})</h2>
${
  findings.length === 0
    ? `<p>${escapeHtml(noFindingsText(report))}</p>`
    : `<table class="sortable" id="findings-table"><thead><tr><th scope="col">Severity</th><th scope="col">Rule</th><th scope="col">Finding</th><th scope="col">Subject</th><th scope="col">Key figure</th></tr></thead><tbody>
${rows}
</tbody></table>`
}
</section>`;
}

function renderFinding(f: Finding, index: number): string {
  const { timeline, samples, ...rest } = f.evidence as Record<string, unknown> & { timeline?: Timeline; samples?: unknown };
  const scalars: string[] = [];
  const blocks: string[] = [];
  for (const [key, value] of Object.entries(rest)) {
    if (value === null || value === undefined) continue;
    if (Array.isArray(value)) {
      if (value.length === 0) continue;
      // A top-N list is drawn once: as bars when a label and a count are all it has, else as a table.
      const bars = asBars(value);
      const total = listTotal(f.evidence, key, value);
      const caption = `${humanize(key)}${total > value.length ? ` (top ${Math.min(value.length, MAX_BARS)} of ${total.toLocaleString('en-US')})` : ''}`;
      if (bars && value.every((v) => Object.keys(v as object).length <= 2)) blocks.push(barChart(bars, caption));
      else blocks.push(listTable(key, value, total));
    } else if (typeof value === 'object') {
      for (const [k2, v2] of Object.entries(value as Record<string, unknown>)) {
        if (v2 === null || v2 === undefined) continue;
        const cell = typeof v2 === 'object' && !Array.isArray(v2) ? miniTable(v2 as Record<string, unknown>) : escapeHtml(formatValue(v2));
        scalars.push(`<tr><th scope="row">${escapeHtml(`${humanize(key)} · ${humanize(k2)}`)}</th><td>${cell}</td></tr>`);
      }
    } else {
      scalars.push(`<tr><th scope="row">${escapeHtml(humanize(key))}</th><td>${escapeHtml(formatValue(value))}</td></tr>`);
    }
  }
  const timelineBlock =
    timeline && timeline.counts.length > 0
      ? timelineChart(
          { start: timeline.start, bucketSeconds: timeline.bucketSeconds, series: [{ label: timeline.label ?? 'timeline', counts: timeline.counts }] },
          `${timeline.label ?? 'timeline'} (${timeline.bucketSeconds} s buckets)`,
        )
      : '';
  const sampleBlock =
    Array.isArray(samples) && samples.length > 0
      ? `<details><summary>Sample lines</summary>${(samples as SampleLine[]).map((s) => `<p class="muted">${escapeHtml(`${s.path}:${s.line}`)}</p><pre>${escapeHtml(s.text)}</pre>`).join('')}</details>`
      : '';
  const subject = subjectParts(f)
    .map(([k, v]) => `${escapeHtml(k)} <code>${escapeHtml(v)}</code>`)
    .join(' · ');
  return `<article class="finding sev-border-${f.severity}" id="finding-${index + 1}">
<h3><span class="sev-${f.severity}">${f.severity.toUpperCase()}</span> ${escapeHtml(f.title)} <code>${escapeHtml(f.ruleId)}</code>${codeOf(f) ? ` <span class="muted">${escapeHtml(codeOf(f))}</span>` : ''}</h3>
${subject ? `<p>${subject}</p>` : ''}
<p>${escapeHtml(f.message)}</p>
${timelineBlock}
${scalars.length ? `<table class="kv"><tbody>${scalars.join('')}</tbody></table>` : ''}
${blocks.join('\n')}
${sampleBlock}
<h4>Fix</h4>
<div class="fix">${f.remediation
    .split('\n')
    .filter((l) => !l.startsWith('Version check'))
    .map((l) => `<p>${inlineHtml(l)}</p>`)
    .join('')}</div>
${fixStatusBlock(f.fixStatus)}
<p><a href="${escapeHtml(f.docsUrl)}">Rule documentation</a></p>
</article>`;
}

function fixStatusBlock(statuses: FixStatus[] | undefined): string {
  if (!statuses) return '';
  if (statuses.length === 0) return '<p class="muted">Version check: no release changes this behaviour.</p>';
  return `<ul class="fixstatus">${statuses.map((s) => `<li><span class="status ${s.status}">${escapeHtml(s.status)}</span> <strong>${escapeHtml(s.fix)}</strong> (${escapeHtml(`${s.fixedIn.proxy}, ${s.fixedIn.linkerd}`)}): ${escapeHtml(s.note)}</li>`).join('')}</ul>`;
}

function listTable(key: string, items: unknown[], total = items.length): string {
  if (items.every((i) => typeof i !== 'object' || i === null))
    return `<p><strong>${escapeHtml(humanize(key))}:</strong> ${escapeHtml(items.slice(0, 20).map(String).join(', '))}${total > 20 ? ` … (${total.toLocaleString('en-US')} in all)` : ''}</p>`;
  const rows = items.slice(0, 20) as Record<string, unknown>[];
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? miniTable(v as Record<string, unknown>) : escapeHtml(formatValue(v));
  return `<div class="scroll"><table class="list"><caption>${escapeHtml(humanize(key))}${total > rows.length ? ` (top ${rows.length} of ${total.toLocaleString('en-US')})` : ''}</caption><thead><tr>${columns.map((c) => `<th scope="col">${escapeHtml(humanize(c))}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${columns.map((c) => `<td>${cell(r[c])}</td>`).join('')}</tr>`).join('')}</tbody></table></div>`;
}

/**
 * A nested object as a small table instead of JSON: a histogram (every value a number) gets a bar
 * per bucket on one scale; anything else key/value rows.
 */
export function miniTable(value: Record<string, unknown>): string {
  const entries = Object.entries(value).filter(([, v]) => v !== null && v !== undefined);
  if (entries.length === 0) return '';
  if (entries.every(([, v]) => typeof v === 'number' && Number.isFinite(v))) {
    const max = Math.max(...entries.map(([, v]) => v as number), 1);
    return `<table class="mini hist"><tbody>${entries
      .map(
        ([k, v]) =>
          `<tr><th scope="row">${escapeHtml(k)}</th><td class="num">${escapeHtml(formatValue(v))}</td><td class="barcell"><span class="hbar" style="width:${Math.round(((v as number) / max) * 100)}%"></span></td></tr>`,
      )
      .join('')}</tbody></table>`;
  }
  return `<table class="mini"><tbody>${entries.map(([k, v]) => `<tr><th scope="row">${escapeHtml(humanize(k))}</th><td>${v !== null && typeof v === 'object' && !Array.isArray(v) ? miniTable(v as Record<string, unknown>) : escapeHtml(formatValue(v))}</td></tr>`).join('')}</tbody></table>`;
}

const STYLE = `
:root{--bg:#fff;--fg:#1b1f24;--muted:#5b6470;--line:#d5d9de;--card:#f6f8fa;--err:#c62828;--warn:#a15c00;--info:#0b6fa4;--ok:#2e7d32;
--s0:#3b6fd8;--s1:#e0663a;--s2:#2a9d8f;--s3:#9b5de5;--s4:#c9a227;--s5:#d6336c}
@media (prefers-color-scheme: dark){:root{--bg:#0f1217;--fg:#e6e9ee;--muted:#9aa4b1;--line:#2c333d;--card:#171b22;--err:#ff6b6b;--warn:#f0a848;--info:#5cb8f0;--ok:#66c77a;
--s0:#6d9bff;--s1:#ff8a5c;--s2:#4fd1c1;--s3:#c39bff;--s4:#f2cc4d;--s5:#ff6b9a}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:1100px;margin:0 auto;padding:16px 24px 48px}h1{font-size:1.6em;margin:.4em 0}h2{border-bottom:1px solid var(--line);padding-bottom:4px;margin-top:1.6em}
h3{margin:.2em 0 .4em;font-size:1.1em}code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;background:var(--card);padding:0 4px;border-radius:4px}
pre{white-space:pre-wrap;word-break:break-all;background:var(--card);padding:8px;border-radius:6px;font:12px ui-monospace,monospace}
.muted{color:var(--muted)}.badge{font-size:.6em;padding:2px 8px;border-radius:10px;vertical-align:middle;color:#fff}.badge.fail{background:var(--err)}.badge.pass{background:var(--ok)}.badge.error{background:var(--err)}.badge.incomplete{background:var(--warn)}
.sev-error{color:var(--err);font-weight:600}.sev-warning{color:var(--warn);font-weight:600}.sev-info{color:var(--info);font-weight:600}
article{background:var(--card);border:1px solid var(--line);border-left:5px solid var(--line);border-radius:8px;padding:12px 16px;margin:14px 0}
.sev-border-error{border-left-color:var(--err)}.sev-border-warning{border-left-color:var(--warn)}.sev-border-info{border-left-color:var(--info)}
.headline{font-size:1.25em}.action{background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:8px 12px}
.role{display:inline-block;min-width:8.5em;color:var(--muted);font-size:.9em}.chain{padding-left:1.4em}
table{border-collapse:collapse;width:100%;margin:8px 0}th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
table.kv th{width:34%;font-weight:500;color:var(--muted)}caption{text-align:left;color:var(--muted);padding:4px 0}
table.sortable th{cursor:pointer;user-select:none}table.sortable th[aria-sort=ascending]::after{content:" ▲"}table.sortable th[aria-sort=descending]::after{content:" ▼"}
.chart-box{margin:8px 0;padding:0}.chart{max-width:100%;height:auto;display:block}.chart text{fill:var(--muted);font:11px system-ui,sans-serif}.chart .axis{stroke:var(--line)}.chart .grid{stroke:var(--line);stroke-dasharray:2 3}
.bar.s0,.swatch.s0{fill:var(--s0);background:var(--s0)}.bar.s1,.swatch.s1{fill:var(--s1);background:var(--s1)}.bar.s2,.swatch.s2{fill:var(--s2);background:var(--s2)}
.bar.s3,.swatch.s3{fill:var(--s3);background:var(--s3)}.bar.s4,.swatch.s4{fill:var(--s4);background:var(--s4)}.bar.s5,.swatch.s5{fill:var(--s5);background:var(--s5)}
figcaption{color:var(--muted);font-size:.9em}.legend{list-style:none;padding:0;margin:4px 0;display:flex;flex-wrap:wrap;gap:4px 16px}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px}
.fix p{margin:.2em 0}.fixstatus{padding-left:1.2em}.status{font-size:.8em;padding:1px 6px;border-radius:8px;border:1px solid var(--line)}
.status.fixed{color:var(--ok)}.status.not-fixed{color:var(--err)}.status.mixed{color:var(--warn)}.status.unknown{color:var(--muted)}
footer{margin-top:2em;color:var(--muted);font-size:.85em}a{color:var(--info)}
td,th,p,li,h3,figcaption,caption{overflow-wrap:anywhere}#findings-table thead th,#findings-table td:first-child{white-space:nowrap}#findings-table td:last-child{overflow-wrap:normal;white-space:nowrap}code{overflow-wrap:anywhere}.scroll{max-width:100%;overflow-x:auto}
table.mini{width:auto;margin:0}table.mini th,table.mini td{border:0;padding:0 8px 0 0;font-size:.9em}table.mini td.num{text-align:right}
table.mini td.barcell{width:120px;min-width:60px}.hbar{display:inline-block;height:.7em;background:var(--s0);border-radius:2px;vertical-align:middle}
.multiples{display:grid;gap:6px}.multiples .chart{max-width:100%}
`;

// Sorting only; everything renders without it.
const SCRIPT = `
(function(){
  var table=document.getElementById('findings-table');
  if(!table)return;
  var heads=table.tHead.rows[0].cells;
  Array.prototype.forEach.call(heads,function(th,col){
    th.tabIndex=0;
    var sort=function(){
      var dir=th.getAttribute('aria-sort')==='ascending'?'descending':'ascending';
      Array.prototype.forEach.call(heads,function(h){h.removeAttribute('aria-sort');});
      th.setAttribute('aria-sort',dir);
      var body=table.tBodies[0];
      var rows=Array.prototype.slice.call(body.rows);
      var key=function(r){var c=r.cells[col];var v=c.getAttribute('data-value');return v!==null&&v!==''&&!isNaN(+v)?+v:c.textContent.trim().toLowerCase();};
      rows.sort(function(a,b){var x=key(a),y=key(b);var r=typeof x==='number'&&typeof y==='number'?x-y:String(x).localeCompare(String(y));return dir==='ascending'?r:-r;});
      rows.forEach(function(r){body.appendChild(r);});
    };
    th.addEventListener('click',sort);
    th.addEventListener('keydown',function(e){if(e.key==='Enter'||e.key===' '){e.preventDefault();sort();}});
  });
})();
`;

/** The CSP source that allows SCRIPT, and only it, to run: its SHA-256 (CSP Level 2 hash source). */
const SCRIPT_SOURCE = `sha256-${createHash('sha256').update(SCRIPT, 'utf8').digest('base64')}`;
