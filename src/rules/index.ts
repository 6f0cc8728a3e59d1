import type { AnyRule } from '../core/types.js';
import controlPlaneUnavailable from './control-plane-unavailable.js';
import dnsQueryStorm from './dns-query-storm.js';
import dnsTtlZero from './dns-ttl-zero.js';
import reconnectStorm from './reconnect-storm.js';

/** Every rule, in report order. Add a rule here and give it docs/rules/<id>.md. */
export const RULES: readonly AnyRule[] = [reconnectStorm, controlPlaneUnavailable, dnsTtlZero, dnsQueryStorm];

export function findRule(id: string): AnyRule | undefined {
  return RULES.find((r) => r.meta.id === id);
}
