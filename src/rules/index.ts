import type { AnyRule } from '../core/types.js';
import fdExhaustion from './fd-exhaustion.js';
import ingressPodIpBypass from './ingress-pod-ip-bypass.js';
import metricCardinality from './metric-cardinality.js';
import reconnectStorm from './reconnect-storm.js';
import staleEndpointMetrics from './stale-endpoint-metrics.js';

/** Every rule, in report order. Add a rule here and give it docs/rules/<id>.md. */
export const RULES: readonly AnyRule[] = [reconnectStorm, metricCardinality, staleEndpointMetrics, ingressPodIpBypass, fdExhaustion];

export function findRule(id: string): AnyRule | undefined {
  return RULES.find((r) => r.meta.id === id);
}
