// The controllers' side of a control-plane outage, read from the proxies that sit in front of the
// destination, policy and identity containers. When such a proxy answers a client's gRPC call with
// an error (load shed "service unavailable", fail-fast, refused by the local container), the
// control plane is refusing work, whatever the clients log about it. Clients' reconnect loops are
// reconnect-storm's business; this rule is the cause side of that story.
//
// A controller is recognised by name (service names in the error text, the pod's workload, the
// proxy's own `Local identity is linkerd-destination…` line), never by port alone: 8080 is also
// the HTTP port of half the applications in a cluster.

import { type FindingDraft, type ProxyLogRecord, type SampleLine, defineRule } from '../../core/types.js';
import { workloadOfPod } from '../../util/path-meta.js';
import { isGoLog } from '../../kit/go-log.js';
import { perBody } from '../../util/body-memo.js';
import {
  CONTROLLER_PORTS,
  componentFromName,
  componentsOfIdentity,
  componentsOfWorkload,
  portOf,
  titleCase,
  type ControllerComponent,
} from '../../knowledge/control-plane.js';
import {
  bump,
  cappedBump,
  type CappedCounts,
  cappedCounts,
  compact,
  earliest,
  formatDuration,
  keepTop,
  latest,
  mergeCapped,
  mergeCounts,
  mergeKeyed,
  topEntries,
} from '../../util/stats.js';
import { addToBuckets, mergeBuckets, timeBuckets, toTimeline, type TimeBuckets } from '../../util/timeline.js';
import { FAILED_REQUEST_MESSAGES, FAILFAST_TARGETS } from './patterns.js';
import { keepSample } from '../../core/evidence.js';
import { controlPlaneLocation } from '../../knowledge/control-plane.js';
import { stateCap } from '../../core/state-cap.js';

export interface ControlPlaneUnavailableOptions {
  minFailures: number;
  minFailfastEpisodes: number;
  minRestarts: number;
  startupGraceSeconds: number;
}

type FailureKind = 'service unavailable' | 'fail-fast' | 'connection refused' | 'timeout' | 'other';

interface ComponentState {
  component: ControllerComponent;
  failures: number;
  failuresDuringStartup: number;
  failfastEpisodes: number;
  kinds: Map<string, number>;
  clients: CappedCounts;
  pods: Map<string, number>;
  namespaces: Map<string, number>;
  ports: Map<string, number>;
  services: Map<string, number>;
  perMinute: TimeBuckets;
  firstTime: number | null;
  lastTime: number | null;
  firstUptime: number | null;
  lastUptime: number | null;
  samples: SampleLine[];
}

/** What one controller pod's log tells about the pod itself. */
interface PodLog {
  pod: string;
  namespace: string | undefined;
  components: Set<ControllerComponent>;
  /** Highest `restart` index the parser assigned in this input. */
  restarts: number;
  /** Restarts before this file was written, from a CRI file name `<n>.log`. */
  priorRestarts: number;
  /** `running version …` lines: Go controllers (and old proxies' start-up wrapper) print one per start. */
  goStarts: number;
  /** Time of the latest restart seen (ms), the only restart time the report shows: a list would grow with every restart line. */
  lastRestart: number | null;
}

interface State {
  options: ControlPlaneUnavailableOptions;
  components: Map<ControllerComponent, ComponentState>;
  podLogs: Map<string, PodLog>;
  /** Pod logs dropped by the MAX_POD_LOGS bound (the fewest restarts first). */
  untrackedPods: number;
  /** Lookup cache only; merge ignores it. */
  lastPodLog: { path: string; pod: string | undefined; log: PodLog } | null;
}

const SAMPLE_LINES = 3;
const CLIENT_CAP = stateCap(2000);
/**
 * Pod logs (and, per controller, failing controller pods) kept exactly. A cluster runs a handful of
 * controller replicas; past 2 × this many, those with the fewest restarts (or failures) are dropped
 * and counted, so a bundle of 4,000 pods costs what one of 1,000 does.
 */
