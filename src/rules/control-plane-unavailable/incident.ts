import { evidenceCounts, evidenceNumber, evidenceString } from '../../core/evidence.js';
import type { RuleIncidentKnowledge } from '../../kit/incident.js';
import { reachesStreamLimitedController } from '../../knowledge/fixes.js';
import { titleCase } from '../../knowledge/control-plane.js';
import { compact } from '../../util/stats.js';

export const controlPlaneUnavailableIncident: RuleIncidentKnowledge = {
  causes: [
    {
      effect: 'reconnect-storm',
      requires: 'component',
      mechanism:
        "the controller refused or failed the proxies' calls, and every proxy that loses its controller connection retries it in a loop (every 500 ms before proxy v2.307)",
    },
    {
      effect: 'reconnect-storm',
      requires: 'co-located',
      mechanism:
        'the destination and policy controllers run in the same linkerd-destination pod behind the same proxy, so when that pod is overloaded or restarting both lose their clients',
    },
    {
      effect: 'identity-failure',
      requires: 'component',
      mechanism: 'the identity controller refused or failed certification calls, so every proxy that starts or renews gets no certificate and stays unready',
    },
    {
      effect: 'dns-resolution-failure',
      requires: 'component',
      mechanism: 'the controller Services are headless: with no controller pod ready, DNS has no record for them, so proxies cannot resolve the controller',
    },
  ],
  phrase: (f) => {
    const name = titleCase(evidenceString(f, 'controller') ?? 'control-plane');
    const failures = evidenceNumber(f, 'failures');
    const top = evidenceCounts(f, 'failureKinds').sort((a, b) => b[1] - a[1])[0]?.[0];
    const state = top === 'service unavailable' ? 'saturated' : 'unavailable';
    return failures
      ? `${name} controller ${state} (${compact(failures)} failed calls from ${evidenceNumber(f, 'distinctClients') ?? '?'} clients)`
      : `${name} controller restarting`;
  },
  fixes: [{ fix: 'destination-stream-limit', when: reachesStreamLimitedController }, { fix: 'connect-backoff-cap' }],
};
