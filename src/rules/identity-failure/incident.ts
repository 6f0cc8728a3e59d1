import { evidenceNumber, evidenceString } from '../../core/evidence.js';
import type { RuleIncidentKnowledge } from '../../kit/incident.js';
import { lookupTable } from '../../util/dict.js';

const WHAT: Readonly<Record<string, string>> = lookupTable({
  certify: 'failing to obtain a certificate',
  'trust-anchor': 'rejecting peers from an unknown issuer (trust-anchor mismatch)',
  'tls-alert': 'refusing TLS handshakes',
  'not-ready': 'still waiting for identity',
  expiry: 'with certificates expired or about to expire',
});

export const identityFailureIncident: RuleIncidentKnowledge = {
  causes: [
    {
      effect: 'reconnect-storm',
      requires: 'pod-or-workload',
      mechanism: "with a trust-anchor mismatch or no certificate every TLS handshake to the controller fails, so the proxy's reconnect loop never succeeds",
    },
  ],
  phrase: (f) => {
    const n = evidenceNumber(f, 'podsAffected') ?? evidenceNumber(f, 'proxies') ?? 0;
    return `${n} prox${n === 1 ? 'y' : 'ies'} ${WHAT[evidenceString(f, 'failureKind') ?? ''] ?? 'without a valid identity'}`;
  },
};