const MAX_POD_LOGS = stateCap(1_000);

const restartsOf = (p: PodLog): number => Math.max(p.restarts, p.goStarts - 1) + p.priorRestarts;

export default defineRule<ControlPlaneUnavailableOptions, State>({
  meta: {
    id: 'control-plane-unavailable',
    code: 'LD1002',
    title: 'Control-plane controller refusing or failing proxy requests',
    description:
      'The proxies in front of the destination, policy or identity controllers fail inbound control-plane calls (service unavailable, fail-fast, refused), or the controller pods restart.',
    defaultSeverity: 'error',
    inputs: ['proxy-log'],
    // Failed inbound requests on the controller ports, failfast episodes and the identity line naming
    // the controller; restarts are seen anyway (banners and the first line after an uptime reset are
    // always parsed in full). Outbound request failures, common in busy proxies, are not read.
    lineInterest: {
      'proxy-log': [
        'Local identity is ',
        'inbound:server{port=8086}',
        'inbound:server{port=8090}',
        'inbound:server{port=8080}',
        'Failed to proxy request',
        'entering failfast',
      ],
    },
    defaultOptions: { minFailures: 20, minFailfastEpisodes: 2, minRestarts: 2, startupGraceSeconds: 10 },
    optionSchema: {
      minFailures: {
        type: 'integer',
        minimum: 1,
        description: 'Failed inbound control-plane requests (after the start-up grace) that fire the rule for one controller.',
      },
      minFailfastEpisodes: {
        type: 'integer',
        minimum: 1,
        description: 'Times a controller proxy put its inbound service into fail-fast (each means no answer for the fail-fast timeout) that fire the rule.',
      },
      minRestarts: { type: 'integer', minimum: 1, description: 'Restarts of one controller pod seen in its logs that fire the rule on their own.' },
      startupGraceSeconds: {
        type: 'number',
        minimum: 0,
        description: 'Failures this soon after the controller proxy started are the container still starting; they are reported but not counted.',
      },
    },
  },

  createState: (options) => ({ options, components: new Map(), podLogs: new Map(), untrackedPods: 0, lastPodLog: null }),

  visitors: {
    'proxy-log'(state, record) {
      const podLog = podLogFor(state, record);
      if (record.restart > podLog.restarts) {
        podLog.restarts = record.restart;
        if (record.time !== null) podLog.lastRestart = latest(podLog.lastRestart, record.time);
      }
      if (isGoLog(record)) {
        if (record.message.startsWith('running version ') && ++podLog.goStarts > 1 && record.time !== null)
          podLog.lastRestart = latest(podLog.lastRestart, record.time);
        return;
      }
      if (record.target === 'linkerd2_proxy' && record.message.startsWith('Local identity is ')) {
        for (const c of componentsOfIdentity(record.message.slice('Local identity is '.length))) podLog.components.add(c);
        return;
      }
      const signal = failureSignal(record);
      if (!signal) return;
      const component = controllerOf(signal.port, signal.errorText, podLog);
      if (!component) return;
      const c = componentFor(state, component);
      if (signal.failfast) {
        c.failfastEpisodes++;
      } else if (record.uptime !== null && record.uptime < state.options.startupGraceSeconds) {
        c.failuresDuringStartup++;
        return;
      } else {
        c.failures++;
        bump(c.kinds, classifyFailure(signal.errorText));
        if (signal.client) cappedBump(c.clients, hostOf(signal.client));
      }
      if (!c.pods.has(podLog.pod)) keepTop(c.pods, MAX_POD_LOGS, (n) => n);
      bump(c.pods, podLog.pod);
      if (record.namespace) bump(c.namespaces, record.namespace);
      bump(c.ports, signal.port);
      const service = /service (linkerd-[\w.-]+:\d+)/.exec(signal.errorText)?.[1];
      if (service) bump(c.services, service);
      if (record.time !== null) {
        addToBuckets(c.perMinute, record.time);
        c.firstTime = earliest(c.firstTime, record.time);
        c.lastTime = latest(c.lastTime, record.time);
      }
      if (record.uptime !== null) {
        c.firstUptime = earliest(c.firstUptime, record.uptime);
        c.lastUptime = latest(c.lastUptime, record.uptime);
      }
      keepSample(c.samples, SAMPLE_LINES, record.path, record.line, record.raw);
    },
  },

  merge(into, from) {
    mergeKeyed(into.components, from.components, (existing, c) => {
      existing.failures += c.failures;
      existing.failuresDuringStartup += c.failuresDuringStartup;
      existing.failfastEpisodes += c.failfastEpisodes;
      mergeCounts(existing.kinds, c.kinds);
      mergeCapped(existing.clients, c.clients);
      mergeCounts(existing.pods, c.pods);
      mergeCounts(existing.namespaces, c.namespaces);
      mergeCounts(existing.ports, c.ports);
      mergeCounts(existing.services, c.services);
      mergeBuckets(existing.perMinute, c.perMinute);
      existing.firstTime = earliest(existing.firstTime, c.firstTime);
      existing.lastTime = latest(existing.lastTime, c.lastTime);
      existing.firstUptime = earliest(existing.firstUptime, c.firstUptime);
      existing.lastUptime = latest(existing.lastUptime, c.lastUptime);
      existing.samples.push(...c.samples.slice(0, SAMPLE_LINES - existing.samples.length));
    });
    mergeKeyed(into.podLogs, from.podLogs, (existing, p) => {
      for (const c of p.components) existing.components.add(c);
      existing.restarts = Math.max(existing.restarts, p.restarts);
      existing.priorRestarts = Math.max(existing.priorRestarts, p.priorRestarts);
      existing.goStarts += p.goStarts;
      existing.lastRestart = latest(existing.lastRestart, p.lastRestart);
    });
    into.untrackedPods += from.untrackedPods + keepTop(into.podLogs, MAX_POD_LOGS, restartsOf);
    for (const c of into.components.values()) keepTop(c.pods, MAX_POD_LOGS, (n) => n);
  },

  finish(state, { options }) {
    const findings: FindingDraft[] = [];
    const restartsByComponent = new Map<ControllerComponent, { pod: string; restarts: number; namespace: string | undefined; lastRestart: string | null }[]>();
    for (const p of state.podLogs.values()) {
      const restarts = restartsOf(p);
      if (restarts === 0) continue;
      for (const component of p.components) {
        const list = restartsByComponent.get(component) ?? [];
        const last = p.lastRestart;
        list.push({ pod: p.pod, restarts, namespace: p.namespace, lastRestart: last === null ? null : new Date(last).toISOString() });
        restartsByComponent.set(component, list);
      }
    }
    const components = new Set<ControllerComponent>([...state.components.keys(), ...restartsByComponent.keys()]);
    for (const component of [...components].sort()) {
      const c = state.components.get(component) ?? componentFor(state, component);
      const restarts = (restartsByComponent.get(component) ?? []).sort((a, b) => b.restarts - a.restarts || a.pod.localeCompare(b.pod));
      const maxRestarts = restarts[0]?.restarts ?? 0;
      const byFailures = c.failures >= options.minFailures;
      const byFailfast = c.failfastEpisodes >= options.minFailfastEpisodes;
      const byRestarts = maxRestarts >= options.minRestarts;
      if (!byFailures && !byFailfast && !byRestarts) continue;
      const finding = describe(c, restarts, { byFailures, byFailfast, byRestarts });
      // Pods past the bound are not in the restart list: say how many, so the list is read as a top.
      if (state.untrackedPods > 0) finding.evidence.podLogsNotTracked = state.untrackedPods;
      findings.push(finding);
    }
    return findings;
  },
});

