// One target's storm as a finding: message, severity, evidence and the remediation for its target.

import type { FindingDraft } from '../../core/types.js';
import { workloadOfPod } from '../../input/path-meta.js';
import { controllerOfAddress } from '../../knowledge/control-plane.js';
import { describeDistinct, distinctCount } from '../../util/distinct.js';
import { bump, compact, formatDuration, maxOf, median, topEntries } from '../../util/stats.js';
import { toTimeline } from '../../util/timeline.js';
import { backoffVerdict, GAP_EDGES, medianGapBucket, medianWithZeros } from './cadence.js';
import { type GroupState, type LoopState, type ReconnectStormOptions, secondCountsOf } from './state.js';

export function describeStorm(g: GroupState, loops: LoopState[], sustained: LoopState[], podsWithRuns: number, options: ReconnectStormOptions, droppedLoops: number): FindingDraft {
  const linesPerPod = new Map(g.pods.counts);
  const linesPerEndpoint = new Map(g.endpoints.counts);
  for (const l of loops) {
    bump(linesPerPod, l.pod, l.count);
    if (l.endpoint) bump(linesPerEndpoint, l.endpoint, l.count);
  }
  const podCount = distinctCount(g.distinctPods);
  const endpointCount = distinctCount(g.distinctEndpoints);
  const pods = podCount.value;
  const component = controllerOfAddress(g.target);
  const severity = g.controlPlane && component && pods >= options.errorMinPods ? 'error' : 'warning';
  const allGaps = new Array<number>(GAP_EDGES.length).fill(0);
  for (const l of loops) l.gaps.forEach((n, i) => (allGaps[i]! += n));
  const backoff = backoffVerdict(medianGapBucket(allGaps));
  const loopsOverBackoff = loops.filter((l) => backoffVerdict(medianGapBucket(l.gaps)).exceedsBackoff && l.count >= 10).length;

  const perLoopRates = loops.map((l) => l.count / Math.max(l.last - l.first, 1));
  const secondCounts = secondCountsOf(g.perSecond);
  const windowSeconds = g.firstTime !== null && g.lastTime !== null ? (g.lastTime - g.firstTime) / 1000 : maxOf(loops.map((l) => l.last - l.first));
  const clusterSeconds = g.firstTime !== null && g.lastTime !== null ? Math.floor(g.lastTime / 1000) - Math.floor(g.firstTime / 1000) + 1 : 0;
  const clusterMedian = clusterSeconds > 0 ? medianWithZeros(secondCounts, Math.max(0, clusterSeconds - secondCounts.length)) : null;

  const what = component ? `the ${component} controller (${g.target})` : g.controlPlane ? `controller ${g.target}` : `endpoint ${g.target}`;
  const topError = topEntries(g.errors, 1)[0]?.key ?? 'failures';
  const message =
    `${describeDistinct(podCount)} pod${pods === 1 ? '' : 's'} logged ${compact(g.lines)} reconnect failures (${topError}) towards ${what} ` +
    `over ${formatDuration(windowSeconds)}; ${sustained.length} of ${loops.length} reconnect loops failed for ${options.sustainSeconds} s or longer. ` +
    `${backoff.verdict}.`;

  const evidence: FindingDraft['evidence'] = {
    totalLines: g.lines,
    failedToConnect: g.failedToConnect,
    serviceFailed: g.serviceFailed,
    podsAffected: pods,
    ...(podCount.estimated ? { podsAffectedEstimated: true } : {}),
    distinctEndpoints: endpointCount.value,
    ...(endpointCount.estimated ? { distinctEndpointsEstimated: true } : {}),
    podsFailingAtLeastClusterRun: podsWithRuns,
    loops: loops.length,
    sustainedLoops: sustained.length,
    // Past maxLoops new loops are not tracked, so the loop figures above are lower bounds.
    ...(droppedLoops > 0 ? { loopsNotTracked: droppedLoops } : {}),
    window: {
      start: g.firstTime !== null ? new Date(g.firstTime).toISOString() : null,
      end: g.lastTime !== null ? new Date(g.lastTime).toISOString() : null,
      durationSeconds: Math.round(windowSeconds * 10) / 10,
      clock: g.firstTime !== null ? 'wall' : 'proxy uptime (no collector timestamps)',
    },
    rate: {
      peakLinesPerSecondPerLoop: maxOf(loops.map((l) => l.peakPerSecond)),
      medianLinesPerSecondPerLoop: round(median(perLoopRates)),
      peakLinesPerSecondCluster: secondCounts.length ? maxOf(secondCounts) : null,
      medianLinesPerSecondCluster: round(clusterMedian),
    },
    backoff: { verdict: backoff.verdict, loopsExceedingBackoff: loopsOverBackoff, medianGapHistogram: Object.fromEntries(GAP_EDGES.map((e, i) => [`≤${e}s`, allGaps[i]])) },
    errors: Object.fromEntries(topEntries(g.errors, 5).map((e) => [e.key, e.count])),
    pods: topEntries(linesPerPod, 10).map((e) => ({ pod: e.key, lines: e.count })),
    topTargets: topEntries(linesPerEndpoint, 10).map((e) => ({ endpoint: e.key, lines: e.count })),
    samples: g.samples,
  };
  const timeline = toTimeline(g.perMinute, 'reconnect failures per minute');
  if (timeline) evidence.timeline = timeline;

  const namespace = topEntries(g.namespaces, 1)[0]?.key;
  const podList = [...linesPerPod.keys()];
  return {
    severity,
    kind: component ? `${component}-storm` : g.controlPlane ? 'controller-storm' : 'endpoint-storm',
    title: component ? `Reconnect storm towards the ${component} controller` : `Reconnect storm towards ${g.target}`,
    message,
    subject: {
      ...(namespace ? { namespace } : {}),
      ...(pods === 1 && !podList[0]!.startsWith('(') ? { pod: podList[0], workload: workloadOfPod(podList[0]) } : {}),
      target: g.target,
    },
    evidence,
    locations: g.samples.map((s) => ({ path: s.path, line: s.line })),
    remediation: remediationFor(component, g.controlPlane),
    keyFigure: { name: 'totalLines', value: g.lines },
  };
}

