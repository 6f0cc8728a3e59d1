import type { RuleIncidentKnowledge } from '../../kit/incident.js';

export const dnsQueryStormIncident: RuleIncidentKnowledge = {
  fixes: [{ fix: 'dns-min-ttl' }],
};
