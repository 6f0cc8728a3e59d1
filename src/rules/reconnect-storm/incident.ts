import { evidenceNumber, podsOfFinding, windowOf } from '../../core/evidence.js';
import type { RuleIncidentKnowledge } from '../../kit/incident.js';
import { workloadOfPod } from '../../util/path-meta.js';
import { controllerOfAddress } from '../../knowledge/control-plane.js';
import { reachesStreamLimitedController } from '../../knowledge/fixes.js';
import { compact, formatDuration } from '../../util/stats.js';

export const reconnectStormIncident: RuleIncidentKnowledge = {
  causes: [
    {
      effect: 'failfast',
      requires: 'pod-or-workload',
      mechanism:
        'a proxy that cannot reach its destination controller has no discovery for the services it calls (controller unreachable), so their balancers fail fast',
      // Only a storm towards the control plane: an application endpoint's loop says nothing of discovery.
      applies: (cause) => cause.kind !== 'stale-endpoint' && cause.kind !== 'endpoint-storm',
    },
  ],
  phrase: (f) => {
    const pods = evidenceNumber(f, 'podsAffected');
    const workloads = new Set(podsOfFinding(f).map(workloadOfPod));
    const who = f.subject.workload ?? (workloads.size === 1 ? [...workloads][0] : undefined);
    const { start, end } = windowOf(f);
    const seconds = f.evidence.window?.durationSeconds ?? (start !== null && end !== null ? (end - start) / 1000 : 0);
    const duration = seconds > 0 ? ` in ${formatDuration(seconds)}` : '';
    const component = controllerOfAddress(f.subject.target);
    if (f.kind === 'stale-endpoint') {
      const endpoints = evidenceNumber(f, 'targetsAffected');
      if (endpoints !== undefined)
        return `${pods ?? '?'} ${who ? `${who} ` : ''}prox${pods === 1 ? 'y' : 'ies'} dialling ${endpoints.toLocaleString('en-US')} stale endpoints${duration}`;
      return `${pods ?? '?'} ${who ? `${who} ` : ''}prox${pods === 1 ? 'y' : 'ies'} dialling stale endpoint ${f.subject.target ?? '?'}${typeof f.evidence.service === 'string' ? ` of ${f.evidence.service}` : ''}${duration}`;
    }
    return `${pods ?? '?'} ${who ? `${who} ` : ''}prox${pods === 1 ? 'y' : 'ies'} in a reconnect storm${component ? ` to ${component}` : ''} (${compact(evidenceNumber(f, 'totalLines') ?? 0)} lines${duration})`;
  },
  // The backoff cap paces a control-plane storm; a stale endpoint is discovery's, not the retries'.
  fixes: [
    { fix: 'destination-stream-limit', when: reachesStreamLimitedController },
    { fix: 'connect-backoff-cap', when: (f) => f.kind !== 'stale-endpoint' },
  ],
};
