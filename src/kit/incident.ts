// What a rule folder tells the incident step about its findings (src/rules/<id>/incident.ts): the
// mechanisms by which they set off other rules' findings, how one reads in a headline, and which
// known fixes may change their cause. The registry (src/rules/index.ts) collects them; correlation
// and fix status read them from there.

import type { Finding } from '../core/types.js';
import type { KnownFixId } from '../knowledge/fixes.js';

export type Relation = 'component' | 'co-located' | 'pod-or-workload' | 'target' | 'time';

/** A known mechanism, cause → effect. Only these may make an ordering "likely". */
export interface CausalLink {
  cause: string;
  effect: string;
  /** What the two findings must share for the mechanism to apply. */
  requires: Exclude<Relation, 'time'>;
  mechanism: string;
  /** When only some findings of the two rules are linked by the mechanism (e.g. only an OOM kill, not any restart). */
  applies?: (cause: Finding, effect: Finding) => boolean;
}

/** What a fix's `when` may look at. */
export type FixCandidate = Pick<Finding, 'ruleId' | 'kind' | 'subject' | 'evidence'>;

export interface FixLink {
  fix: KnownFixId;
  /** Narrows the fix down to some findings of the rule; every finding when absent. */
  when?: (finding: FixCandidate) => boolean;
}

export interface RuleIncidentKnowledge {
  /** Mechanisms by which this rule's findings cause another rule's (`effect` is that rule's id). */
  causes?: readonly Omit<CausalLink, 'cause'>[];
  /** How a finding reads inside an incident headline; its title when absent. */
  phrase?: (finding: Finding) => string;
  /** Entries of src/knowledge/fixes.ts whose release may already have fixed this rule's cause. */
  fixes?: readonly FixLink[];
  /** Why no release changes this rule's cause, said instead of a version check. */
  versionIndependent?: string;
  /**
   * The findings explain single lines (known-signature): they stay in the findings list but
   * neither form nor link incidents, or every storm would grow a second, "order unclear" incident
   * made of its own lines, and a signature seen in two pods would glue unrelated incidents.
   */
  annotatesLines?: true;
}

// Predicates over one rule's findings that another rule's causal links test: declared here so a
// rule folder never imports another rule's folder.

/** A pod-restarts finding about the proxy container being OOMKilled. */
export function isProxyOomKill(f: Finding): boolean {
  return f.ruleId === 'pod-restarts' && f.evidence.problem === 'oom' && f.evidence.role === 'proxy';
}
