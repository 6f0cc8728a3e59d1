// Data-plane fail-fast and load shedding, per service. A proxy's balancer for a service enters
// fail-fast when no endpoint has been ready for the fail-fast timeout (1 s up to 2.10, 3 s from
// 2.13); from then on every request to that service is refused at once instead of queued, until an
// endpoint becomes ready again. One short episode is a rollout or a restart; the same service
// going in again, staying in for many timeouts, or refusing request after request is an outage.
//
// Why the service has no ready endpoint decides the fix, so the cause is told apart:
// - no endpoints: the destination controller answered with an empty set (`No endpoints`);
// - controller unreachable: the same proxy's own control-plane clients are in fail-fast or failing
//   to connect, so it has no discovery at all. That side is reported by reconnect-storm and
//   control-plane-unavailable; this rule only links to it and never reports the controllers'
//   own fail-fast (neither the clients' pools nor the controller pods' inbound side);
// - load shedding: in-flight or concurrency limits reached;
// - otherwise the endpoints exist but do not answer (not ready, crashing, unreachable).

import { type FindingDraft, type ProxyLogRecord, defineRule } from '../../core/types.js';
import { CONTROLLER_PORTS, componentFromName, portOf } from '../../knowledge/control-plane.js';
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
import {
  addBit,
  addPodTo,
  bitCount,
  bump,
  bumpTop,
  formatDuration,
  hasPod,
  latest,
  mergeBits,
  mergeCounts,
  mergePodSets,
  mergeTopCounts,
  nameId,
  nameTable,
  ownedName,
  podBits,
  podSet,
  podSetCount,
  sharedBitCount,
  topCountEntries,
  topCounts,
  topEntries,
  type NameTable,
  type PodBits,
  type PodSet,
  type TopCounts,
  droppedKeys,
  keepWorst,
} from '../../util/stats.js';
import { toTimeline } from '../../util/timeline.js';
import { type Cause, MEANING, REMEDIATION, TITLE } from './text.js';
import { ENTER_FAILFAST, EXIT_FAILFAST, FAILFAST_REQUEST, LOAD_SHED, NO_ENDPOINTS } from './patterns.js';
import { stateCap } from '../../core/state-cap.js';

export interface FailfastOptions {
  minEpisodes: number;
  minRefusedRequests: number;
  sustainSeconds: number;
  errorMinPods: number;
}

interface ServiceState {
  service: string;
  episodes: SignalTally;
  refused: SignalTally;
  shed: number;
  noEndpoints: number;
  exits: number;
  longestSeconds: number | null;
  /** Every proxy failing on the service: a bit each by the state's pod names, a sketch past MAX_POD_NAMES. */
  pods: PodSet;
  /** Lines per proxy, for the proxies with the most (bumpTop to TOP_PODS): what evidence lists. */
  podLines: TopCounts;
  /** Fail-fast entries per proxy, for the proxies with the most (bumpTop to TOP_PODS). */
  episodesByPod: TopCounts;
  namespaces: Map<string, number>;
}

/** Services tracked at most; a flood of distinct target addresses must not grow state without bound. */
const MAX_SERVICES = stateCap(10_000);

/**
 * Proxies whose lines and fail-fast entries are counted per service: the worst, by `bumpTop`
 * (at most twice this many at a time). Every proxy of a 400-pod ingress tier can fail fast on each
 * of hundreds of services; a map entry per service and proxy was the bulk of this rule's state and
 * grew with the bundle (4,000 pod files: 10 MB), while the findings name ten. Which proxies fail,
 * and whether each lost its control plane, is kept exactly as bits (`pods`, `controllerTrouble`).
 * A proxy whose lines are not contiguous (several pods interleaved in one capture) and that was
 * dropped from a full map starts counting again when it returns.
 */
const TOP_PODS = stateCap(50);

/** Pods with a name id (one bit per service and pod); a bundle of more pods counts the rest in sketches. */
const MAX_POD_NAMES = stateCap(10_000);

/**
 * The episodes and refusals are tallied without their own pod counts: `pods` above counts both,
 * and four pod maps per service instead of two were 70 MB of peak RSS on the 400-pod bench bundle.
 */
const newTally = () => signalTally(0);

interface State {
  services: Map<string, ServiceState>;
  /** Lines about services let go past MAX_SERVICES (those furthest from a finding first), counted and not analysed. */
  untracked: number;
  options: FailfastOptions;
  /**
   * Pods whose own control-plane clients failed (fail-fast or failed connects), by name id; cause
   * only. Pods past the pod-name table are not kept: no service they fail on gets that cause.
   */
  controllerTrouble: PodBits;
  /** One copy and one id per pod name, for every service's pod counts and bits. */
  podNames: NameTable;
}