interface FailureSignal {
  port: string;
  errorText: string;
  client: string | null;
  failfast: boolean;
}

/** A failed inbound request or a fail-fast entry, with the inbound port it happened on. */
/** The same for every record with one body, so worked out once per body. */
const failureSignal = perBody((record): FailureSignal | null => {
  const failedRequest =
    (record.target === 'linkerd_app_core::errors::respond' && FAILED_REQUEST_MESSAGES.has(record.message)) ||
    (/^linkerd2?_app_core::errors$/.test(record.target) && record.message.startsWith('Failed to proxy request'));
  const failfast = !failedRequest && FAILFAST_TARGETS.has(record.target) && /entering failfast/i.test(record.message);
  if (!failedRequest && !failfast) return null;
  if (record.spans[0]?.name !== 'inbound') return null;
  let port: string | null = null;
  let client: string | null = null;
  for (const span of record.spans) {
    port = span.fields.port ?? portOf(span.fields['target.addr']) ?? port;
    client = span.fields['client.addr'] ?? span.fields['peer.addr'] ?? client;
  }
  const errorText = `${record.message} ${record.fields.error ?? ''}`;
  port ??= /server:? [\d.]+:(\d+)/.exec(errorText)?.[1] ?? null;
  if (!port || !CONTROLLER_PORTS[port]) return null;
  return { port, errorText, client, failfast };
});

