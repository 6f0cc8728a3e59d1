// One target's storm as a finding: message, severity, evidence and the remediation for its target.

import type { FindingDraft } from '../../core/types.js';
import { workloadOfPod } from '../../util/path-meta.js';
import { controlPlaneLocation, controllerOfAddress, splitAddress } from '../../knowledge/control-plane.js';
import { describeDistinct, distinctCount } from '../../util/distinct.js';
import { bump, compact, formatDuration, maxOf, median, podSetCount, topCountEntries, topEntries } from '../../util/stats.js';
import { toTimeline } from '../../util/timeline.js';
import { backoffVerdict, GAP_EDGES, medianGapBucket, medianWithZeros } from './cadence.js';
import { type GroupState, type LoopState, type ReconnectStormOptions, secondCountsOf } from './state.js';

export function describeStorm(
  g: GroupState,
  loops: LoopState[],
  sustained: LoopState[],
  podsWithRuns: number,
  options: ReconnectStormOptions,
  droppedLoops: number,
): FindingDraft {
  const linesPerPod = new Map(topCountEntries(g.pods));
  const linesPerEndpoint = new Map(g.endpoints.counts);
  for (const l of loops) {
    bump(linesPerPod, l.pod, l.count);
    if (l.endpoint) bump(linesPerEndpoint, l.endpoint, l.count);
  }
  const podCount = podSetCount(g.distinctPods);
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
  const authority = topEntries(g.authorities.counts, 1)[0]?.key?.toString() ?? null;
  // The longest continuous failing run of one proxy towards it (gaps within maxGapSeconds).
  const stale = staleEndpoint(g, maxOf(loops.map((l) => l.longestRun)) ?? 0, options);
  const message =
    `${describeDistinct(podCount)} pod${pods === 1 ? '' : 's'} logged ${compact(g.lines)} reconnect failures (${topError}) towards ${what} ` +
    `over ${formatDuration(windowSeconds)}; ${sustained.length} of ${loops.length} reconnect loops failed for ${options.sustainSeconds} s or longer. ` +
    `${backoff.verdict}.` +
    (stale
      ? ` Nothing answers at ${g.target} (${stale.unreachableShare} % of failures ${stale.reason}) for ${formatDuration(stale.seconds)}, yet Linkerd's discovery still hands it to the balancer${authority ? ` of ${authority}` : ''}: ` +
        `Kubernetes removes a terminating pod's address from its EndpointSlices at once, so either the destination controller's endpoints diverge from the cluster's (a stale endpoint), or the pod is alive and the network drops its traffic.`
      : '');

  const evidence: FindingDraft['evidence'] = {
    totalLines: g.lines,
    failedToConnect: g.failedToConnect,
    serviceFailed: g.serviceFailed,
    podsAffected: pods,
    ...(podCount.estimated ? { podsAffectedEstimated: true } : {}),
    distinctEndpoints: endpointCount.value,
    ...(endpointCount.estimated ? { distinctEndpointsEstimated: true } : {}),
    podsFailingContinuously: podsWithRuns,
    continuousFailureSeconds: options.clusterRunSeconds,
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
    backoff: {
      verdict: backoff.verdict,
      loopsExceedingBackoff: loopsOverBackoff,
      medianGapHistogram: Object.fromEntries(GAP_EDGES.map((e, i) => [gapBucketLabel(i), allGaps[i]])),
    },
    errors: Object.fromEntries(topEntries(g.errors, 5).map((e) => [e.key, e.count])),
    ...(authority ? { service: authority } : {}),
    ...(stale ? { staleEndpoint: { address: g.target, unreachableSeconds: Math.round(stale.seconds), unreachableShare: stale.unreachableShare } } : {}),
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
    kind: component ? `${component}-storm` : g.controlPlane ? 'controller-storm' : stale ? 'stale-endpoint' : 'endpoint-storm',
    title: component
      ? `Reconnect storm towards the ${component} controller`
      : stale
        ? `Stale endpoint ${g.target}${authority ? ` of ${authority}` : ''}: proxies dial it for ${formatDuration(stale.seconds)} but nothing answers`
        : `Reconnect storm towards ${g.target}`,
    message,
    subject: {
      ...(namespace ? { namespace } : {}),
      ...(pods === 1 && !podList[0]!.startsWith('(') ? { pod: podList[0], workload: workloadOfPod(podList[0]) } : {}),
      target: g.target,
    },
    evidence,
    locations: g.samples.map((s) => ({ path: s.path, line: s.line })),
    remediation: stale
      ? staleEndpointRemediation(
          g.target,
          authority,
          g.samples.map((x) => x.text),
        )
      : remediationFor(component, g.controlPlane),
    keyFigure: { name: 'totalLines', value: g.lines },
  };
}

