// Connections on which the proxy waited out its protocol-detection timeout. The proxy reads the
// first bytes of every connection to tell HTTP/1, HTTP/2 and TLS apart; on a protocol where the
// server speaks first (SMTP, MySQL, NATS…) the client waits for the server's banner while the
// proxy waits for the client's first bytes, so nothing happens until the detect timeout (10 s)
// expires and the proxy falls back to plain TCP. Every such connection is delayed by 10 s, and
// clients with shorter connect timeouts fail outright. The fix is to tell the proxy not to detect
// on that port: opaque ports (mTLS kept, no detection) or skip ports (bypass the proxy).
//
// `TLS detection timed out` (inbound, the client sent nothing at all) is not counted: healthy pods
// log it for idle or probing clients, and it names the proxy's listener, not the application port.
//
// On a port known to speak first the stall is deterministic: every connection on it will wait, so
// one line is already the diagnosis. On other ports (443 included) a lone timeout is often an idle
// client (a pool connection opened and never used, a TCP health check): it is still reported, so a
// 4-line paste gets its answer, but as a notice until `minTimeouts` of them make it a pattern.

import { type FindingDraft, type ProxyLogRecord, defineRule } from '../../core/types.js';
import { perBody } from '../../util/body-memo.js';
import { bodyText, countLine, locationsOf, mergeTally, plural, signalTally, windowEvidence, type SignalTally } from '../../kit/log-signal.js';
import { cappedSet, cappedAdd, mergeCappedSet, type CappedSet } from '../../kit/metric-proxy.js';
import { mergeKeyed } from '../../util/stats.js';
import { toTimeline } from '../../util/timeline.js';
import { PROTOCOL_DETECT_TIMEOUT } from './patterns.js';
import { lookupTable } from '../../util/dict.js';

export interface ProtocolDetectionTimeoutOptions {
  minTimeouts: number;
  minTimeoutsKnownPort: number;
}

/** Protocols on their usual ports where the proxy cannot detect, most because the server speaks first. */
export const NON_DETECTABLE_PORTS: Readonly<Record<string, string>> = lookupTable({
  '21': 'FTP (server speaks first)',
  '22': 'SSH (server speaks first)',
  '25': 'SMTP (server speaks first)',
  '110': 'POP3 (server speaks first)',
  '143': 'IMAP (server speaks first)',
  '587': 'SMTP submission (server speaks first)',
  '3306': 'MySQL (server speaks first)',
  '4222': 'NATS (server speaks first)',
  '4444': 'Galera (server speaks first)',
  '5432': 'PostgreSQL (non-HTTP, SSL negotiation)',
  '6379': 'Redis (non-HTTP)',
  '9300': 'Elasticsearch transport (non-HTTP)',
  '11211': 'Memcached (non-HTTP)',
  '27017': 'MongoDB (non-HTTP)',
});

/** Linkerd's default opaque-ports list (proxy.opaquePorts / the injector's default). */
export const DEFAULT_OPAQUE_PORTS = ['25', '587', '3306', '4444', '5432', '6379', '9300', '11211'];

type Direction = 'inbound' | 'outbound' | 'unknown';

interface PortState {
  port: string;
  direction: Direction;
  tally: SignalTally;
  addresses: CappedSet;
}

interface State {
  ports: Map<string, PortState>;
}

const PROTOCOL = new RegExp(PROTOCOL_DETECT_TIMEOUT);

const signalOf = perBody((record: ProxyLogRecord): { port: string; address: string | null; direction: Direction } | null => {
  const text = bodyText(record);
  if (!PROTOCOL.test(text)) return null;
  const root = record.spans[0]?.name;
  const direction: Direction = root === 'inbound' || root === 'outbound' ? root : 'unknown';
  let port: string | null = null;
  let address: string | null = null;
  for (const s of record.spans) {
    // The connection's original destination: `proxy{addr=…}` / `forward{addr=…}` in current
    // proxies, `server{orig_dst=…}` in the outbound stack of proxies before the sidecar rewrite
    // (2.11-2.13), `target.addr` in older ones.
    const addr =
      (s.name === 'proxy' || s.name === 'forward' ? s.fields.addr : undefined) ?? s.fields.orig_dst ?? s.fields['target.addr'] ?? s.fields.target_addr;
    if (addr) {
      address = addr;
      port = /:(\d{1,5})$/.exec(addr)?.[1] ?? port;
    }
    if (s.fields.port && s.name === 'server') port = s.fields.port;
  }
  port ??= portAfterKey(text);
  return { port: port ?? 'unknown', address, direction };
});

/**
 * The first 2-5 digit number after `addr=`/`port=`/`orig_dst=` (or `:`) in the same whitespace-free run. Each
 * run is read once: a lazy `\S*?` from every key in one long run would rescan its rest per key,
 * and a later key in a run sees only a suffix of what the first one saw.
 */
function portAfterKey(text: string): string | null {
  const keys = /(?:addr|port|orig_dst)[=:]/g;
  const space = /\s/g;
  let examinedUpTo = -1;
  for (let key = keys.exec(text); key !== null; key = keys.exec(text)) {
    const start = key.index + key[0].length;
    if (start <= examinedUpTo) continue;
    space.lastIndex = start;
    const runEnd = space.exec(text)?.index ?? text.length;
    const digits = /\d{2,5}\b/.exec(text.slice(start, runEnd));
    if (digits) return digits[0];
    examinedUpTo = runEnd;
  }
  return null;
}

