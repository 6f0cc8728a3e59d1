import { evidenceNumber, evidenceString } from '../../core/evidence.js';
import type { RuleIncidentKnowledge } from '../../kit/incident.js';
import { titleCase } from '../../knowledge/control-plane.js';

export const podRestartsIncident: RuleIncidentKnowledge = {
  causes: [
    {
      effect: 'reconnect-storm',
      requires: 'component',
      mechanism:
        "a controller that is OOMKilled or crash-looping drops every proxy's stream at once, and each proxy retries its connection in a loop until the controller is back",
    },
    {
      effect: 'control-plane-unavailable',
      requires: 'component',
      mechanism: "while the controller container restarts, its pod's proxy has nothing to forward the proxies' calls to and fails them",
    },
  ],
  phrase: (f) => {
    const problem = evidenceString(f, 'problem');
    const container = evidenceString(f, 'container');
    const restarts = evidenceNumber(f, 'restarts');
    const what = problem === 'oom' ? 'OOMKilled' : problem === 'crashloop' ? 'in CrashLoopBackOff' : 'restarting';
    const who = evidenceString(f, 'role') === 'controller' ? `${titleCase(container ?? 'controller')} controller` : (container ?? 'container');
    const where = f.subject.workload ? ` of ${f.subject.workload}` : '';
    return `${who}${where} ${what}${restarts ? ` (${restarts} restart${restarts === 1 ? '' : 's'})` : ''}`;
  },
};