type Signal =
  | { kind: 'controller' }
  | {
      kind: 'enter' | 'exit' | 'refused' | 'shed' | 'no-endpoints';
      service: string;
      elapsed: number | null;
      /** How serviceKey() keys the service, decided once per body instead of once per line. */
      scope: ServiceScope;
    }
  | null;

const ENTER = new RegExp(ENTER_FAILFAST);
const EXIT = new RegExp(EXIT_FAILFAST);
const REFUSED = new RegExp(FAILFAST_REQUEST);
const SHED = new RegExp(LOAD_SHED);
const EMPTY = new RegExp(NO_ENDPOINTS);
const SERVICE_IN_TEXT = /(?:logical service|service|logical|backend) ([A-Za-z0-9][\w.-]*:\d{1,5})/;
/** Services named by the proxy itself: its own inbound port, or nothing. Every pod has its own. */
const POD_LOCAL_SERVICE = /^(?:unknown service|inbound port \d+)$/;
/** Services named only by the address they were reached at: one service within a cluster. */
const ADDRESS_SERVICE = /^(?:\d{1,3}(?:\.\d{1,3}){3}:\d+|\[[0-9a-f:]+\]:\d+)$/i;
const ADDRESS_SPANS = new Set(['logical', 'concrete', 'profile', 'resolve', 'service', 'backend', 'balance', 'proxy', 'http', 'route']);

const signalOf = perBody((record: ProxyLogRecord): Signal => {
  const text = bodyText(record);
  const enter = ENTER.test(text);
  const exit = !enter && EXIT.test(text);
  const refused = !enter && !exit && REFUSED.test(text);
  const shed = !enter && !exit && !refused && SHED.test(text) && /request failed|Failed to proxy request|Request failed/i.test(text);
  const empty = !enter && !exit && !refused && !shed && EMPTY.test(record.message);
  const controllerSpan = record.spans.some((s) => s.name === 'controller');
  const reconnect = record.target === 'linkerd_reconnect' && controllerSpan;
  if (!enter && !exit && !refused && !shed && !empty && !reconnect) return null;
  // The controllers' own inbound side is control-plane-unavailable's.
  if (record.spans[0]?.name === 'inbound') {
    let port: string | null = null;
    for (const s of record.spans) port = s.fields.port ?? portOf(s.fields['target.addr']) ?? port;
    if (port === '8086' || port === '8090' || (port !== null && CONTROLLER_PORTS[port] && componentFromName(text)))
      return reconnect || controllerSpan ? { kind: 'controller' } : null;
  }
  if (reconnect || controllerSpan || /\bcontroller linkerd-/.test(text)) return enter || refused || reconnect ? { kind: 'controller' } : null;
  const kind = enter ? 'enter' : exit ? 'exit' : refused ? 'refused' : shed ? 'shed' : 'no-endpoints';
  const elapsed = exit ? elapsedSeconds(record.fields.elapsed ?? /elapsed=(\S+)/.exec(text)?.[1]) : null;
  const service = serviceOf(record, text);
  return { kind, service, elapsed, scope: scopeOf(service) };
});

/** `web.shop.svc.cluster.local:80` and the span `service{ns=shop name=web port=80}` are one service: `web.shop:80`. */
function normalized(service: string): string {
  // By labels, not by `\.svc(?:\.[\w-]+)*$` tried at every `.svc`: each try ran to the end.
  const port = /:\d+$/.exec(service)?.[0] ?? '';
  const labels = service.slice(0, service.length - port.length).split('.');
  const end = port === '' && labels.length > 1 && labels[labels.length - 1] === '' ? labels.length - 1 : labels.length;
  // Every label after `svc` must be a DNS label, so `svc` is looked for after the last one that is not.
  let from = 1;
  for (let i = 0; i < end; i++) if (!/^[A-Za-z0-9-]+$/.test(labels[i]!)) from = i + 1;
  for (let i = from; i < end; i++) if (labels[i] === 'svc') return labels.slice(0, i).join('.') + port;
  return service;
}

function serviceOf(record: ProxyLogRecord, text: string): string {
  return normalized(rawServiceOf(record, text));
}

