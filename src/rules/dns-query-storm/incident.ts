import type { RuleIncidentKnowledge } from '../../incident/knowledge.js';

export const dnsQueryStormIncident: RuleIncidentKnowledge = {
  fixes: [{ fix: 'dns-min-ttl' }],
};
