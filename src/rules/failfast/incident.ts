import { evidenceNumber, evidenceString } from '../../core/evidence.js';
import type { RuleIncidentKnowledge } from '../../kit/incident.js';

export const failfastIncident: RuleIncidentKnowledge = {
  phrase: (f) => {
    const pods = evidenceNumber(f, 'podsAffected');
    return `${evidenceString(f, 'service') ?? f.subject.target ?? 'a service'} in fail-fast on ${pods ?? '?'} prox${pods === 1 ? 'y' : 'ies'} (${evidenceString(f, 'cause') ?? 'cause unknown'})`;
  },
};
