import type { RuleExporter } from '../types.js';
import { controlPlaneUnavailableExporter } from './control-plane-unavailable.js';
import { dnsQueryStormExporter, dnsTtlZeroExporter } from './dns.js';
import { fdExhaustionExporter, ingressPodIpBypassExporter, metricCardinalityExporter, staleEndpointMetricsExporter } from './proxy-metrics.js';
import { podRestartsExporter } from './pod-restarts.js';
import { reconnectStormExporter } from './reconnect-storm.js';
import { authorizationDeniedExporter, dnsResolutionFailureExporter, failfastExporter, identityFailureExporter, protocolDetectionTimeoutExporter } from './threshold-logs.js';

/** One exporter per offline rule id; a rule that is not in the RULES registry is skipped with a notice. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const EXPORTERS: readonly RuleExporter<any>[] = [
  reconnectStormExporter,
  controlPlaneUnavailableExporter,
  metricCardinalityExporter,
  fdExhaustionExporter,
  ingressPodIpBypassExporter,
  staleEndpointMetricsExporter,
  dnsTtlZeroExporter,
  dnsQueryStormExporter,
  identityFailureExporter,
  failfastExporter,
  dnsResolutionFailureExporter,
  protocolDetectionTimeoutExporter,
  authorizationDeniedExporter,
  podRestartsExporter,
];

export function findExporter(ruleId: string): RuleExporter | undefined {
  return EXPORTERS.find((e) => e.ruleId === ruleId);
}
