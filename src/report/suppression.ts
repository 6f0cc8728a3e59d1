// Suppressions: `--suppress RULE[=subject-glob]` and config `suppress:` entries. A suppressed
// finding leaves the gate but stays in the report (counted, listed, and a SARIF suppression), and
// every suppression reports how many findings it swallowed so unused ones can be pruned.

import type { Finding } from '../core/types.js';
import { subjectKey } from './fingerprint.js';

export interface SuppressionEntry {
  /** Rule id (a code in the config is resolved to its id). */
  rule: string;
  /** Glob over the finding's subject; absent = every finding of the rule. */
  subject?: string;
  /** Why it is suppressed; required in the config file. */
  reason?: string;
  /** `config` or `--suppress`. */
  source: 'config' | 'flag';
}

export interface SuppressionUse extends SuppressionEntry {
  /** Findings this entry suppressed in this run; 0 = unused. */
  matched: number;
}

/** `*` matches any run of characters (including `/`), `?` one character; everything else is literal. */
export function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

/**
 * Whether `text` matches `glob` (as globToRegExp reads it), in time linear in the text for a given
 * glob: on a mismatch only the last `*` takes one more character. The regex form backtracks once
 * per `*` (`*a*a*a*b` against a long subject taken from the input is polynomial in its length).
 */
export function globMatches(glob: string, text: string): boolean {
  let g = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    const c = glob[g];
    if (c === '*') {
      star = g++;
      resume = t;
    } else if (g < glob.length && (c === '?' ? text[t] !== '\n' : c === text[t])) {
      g++;
      t++;
    } else if (star !== -1 && text[resume] !== '\n') {
      g = star + 1;
      t = ++resume;
    } else return false;
  }
  while (glob[g] === '*') g++;
  return g === glob.length;
}

/** A glob matches the whole subject key (`ns/workload/pod/target`) or any single subject field. */
export function subjectMatches(glob: string, subject: Finding['subject']): boolean {
  if (globMatches(glob, subjectKey(subject))) return true;
  return Object.values(subject).some((v) => typeof v === 'string' && globMatches(glob, v));
}

export interface SuppressionResult<F extends Finding> {
  kept: F[];
  suppressed: { finding: F; by: SuppressionEntry }[];
  uses: SuppressionUse[];
}

/** The first matching entry suppresses a finding; later entries that would also match are not charged. */
export function applySuppressions<F extends Finding>(findings: readonly F[], entries: readonly SuppressionEntry[]): SuppressionResult<F> {
  const uses: SuppressionUse[] = entries.map((e) => ({ ...e, matched: 0 }));
  const kept: F[] = [];
  const suppressed: { finding: F; by: SuppressionEntry }[] = [];
  for (const f of findings) {
    const i = entries.findIndex((e) => e.rule === f.ruleId && (e.subject === undefined || subjectMatches(e.subject, f.subject)));
    if (i < 0) kept.push(f);
    else {
      uses[i]!.matched++;
      suppressed.push({ finding: f, by: entries[i]! });
    }
  }
  return { kept, suppressed, uses };
}
