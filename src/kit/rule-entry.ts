// What a rule folder hands the registry (src/rules/<id>/entry.ts): its reducer, and beside it its
// live twin and incident knowledge when it has them. Here in the kit, below the rules, so a rule
// folder can name the type without importing the registry above it.

import type { AnyRule } from '../core/types.js';
import type { RuleExporter } from './export/types.js';
import type { RuleIncidentKnowledge } from './incident.js';

export interface RuleEntry {
  rule: AnyRule;
  /** Its LogQL/PromQL twin (./export.ts); absent when the rule runs offline only. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  live?: RuleExporter<any>;
  /** Its causal links, headline phrase and known fixes (./incident.ts). */
  incident?: RuleIncidentKnowledge;
}