function rawServiceOf(record: ProxyLogRecord, text: string): string {
  for (let i = record.spans.length - 1; i >= 0; i--) {
    const f = record.spans[i]!.fields;
    if (f.name && f.ns) return `${f.name}.${f.ns}${f.port ? `:${f.port}` : ''}`;
  }
  const named = SERVICE_IN_TEXT.exec(text)?.[1];
  if (named && !/^\d+\.\d+\.\d+\.\d+:/.test(named)) return named;
  for (let i = record.spans.length - 1; i >= 0; i--) {
    const s = record.spans[i]!;
    if (ADDRESS_SPANS.has(s.name) && s.fields.addr) return s.fields.addr;
  }
  for (const s of record.spans) if (s.fields['target.addr']) return s.fields['target.addr'];
  const inboundPort = record.spans[0]?.name === 'inbound' ? record.spans.find((s) => s.fields.port)?.fields.port : undefined;
  if (inboundPort) return `inbound port ${inboundPort}`;
  return named ?? 'unknown service';
}

/**
 * Which lines count towards one service. A pod's own inbound port is that pod's. An address is one
 * service across the logs of one cluster, and the logs of a captured bundle (whose pods are named)
 * are: keying it per pod too gave a 400-pod bundle failing on 400 addresses 160,000 service states
 * (capped at 10,000, the rest dropped) and 145 MB of peak memory. Logs known only by their file
 * name (pastes) may come from unrelated clusters that reuse an address, so each keeps its own.
 */
function serviceKey(service: string, scope: ServiceScope, record: ProxyLogRecord, pod: string): string {
  if (scope === 'pod' || (scope === 'address' && record.pod === undefined)) return `${service}\u0000${pod}`;
  return service;
}

/** `pod`: the proxy's own (an inbound port); `address`: known only by an address; else a named service. */
type ServiceScope = 'pod' | 'address' | 'named';

function scopeOf(service: string): ServiceScope {
  return POD_LOCAL_SERVICE.test(service) ? 'pod' : ADDRESS_SERVICE.test(service) ? 'address' : 'named';
}

/** `3.2s`, `1.5ms`, `2m`, or a bare number of seconds. */
function elapsedSeconds(text: string | undefined): number | null {
  if (!text) return null;
  const m = /^([\d.]+)(ms|µs|us|ns|s|m)?/.exec(text);
  if (!m) return null;
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return unit === 'ms' ? n / 1000 : unit === 'm' ? n * 60 : unit === 's' ? n : n / 1e6;
}

