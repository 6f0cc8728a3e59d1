// Inbound traffic refused by authorization policy, per server. Each denied request is answered
// 403 (HTTP) or PERMISSION_DENIED (gRPC) and each denied connection is closed; the proxy logs
// every one, so a denial flood also floods the logs (linkerd2 #8608: 280 GB).
//
// Two very different stories hide behind the same line, and the fields tell them apart:
// - a probe flood: kubelet probes reach a port whose policy does not allow them. With GKE
//   Dataplane V2 (Cilium) probes arrive from a link-local address (169.254.x.x), not the node IP
//   Linkerd's default probe authorization expects, and health paths (/healthz, /ready, /live)
//   are denied every probe period;
// - real denials: meshed or unmeshed workloads calling a server they are not authorized for.

import { type FindingDraft, type ProxyLogRecord, defineRule } from '../../core/types.js';
import { perBody } from '../../util/body-memo.js';
import { bodyText, countLine, locationsOf, mergeTally, plural, signalTally, windowEvidence, type SignalTally } from '../../kit/log-signal.js';
import {
  addDropped,
  cappedBump,
  cappedCounts,
  droppedKeys,
  droppedSentence,
  type DroppedKeys,
  keepWorst,
  mergeCapped,
  mergeKeyed,
  topEntries,
  type CappedCounts,
} from '../../util/stats.js';
import { stateCap } from '../../core/state-cap.js';
import { toTimeline } from '../../util/timeline.js';
import { AUTHZ_DENIED } from './patterns.js';

export interface AuthorizationDeniedOptions {
  minDenials: number;
  probeShare: number;
}

interface ServerState {
  server: string;
  namespace: string | undefined;
  tally: SignalTally;
  probeLike: number;
  meshed: number;
  clients: CappedCounts;
  identities: CappedCounts;
  routes: CappedCounts;
  ports: CappedCounts;
}

interface State {
  options: AuthorizationDeniedOptions;
  servers: Map<string, ServerState>;
  /** Servers let go to stay within MAX_SERVERS: those below minDenials are only counted (keepWorst). */
  dropped: DroppedKeys;
}

/**
 * Servers kept after a sweep (twice this at most between sweeps): a log of a million distinct
 * server names must not grow the map (issue 44). The fewest denials go first, so a server over
 * minDenials is never let go for servers named once.
 */
const MAX_SERVERS = stateCap(1_000);

function dropServers(state: State): void {
  keepWorst(
    state.servers,
    MAX_SERVERS,
    (x) => x.tally.count,
    droppedKeys(),
    (x) => {
      if (x.tally.count >= state.options.minDenials) state.dropped.signal++;
      else state.dropped.healthy++;
    },
  );
}

const DENIED = new RegExp(AUTHZ_DENIED);
const HEALTH_PATH = /\b(?:healthz?|readyz?|livez?|readiness|liveness|ping)\b/i;
const LINK_LOCAL = /^169\.254\.|^fe80:/i;
// Starts where a run of label characters starts, so no run is rescanned from inside.
const SERVICE_ACCOUNT_ID = /(?<![-a-z0-9])([a-z0-9](?:[-a-z0-9]*[a-z0-9])?\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?\.serviceaccount\.identity\.[-a-z0-9.]+)/;

interface Denial {
  server: string;
  route: string | null;
  port: string | null;
  clientIp: string | null;
  identity: string | null;
  health: boolean;
}

/**
 * The server an `unauthorized connection on …` error names: `server web` (2.11), `server/web` (from
 * proxy v2.178), or a default policy, `server default:deny` (2.11) or `default/deny`.
 */
const SERVER_IN_ERROR = /unauthorized connection on (?:server[ /](default:)?|(default)\/)([\w.-]+)/;

function serverInErrorText(text: string): string | null {
  const m = SERVER_IN_ERROR.exec(text);
  if (!m) return null;
  return m[1] || m[2] ? `default:${m[3]}` : m[3]!;
}

