// A container status whose paste names no container: a `lastState:` / `terminated:` block cut out
// of a pod's YAML, or a describe cut below the container's name, with nothing else to say whose it
// is (no termination message in the proxy's log format, no path naming the container). Whether it
// is Linkerd's cannot be known, but an OOM kill or a crash loop is plainly there: the input must
// not read PASS (issue 45). One finding per paste says what failed and how to find whose it was.

import type { FindingDraft, PodStatusRecord, SampleLine, SourceLocation } from '../../core/types.js';
import { keepSample } from '../../core/evidence.js';
import { detach } from '../../util/stats.js';

const MAX_SAMPLES = 3;

export interface UnnamedFailures {
  oomKills: number;
  crashLoops: number;
  /** Exit codes of the terminations seen, in order, at most MAX_SAMPLES. */
  exitCodes: number[];
  pods: string[];
  samples: SampleLine[];
  location: SourceLocation | null;
}

export const unnamedFailures = (): UnnamedFailures => ({ oomKills: 0, crashLoops: 0, exitCodes: [], pods: [], samples: [], location: null });

/** Counts a status that names no container when it shows an OOM kill or a crash loop; true when it did. */
export function addUnnamed(u: UnnamedFailures, record: PodStatusRecord): boolean {
  // `kubectl get pods` never names a container: its rows are read per pod, elsewhere.
  if (record.container !== undefined || record.source === 'get-pods' || record.source === 'last-look') return false;
  const oom = record.lastReason === 'OOMKilled' || record.reason === 'OOMKilled';
  const crashLoop = record.reason === 'CrashLoopBackOff';
  if (!oom && !crashLoop) return false;
  if (oom) u.oomKills++;
  if (crashLoop) u.crashLoops++;
  const exitCode = record.lastExitCode ?? record.exitCode;
  if (exitCode !== null && u.exitCodes.length < MAX_SAMPLES) u.exitCodes.push(exitCode);
  if (record.pod && !u.pods.includes(record.pod) && u.pods.length < MAX_SAMPLES) u.pods.push(detach(record.pod));
  u.location ??= { path: detach(record.path), line: record.line };
  const said = [oom ? 'OOMKilled' : null, crashLoop ? 'CrashLoopBackOff' : null, exitCode !== null ? `exit code ${exitCode}` : null].filter(Boolean).join(', ');
  keepSample(u.samples, MAX_SAMPLES, detach(record.path), record.line, `container status: ${said}`);
  return true;
}

export function mergeUnnamed(into: UnnamedFailures, from: UnnamedFailures): void {
  into.oomKills += from.oomKills;
  into.crashLoops += from.crashLoops;
  for (const code of from.exitCodes) if (into.exitCodes.length < MAX_SAMPLES) into.exitCodes.push(code);
  for (const pod of from.pods) if (!into.pods.includes(pod) && into.pods.length < MAX_SAMPLES) into.pods.push(pod);
  for (const s of from.samples) if (into.samples.length < MAX_SAMPLES) into.samples.push(s);
  into.location ??= from.location;
}

export function describeUnnamed(u: UnnamedFailures): FindingDraft | null {
  if (u.location === null) return null;
  const what = [u.oomKills > 0 ? 'OOMKilled' : null, u.crashLoops > 0 ? 'in CrashLoopBackOff' : null].filter(Boolean).join(' and ');
  const pod = u.pods.length === 1 ? u.pods[0]! : null;
  const target = pod ? `${pod}` : '<pod>';
  return {
    severity: 'warning',
    kind: 'unnamed-container',
    title: `A container ${what}${pod ? ` in ${pod}` : ''}; the paste does not say which container`,
    message: [
      `The input holds a container status (${u.samples.map((s) => s.text.replace(/^container status: /, '')).join('; ')}) without the container's name, so whether it is Linkerd's proxy, a Linkerd controller or the application cannot be told from it.`,
      u.oomKills > 0
        ? 'An OOM kill (exit code 137) means the container reached its memory limit: a proxy that does is usually holding per-endpoint state or buffered payloads, a controller a watch of a large cluster.'
        : 'A crash loop means the container exits again each time the kubelet restarts it (back-off from 10 s to 5 min).',
    ].join(' '),
    subject: pod ? { target: pod } : {},
    evidence: { oomKills: u.oomKills, crashLoops: u.crashLoops, exitCodes: u.exitCodes, podNames: u.pods, samples: u.samples },
    locations: [u.location],
    remediation: [
      `1. Find which container it is: \`kubectl get pod ${target} -o jsonpath='{range .status.containerStatuses[*]}{.name}{" "}{.lastState.terminated.reason}{" "}{.state.waiting.reason}{"\\n"}{end}'\` (or \`kubectl describe pod ${target}\`), and analyse the whole output.`,
      '2. If it is linkerd-proxy, raise `config.linkerd.io/proxy-memory-limit` on the workload (an OOM kill) or read its previous log (`kubectl logs <pod> -c linkerd-proxy --previous`); if it is a Linkerd controller, raise its Helm resources (`destinationResources`, `identityResources`, `proxyInjectorResources`) and run it in HA mode.',
    ].join('\n'),
    keyFigure: { name: 'failedStatuses', value: u.oomKills + u.crashLoops },
  };
}
