// Sparklines of the text report: one per finding's timeline, and under an incident one per signal
// beside its label, each row drawn at the same bucket.

import type { ChalkInstance } from 'chalk';
import type { IncidentTimeline } from '../../incident/correlate.js';
import { maxOf } from '../../util/stats.js';
import { wrap } from './text-wrap.js';

const SPARK = '▁▂▃▄▅▆▇█';

export function sparkline(counts: readonly number[]): string {
  const max = maxOf(counts);
  if (max === 0) return SPARK[0]!.repeat(counts.length);
  return counts.map((c) => (c === 0 ? ' ' : SPARK[Math.min(SPARK.length - 1, Math.floor((c / max) * (SPARK.length - 1)))]!)).join('');
}

/** Sums neighbouring buckets so a series fits `width` characters. */
export function fitCounts(counts: readonly number[], width: number): number[] {
  if (counts.length <= width || width <= 0) return [...counts];
  const factor = Math.ceil(counts.length / width);
  const out: number[] = [];
  for (let i = 0; i < counts.length; i += factor) out.push(counts.slice(i, i + factor).reduce((a, b) => a + b, 0));
  return out;
}

/** Narrowest useful sparkline beside its label; a series drawn narrower says nothing. */
const MIN_SPARK = 12;
const MIN_LABEL = 24;

/**
 * One sparkline per signal under the sum of all of them, each beside its label. The labels of one
 * incident often differ only at their end (the same measure towards two targets), so a label too
 * long for its column loses its middle, not its end; when even that leaves two labels alike, each
 * label gets its own line above its sparkline.
 */
export function incidentSparklines(c: ChalkInstance, timeline: IncidentTimeline, width: number): string[] {
  const buckets = timeline.series[0]!.counts.length;
  const sumOf = (series: readonly { counts: number[] }[]) => timeline.series[0]!.counts.map((_, i) => series.reduce((sum, s) => sum + (s.counts[i] ?? 0), 0));
  const total = sumOf(timeline.series);
  const { drawn, rest } = sparklineSeries(timeline.series);
  const restCounts = sumOf(rest);
  const rowsFor = (sparkWidth: number) => {
    const factor = Math.max(1, Math.ceil(buckets / sparkWidth));
    const per = bucketName(timeline.bucketSeconds * factor);
    // Every row is drawn at the same bucket: the rules' "per minute" labels say which.
    return [
      { label: `all signals per ${per}`, spark: sparkline(fitCounts(total, sparkWidth)) },
      ...drawn.map((s) => ({ label: s.label.replace(/\bper minute\b/, `per ${per}`), spark: sparkline(fitCounts(s.counts, sparkWidth)) })),
      ...(rest.length > 0 ? [{ label: `${rest.length} other signals per ${per}`, spark: sparkline(fitCounts(restCounts, sparkWidth)) }] : []),
    ];
  };
  const longest = Math.max(...rowsFor(buckets).map((r) => r.label.length));
  const labelWidth = Math.min(longest, Math.max(MIN_LABEL, width - 2 - Math.min(buckets, Math.floor(width / 2))));
  const sparkWidth = width - 2 - labelWidth;
  const beside = rowsFor(sparkWidth).map((r) => ({ ...r, label: truncateMiddle(r.label, labelWidth) }));
  if (sparkWidth >= Math.min(buckets, MIN_SPARK) && new Set(beside.map((r) => r.label)).size === beside.length) {
    return beside.map((r) => `${c.dim(r.label.padEnd(labelWidth))}  ${c.magenta(r.spark)}`);
  }
  return rowsFor(width - 2).flatMap((r) => [...wrap(r.label, width).map((l) => c.dim(l)), `  ${c.magenta(r.spark)}`]);
}

/**
 * Signals drawn one per row under an incident. One cause can fail hundreds of services (every
 * service a proxy without a control plane calls): their rows would bury the incident's answer, so
 * the largest are drawn, in their order, and the rest summed into one row (JSON keeps them all).
 */
const MAX_SIGNAL_ROWS = 8;

function sparklineSeries<T extends { counts: number[] }>(series: readonly T[]): { drawn: T[]; rest: T[] } {
  if (series.length <= MAX_SIGNAL_ROWS + 1) return { drawn: [...series], rest: [] };
  const totalOf = (s: T) => s.counts.reduce((a, b) => a + b, 0);
  const largest = new Set([...series].sort((a, b) => totalOf(b) - totalOf(a)).slice(0, MAX_SIGNAL_ROWS));
  return { drawn: series.filter((s) => largest.has(s)), rest: series.filter((s) => !largest.has(s)) };
}

/** `minute`, `5 min`, `2 h`, `3 d`: the width of one sparkline bucket. */
export function bucketName(seconds: number): string {
  if (seconds === 60) return 'minute';
  if (seconds < 3600 || seconds % 3600 !== 0) return seconds < 86_400 ? `${Math.round(seconds / 60)} min` : `${Math.round(seconds / 3600)} h`;
  if (seconds < 86_400 || seconds % 86_400 !== 0) return `${seconds / 3600} h`;
  return `${seconds / 86_400} d`;
}

/** `reconnect failures per m…cluster.local:8086`: both ends of a label kept, the middle elided. */
export function truncateMiddle(s: string, n: number): string {
  if (s.length <= n) return s;
  const head = Math.ceil((n - 1) / 2);
  return `${s.slice(0, head)}…${s.slice(s.length - (n - 1 - head))}`;
}