const denialOf = perBody((record: ProxyLogRecord): Denial | null => {
  const text = bodyText(record);
  if (!DENIED.test(text)) return null;
  if (record.spans[0] && record.spans[0].name !== 'inbound' && !/Request denied|Connection denied/.test(record.message)) return null;
  let port: string | null = null;
  let clientAddr: string | null = null;
  for (const s of record.spans) {
    if (s.name === 'server' && s.fields.port) port = s.fields.port;
    clientAddr = s.fields['client.addr'] ?? s.fields.client_addr ?? s.fields['peer.addr'] ?? clientAddr;
  }
  const server = record.fields['server.name'] ?? record.fields.server ?? serverInErrorText(text) ?? (port ? `port ${port}` : 'unknown server');
  const route = record.fields['route.name'] ?? /on route ([\w.-]+)/.exec(text)?.[1] ?? null;
  const clientIp = record.fields['client.ip'] ?? (clientAddr ? clientAddr.replace(/:\d+$/, '') : null);
  const identity = SERVICE_ACCOUNT_ID.exec(record.fields['client.tls'] ?? record.fields['client.id'] ?? '')?.[1] ?? null;
  const health = HEALTH_PATH.test(`${route ?? ''} ${record.fields['request.uri'] ?? ''} ${record.fields.path ?? ''}`) || route === 'probe';
  return { server, route, port, clientIp, identity, health };
});

export default defineRule<AuthorizationDeniedOptions, State>({
  meta: {
    id: 'authorization-denied',
    code: 'LD1007',
    title: 'Sustained authorization-policy denials',
    description:
      'Inbound requests or connections refused by authorization policy (unauthorized connection on server, Request denied) per server, telling a kubelet-probe flood apart from denied workloads.',
    defaultSeverity: 'warning',
    inputs: ['proxy-log'],
    lineInterest: { 'proxy-log': ['unauthorized', 'Request denied', 'Connection denied'] },
    defaultOptions: { minDenials: 1, probeShare: 0.5 },
    optionSchema: {
      minDenials: {
        type: 'integer',
        minimum: 1,
        description:
          "Denials on one server that fire the rule. A denial is the policy's deterministic answer (403, PERMISSION_DENIED, closed connection): the same caller is refused every time, so the first one is already the incident.",
      },
      probeShare: {
        type: 'number',
        minimum: 0,
        maximum: 1,
        description: 'Share of denials from link-local sources or to health paths from which they are called a probe flood.',
      },
    },
  },

  createState: (options) => ({ options, servers: new Map(), dropped: droppedKeys() }),

  visitors: {
    'proxy-log'(state, record) {
      const d = denialOf(record);
      if (!d) return;
      const key = `${record.namespace ?? ''}\u0000${d.server}`;
      let s = state.servers.get(key);
      if (!s) {
        dropServers(state);
        s = {
          server: d.server,
          namespace: record.namespace,
          tally: signalTally(),
          probeLike: 0,
          meshed: 0,
          clients: cappedCounts(1000),
          identities: cappedCounts(200),
          routes: cappedCounts(200),
          ports: cappedCounts(100),
        };
        state.servers.set(key, s);
      }
      countLine(s.tally, record);
      if (d.health || (d.clientIp !== null && LINK_LOCAL.test(d.clientIp))) s.probeLike++;
      if (d.identity) {
        s.meshed++;
        cappedBump(s.identities, d.identity);
      }
      if (d.clientIp) cappedBump(s.clients, d.clientIp);
      if (d.route) cappedBump(s.routes, d.route);
      if (d.port) cappedBump(s.ports, d.port);
    },
  },

  merge(into, from) {
    mergeKeyed(into.servers, from.servers, (mine, s) => {
      mergeTally(mine.tally, s.tally);
      mine.probeLike += s.probeLike;
      mine.meshed += s.meshed;
      mergeCapped(mine.clients, s.clients);
      mergeCapped(mine.identities, s.identities);
      mergeCapped(mine.routes, s.routes);
      mergeCapped(mine.ports, s.ports);
    });
    addDropped(into.dropped, from.dropped);
    dropServers(into);
  },

  finish(state, { options }) {
    const findings: FindingDraft[] = [];
    for (const s of [...state.servers.values()].sort((a, b) => b.tally.count - a.tally.count || a.server.localeCompare(b.server))) {
      if (s.tally.count < options.minDenials) continue;
      findings.push(describe(s, options));
    }
    const dropped = droppedSentence(state.dropped, 'servers');
    if (dropped)
      for (const f of findings) {
        f.message = `${f.message} ${dropped}`;
        f.evidence = { ...f.evidence, serversNotTracked: state.dropped.healthy + state.dropped.signal };
      }
    return findings;
  },
});

