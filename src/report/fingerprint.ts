// Stable identity of a finding across runs: rule, subject and the kind of evidence. Nothing that
// changes between two captures of the same problem (line numbers, timestamps, counts) goes in, so
// a baseline written today still recognises the finding in tomorrow's bundle.

import { createHash } from 'node:crypto';
import type { Finding, FindingSubject } from '../core/types.js';

const SUBJECT_FIELDS = ['namespace', 'workload', 'pod', 'target'] as const satisfies readonly (keyof FindingSubject)[];

/** `namespace/workload/pod/target` with absent parts left out: what --suppress globs match. */
export function subjectKey(subject: FindingSubject): string {
  return SUBJECT_FIELDS.map((k) => subject[k]).filter((v): v is string => typeof v === 'string' && v !== '').join('/');
}

/**
 * What the finding is about beyond its subject: the key figure's name and the title with numbers
 * blanked (titles may say "3 pods"; the number is not what makes it the same finding).
 */
export function evidenceKind(f: Pick<Finding, 'keyFigure' | 'title'>): string {
  return `${f.keyFigure?.name ?? '-'}|${f.title.replace(/\d+(?:\.\d+)?/g, '#')}`;
}

function digest(ruleId: string, subject: FindingSubject, kind: string): string {
  const canonical = JSON.stringify([ruleId, SUBJECT_FIELDS.map((k) => subject[k] ?? null), kind]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}

/**
 * Fingerprints for findings in report order. Two findings that would collide (same rule, subject
 * and kind) get `:2`, `:3`… in order, so every fingerprint in one run is unique.
 */
export function assignFingerprints(findings: readonly Pick<Finding, 'ruleId' | 'subject' | 'keyFigure' | 'title'>[]): string[] {
  const seen = new Map<string, number>();
  return findings.map((f) => {
    const base = digest(f.ruleId, f.subject, evidenceKind(f));
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base}:${n}`;
  });
}
