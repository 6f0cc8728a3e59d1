// The incident summary as GitHub-flavoured Markdown, for the top of `--format markdown` (the
// Markdown formatter calls this; it sits with the formats because it renders, not correlates).

import { fencedBlock, mdCode, mdProse, mdText } from './markdown-safe.js';
import type { Incident } from '../../incident/correlate.js';
import { formatTimeRange } from './values.js';

const SPARK = '▁▂▃▄▅▆▇█';

function spark(counts: readonly number[]): string {
  let max = 0;
  for (const c of counts) if (c > max) max = c;
  return counts.map((c) => (c <= 0 || max === 0 ? ' ' : SPARK[Math.min(SPARK.length - 1, Math.floor((c / max) * (SPARK.length - 1)))])).join('');
}

export function incidentsHeading(count: number): string {
  return `## Incidents (${count})\n`;
}

/** One Markdown block per linked incident, so a size-capped report can keep the first few. */
export function incidentBlocks(incidents: readonly Incident[] | undefined): string[] {
  const linked = (incidents ?? []).filter((i) => i.findings.length > 1);
  return linked.map((inc, n) => {
    const out: string[] = [];
    out.push(`### ${n + 1}. ${mdText(inc.headline)}`, '');
    const when = inc.window ? formatTimeRange(inc.window.start, inc.window.end) : 'time unknown';
    out.push(`**Severity** ${mdText(inc.severity)} · **order** ${mdText(inc.ordering.confidence)} · ${mdText(when)}`, '');
    out.push('| role | finding | rule | first seen |', '|---|---|---|---|');
    for (const f of inc.findings) out.push(`| ${mdText(f.role)} | ${mdText(f.title)} | ${mdCode(f.ruleId)} | ${mdText(f.firstSeen ?? '')} |`);
    out.push('');
    if (inc.timeline) {
      out.push(`Per ${inc.timeline.bucketSeconds / 60} min from ${mdText(inc.timeline.start ?? 'start')}:`, '');
      const width = Math.max(...inc.timeline.series.map((s) => s.label.length));
      out.push(
        ...fencedBlock(
          inc.timeline.series.map((s) => `${s.label.padEnd(width)}  ${spark(s.counts)}`),
          '',
        ),
        '',
      );
    }
    for (const r of inc.ordering.reasoning) out.push(`- ${mdProse(r)}`);
    if (inc.ordering.reasoning.length) out.push('');
    out.push(`**Do now:** ${mdProse(inc.firstAction)}`, '');
    return out.join('\n');
  });
}