/** Error classes that mean no host answers at the address at all (a refusal means one does). */
const UNREACHABLE_ERRORS = new Set(['network unreachable', 'connect timed out']);

/**
 * An application endpoint's loop that shows an address nobody answers at, for longer than
 * discovery would keep a pod that is gone: Kubernetes drops a pod's address from its EndpointSlices
 * when the pod starts terminating, and the destination controller pushes the removal to every
 * proxy within seconds, which ends the loop. `staleEndpointSeconds` (default 120 s) is that
 * removal with a wide margin for a slow API server; refused connections do not count (a live pod
 * that does not listen, which readiness should catch, is the plain endpoint storm).
 */
function staleEndpoint(g: GroupState, seconds: number, options: ReconnectStormOptions): { seconds: number; unreachableShare: number; reason: string } | null {
  if (g.controlPlane || seconds < options.staleEndpointSeconds) return null;
  let unreachable = 0;
  let total = 0;
  for (const [errorClass, n] of g.errors) {
    total += n;
    if (UNREACHABLE_ERRORS.has(errorClass)) unreachable += n;
  }
  if (total === 0 || unreachable * 2 < total) return null;
  const reasons = [...UNREACHABLE_ERRORS].filter((c) => g.errors.has(c));
  return { seconds, unreachableShare: Math.round((unreachable / total) * 100), reason: reasons.join(' or ') };
}

function staleEndpointRemediation(address: string, authority: string | null, samples: string[]): string {
  const { host } = splitAddress(address);
  const linkerdNs = controlPlaneLocation(samples).namespace;
  const service = authority ? /^([^.:]+)\.([^.:]+)\.svc\b/.exec(authority) : null;
  const slices = service
    ? `kubectl get endpointslices -n ${service[2]} -l kubernetes.io/service-name=${service[1]} -o wide`
    : 'kubectl get endpointslices -A -o wide';
  return [
    `1. Check whether ${host} still belongs to a pod: \`kubectl get pods -A -o wide --field-selector status.podIP=${host}\`. If none does, compare \`linkerd diagnostics endpoints ${authority ?? '<service>.<namespace>.svc.cluster.local:<port>'}\` with \`${slices}\`: an address only Linkerd lists means the destination controller's endpoints diverged from the cluster's.`,
    `2. Restart the destination controller so it rebuilds its watches and every proxy gets a fresh endpoint set: \`kubectl -n ${linkerdNs} rollout restart deploy/linkerd-destination\`; save its logs first (\`kubectl -n ${linkerdNs} logs deploy/linkerd-destination -c destination\`) for the watch errors that explain it.`,
    '3. Upgrade if you run an older release: before stable-2.13.0 / edge-23.2.3 (linkerd2 #10370) deleting one EndpointSlice of a Service with several left the destination controller with the wrong set; before stable-2.14.2 (linkerd2-proxy #2484, #2486) a proxy whose balancer stopped taking discovery updates kept its old endpoints.',
    `4. If a pod does own ${host}, the network drops its traffic instead: check NetworkPolicies in front of it and the CNI on its node.`,
  ].join('\n');
}

/** Two decimals, as rates are shown in evidence. */
function round(n: number | null): number | null {
  return n === null ? null : Math.round(n * 100) / 100;
}

function remediationFor(component: string | null, controlPlane: boolean): string {
  if (!controlPlane) {
    return 'Check that the backend pods behind this endpoint are ready and listening, and that no NetworkPolicy drops the traffic: the proxies cannot reach it, and their loop retries until the endpoint leaves discovery.';
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

/** `≤0.55s` for a bounded bucket; the open last bucket reads `>70s`, not `≤Infinitys`. */
function gapBucketLabel(index: number): string {
  const edge = GAP_EDGES[index]!;
  return Number.isFinite(edge) ? `≤${edge}s` : `>${GAP_EDGES[index - 1]}s`;
}
