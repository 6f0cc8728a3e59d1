import type { RuleIncidentKnowledge } from '../../kit/incident.js';

export const dnsTtlZeroIncident: RuleIncidentKnowledge = {
  causes: [
    {
      effect: 'dns-query-storm',
      requires: 'component',
      mechanism: 'answers with TTL 0 make proxies before v2.289 re-resolve at once, so the queries bunch into bursts',
    },
  ],
  fixes: [{ fix: 'dns-min-ttl' }, { fix: 'dns-negative-min-ttl', when: (f) => f.kind === 'negative-answer' }],
};