function describe(s: ServerState, options: AuthorizationDeniedOptions): FindingDraft {
  const probe = s.probeLike / s.tally.count >= options.probeShare;
  const pods = s.tally.pods.counts.size;
  const clients = s.clients.counts.size + (s.clients.overflow > 0 ? 1 : 0);
  const port = topEntries(s.ports.counts, 1)[0]?.key;
  const where = `server ${s.server}${port && !s.server.startsWith('port ') ? ` (port ${port})` : ''}`;
  const timeline = toTimeline(s.tally.perMinute, `denials ${s.server} per minute`);
  const story = probe
    ? `Most come from link-local addresses or hit health paths: this is a probe flood. The kubelet's probes are refused, so the pods turn unready or are restarted, and every probe period adds log lines.`
    : s.meshed > 0
      ? `${s.meshed} came from meshed clients with an identity (${topEntries(s.identities.counts, 3)
          .map((e) => e.key)
          .join(', ')}): those workloads are not authorized for this server.`
      : `The clients are unauthenticated (no mTLS identity): unmeshed callers, or meshed ones whose traffic skips the proxy, are refused by a policy that requires identities.`;
  return {
    severity: 'warning',
    kind: probe ? 'probe-denied' : 'requests-denied',
    title: probe ? `Probe traffic denied by policy on ${where}` : `Requests denied by policy on ${where}`,
    message: `${plural(s.tally.count, 'request or connection', 'requests or connections')} to ${where} ${pods === 1 ? 'in one pod' : `in ${pods} pods`} were denied by authorization policy, from ${clients} client address${clients === 1 ? '' : 'es'}. ${story}`,
    subject: { ...(s.namespace ? { namespace: s.namespace } : {}), ...(pods === 1 ? { pod: [...s.tally.pods.counts.keys()][0] } : {}), target: s.server },
    evidence: {
      server: s.server,
      kind: probe ? 'probe flood' : 'denied clients',
      denials: s.tally.count,
      probeLike: s.probeLike,
      fromMeshedClients: s.meshed,
      distinctClients: clients,
      topClients: topEntries(s.clients.counts, 10).map((e) => ({ client: e.key, denials: e.count })),
      topIdentities: topEntries(s.identities.counts, 5).map((e) => ({ identity: e.key, denials: e.count })),
      routes: Object.fromEntries(topEntries(s.routes.counts, 5).map((e) => [e.key, e.count])),
      ports: Object.fromEntries(topEntries(s.ports.counts, 3).map((e) => [e.key, e.count])),
      window: windowEvidence(s.tally, pods === 1),
      samples: s.tally.samples,
      ...(timeline ? { timeline } : {}),
    },
    locations: locationsOf(s.tally),
    remediation: probe
      ? [
          `1. Authorize the probes: an AuthorizationPolicy (or ServerAuthorization before 2.12) for ${s.server} that allows unauthenticated clients from the probe source (the node CIDR, or 169.254.0.0/16 on GKE Dataplane V2), or an HTTPRoute for the probe paths with such a policy.`,
          '2. Linkerd 2.12+ authorizes probes to the paths in the pod spec by default only when no Server selects the port; once a Server does, add the probe route explicitly.',
          '3. Or move the probes to a port without a Server (or the default policy all-unauthenticated for that port).',
        ].join('\n')
      : [
          `1. Decide whether the callers should be allowed: kubectl get server,authorizationpolicy,meshtlsauthentication,networkauthentication -n ${s.namespace ?? '<ns>'}; add the client identities or networks to the policy of ${s.server}, or stop the callers.`,
          '2. Unauthenticated callers that should be meshed: inject them (or fix skip-ports / opaque-ports that make them bypass their proxy).',
          '3. Policy resources need Linkerd 2.11+ (Server/ServerAuthorization) and 2.12+ (AuthorizationPolicy, HTTPRoute); `linkerd viz authz` shows allowed and denied traffic per policy.',
        ].join('\n'),
    keyFigure: { name: 'denials', value: s.tally.count },
  };
}