export default defineRule<FailfastOptions, State>({
  meta: {
    id: 'failfast',
    code: 'LD1004',
    title: 'Services in sustained fail-fast or load shedding',
    description:
      'Data-plane proxies put a service into fail-fast again and again or for long, or refuse requests to it (fail-fast, load shedding); the cause is told apart: no endpoints, controller unreachable, limits reached, endpoints not ready.',
    defaultSeverity: 'warning',
    // Signatures whose cause this rule's findings name: folded into them (one cause, one finding).
    absorbs: [
      { rule: 'known-signature', targets: ['control-plane-failfast', 'router-capacity-reached', 'control-plane-connect-refused', 'balancer-failfast'] },
    ],
    // Proxies without discovery fail every service they call: one cause, one fix, however many services.
    sharedCauses: [
      {
        kind: 'failfast/controller-unreachable',
        title: 'Requests to {count} services fail: the calling proxies lost their control plane',
        targets: 'services',
      },
    ],
    inputs: ['proxy-log'],
    lineInterest: {
      'proxy-log': ['failfast', 'fail-fast', 'has recovered', 'No endpoints', 'router ', 'max-concurrency', 'service unavailable', 'controller{addr='],
    },
    defaultOptions: { minEpisodes: 2, minRefusedRequests: 10, sustainSeconds: 30, errorMinPods: 3 },
    optionSchema: {
      minEpisodes: {
        type: 'integer',
        minimum: 1,
        description: 'Fail-fast entries of one proxy for one service that fire the rule; one episode per proxy is a rollout or a restart.',
      },
      minRefusedRequests: { type: 'integer', minimum: 1, description: 'Requests to one service refused by fail-fast or load shedding that fire the rule.' },
      sustainSeconds: {
        type: 'number',
        minimum: 1,
        description: 'An episode (exit elapsed, or refusals spanning this long) that fires the rule on its own: ten times the 3 s fail-fast timeout.',
      },
      errorMinPods: { type: 'integer', minimum: 1, description: 'Proxies failing fast on one service from which the finding is an error.' },
    },
  },

  createState: (options) => ({ services: new Map(), untracked: 0, options, controllerTrouble: podBits(), podNames: nameTable(MAX_POD_NAMES) }),

  visitors: {
    'proxy-log'(state, record) {
      const signal = signalOf(record);
      if (!signal) return;
      const name = podOf(record);
      const id = nameId(state.podNames, name);
      if (signal.kind === 'controller') {
        if (id >= 0) addBit(state.controllerTrouble, id);
        return;
      }
      const pod = ownedName(state.podNames, name);
      const key = serviceKey(signal.service, signal.scope, record, pod);
      let s = state.services.get(key);
      if (!s) {
        keepServices(state);
        s = newService(signal.service);
        state.services.set(key, s);
      }
      if (signal.kind === 'no-endpoints') {
        s.noEndpoints++;
        return;
      }
      if (signal.kind === 'exit') {
        s.exits++;
        if (signal.elapsed !== null) s.longestSeconds = latest(s.longestSeconds, signal.elapsed);
        return;
      }
      const newPod = countPod(s, pod, id, 1);
      if (record.namespace) bump(s.namespaces, record.namespace);
      if (signal.kind === 'enter') {
        countLine(s.episodes, record);
        bumpTop(s.episodesByPod, pod, 1, TOP_PODS, newPod);
      } else {
        if (signal.kind === 'shed') s.shed++;
        countLine(s.refused, record);
      }
    },
  },

  merge(into, from) {
    into.untracked += from.untracked;
    // Every service is combined into one of this state's, never adopted: its pod bits are ids of the other state's names.
    for (const [key, s] of from.services) {
      let mine = into.services.get(key);
      if (!mine) {
        keepServices(into);
        mine = newService(s.service);
        into.services.set(key, mine);
      }
      mergeTally(mine.episodes, s.episodes);
      mergeTally(mine.refused, s.refused);
      mine.shed += s.shed;
      mine.noEndpoints += s.noEndpoints;
      mine.exits += s.exits;
      mine.longestSeconds = latest(mine.longestSeconds, s.longestSeconds);
      mergePodSets(mine.pods, into.podNames, s.pods, from.podNames);
      const intoName = (pod: string) => ownedName(into.podNames, pod);
      mergeTopCounts(mine.podLines, s.podLines, TOP_PODS, intoName);
      mergeTopCounts(mine.episodesByPod, s.episodesByPod, TOP_PODS, intoName);
      mergeCounts(mine.namespaces, s.namespaces);
    }
    mergeBits(into.controllerTrouble, into.podNames, from.controllerTrouble, from.podNames, () => undefined);
    keepServices(into);
  },

  finish(state, { options }) {
    const findings: FindingDraft[] = [];
    for (const s of [...state.services.values()].sort((a, b) => a.service.localeCompare(b.service))) {
      const { byEpisodes, byRefusals, byDuration, refusalSpan } = verdictOf(s, options);
      if (!byEpisodes && !byRefusals && !byDuration) continue;
      findings.push(describe(s, state, options, { byEpisodes, byRefusals, byDuration }, refusalSpan));
    }
    return findings;
  },
});

/** Which of the rule's tests a service passes. */
function verdictOf(s: ServiceState, options: FailfastOptions) {
  const pods = podsOf(s);
  const refusalSpan = durationOf(s.refused, pods === 1);
  // A rollout sends every client into fail-fast once; the same proxy going in again is an outage.
  let byEpisodes = false;
  for (const [, episodes] of topCountEntries(s.episodesByPod)) if (episodes >= options.minEpisodes) byEpisodes = true;
  const byRefusals = s.refused.count >= options.minRefusedRequests;
  const byDuration = (s.longestSeconds ?? 0) >= options.sustainSeconds || ((refusalSpan ?? 0) >= options.sustainSeconds && s.refused.count > 1);
  return { byEpisodes, byRefusals, byDuration, refusalSpan };
}

/**
 * Past 2 x MAX_SERVICES, keeps the services that make a finding first, then those with the most
 * lines (keepWorst): ten thousand targets failing fast once each never push out a service in an
 * outage, whatever their order. The lines of a service let go are counted (`untracked`).
 */
function keepServices(state: State): void {
  const rank = (s: ServiceState) => {
    const lines = Math.min(s.episodes.count + s.refused.count, 1e9);
    const v = verdictOf(s, state.options);
    return v.byEpisodes || v.byRefusals || v.byDuration ? 2e9 + lines : lines;
  };
  keepWorst(state.services, MAX_SERVICES, rank, droppedKeys(), (s) => (state.untracked += s.episodes.count + s.refused.count));
}

