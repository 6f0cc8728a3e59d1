import { evidenceNumber } from '../../core/evidence.js';
import { isProxyOomKill, type RuleIncidentKnowledge } from '../../kit/incident.js';
import { compact } from '../../util/stats.js';

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
    // The fix removed the authority label from inbound metrics only; outbound authority series stay.
    { fix: 'inbound-authority-label', when: (f) => (evidenceNumber(f, 'inboundAuthoritySeries') ?? 0) > 0 },
    { fix: 'duplicate-series', when: (f) => (evidenceNumber(f, 'duplicateLines') ?? 0) > 0 },
  ],
};
