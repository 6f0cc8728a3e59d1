import { evidenceNumber, evidenceString } from '../../core/evidence.js';
import type { RuleIncidentKnowledge } from '../../kit/incident.js';

export const dnsResolutionFailureIncident: RuleIncidentKnowledge = {
  causes: [
    {
      effect: 'identity-failure',
      requires: 'component',
      mechanism: 'a proxy that cannot resolve linkerd-identity-headless cannot send its certificate request, so it never gets an identity',
    },
    {
      effect: 'failfast',
      requires: 'pod-or-workload',
      mechanism: 'a proxy that cannot resolve its destination controller has no service discovery, so its balancers find no endpoints and fail fast',
    },
  ],
  phrase: (f) => {
    const controller = evidenceString(f, 'controller');
    return controller
      ? `${evidenceNumber(f, 'podsAffected') ?? '?'} proxies cannot resolve the ${controller} controller`
      : `DNS refinement of ${evidenceString(f, 'name') ?? f.subject.target} timing out`;
  },
};
