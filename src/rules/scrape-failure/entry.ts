// This rule's entry in the registry (src/rules/index.ts lists the folder by name): the reducer and
// what the folder adds beside it.
import type { RuleEntry } from '../../kit/rule-entry.js';
import rule from './index.js';

export default { rule } satisfies RuleEntry;