export default defineRule<ProtocolDetectionTimeoutOptions, State>({
  meta: {
    id: 'protocol-detection-timeout',
    code: 'LD1006',
    title: 'Connections stalled by protocol detection',
    description:
      'Proxies wait out the 10 s protocol-detection timeout on a port (server-speaks-first or non-HTTP protocols such as SMTP, MySQL, NATS); names the port and the opaque-ports / skip-ports fix.',
    defaultSeverity: 'warning',
    inputs: ['proxy-log'],
    lineInterest: { 'proxy-log': ['rotocol detection', 'Continuing after timeout', 'due to policy'] },
    defaultOptions: { minTimeouts: 3, minTimeoutsKnownPort: 1 },
    optionSchema: {
      minTimeouts: { type: 'integer', minimum: 1, description: 'Detection timeouts on one port that fire the rule (one can be an idle client connection).' },
      minTimeoutsKnownPort: {
        type: 'integer',
        minimum: 1,
        description:
          'Detection timeouts that fire on a port whose protocol cannot be detected (server speaks first): every connection there stalls, so one is decisive.',
      },
    },
  },

  createState: () => ({ ports: new Map() }),

  visitors: {
    'proxy-log'(state, record) {
      const signal = signalOf(record);
      if (!signal) return;
      const key = `${signal.direction}:${signal.port}`;
      let p = state.ports.get(key);
      if (!p) {
        p = { port: signal.port, direction: signal.direction, tally: signalTally(), addresses: cappedSet(50) };
        state.ports.set(key, p);
      }
      if (signal.address) cappedAdd(p.addresses, signal.address);
      countLine(p.tally, record);
    },
  },

  merge(into, from) {
    mergeKeyed(into.ports, from.ports, (mine, p) => {
      mergeTally(mine.tally, p.tally);
      mergeCappedSet(mine.addresses, p.addresses);
    });
  },

  finish(state, { options }) {
    const findings: FindingDraft[] = [];
    for (const p of [...state.ports.values()].sort((a, b) => b.tally.count - a.tally.count || a.port.localeCompare(b.port))) {
      const known = NON_DETECTABLE_PORTS[p.port];
      const decisive = p.tally.count >= (known ? options.minTimeoutsKnownPort : options.minTimeouts);
      findings.push(describe(p, known, decisive));
    }
    return findings;
  },
});

/** How a title names the connections' side of the port: `to port 5432`, `from clients to port 443`. */
function towards(direction: Direction, connections: number): string {
  if (direction === 'inbound') return 'to';
  if (direction === 'outbound') return connections === 1 ? 'from a client to' : 'from clients to';
  return 'on';
}

/** `decisive`: enough timeouts (or a port that cannot be detected) to call it a stall, not an idle client. */
function describe(p: PortState, known: string | undefined, decisive: boolean): FindingDraft {
  const pods = p.tally.pods.counts.size;
  const inDefaults = DEFAULT_OPAQUE_PORTS.includes(p.port);
  const where = p.direction === 'outbound' ? 'clients connecting to' : p.direction === 'inbound' ? 'servers accepting on' : 'connections on';
  const portText = p.port === 'unknown' ? 'an unnamed port' : `port ${p.port}${known ? ` (${known})` : ''}`;
  const timeline = toTimeline(p.tally.perMinute, `detection timeouts port ${p.port} per minute`);
  const message =
    `${plural(p.tally.count, 'connection')} of ${pods === 1 ? 'one proxy' : `${pods} proxies`} (${where} ${portText}) waited out the protocol-detection timeout before being forwarded as plain TCP. Each such connection is delayed by 10 s, and clients with shorter timeouts fail.` +
    (inDefaults
      ? ` Port ${p.port} is in Linkerd's default opaque ports: an opaque-ports annotation on the workload or namespace replaced the default list without it.`
      : '') +
    (decisive
      ? ''
      : ` ${p.tally.count === 1 ? 'One timeout' : 'So few timeouts'} can also be an idle client (a pooled connection never used, a TCP health check); if the client waits for the server to speak first, or the count grows, every connection on this port stalls.`);
  const annotation = p.port === 'unknown' ? '<port>' : p.port;
  return {
    severity: decisive ? 'warning' : 'info',
    kind: 'detect-timeout',
    title: decisive
      ? `Connections ${towards(p.direction, 2)} ${portText} stall 10 s: protocol detection times out`
      : `${p.tally.count === 1 ? 'A connection' : `${p.tally.count} connections`} ${towards(p.direction, p.tally.count)} ${portText} waited out protocol detection (10 s)`,
    message,
    subject: { target: p.port === 'unknown' ? 'unknown port' : `port ${p.port}`, ...(pods === 1 ? { pod: [...p.tally.pods.counts.keys()][0] } : {}) },
    evidence: {
      port: p.port,
      direction: p.direction,
      protocol: known ?? null,
      inDefaultOpaquePorts: inDefaults,
      timeouts: p.tally.count,
      podsAffected: pods,
      addresses: [...p.addresses.values].slice(0, 10),
      window: windowEvidence(p.tally, pods === 1),
      samples: p.tally.samples,
      ...(timeline ? { timeline } : {}),
    },
    locations: locationsOf(p.tally),
    remediation: [
      `1. Mark the port opaque on the server side: annotate the server's Service (or its pods/namespace) with config.linkerd.io/opaque-ports: "${annotation}" (Linkerd stable-2.10+; the annotation replaces the default list ${DEFAULT_OPAQUE_PORTS.join(',')}, so keep the defaults you need). mTLS is kept; detection is skipped.`,
      `2. Where the connection must bypass the proxy (the server is not meshed, or Linkerd ≤ 2.9), use config.linkerd.io/skip-outbound-ports: "${annotation}" on the clients (skip-inbound-ports on the server).`,
      '3. With policy resources (Linkerd 2.12+), a Server for the port with proxyProtocol: opaque does the same for inbound connections.',
    ].join('\n'),
    keyFigure: { name: 'timeouts', value: p.tally.count },
  };
}
