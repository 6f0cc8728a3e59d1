import { evidenceNumber, evidenceString } from '../../core/evidence.js';
import type { RuleIncidentKnowledge } from '../../kit/incident.js';

export const failfastIncident: RuleIncidentKnowledge = {
  phrase: (f) => {
    const pods = evidenceNumber(f, 'podsAffected');
    // Folded across services (report/fold.ts): the count of services, not one of them.
    const services = evidenceNumber(f, 'targetsAffected');
    const what = services !== undefined ? `${services.toLocaleString('en-US')} services` : (evidenceString(f, 'service') ?? f.subject.target ?? 'a service');
    return `${what} in fail-fast on ${pods ?? '?'} prox${pods === 1 ? 'y' : 'ies'} (${evidenceString(f, 'cause') ?? 'cause unknown'})`;
  },
};