/** Two decimals, as rates are shown in evidence. */
function round(n: number | null): number | null {
  return n === null ? null : Math.round(n * 100) / 100;
}

function remediationFor(component: string | null, controlPlane: boolean): string {
  if (!controlPlane) {
    return [
      'The proxies cannot reach this application endpoint; its loop retries until the endpoint leaves discovery.',
      'Check that the backend pods behind it are ready and listening, and that no NetworkPolicy drops the traffic.',
    ].join(' ');
  }
  const steps = [
    component === 'destination' || component === 'policy'
      ? '1. Upgrade the control plane past the destination stream-limit fix (linkerd2 PR #12598, first in edge-24.5.3 and stable 2.16): before it, the destination controller capped concurrent gRPC streams, stalled watches and fell over under load.'
      : '1. Find out why the controller is down (restarts, OOMKilled, readiness) before anything else: the proxies only retry what it refuses.',
    '2. Slow the retries so they cannot keep the control plane down: set LINKERD2_PROXY_OUTBOUND_CONNECT_EXP_BACKOFF_MIN and _MAX (set both, plus _JITTER, which otherwise defaults to 0) through the Helm value proxy.additionalEnv (Linkerd 2.15+, linkerd2 #12080). Proxies before v2.307 cap the backoff at 500 ms; v2.307 (edge-25.7.2, Linkerd 2.19) raised the default cap to 60 s.',
    '3. Scale the control plane (more destination/policy replicas, the HA values, and memory headroom) so a restart does not drop every proxy at once.',
  ];
  return steps.join('\n');
}