function newService(service: string): ServiceState {
  return {
    service,
    episodes: newTally(),
    refused: newTally(),
    shed: 0,
    noEndpoints: 0,
    exits: 0,
    longestSeconds: null,
    pods: podSet(),
    podLines: topCounts(),
    episodesByPod: topCounts(),
    namespaces: new Map(),
  };
}

/** Counts `pod`'s lines (an owned name, `id` in the state's names or -1) towards the service; true
 * when the pod is new to it, and so in none of its top counts (their keys all have a bit in s.pods). */
function countPod(s: ServiceState, pod: string, id: number, lines: number): boolean {
  const isNew = id >= 0 && !hasPod(s.pods, id);
  addPodTo(s.pods, id, pod);
  bumpTop(s.podLines, pod, lines, TOP_PODS, isNew);
  return isNew;
}

function podsOf(s: ServiceState): number {
  return podSetCount(s.pods).value;
}

/** The one proxy's name, for a service only one proxy failed on. */
function onlyPod(s: ServiceState): string | undefined {
  return s.podLines.size > 0 ? s.podLines.keys[0] : undefined;
}

function causeOf(s: ServiceState, state: State): Cause {
  if (s.noEndpoints > 0) return 'no endpoints';
  // Only when every proxy failing on the service has lost its own control plane: another pod's
  // (another file's) controller trouble says nothing about this one. A proxy past the pod-name
  // table cannot be matched, so it never counts as one that did.
  const pods = bitCount(s.pods.bits);
  if (pods > 0 && s.pods.unnamed === null && sharedBitCount(s.pods.bits, state.controllerTrouble) === pods) return 'controller unreachable';
  if (s.shed > 0 && s.shed * 2 >= s.refused.count) return 'load shedding';
  return 'endpoints not ready or unreachable';
}

function describe(
  s: ServiceState,
  state: State,
  options: FailfastOptions,
  why: { byEpisodes: boolean; byRefusals: boolean; byDuration: boolean },
  refusalSpan: number | null,
): FindingDraft {
  const cause = causeOf(s, state);
  const pods = podsOf(s);
  const merged = signalTally();
  mergeTally(merged, s.episodes);
  mergeTally(merged, s.refused);
  const parts: string[] = [];
  if (s.episodes.count > 0) parts.push(`entered fail-fast ${plural(s.episodes.count, 'time')}`);
  if (s.refused.count > 0) parts.push(`refused ${plural(s.refused.count, 'request')} at once (${s.shed} by load shedding)`);
  const longest =
    s.longestSeconds !== null
      ? `; the longest episode lasted ${formatDuration(s.longestSeconds)}`
      : refusalSpan
        ? `; refusals went on for ${formatDuration(refusalSpan)}`
        : '';
  const message = `${pods === 1 ? `Proxy ${onlyPod(s)}` : `${pods.toLocaleString('en-US')} proxies`} ${parts.join(' and ')} for ${s.service}${longest}. ${MEANING[cause]}`;
  const namespace = topEntries(s.namespaces, 1)[0]?.key;
  const timeline = toTimeline(merged.perMinute, `fail-fast ${s.service} per minute`);
  return {
    severity: pods >= options.errorMinPods || (s.longestSeconds ?? 0) >= 10 * options.sustainSeconds ? 'error' : 'warning',
    kind: cause === 'load shedding' ? 'load-shedding' : `failfast/${cause.replaceAll(' ', '-')}`,
    title: TITLE[cause](s.service),
    message,
    subject: { ...(namespace ? { namespace } : {}), ...(pods === 1 ? { pod: onlyPod(s) } : {}), target: s.service },
    evidence: {
      service: s.service,
      cause,
      episodes: s.episodes.count,
      recoveries: s.exits,
      longestEpisodeSeconds: s.longestSeconds,
      refusedRequests: s.refused.count,
      loadShed: s.shed,
      noEndpointsLines: s.noEndpoints,
      podsAffected: pods,
      podsWithControllerFailures: sharedBitCount(s.pods.bits, state.controllerTrouble),
      ...(state.untracked > 0 ? { untrackedServiceLines: state.untracked } : {}),
      firedBy: [why.byEpisodes && 'episodes', why.byRefusals && 'refused requests', why.byDuration && 'duration'].filter(Boolean).join(', '),
      window: windowEvidence(merged, pods === 1),
      pods: topEntries(topCountEntries(s.podLines), 10).map((e) => ({ pod: e.key, lines: e.count })),
      samples: merged.samples,
      ...(timeline ? { timeline } : {}),
    },
    locations: locationsOf(merged),
    remediation: REMEDIATION[cause],
    keyFigure: { name: 'lines', value: s.episodes.count + s.refused.count },
  };
}
