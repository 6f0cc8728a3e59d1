import { evidenceNumber, evidenceString } from '../../core/evidence.js';
import type { RuleIncidentKnowledge } from '../../kit/incident.js';
import { compact } from '../../util/stats.js';

const isProbeFlood = (kind: string | undefined) => kind === 'probe flood';

export const authorizationDeniedIncident: RuleIncidentKnowledge = {
  causes: [
    {
      effect: 'pod-restarts',
      requires: 'pod-or-workload',
      mechanism:
        "the kubelet's probes reach the proxy as unauthenticated clients, so a policy that does not authorize them fails the liveness probes and the kubelet restarts the container",
      applies: (cause, effect) => isProbeFlood(evidenceString(cause, 'kind')) && evidenceString(effect, 'problem') !== 'oom',
    },
  ],
  phrase: (f) => {
    const what = isProbeFlood(evidenceString(f, 'kind')) ? 'probes' : 'requests';
    return `${what} denied by policy on ${evidenceString(f, 'server') ?? f.subject.target ?? 'a server'} (${compact(evidenceNumber(f, 'denials') ?? 0)})`;
  },
};
