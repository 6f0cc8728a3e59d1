import type { RuleIncidentKnowledge } from '../../kit/incident.js';

export const fdExhaustionIncident: RuleIncidentKnowledge = {
  causes: [
    {
      effect: 'control-plane-unavailable',
      requires: 'pod-or-workload',
      mechanism: 'a controller proxy out of file descriptors cannot accept new connections, so it fails control-plane calls',
    },
  ],
  versionIndependent: 'no release changes this: it is the file-descriptor limit versus the connection count',
};
