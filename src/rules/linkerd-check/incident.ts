// What linkerd-check tells the incident step: a certificate the CLI named (a webhook's, the
// issuer's, the trust anchor's) is the cause of what the API server and the proxies report about
// it elsewhere in the same capture.
import type { RuleIncidentKnowledge } from '../../kit/incident.js';

const isCertificate = (kind: string) => kind.startsWith('certificate/');

export const linkerdCheckIncident: RuleIncidentKnowledge = {
  causes: [
    {
      effect: 'controller-api-errors',
      requires: 'target',
      mechanism: "the webhook's serving certificate is expired or not trusted, so the API server's calls to the webhook fail their TLS handshake",
      applies: (cause) => isCertificate(cause.kind),
    },
    {
      effect: 'identity-failure',
      requires: 'component',
      mechanism: 'an expired or untrusted trust anchor or issuer keeps identity from signing proxy certificates, and proxies refuse each other',
      applies: (cause) => cause.kind.startsWith('certificate/trust-anchor/') || cause.kind.startsWith('certificate/identity-issuer/'),
    },
  ],
  versionIndependent: 'a check result describes the cluster as it was when the CLI ran, whatever the release',
};
