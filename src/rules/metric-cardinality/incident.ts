import type { RuleIncidentKnowledge } from '../../incident/knowledge.js';
import { compact } from '../../util/stats.js';
import { isProxyOomKill } from '../pod-restarts/incident.js';

export const metricCardinalityIncident: RuleIncidentKnowledge = {
  causes: [
    {
      effect: 'pod-restarts',
      requires: 'pod-or-workload',
      mechanism: 'every series the proxy holds costs memory, so a proxy whose series keep growing reaches its memory limit and is OOMKilled (linkerd2#12916)',
      applies: (_cause, effect) => isProxyOomKill(effect),
    },
  ],
  phrase: (f) => `${f.subject.workload ?? f.subject.pod ?? 'proxy'} metric cardinality ${f.keyFigure ? `${compact(f.keyFigure.value)} series` : ''}`.trim(),
  fixes: [
    { fix: 'inbound-authority-label', when: (f) => JSON.stringify(f.evidence).includes('authority') },
    { fix: 'duplicate-series', when: (f) => /"duplicate\w*":\s*[1-9]/i.test(JSON.stringify(f.evidence)) },
  ],
};
