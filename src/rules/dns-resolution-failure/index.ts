// Proxies that cannot resolve names: the control-plane services they are configured with, or the
// destinations they canonicalise. Without an answer for linkerd-dst-headless, linkerd-policy or
// linkerd-identity-headless a proxy gets no discovery, no policy or no certificate at all.
//
// The three controller Services are headless: DNS publishes a record only for ready pods, so a
// proxy starting alongside (or before) the control plane sees "no record found" for a few seconds,
// and retries at the negative TTL (CoreDNS' kubernetes plugin answers with 5 s) or its connect
// backoff. Failures after the start-up grace, repeated past several retries, or on several
// proxies at once are not that race.

import { type FindingDraft, type ProxyLogRecord, defineRule } from '../../core/types.js';
import { componentFromName, controlPlaneLocation, type ControllerComponent } from '../../knowledge/control-plane.js';
import { perBody } from '../../util/body-memo.js';
import {
  bodyText,
  countLine,
  durationOf,
  locationsOf,
  mergeTally,
  plural,
  podOf,
  signalTally,
  windowEvidence,
  type SignalTally,
} from '../../kit/log-signal.js';
import { addDropped, droppedKeys, droppedSentence, type DroppedKeys, formatDuration, keepTop, keepWorst, mergeKeyed } from '../../util/stats.js';
import { toTimeline } from '../../util/timeline.js';
import { CONTROL_PLANE_NAME, CONTROL_PLANE_RESOLVE, NO_RECORD, REFINE_TIMEOUT } from './patterns.js';
import { stateCap } from '../../core/state-cap.js';
import {
  addCorednsAnswer,
  addDnsEvidence,
  corednsAnswers,
  type CorednsAnswers,
  corednsEvidence,
  describeDnsEvidence,
  type DnsEvidence,
  mergeCorednsAnswers,
  mergeDnsEvidence,
} from './evidence.js';

export interface DnsResolutionFailureOptions {
  minControlPlaneFailures: number;
  minPods: number;
  startupGraceSeconds: number;
  minRefineTimeouts: number;
}

interface ControlPlaneState {
  component: ControllerComponent;
  names: Set<string>;
  /** Per pod: failures after the grace. */
  pods: Map<string, SignalTally>;
  /** Pods dropped by MAX_PODS (the fewest failures first): still counted towards minPods. */
  untrackedPods: number;
  duringStartup: number;
  errors: Map<string, number>;
}

/** Refined names tracked at most, so a name flood cannot grow state without bound. */
const MAX_NAMES = stateCap(10_000);
/** Failing pods kept per controller, and distinct error texts: past 2 × this many, the smallest are dropped (and counted). */
const MAX_PODS = stateCap(2_000);
const MAX_ERRORS = stateCap(100);
const failures = (t: SignalTally): number => t.count;

interface State {
  options: DnsResolutionFailureOptions;
  controlPlane: Map<ControllerComponent, ControlPlaneState>;
  refine: Map<string, SignalTally>;
  /** Refined names let go past MAX_NAMES, those furthest from minRefineTimeouts first (keepWorst). */
  refineDropped: DroppedKeys;
  /** Control-plane names that did not resolve, from lines outside a proxy log (the last look's dns-evidence). */
  evidence: Map<ControllerComponent, DnsEvidence>;
  /** CoreDNS's answers for control-plane names, from its log. */
  coredns: CorednsAnswers;
}

const RESOLVE = new RegExp(CONTROL_PLANE_RESOLVE);
const REFINE = new RegExp(REFINE_TIMEOUT);
const NO_ANSWER = new RegExp(NO_RECORD);
const CP_NAME = new RegExp(CONTROL_PLANE_NAME);

type Signal = { kind: 'control-plane'; component: ControllerComponent; name: string; error: string } | { kind: 'refine'; name: string } | null;

const signalOf = perBody((record: ProxyLogRecord): Signal => {
  const text = bodyText(record);
  if (RESOLVE.test(text) || (NO_ANSWER.test(text) && CP_NAME.test(text))) {
    const controller = record.spans.find((s) => s.name === 'controller')?.fields.addr;
    const named = /for name: ([^\s]+)/.exec(text)?.[1];
    const name = (controller ?? named ?? CP_NAME.exec(text)?.[0] ?? '').replace(/\.$/, '');
    const component = componentFromName(name) ?? componentFromName(text) ?? spanComponent(record);
    if (!component) return null;
    return { kind: 'control-plane', component, name: name || component, error: errorKind(text) };
  }
  if (REFINE.test(text)) {
    const name =
      /failed to refine ([^\s:]+)/.exec(text)?.[1] ?? record.spans.findLast((s) => s.name === 'logical' || s.name === 'dst')?.fields.addr ?? 'unknown name';
    return { kind: 'refine', name };
  }
  return null;
});

