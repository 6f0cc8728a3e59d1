// Stable identity of a finding across runs: rule, subject and the finding's kind (message id). Nothing that
// changes between two captures of the same problem (line numbers, timestamps, counts) goes in, so
// a baseline written today still recognises the finding in tomorrow's bundle.

import { createHash } from 'node:crypto';
import type { Finding, FindingSubject } from '../core/types.js';

const SUBJECT_FIELDS = ['namespace', 'workload', 'pod', 'target'] as const satisfies readonly (keyof FindingSubject)[];

/** `namespace/workload/pod/target` with absent parts left out: what --suppress globs match. */
export function subjectKey(subject: FindingSubject): string {
  return SUBJECT_FIELDS.map((k) => subject[k])
    .filter((v): v is string => typeof v === 'string' && v !== '')
    .join('/');
}

/** What the finding is about beyond its subject: the key figure's name and the rule's message id. */
export function findingKind(f: Pick<Finding, 'keyFigure' | 'kind'>): string {
  return `${f.keyFigure?.name ?? '-'}|${f.kind}`;
}

/**
 * The kind as fingerprints had it before findings carried `kind` (baseline schema 1): the key
 * figure's name and the title with numbers blanked (titles may say "3 pods"; the number is not what
 * makes it the same finding).
 */
export function titleKind(f: Pick<Finding, 'keyFigure' | 'title'>): string {
  return `${f.keyFigure?.name ?? '-'}|${f.title.replace(/\d+(?:\.\d+)?/g, '#')}`;
}

function digest(ruleId: string, subject: FindingSubject, kind: string): string {
  const canonical = JSON.stringify([ruleId, SUBJECT_FIELDS.map((k) => subject[k] ?? null), kind]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}

/** Two findings that would collide (same rule, subject and kind) get `:2`, `:3`… in order. */
function uniqueDigests<F extends Pick<Finding, 'ruleId' | 'subject'>>(findings: readonly F[], kindOf: (f: F) => string): string[] {
  const seen = new Map<string, number>();
  return findings.map((f) => {
    const base = digest(f.ruleId, f.subject, kindOf(f));
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base}:${n}`;
  });
}

/** Fingerprints for findings in report order, unique within the run. */
export function assignFingerprints(findings: readonly Pick<Finding, 'ruleId' | 'subject' | 'keyFigure' | 'kind'>[]): string[] {
  return uniqueDigests(findings, findingKind);
}

/** The title-based fingerprints of baseline schema 1, so baselines written before `kind` still match. */
export function assignTitleFingerprints(findings: readonly Pick<Finding, 'ruleId' | 'subject' | 'keyFigure' | 'title'>[]): string[] {
  return uniqueDigests(findings, titleKind);
}
