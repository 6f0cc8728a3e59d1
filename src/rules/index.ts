// The one list of rules. Each rule is a folder (src/rules/<id>/) that owns its reducer, its line
// patterns, its live twin and its incident knowledge; everything else that needs "every rule"
// (engine, export, correlation, fix status, docs checks) derives it from REGISTRY.

import type { AnyRule } from '../core/types.js';
import type { RuleExporter } from '../kit/export/types.js';
import type { RuleIncidentKnowledge } from '../kit/incident.js';
import authorizationDenied from './authorization-denied/index.js';
import { authorizationDeniedExporter } from './authorization-denied/export.js';
import { authorizationDeniedIncident } from './authorization-denied/incident.js';
import controllerApiErrors from './controller-api-errors/index.js';
import controlPlaneUnavailable from './control-plane-unavailable/index.js';
import { controlPlaneUnavailableExporter } from './control-plane-unavailable/export.js';
import { controlPlaneUnavailableIncident } from './control-plane-unavailable/incident.js';
import dnsQueryStorm from './dns-query-storm/index.js';
import { dnsQueryStormExporter } from './dns-query-storm/export.js';
import { dnsQueryStormIncident } from './dns-query-storm/incident.js';
import dnsResolutionFailure from './dns-resolution-failure/index.js';
import { dnsResolutionFailureExporter } from './dns-resolution-failure/export.js';
import { dnsResolutionFailureIncident } from './dns-resolution-failure/incident.js';
import dnsTtlZero from './dns-ttl-zero/index.js';
import { dnsTtlZeroExporter } from './dns-ttl-zero/export.js';
import { dnsTtlZeroIncident } from './dns-ttl-zero/incident.js';
import failfast from './failfast/index.js';
import { failfastExporter } from './failfast/export.js';
import { failfastIncident } from './failfast/incident.js';
import fdExhaustion from './fd-exhaustion/index.js';
import { fdExhaustionExporter } from './fd-exhaustion/export.js';
import { fdExhaustionIncident } from './fd-exhaustion/incident.js';
import identityFailure from './identity-failure/index.js';
import { identityFailureExporter } from './identity-failure/export.js';
import { identityFailureIncident } from './identity-failure/incident.js';
import ingressPodIpBypass from './ingress-pod-ip-bypass/index.js';
import { ingressPodIpBypassExporter } from './ingress-pod-ip-bypass/export.js';
import { ingressPodIpBypassIncident } from './ingress-pod-ip-bypass/incident.js';
import knownSignature from './known-signature/index.js';
import metricCardinality from './metric-cardinality/index.js';
import { metricCardinalityExporter } from './metric-cardinality/export.js';
import { metricCardinalityIncident } from './metric-cardinality/incident.js';
import podRestarts from './pod-restarts/index.js';
import { podRestartsExporter } from './pod-restarts/export.js';
import { podRestartsIncident } from './pod-restarts/incident.js';
import probeFailure from './probe-failure/index.js';
import protocolDetectionTimeout from './protocol-detection-timeout/index.js';
import { protocolDetectionTimeoutExporter } from './protocol-detection-timeout/export.js';
import { protocolDetectionTimeoutIncident } from './protocol-detection-timeout/incident.js';
import reconnectStorm from './reconnect-storm/index.js';
import { reconnectStormExporter } from './reconnect-storm/export.js';
import { reconnectStormIncident } from './reconnect-storm/incident.js';
import staleEndpointMetrics from './stale-endpoint-metrics/index.js';
import { staleEndpointMetricsExporter } from './stale-endpoint-metrics/export.js';
import { staleEndpointMetricsIncident } from './stale-endpoint-metrics/incident.js';

/** What one rule folder contributes beyond its reducer. */
export interface RegisteredRule {
  rule: AnyRule;
  /** Its LogQL/PromQL twin; absent when the rule runs offline only. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  live?: RuleExporter<any>;
  /** Its causal links, headline phrase and known fixes (./<id>/incident.ts). */
  incident?: RuleIncidentKnowledge;
}

/** Every rule, in report order: logs, metrics, DNS. A new rule is one folder, one line here and docs/rules/<id>.md. */
export const REGISTRY: readonly RegisteredRule[] = [
  { rule: reconnectStorm, live: reconnectStormExporter, incident: reconnectStormIncident },
  { rule: controlPlaneUnavailable, live: controlPlaneUnavailableExporter, incident: controlPlaneUnavailableIncident },
  { rule: controllerApiErrors },
  { rule: metricCardinality, live: metricCardinalityExporter, incident: metricCardinalityIncident },
  { rule: staleEndpointMetrics, live: staleEndpointMetricsExporter, incident: staleEndpointMetricsIncident },
  { rule: ingressPodIpBypass, live: ingressPodIpBypassExporter, incident: ingressPodIpBypassIncident },
  { rule: fdExhaustion, live: fdExhaustionExporter, incident: fdExhaustionIncident },
  { rule: dnsTtlZero, live: dnsTtlZeroExporter, incident: dnsTtlZeroIncident },
  { rule: dnsQueryStorm, live: dnsQueryStormExporter, incident: dnsQueryStormIncident },
  { rule: identityFailure, live: identityFailureExporter, incident: identityFailureIncident },
  { rule: failfast, live: failfastExporter, incident: failfastIncident },
  { rule: dnsResolutionFailure, live: dnsResolutionFailureExporter, incident: dnsResolutionFailureIncident },
  { rule: protocolDetectionTimeout, live: protocolDetectionTimeoutExporter, incident: protocolDetectionTimeoutIncident },
  { rule: authorizationDenied, live: authorizationDeniedExporter, incident: authorizationDeniedIncident },
  { rule: podRestarts, live: podRestartsExporter, incident: podRestartsIncident },
  { rule: probeFailure },
  { rule: knownSignature, incident: { annotatesLines: true } },
];

export const RULES: readonly AnyRule[] = REGISTRY.map((r) => r.rule);

/** The live twins, in registry order. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const EXPORTERS: readonly RuleExporter<any>[] = REGISTRY.flatMap((r) => (r.live ? [r.live] : []));

export function findRule(id: string): AnyRule | undefined {
  return findRegistered(id)?.rule;
}

export function findRegistered(id: string): RegisteredRule | undefined {
  return REGISTRY.find((r) => r.rule.meta.id === id);
}
