// Reading the common part of a finding's evidence (CommonEvidence in ./types.ts), for correlation,
// fix status and the rules' own incident phrases.

import type { Finding, SampleLine } from './types.js';
import { detach } from '../util/stats.js';

/** Pod names a finding refers to: its subject's pod and the pods its evidence names. */
export function podsOfFinding(finding: Pick<Finding, 'subject' | 'evidence'>): string[] {
  const pods = new Set<string>();
  if (finding.subject.pod) pods.add(finding.subject.pod);
  for (const mention of finding.evidence.pods ?? []) pods.add(mention.pod);
  return [...pods];
}

/** First and last time of a finding: `evidence.window`, else its timeline's extent. */
export function windowOf(f: Pick<Finding, 'evidence'>): { start: number | null; end: number | null } {
  const w = f.evidence.window;
  const start = w?.start ? Date.parse(w.start) : NaN;
  const end = w?.end ? Date.parse(w.end) : NaN;
  if (!Number.isNaN(start)) return { start, end: Number.isNaN(end) ? start : end };
  const t = f.evidence.timeline;
  if (t?.start) {
    const s = Date.parse(t.start);
    const first = t.counts.findIndex((c) => c > 0);
    let last = t.counts.length - 1;
    while (last > 0 && t.counts[last] === 0) last--;
    return { start: s + Math.max(first, 0) * t.bucketSeconds * 1000, end: s + (last + 1) * t.bucketSeconds * 1000 };
  }
  return { start: null, end: null };
}

/** A rule-specific evidence figure, when it is a finite number. */
export function evidenceNumber(f: Pick<Finding, 'evidence'>, key: string): number | undefined {
  const v = f.evidence[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** A rule-specific evidence field, when it is a string. */
export function evidenceString(f: Pick<Finding, 'evidence'>, key: string): string | undefined {
  const v = f.evidence[key];
  return typeof v === 'string' ? v : undefined;
}

/** A rule-specific `{name: count}` evidence field, its numeric entries only. */
export function evidenceCounts(f: Pick<Finding, 'evidence'>, key: string): [string, number][] {
  const v = f.evidence[key];
  if (!v || typeof v !== 'object' || Array.isArray(v)) return [];
  return Object.entries(v).filter((e): e is [string, number] => typeof e[1] === 'number');
}

/**
 * Sample lines kept as evidence, per finding at most: the reader needs a few, and each is held in
 * memory for the whole run and printed in every report format.
 */
export const MAX_SAMPLES_PER_FINDING = 50;
/**
 * Characters of a line kept as evidence; a 1 MiB line would otherwise be held and printed whole.
 * Real proxy lines reach ~600 characters (a NameAddr error, a pretty-printed JSON record): those stay whole.
 */
export const SAMPLE_TEXT_MAX = 1024;

/** `text` cut to SAMPLE_TEXT_MAX with a marker saying how long it was, copied off the input line. */
export function sampleText(text: string): string {
  if (text.length <= SAMPLE_TEXT_MAX) return detach(text);
  // Not in the middle of a surrogate pair.
  const end = /[\ud800-\udbff]/.test(text[SAMPLE_TEXT_MAX - 1]!) ? SAMPLE_TEXT_MAX - 1 : SAMPLE_TEXT_MAX;
  return detach(`${text.slice(0, end)}… [${text.length} characters, cut]`);
}

/** The one way rules keep a sample line: capped in count (theirs and this file's) and in length. */
export function keepSample(samples: SampleLine[], cap: number, path: string, line: number, text: string): void {
  if (samples.length < Math.min(cap, MAX_SAMPLES_PER_FINDING)) samples.push({ path, line, text: sampleText(text) });
}
