// How severities compare and what --fail-on means: the vocabulary that the report, the baseline,
// the exit code and the config all share, kept in a leaf module so none of them imports another
// just for it.

import type { Severity } from '../core/types.js';

export type FailOn = Severity | 'none';

export const SEVERITY_RANK: Record<Severity, number> = { error: 3, warning: 2, info: 1 };

export function atOrAbove(severity: Severity, threshold: FailOn): boolean {
  return threshold !== 'none' && SEVERITY_RANK[severity] >= SEVERITY_RANK[threshold];
}
