// How every formatter spells evidence values and keys, so text, Markdown and HTML agree.

import stringWidth from 'string-width';
import type { Finding } from '../../core/types.js';

export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isInteger(v) ? v.toLocaleString('en-US') : String(Math.round(v * 100) / 100);
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** `podsAffected` → `pods affected`. */
export function humanize(key: string): string {
  return key.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/**
 * What a report with no findings says. "No findings." after reading nothing reads like a pass, and
 * listing every rule as skipped for want of input says the same thing fifteen times.
 */
export function noFindingsText(report: { inputs: readonly unknown[] }): string {
  return report.inputs.length === 0 ? 'Nothing was analysed: no input could be read.' : 'No findings.';
}

/**
 * The inputs not understood, as the verdict names them: `1 input not understood: 11 of 12 lines
 * unread` (with the file's name when there are several); null when every input was read.
 */
export function unreadText(report: { inputs: readonly { path: string; status?: string; unparsed: number; lines?: number }[] }): string | null {
  const unread = report.inputs.filter((i) => i.status === 'incomplete');
  if (unread.length === 0) return null;
  const count = (i: (typeof unread)[number]) => `${i.unparsed} of ${i.lines ?? i.unparsed} lines unread`;
  if (unread.length === 1) return `1 input not understood: ${count(unread[0]!)}`;
  const listed = unread.slice(0, 3).map((i) => `${i.path} (${count(i)})`);
  return `${unread.length} inputs not understood: ${listed.join(', ')}${unread.length > 3 ? ` and ${unread.length - 3} more` : ''}`;
}

/** The skipped rules worth listing: none when nothing was read, since then every rule is. */
export function skippedRulesWorthListing<T>(report: { inputs: readonly unknown[]; skippedRules: readonly T[] }): readonly T[] {
  return report.inputs.length === 0 ? [] : report.skippedRules;
}

/** At most `n` display columns (CJK and emoji count two), ending in `…` when cut. */
export function truncate(s: string, n: number): string {
  if (stringWidth(s) <= n) return s;
  let out = '';
  let used = 0;
  for (const ch of s) {
    const w = stringWidth(ch);
    if (used + w > n - 1) break;
    out += ch;
    used += w;
  }
  return `${out}…`;
}

/** A subject value that is an input path, not a pod: rules name the file when the log had no pod layout. */
function looksLikeFile(value: string): boolean {
  // `file-3`: a file name --redact replaced.
  return value.includes('/') || /\.(?:log|txt|json|prom|gz|tgz|tar|yaml|yml|out)$/i.test(value) || /^file-\d+$/.test(value);
}

/**
 * The subject as a person would say it: `pod unknown (file l2-5932.log)` when the rule could only
 * name the input file, no `-` placeholders, and a signature named as one rather than as a target.
 */
export function subjectParts(f: Pick<Finding, 'ruleId' | 'subject'>): [string, string][] {
  const parts: [string, string][] = [];
  for (const [key, raw] of Object.entries(f.subject)) {
    if (typeof raw !== 'string' || raw === '' || raw === '-' || raw === '(-)') continue;
    if (key === 'pod' && looksLikeFile(raw)) parts.push(['pod', `unknown (file ${raw.slice(raw.lastIndexOf('/') + 1)})`]);
    else if (key === 'target' && f.ruleId === 'known-signature') parts.push(['signature', raw]);
    else parts.push([key, raw]);
  }
  return parts;
}

/** What `linkerd-doctor explain` takes for this finding's page: the signature for catalogue findings. */
export function explainTopic(f: Pick<Finding, 'ruleId' | 'evidence'>): string {
  const signature = f.ruleId === 'known-signature' ? f.evidence.signature : undefined;
  return typeof signature === 'string' && signature !== '' ? signature : f.ruleId;
}

/**
 * How many items a capped evidence list stands for: rules keep the top 10 `topPods` but count all
 * of them in `podsAffected`. Looks for `<noun>Affected`, `distinct<Noun>`, `<noun>Total`,
 * `total<Noun>` or `<noun>Count` next to the list, the noun taken from the key (`topPods` → pods)
 * or from the items' first text field (`{endpoint, lines}` → endpoints); else the list's length.
 */
export function listTotal(evidence: Record<string, unknown>, key: string, items: readonly unknown[]): number {
  const nouns = new Set<string>();
  const fromKey = key.replace(/^top(?=[A-Z])/, '');
  nouns.add(fromKey.charAt(0).toLowerCase() + fromKey.slice(1));
  const first = items[0];
  if (first && typeof first === 'object') {
    const label = Object.entries(first as Record<string, unknown>).find(([, v]) => typeof v === 'string')?.[0];
    if (label) nouns.add(`${label}s`);
  }
  for (const noun of nouns) {
    const Noun = noun.charAt(0).toUpperCase() + noun.slice(1);
    for (const candidate of [`${noun}Affected`, `distinct${Noun}`, `${noun}Total`, `total${Noun}`, `${noun}Count`]) {
      const v = evidence[candidate];
      if (typeof v === 'number' && Number.isFinite(v) && v >= items.length) return v;
    }
  }
  return items.length;
}

/** `2024-06-06 11:01:10Z`: an ISO time as reports print it, without fractions of a second. */
export function formatInstant(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

/**
 * `2024-06-06 11:01:10Z → 11:03:00Z` within one day; both dates when the range crosses a day
 * (`2024-06-06 11:01:10Z → 2026-12-04 03:16:00Z`), so a range never hides how long it is.
 */
export function formatTimeRange(start: string, end: string): string {
  const a = formatInstant(start);
  const b = formatInstant(end);
  return a.slice(0, 10) === b.slice(0, 10) ? `${a} → ${b.slice(11)}` : `${a} → ${b}`;
}

/** A time inside a range: the clock alone when the range is one day, else with its date. */
export function formatTimeWithin(iso: string, range: { start: string; end: string } | null): string {
  const t = formatInstant(iso);
  return range && range.start.slice(0, 10) === range.end.slice(0, 10) ? t.slice(11) : t;
}
