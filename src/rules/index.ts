import type { AnyRule } from '../core/types.js';
import controlPlaneUnavailable from './control-plane-unavailable.js';
import dnsQueryStorm from './dns-query-storm.js';
import dnsTtlZero from './dns-ttl-zero.js';
import fdExhaustion from './fd-exhaustion.js';
import ingressPodIpBypass from './ingress-pod-ip-bypass.js';
import knownSignature from './known-signature/index.js';
import metricCardinality from './metric-cardinality.js';
import podRestarts from './pod-restarts/index.js';
import reconnectStorm from './reconnect-storm.js';
import staleEndpointMetrics from './stale-endpoint-metrics.js';
import identityFailure from './identity-failure/index.js';
import failfast from './failfast/index.js';
import dnsResolutionFailure from './dns-resolution-failure/index.js';
import protocolDetectionTimeout from './protocol-detection-timeout/index.js';
import authorizationDenied from './authorization-denied/index.js';

/** Every rule, in report order: logs, metrics, DNS. Add a rule here and give it docs/rules/<id>.md. */
export const RULES: readonly AnyRule[] = [
  reconnectStorm,
  controlPlaneUnavailable,
  metricCardinality,
  staleEndpointMetrics,
  ingressPodIpBypass,
  fdExhaustion,
  dnsTtlZero,
  dnsQueryStorm,
  identityFailure,
  failfast,
  dnsResolutionFailure,
  protocolDetectionTimeout,
  authorizationDenied,
  podRestarts,
  knownSignature,
];

export function findRule(id: string): AnyRule | undefined {
  return RULES.find((r) => r.meta.id === id);
}