function controllerOf(port: string, errorText: string, podLog: PodLog): ControllerComponent | null {
  const byPort = CONTROLLER_PORTS[port]!;
  const named = componentFromName(errorText);
  // The destination pod serves policy on 8090 behind the same proxy; its error text names the dst service.
  if (named && (named === byPort || (named === 'destination' && byPort === 'policy'))) return byPort;
  return podLog.components.has(byPort) ? byPort : null;
}

export function classifyFailure(text: string): FailureKind {
  if (/service unavailable/i.test(text)) return 'service unavailable';
  if (/fail-?fast/i.test(text)) return 'fail-fast';
  if (/Connection refused/i.test(text)) return 'connection refused';
  if (/timed out|timeout|deadline/i.test(text)) return 'timeout';
  return 'other';
}

function podLogFor(state: State, record: ProxyLogRecord): PodLog {
  // Records arrive in runs from one input: skip building the key for every line.
  const last = state.lastPodLog;
  if (last && last.path === record.path && last.pod === record.pod) return last.log;
  const key = `${record.path}\u0000${record.pod ?? ''}`;
  let p = state.podLogs.get(key);
  if (!p) {
    const pod = record.pod ?? record.path;
    const prior = record.container ? /[\\/](\d+)\.log(?:\.gz)?$/.exec(record.path) : null;
    // A controller's own container speaks for that controller only; the pod's proxy fronts all of them.
    const own = record.container === 'destination' || record.container === 'policy' || record.container === 'identity' ? [record.container] : null;
    const components = componentsOfWorkload(workloadOfPod(record.pod)).filter((c) => !own || own.includes(c));
    p = {
      pod,
      namespace: record.namespace,
      components: new Set(components),
      restarts: 0,
      priorRestarts: prior ? Number(prior[1]) : 0,
      goStarts: 0,
      lastRestart: null,
    };
    state.untrackedPods += keepTop(state.podLogs, MAX_POD_LOGS, restartsOf);
    state.podLogs.set(key, p);
  }
  state.lastPodLog = { path: record.path, pod: record.pod, log: p };
  return p;
}