/** `daemon:identity:` / `identity:controller{…}`, `dst:`, `policy:` spans name the client. */
function spanComponent(record: ProxyLogRecord): ControllerComponent | null {
  for (const s of record.spans) {
    if (s.name === 'identity') return 'identity';
    if (s.name === 'dst') return 'destination';
    if (s.name === 'policy') return 'policy';
  }
  return null;
}

function errorKind(text: string): string {
  if (/no record found/.test(text)) return 'no record found';
  if (/timed out|deadline/i.test(text)) return 'timeout';
  if (/SRV and A record lookups/.test(text)) return 'SRV and A lookups failed';
  return 'other';
}

export default defineRule<DnsResolutionFailureOptions, State>({
  meta: {
    id: 'dns-resolution-failure',
    code: 'LD1005',
    title: 'Proxies cannot resolve control-plane or destination names',
    description:
      'Sustained "Failed to resolve control-plane component" / "no record found" for linkerd-dst-headless, linkerd-policy or linkerd-identity-headless past start-up, CoreDNS answering NXDOMAIN or SERVFAIL for them, lines saying they do not resolve (nslookup, Go\'s "no such host"), and repeated DNS refinement timeouts for one name.',
    defaultSeverity: 'error',
    inputs: ['proxy-log', 'coredns-log'],
    lineInterest: { 'proxy-log': ['Failed to resolve control-plane', 'no record found', 'DNS refinement', 'failed to refine'] },
    defaultOptions: { minControlPlaneFailures: 3, minPods: 3, startupGraceSeconds: 10, minRefineTimeouts: 5 },
    optionSchema: {
      minControlPlaneFailures: {
        type: 'integer',
        minimum: 1,
        description:
          'Failed lookups of one controller name by one proxy, after the start-up grace, that fire the rule (several retries at the negative TTL or backoff).',
      },
      minPods: {
        type: 'integer',
        minimum: 1,
        description: 'Proxies with at least one failed lookup of the same controller after start-up that fire the rule together.',
      },
      startupGraceSeconds: {
        type: 'number',
        minimum: 0,
        description: 'Uptime during which a missing controller record is the headless Service not having ready pods yet.',
      },
      minRefineTimeouts: {
        type: 'integer',
        minimum: 1,
        description: 'DNS refinement timeouts for one name that fire the rule (a resolver consistently slower than the refine deadline).',
      },
    },
  },

  createState: (options) => ({
    options,
    controlPlane: new Map(),
    refine: new Map(),
    refineDropped: droppedKeys(),
    evidence: new Map(),
    coredns: corednsAnswers(),
  }),

  // The last look's evidence comes from inputs of no kind too: the rule then finishes without a proxy log.
  heard: (state) => state.evidence.size > 0,

  visitors: {
    'dns-evidence'(state, record) {
      addDnsEvidence(state.evidence, record);
    },
    'coredns-query'(state, record) {
      addCorednsAnswer(state.coredns, record);
    },
    'proxy-log'(state, record) {
      const signal = signalOf(record);
      if (!signal) return;
      if (signal.kind === 'refine') {
        let t = state.refine.get(signal.name);
        if (!t) {
          keepRefines(state);
          state.refine.set(signal.name, (t = signalTally()));
        }
        countLine(t, record);
        return;
      }
      let c = state.controlPlane.get(signal.component);
      if (!c) {
        c = { component: signal.component, names: new Set(), pods: new Map(), untrackedPods: 0, duringStartup: 0, errors: new Map() };
        state.controlPlane.set(signal.component, c);
      }
      if (c.names.size < 10) c.names.add(signal.name);
      if (record.uptime !== null && record.uptime < state.options.startupGraceSeconds) {
        c.duringStartup++;
        return;
      }
      if (!c.errors.has(signal.error)) keepTop(c.errors, MAX_ERRORS, (n) => n);
      c.errors.set(signal.error, (c.errors.get(signal.error) ?? 0) + 1);
      const pod = podOf(record);
      let t = c.pods.get(pod);
      if (!t) {
        c.untrackedPods += keepTop(c.pods, MAX_PODS, failures);
        c.pods.set(pod, (t = signalTally()));
      }
      countLine(t, record);
    },
  },

  merge(into, from) {
    mergeKeyed(into.controlPlane, from.controlPlane, (mine, c) => {
      for (const n of c.names) if (mine.names.size < 10) mine.names.add(n);
      mergeKeyed(mine.pods, c.pods, mergeTally);
      mine.duringStartup += c.duringStartup;
      for (const [k, v] of c.errors) mine.errors.set(k, (mine.errors.get(k) ?? 0) + v);
      mine.untrackedPods += c.untrackedPods + keepTop(mine.pods, MAX_PODS, failures);
      keepTop(mine.errors, MAX_ERRORS, (n) => n);
    });
    mergeKeyed(into.refine, from.refine, mergeTally);
    addDropped(into.refineDropped, from.refineDropped);
    mergeDnsEvidence(into.evidence, from.evidence);
    mergeCorednsAnswers(into.coredns, from.coredns);
    keepRefines(into);
  },

  finish(state, { options }) {
    const findings: FindingDraft[] = [];
    for (const c of [...state.controlPlane.values()].sort((a, b) => a.component.localeCompare(b.component))) {
      const sustainedPods = [...c.pods.entries()].filter(([, t]) => t.count >= options.minControlPlaneFailures);
      const byPods = c.pods.size + c.untrackedPods >= options.minPods;
      if (sustainedPods.length === 0 && !byPods) continue;
      findings.push(describeControlPlane(c, byPods ? [...c.pods.entries()] : sustainedPods, options));
    }
    // CoreDNS failing to answer for a controller, sustained, is the same evidence as pasted lines.
    // A copy (at most one entry per controller): merging into the state's own entries would change the state.
    const evidence = structuredClone(state.evidence);
    mergeDnsEvidence(evidence, new Map(corednsEvidence(state.coredns, options.minControlPlaneFailures).map((e) => [e.component, e])));
    // A controller the proxies' own log already shows unresolvable needs no second finding from pasted lines.
    for (const e of evidence.values())
      if (!findings.some((f) => f.kind === `${e.component}-unresolvable`))
        findings.push(describeDnsEvidence(e, SERVICE[e.component], CONSEQUENCE[e.component]));
    const refines = [...state.refine.entries()]
      .filter(([, t]) => t.count >= options.minRefineTimeouts)
      .sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0]));
    const dropped = droppedSentence(state.refineDropped, 'names timing out in DNS refinement');
    for (const [name, t] of refines) {
      const f = describeRefine(name, t, options);
      if (dropped) {
        f.message = `${f.message} ${dropped}`;
        f.evidence = { ...f.evidence, namesNotTracked: state.refineDropped.healthy + state.refineDropped.signal };
      }
      findings.push(f);
    }
    return findings;
  },
});

