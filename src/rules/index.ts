// The one list of rules. Each rule is a folder (src/rules/<id>/) that owns its reducer, its line
// patterns, its live twin and its incident knowledge; everything else that needs "every rule"
// (engine, export, correlation, fix status, docs checks) derives it from REGISTRY.

import type { AnyRule } from '../core/types.js';
import type { RuleExporter } from '../export/types.js';
import authorizationDenied from './authorization-denied/index.js';
import { authorizationDeniedExporter } from './authorization-denied/export.js';
import controlPlaneUnavailable from './control-plane-unavailable/index.js';
import { controlPlaneUnavailableExporter } from './control-plane-unavailable/export.js';
import dnsQueryStorm from './dns-query-storm/index.js';
import { dnsQueryStormExporter } from './dns-query-storm/export.js';
import dnsResolutionFailure from './dns-resolution-failure/index.js';
import { dnsResolutionFailureExporter } from './dns-resolution-failure/export.js';
import dnsTtlZero from './dns-ttl-zero/index.js';
import { dnsTtlZeroExporter } from './dns-ttl-zero/export.js';
import failfast from './failfast/index.js';
import { failfastExporter } from './failfast/export.js';
import fdExhaustion from './fd-exhaustion/index.js';
import { fdExhaustionExporter } from './fd-exhaustion/export.js';
import identityFailure from './identity-failure/index.js';
import { identityFailureExporter } from './identity-failure/export.js';
import ingressPodIpBypass from './ingress-pod-ip-bypass/index.js';
import { ingressPodIpBypassExporter } from './ingress-pod-ip-bypass/export.js';
import knownSignature from './known-signature/index.js';
import metricCardinality from './metric-cardinality/index.js';
import { metricCardinalityExporter } from './metric-cardinality/export.js';
import podRestarts from './pod-restarts/index.js';
import { podRestartsExporter } from './pod-restarts/export.js';
import protocolDetectionTimeout from './protocol-detection-timeout/index.js';
import { protocolDetectionTimeoutExporter } from './protocol-detection-timeout/export.js';
import reconnectStorm from './reconnect-storm/index.js';
import { reconnectStormExporter } from './reconnect-storm/export.js';
import staleEndpointMetrics from './stale-endpoint-metrics/index.js';
import { staleEndpointMetricsExporter } from './stale-endpoint-metrics/export.js';

/** What one rule folder contributes beyond its reducer. */
export interface RegisteredRule {
  rule: AnyRule;
  /** Its LogQL/PromQL twin; absent when the rule runs offline only. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  live?: RuleExporter<any>;
}

/** Every rule, in report order: logs, metrics, DNS. A new rule is one folder, one line here and docs/rules/<id>.md. */
export const REGISTRY: readonly RegisteredRule[] = [
  { rule: reconnectStorm, live: reconnectStormExporter },
  { rule: controlPlaneUnavailable, live: controlPlaneUnavailableExporter },
  { rule: metricCardinality, live: metricCardinalityExporter },
  { rule: staleEndpointMetrics, live: staleEndpointMetricsExporter },
  { rule: ingressPodIpBypass, live: ingressPodIpBypassExporter },
  { rule: fdExhaustion, live: fdExhaustionExporter },
  { rule: dnsTtlZero, live: dnsTtlZeroExporter },
  { rule: dnsQueryStorm, live: dnsQueryStormExporter },
  { rule: identityFailure, live: identityFailureExporter },
  { rule: failfast, live: failfastExporter },
  { rule: dnsResolutionFailure, live: dnsResolutionFailureExporter },
  { rule: protocolDetectionTimeout, live: protocolDetectionTimeoutExporter },
  { rule: authorizationDenied, live: authorizationDeniedExporter },
  { rule: podRestarts, live: podRestartsExporter },
  { rule: knownSignature },
];

export const RULES: readonly AnyRule[] = REGISTRY.map((r) => r.rule);

/** The live twins, in registry order. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const EXPORTERS: readonly RuleExporter<any>[] = REGISTRY.flatMap((r) => (r.live ? [r.live] : []));

export function findRule(id: string): AnyRule | undefined {
  return RULES.find((r) => r.meta.id === id);
}
