import type { RuleIncidentKnowledge } from '../../kit/incident.js';

export const staleEndpointMetricsIncident: RuleIncidentKnowledge = {
  causes: [
    {
      effect: 'metric-cardinality',
      requires: 'pod-or-workload',
      mechanism: 'series for endpoints that are gone stay in the proxy until they have been idle for 10 minutes, and add up across rollouts',
    },
  ],
  versionIndependent:
    'no release changes this: proxies keep metrics of gone endpoints until they have been idle for 10 min (LINKERD2_PROXY_METRICS_RETAIN_IDLE), by design',
};
