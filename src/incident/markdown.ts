// The incident summary as GitHub-flavoured Markdown, for the top of `--format markdown` (the
// Markdown formatter calls this; it is kept here so the story reads the same in every format).

import type { Incident } from './correlate.js';

const SPARK = '▁▂▃▄▅▆▇█';

function spark(counts: readonly number[]): string {
  let max = 0;
  for (const c of counts) if (c > max) max = c;
  return counts.map((c) => (c <= 0 || max === 0 ? ' ' : SPARK[Math.min(SPARK.length - 1, Math.floor((c / max) * (SPARK.length - 1)))])).join('');
}

/** Escapes text for a Markdown table cell or paragraph. */
function md(text: string): string {
  return text.replace(/([\\`*_[\]<>|])/g, '\\$1');
}

/** Incidents that link several findings, or '' when there are none. */
export function incidentsMarkdown(incidents: readonly Incident[] | undefined): string {
  const linked = (incidents ?? []).filter((i) => i.findings.length > 1);
  if (linked.length === 0) return '';
  const out: string[] = [`## Incidents (${linked.length})`, ''];
  linked.forEach((inc, n) => {
    out.push(`### ${n + 1}. ${md(inc.headline)}`, '');
    const when = inc.window ? `${inc.window.start} → ${inc.window.end}` : 'time unknown';
    out.push(`**Severity** ${inc.severity} · **order** ${inc.ordering.confidence} · ${md(when)}`, '');
    out.push('| role | finding | rule | first seen |', '|---|---|---|---|');
    for (const f of inc.findings) out.push(`| ${f.role} | ${md(f.title)} | \`${f.ruleId}\` | ${f.firstSeen ?? ''} |`);
    out.push('');
    if (inc.timeline) {
      out.push(`Per ${inc.timeline.bucketSeconds / 60} min from ${inc.timeline.start}:`, '', '```');
      const width = Math.max(...inc.timeline.series.map((s) => s.label.length));
      for (const s of inc.timeline.series) out.push(`${s.label.padEnd(width)}  ${spark(s.counts)}`);
      out.push('```', '');
    }
    for (const r of inc.ordering.reasoning) out.push(`- ${md(r)}`);
    if (inc.ordering.reasoning.length) out.push('');
    out.push(`**Do now:** ${md(inc.firstAction)}`, '');
  });
  return out.join('\n');
}
