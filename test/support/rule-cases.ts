// The fire/quiet case registry the rule meta-test runs. Every rule id in RULES must have a module
// src/rules/<id>/cases.ts exporting `cases: RuleCases`; the meta-test fails for a rule without one,
// for an empty list, for a "fires" case whose findings are not exactly the expected ones (count,
// severity, kind and subject, in order) and for a "quiet" case that finds something or is skipped
// for missing input (a quiet case must prove the rule looked and saw no problem). Rule test files
// can import the same cases so nothing is written twice.

import type { Finding, FindingSubject, Severity } from '../../src/core/types.js';
import type { TestInput } from './rule-tester.js';

export interface RuleCase {
  /** What the case shows, e.g. "24 pods refused by the destination controller for 60 s". */
  name: string;
  inputs: TestInput[];
  /** Partial options merged over the rule's defaults. */
  options?: object;
  /** Further checks on the findings of a firing case (severity, subject…). */
  check?: (findings: Finding[]) => void;
}

/** What one finding must be: a rule that finds one more, one fewer, or grades one differently fails. */
export interface ExpectedFinding {
  severity: Severity;
  kind: string;
  subject: FindingSubject;
}

export interface FiringCase extends RuleCase {
  /** Every finding the case produces, in report order. */
  expect: readonly ExpectedFinding[];
}

export interface RuleCases {
  fires: FiringCase[];
  quiet: RuleCase[];
}

/** The part of findings a case pins exactly. */
export function expectedOf(findings: readonly Finding[]): ExpectedFinding[] {
  return findings.map(({ severity, kind, subject }) => ({ severity, kind, subject }));
}