function componentFor(state: State, component: ControllerComponent): ComponentState {
  let c = state.components.get(component);
  if (!c) {
    c = {
      component,
      failures: 0,
      failuresDuringStartup: 0,
      failfastEpisodes: 0,
      kinds: new Map(),
      clients: cappedCounts(CLIENT_CAP),
      pods: new Map(),
      namespaces: new Map(),
      ports: new Map(),
      services: new Map(),
      perMinute: timeBuckets(60),
      firstTime: null,
      lastTime: null,
      firstUptime: null,
      lastUptime: null,
      samples: [],
    };
    state.components.set(component, c);
  }
  return c;
}

function hostOf(address: string): string {
  const colon = address.lastIndexOf(':');
  return colon === -1 ? address : address.slice(0, colon);
}

function describe(
  c: ComponentState,
  restarts: { pod: string; restarts: number; namespace: string | undefined; lastRestart: string | null }[],
  why: { byFailures: boolean; byFailfast: boolean; byRestarts: boolean },
): FindingDraft {
  const name = titleCase(c.component);
  const wall = c.firstTime !== null && c.lastTime !== null;
  const windowSeconds = wall ? (c.lastTime! - c.firstTime!) / 1000 : c.firstUptime !== null ? c.lastUptime! - c.firstUptime : 0;
  const clients = c.clients.counts.size + (c.clients.overflow > 0 ? 1 : 0);
  const topKind = topEntries(c.kinds, 1)[0]?.key;
  const pods = [...new Set([...c.pods.keys(), ...restarts.map((r) => r.pod)])];
  const totalRestarts = restarts.reduce((n, r) => n + r.restarts, 0);

  const parts: string[] = [];
  if (c.failures > 0) {
    parts.push(
      `The ${c.component} controller's proxy failed ${compact(c.failures)} inbound control-plane request${c.failures === 1 ? '' : 's'}` +
        `${topKind ? ` (mostly ${topKind})` : ''} from ${clients}${c.clients.overflow > 0 ? '+' : ''} client address${clients === 1 ? '' : 'es'} over ${formatDuration(windowSeconds)}`,
    );
  }
  if (c.failfastEpisodes > 0)
    parts.push(
      `it entered fail-fast ${c.failfastEpisodes} time${c.failfastEpisodes === 1 ? '' : 's'} (no answer from the controller for the fail-fast timeout)`,
    );
  if (totalRestarts > 0)
    parts.push(
      `${restarts.length} ${c.component} pod${restarts.length === 1 ? '' : 's'} restarted ${totalRestarts} time${totalRestarts === 1 ? '' : 's'} in the logs`,
    );
  const meaning =
    topKind === 'service unavailable'
      ? "Load shedding: the controller proxy's queue was full, so the controller is saturated rather than down."
      : topKind === 'connection refused'
        ? 'The controller container was not listening behind its proxy (crashed, restarting or not ready).'
        : 'Proxies could not get discovery, policy or certificates from it while this lasted.';
  const message = `${capitalize(parts.join('; '))}. ${meaning}`;

  const service = topEntries(c.services, 1)[0]?.key;
  const port = topEntries(c.ports, 1)[0]?.key ?? Object.entries(CONTROLLER_PORTS).find(([, v]) => v === c.component)?.[0];
  const namespace = topEntries(c.namespaces, 1)[0]?.key ?? restarts.find((r) => r.namespace)?.namespace;
  const workload = workloadOfPod(pods[0]);
  const evidence: FindingDraft['evidence'] = {
    controller: c.component,
    failures: c.failures,
    failuresDuringStartup: c.failuresDuringStartup,
    failfastEpisodes: c.failfastEpisodes,
    restarts: totalRestarts,
    firedBy: [why.byFailures && 'failed requests', why.byFailfast && 'fail-fast', why.byRestarts && 'restarts'].filter(Boolean).join(', '),
    distinctClients: clients,
    window: {
      start: wall ? new Date(c.firstTime!).toISOString() : null,
      end: wall ? new Date(c.lastTime!).toISOString() : null,
      durationSeconds: Math.round(windowSeconds * 10) / 10,
      clock: wall ? 'wall' : 'proxy uptime (no collector timestamps)',
    },
    failureKinds: Object.fromEntries(topEntries(c.kinds, 5).map((e) => [e.key, e.count])),
    ports: Object.fromEntries(topEntries(c.ports, 3).map((e) => [e.key, e.count])),
    pods: topEntries(c.pods, 10).map((e) => ({ pod: e.key, failures: e.count })),
    topClients: topEntries(c.clients.counts, 10).map((e) => ({ client: e.key, failures: e.count })),
    podRestarts: restarts.slice(0, 10),
    samples: c.samples,
  };
  const timeline = toTimeline(c.perMinute, `${c.component} controller failures per minute`);
  if (timeline) evidence.timeline = timeline;

  return {
    severity: why.byFailures || why.byFailfast ? 'error' : 'warning',
    kind: `${c.component}-unavailable`,
    title: `${name} controller unavailable to proxies`,
    message,
    subject: {
      ...(namespace ? { namespace } : {}),
      ...(pods.length === 1 ? { pod: pods[0] } : {}),
      ...(workload && workload !== pods[0] ? { workload } : {}),
      target: service ?? `${workload ?? `linkerd-${c.component}`}:${port}`,
    },
    evidence,
    locations: c.samples.map((s) => ({ path: s.path, line: s.line })),
    remediation: remediationFor(c.component, topKind, totalRestarts > 0, controlPlaneNamespace(service, restarts)),
    keyFigure: { name: 'failures', value: c.failures },
  };
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * The control plane's namespace, for the commands of the fix: from the controller's Service name
 * (`linkerd-dst-headless.linkerd.svc…`), else from its restarted pods, else Linkerd's default
 * (`linkerd`), so the command runs as printed on most clusters.
 */
function controlPlaneNamespace(service: string | undefined, restarts: readonly { namespace?: string | null }[]): string {
  const fromService = service ? /^[a-z0-9-]+\.([a-z0-9-]+)\.svc\b/.exec(service)?.[1] : undefined;
  return fromService ?? restarts.find((r) => r.namespace)?.namespace ?? controlPlaneLocation(service ? [service] : []).namespace;
}

function remediationFor(component: ControllerComponent, topKind: string | undefined, restarted: boolean, ns: string): string {
  const deployment = component === 'identity' ? 'linkerd-identity' : 'linkerd-destination';
  const container = component === 'policy' ? 'policy' : component;
  const first =
    topKind === 'service unavailable'
      ? `1. Relieve the ${component} controller now: scale deploy/${deployment} out (kubectl -n ${ns} scale deploy/${deployment} --replicas=<n>, or the HA values) and give the ${container} container CPU and memory headroom; it is shedding load.`
      : `1. Get the ${component} controller serving again: kubectl -n ${ns} describe pod -l linkerd.io/control-plane-component=${component === 'policy' ? 'destination' : component} (restarts, OOMKilled, failing readiness) and kubectl -n ${ns} logs deploy/${deployment} -c ${container} --previous${restarted ? '; the pods restarted during the window' : ''}.`;
  const steps = [first];
  if (component !== 'identity') {
    steps.push(
      '2. Upgrade the control plane past the destination stream-limit fix (linkerd2 PR #12598, edge-24.5.3 and Linkerd 2.16): older destination and identity servers limited concurrent gRPC streams, so watches from many proxies stalled and piled up.',
    );
  } else {
    steps.push('2. Proxies that cannot renew certificates stop serving meshed traffic when theirs expire: restore identity before restarting workloads.');
  }
  steps.push(
    '3. Keep the clients from hammering it while it recovers: proxies before v2.307 (edge-25.7.2, Linkerd 2.19) retry every 500 ms; raise LINKERD2_PROXY_OUTBOUND_CONNECT_EXP_BACKOFF_MIN/_MAX (and _JITTER) via proxy.additionalEnv, or upgrade.',
  );
  return steps.join('\n');
}
