import type { AnyRule } from '../core/types.js';
import controlPlaneUnavailable from './control-plane-unavailable.js';
import reconnectStorm from './reconnect-storm.js';

/** Every rule, in report order. Add a rule here and give it docs/rules/<id>.md. */
export const RULES: readonly AnyRule[] = [reconnectStorm, controlPlaneUnavailable];

export function findRule(id: string): AnyRule | undefined {
  return RULES.find((r) => r.meta.id === id);
}