/**
 * Past 2 x MAX_NAMES refined names, keeps those past minRefineTimeouts first, then the most
 * timeouts (keepWorst): a flood of names timing out once never pushes out one that keeps failing.
 */
function keepRefines(state: State): void {
  const min = state.options.minRefineTimeouts;
  keepWorst(state.refine, MAX_NAMES, (t) => (t.count >= min ? 2e9 : 0) + Math.min(t.count, 1e9), state.refineDropped);
}

const SERVICE: Record<ControllerComponent, string> = { destination: 'linkerd-dst-headless', policy: 'linkerd-policy', identity: 'linkerd-identity-headless' };
const PORT: Record<ControllerComponent, string> = { destination: '8086', policy: '8090', identity: '8080' };
const CONSEQUENCE: Record<ControllerComponent, string> = {
  destination: 'without it the proxies get no service discovery and fail new destinations fast',
  policy: 'without it the proxies get no authorization policy and cannot start serving inbound traffic',
  identity: 'without it the proxies get no certificate, never become ready and every meshed connection fails',
};

function describeControlPlane(c: ControlPlaneState, pods: [string, SignalTally][], options: DnsResolutionFailureOptions): FindingDraft {
  const merged = signalTally();
  for (const [, t] of pods) mergeTally(merged, t);
  const single = pods.length === 1;
  const seconds = durationOf(merged, single);
  const names = [...c.names];
  const topError = [...c.errors.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  const timeline = toTimeline(merged.perMinute, `${c.component} name lookups failed per minute`);
  const where = controlPlaneLocation(names);
  return {
    severity: 'error',
    kind: `${c.component}-unresolvable`,
    title: `Proxies cannot resolve the ${c.component} controller (${SERVICE[c.component]})`,
    message:
      `${single ? `Proxy ${pods[0]![0]}` : `${pods.length} proxies`} failed ${plural(merged.count, 'lookup')} of ${names.join(', ')} after their first ${options.startupGraceSeconds} s of uptime` +
      `${seconds ? ` over ${formatDuration(seconds)}` : ''}${topError ? ` (mostly ${topError})` : ''}; ${CONSEQUENCE[c.component]}. ` +
      'A headless Service has records only for ready pods, so "no record found" past start-up means no controller pod is ready, or the name (namespace, cluster domain) is wrong.',
    subject: { target: `${SERVICE[c.component]}:${PORT[c.component]}` },
    evidence: {
      controller: c.component,
      names,
      failures: merged.count,
      ...(c.untrackedPods > 0 ? { podsNotTracked: c.untrackedPods } : {}),
      failuresDuringStartup: c.duringStartup,
      errorKinds: Object.fromEntries(c.errors),
      podsAffected: pods.length,
      window: windowEvidence(merged, single),
      pods: pods
        .sort((a, b) => b[1].count - a[1].count)
        .slice(0, 10)
        .map(([pod, t]) => ({ pod, failures: t.count })),
      samples: merged.samples,
      ...(timeline ? { timeline } : {}),
    },
    locations: locationsOf(merged),
    remediation: [
      `1. Check the controller pods are ready: kubectl -n ${where.namespace} get pods,endpointslices -l linkerd.io/control-plane-component=${c.component === 'policy' ? 'destination' : c.component}; a headless Service without ready pods has no DNS records.`,
      `2. Resolve the name from a pod: dig SRV ${SERVICE[c.component]}.${where.namespace}.svc.${where.clusterDomain}${where.known ? ' (the name the proxies looked up)' : " (Linkerd's default namespace and cluster domain: use yours)"}; a wrong namespace or a cluster domain other than cluster.local must be set at install (clusterDomain).`,
      '3. If CoreDNS itself fails or times out, fix it first (kubectl -n kube-system logs -l k8s-app=kube-dns); every proxy depends on these three names.',
    ].join('\n'),
    keyFigure: { name: 'failures', value: merged.count },
  };
}

function describeRefine(name: string, t: SignalTally, options: DnsResolutionFailureOptions): FindingDraft {
  const pods = t.pods.counts.size;
  const seconds = durationOf(t, pods === 1);
  const timeline = toTimeline(t.perMinute, `DNS refinement timeouts ${name} per minute`);
  return {
    severity: 'warning',
    kind: 'refine-timeout',
    title: `DNS refinement of ${name} keeps timing out`,
    message:
      `${plural(t.count, 'DNS refinement')} of ${name} timed out${pods > 1 ? ` in ${pods} proxies` : ''}${seconds ? ` over ${formatDuration(seconds)}` : ''} (threshold ${options.minRefineTimeouts}). ` +
      'The proxy canonicalises a destination name with a short deadline before routing; when the resolver is consistently slower (an upstream forwarder, search-path expansion, an overloaded CoreDNS) requests to the name wait for the deadline and lose service discovery.',
    subject: { target: name },
    evidence: { name, timeouts: t.count, podsAffected: pods, window: windowEvidence(t, pods === 1), samples: t.samples, ...(timeline ? { timeline } : {}) },
    locations: locationsOf(t),
    remediation: [
      '1. Time the lookup from the pod (dig <name>): if it takes more than a few hundred ms, fix the slow upstream (CoreDNS forward target, stub domains such as .consul) or use the fully qualified name with a trailing dot to skip search-path expansion.',
      '2. These lines come from old proxies (the `canonicalize` step of stable-2.8 and earlier, `failed to refine` of stable-2.6 and earlier); on those releases upgrading the data plane removes the lookup from the request path.',
    ].join('\n'),
    keyFigure: { name: 'timeouts', value: t.count },
  };
}
