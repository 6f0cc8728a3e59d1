// This rule's entry in the registry (src/rules/index.ts lists the folder by name): the reducer and
// what the folder adds beside it.
import type { RuleEntry } from '../../kit/rule-entry.js';
import rule from './index.js';
import { failfastExporter } from './export.js';
import { failfastIncident } from './incident.js';

export default { rule, live: failfastExporter, incident: failfastIncident } satisfies RuleEntry;
