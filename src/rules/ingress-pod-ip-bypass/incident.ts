import type { RuleIncidentKnowledge } from '../../kit/incident.js';

export const ingressPodIpBypassIncident: RuleIncidentKnowledge = {
  causes: [
    {
      effect: 'metric-cardinality',
      requires: 'pod-or-workload',
      mechanism: 'an ingress that balances on pod IPs itself makes its proxy keep endpoint-level series for every pod it has ever sent to',
    },
  ],
  versionIndependent: 'no release changes this: the ingress chooses pod IPs itself, which is configuration',
};
