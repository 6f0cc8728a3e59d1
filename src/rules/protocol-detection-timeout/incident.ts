import { evidenceNumber, evidenceString } from '../../core/evidence.js';
import type { RuleIncidentKnowledge } from '../../kit/incident.js';

// No known mechanism makes a detection timeout cause another rule's finding: its findings join an
// incident by shared pods and time only.
export const protocolDetectionTimeoutIncident: RuleIncidentKnowledge = {
  phrase: (f) => {
    const pods = evidenceNumber(f, 'podsAffected');
    const protocol = evidenceString(f, 'protocol');
    return `${pods ?? '?'} prox${pods === 1 ? 'y' : 'ies'} waiting out protocol detection on port ${evidenceString(f, 'port') ?? '?'}${protocol ? ` (${protocol})` : ''}`;
  },
};
