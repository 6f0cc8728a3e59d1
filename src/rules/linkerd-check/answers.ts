// The CLI's other answers, read as its docs describe them (linkerd.io reference/cli/viz and
// diagnostics; linkerd2 viz/cmd, multicluster/cmd):
// - `viz stat` / `viz routes` SUCCESS: the share of requests that did not fail (HTTP 5xx, gRPC
//   errors) over the window (1 minute by default), `-` when there was no traffic; MESHED: meshed
//   pods of all pods of the resource.
// - `viz top` Success Rate: the same per source, destination and path over what was tapped.
// - `viz edges` SECURED: √ when the connection is mTLS; otherwise why not (the client has no
//   identity, or the peer did not provide one).
// - `viz tap`: every `rsp` with `:status=5xx` and every `end` with a gRPC status other than OK is a
//   failed request.
// - `multicluster gateways` ALIVE: whether the service mirror's probes of the linked cluster's
//   gateway succeed.
// - `diagnostics endpoints`: what the destination controller answers for an authority; `No
//   endpoints found.` means proxies resolving it get nothing to connect to.

import type { FindingDraft, LinkerdCliRowRecord, Severity } from '../../core/types.js';

export interface AnswerOptions {
  /** Success rate (0-1) under which a stat, routes or top row warns. */
  minSuccessRate: number;
  /** Success rate under which it is an error. */
  errorSuccessRate: number;
}

const PERCENT = /^(\d+(?:\.\d+)?)%$/;
const RPS = /^(\d+(?:\.\d+)?)rps$/;
const NAMESPACE_FLAG = /(?:^|\s)(?:-n|--namespace)[ =]([a-z0-9][-a-z0-9]*)/;

const rate = (cell: string | undefined) => {
  const m = cell ? PERCENT.exec(cell) : null;
  return m ? Number(m[1]) / 100 : null;
};

function base(record: LinkerdCliRowRecord, text: string) {
  return {
    locations: [{ path: record.path, line: record.line }],
    samples: [{ path: record.path, line: record.line, text: text.slice(0, 300) }],
  };
}

/** The resource a stat or routes command names (`deploy/web`, `deploy`), and its namespace. */
function scopeOf(command: string | null): { resource: string | null; namespace: string | null } {
  if (!command) return { resource: null, namespace: null };
  const words = command.split(/\s+/);
  const i = words.findIndex((w) => w === 'stat' || w === 'routes' || w === 'top' || w === 'tap' || w === 'edges');
  const resource = i >= 0 && words[i + 1] && !words[i + 1]!.startsWith('-') ? words[i + 1]! : null;
  return { resource, namespace: NAMESPACE_FLAG.exec(command)?.[1] ?? null };
}

/** A finding for one table row that shows a failure; null for a healthy row. */
export function rowFinding(record: LinkerdCliRowRecord, options: AnswerOptions): FindingDraft | null {
  const c = record.cells;
  const { resource, namespace } = scopeOf(record.command);
  const ns = c.NAMESPACE ?? namespace;
  const nsPart = ns ? ` -n ${ns}` : '';
  const command = record.command ?? `linkerd viz ${record.table}`;
  switch (record.table) {
    case 'stat':
    case 'routes':
    case 'top': {
      const success = rate(record.table === 'top' ? c['Success Rate'] : c.SUCCESS);
      if (success === null || success >= options.minSuccessRate) return null;
      const rps = RPS.exec(c.RPS ?? '')?.[1];
      const count = c.Count ? Number(c.Count) : null;
      if ((rps !== undefined && Number(rps) === 0) || (count !== null && count < 5)) return null;
      const severity: Severity = success < options.errorSuccessRate ? 'error' : 'warning';
      const pct = `${(success * 100).toFixed(2)} %`;
      const kindOfResource = resource?.split('/')[0] ?? 'resource';
      const what =
        record.table === 'stat'
          ? `${kindOfResource === 'resource' ? '' : `${kindOfResource}/`}${c.NAME}${ns ? ` in ${ns}` : ''}`
          : record.table === 'routes'
            ? `route ${c.ROUTE} of ${c.SERVICE}`
            : `${c.Method} ${c.Path} from ${c.Source} to ${c.Destination}`;
      const target = record.table === 'stat' ? `${kindOfResource === 'resource' ? 'deploy' : kindOfResource}/${c.NAME}` : (resource ?? 'deploy/<name>');
      return {
        severity,
        kind: `success-rate/${record.table}`,
        title: `Only ${pct} of the requests to ${what} succeed${rps ? ` (${rps} rps)` : count !== null ? ` (${count} requests)` : ''}`,
        message: `${command} shows a success rate of ${pct} for ${what}: about ${Math.round((1 - success) * 100)} in 100 requests fail with an HTTP 5xx or a gRPC error over the window of the command (1 minute unless -t says otherwise). Likely causes, most likely first: (1) the application itself answers errors (its log says why); (2) the proxy answers 502/503/504 because it cannot reach the application or the endpoints (connection refused, failfast, timeouts); (3) requests denied by authorization policy (403, counted as success) are not in this figure.`,
        subject: { target: c.NAME ?? c.Destination ?? c.SERVICE ?? 'linkerd viz', ...(ns ? { namespace: ns } : {}) },
        evidence: { table: record.table, command: record.command, row: c, successRate: success, ...base(record, Object.values(c).join(' ')) },
        locations: base(record, '').locations,
        remediation: [
          `1. Watch the failing requests live: linkerd viz tap ${target}${nsPart} | grep -E ':status=5|grpc-status=[^O]'.`,
          `2. Find the route that fails: linkerd viz routes ${target}${nsPart} (needs a ServiceProfile; or linkerd viz top ${target}${nsPart}).`,
          '3. Read the application log and the proxy log (kubectl logs <pod> -c linkerd-proxy) of the pods that answer.',
        ].join('\n'),
        keyFigure: { name: 'successRatePercent', value: Math.round(success * 10000) / 100 },
      };
    }
    case 'edges': {
      const secured = c.SECURED ?? '';
      if (secured === '\u221a' || secured === '') return null;
      return {
        severity: 'warning',
        kind: 'edge-not-secured',
        title: `Traffic from ${c.SRC} to ${c.DST} is not mTLS: ${secured}`,
        message: `${command} shows the connection from ${c.SRC} (${c.SRC_NS}) to ${c.DST} (${c.DST_NS}) without mutual TLS: ${secured}. Likely causes: the client is not meshed (no proxy, or not injected yet), or the server side did not provide an identity (not meshed, skipped port, opaque port without a proxy).`,
        subject: { target: `${c.SRC_NS}/${c.SRC} -> ${c.DST_NS}/${c.DST}`, namespace: c.DST_NS ?? '' },
        evidence: { table: 'edges', command: record.command, row: c, ...base(record, Object.values(c).join(' ')) },
        locations: base(record, '').locations,
        remediation: `1. Check whether ${c.SRC} has a proxy: kubectl -n ${c.SRC_NS} get pods -l app=${c.SRC} -o jsonpath='{.items[*].spec.containers[*].name}'; inject it if not: kubectl -n ${c.SRC_NS} get deploy ${c.SRC} -o yaml | linkerd inject - | kubectl apply -f -.`,
      };
    }
    case 'gateways': {
      if (c.ALIVE !== 'False') return null;
      return {
        severity: 'error',
        kind: 'gateway-not-alive',
        title: `The gateway of linked cluster ${c.CLUSTER} is not alive: the service mirror cannot reach it`,
        message: `${command} shows the gateway of ${c.CLUSTER} not alive (${c.NUM_SVC ?? '?'} mirrored services depend on it): the service mirror's probes to the gateway fail, so requests to those services fail. Likely causes: the gateway's address is unreachable from this cluster (LoadBalancer, firewall, ports 4143 and 4191), the gateway pod is down on ${c.CLUSTER}, or the link's credentials are stale.`,
        subject: { target: c.CLUSTER ?? 'gateway' },
        evidence: { table: 'gateways', command: record.command, row: c, ...base(record, Object.values(c).join(' ')) },
        locations: base(record, '').locations,
        remediation: `1. Check the gateway on ${c.CLUSTER}: kubectl --context=${c.CLUSTER} -n linkerd-multicluster get pods,svc linkerd-gateway (its external address must be reachable from here on 4143 and 4191), then linkerd multicluster check.`,
      };
    }
    default:
      return null;
  }
}

/** Failed requests seen by tap, per destination authority. */
export interface TapTally {
  authority: string;
  total: number;
  failed: number;
  statuses: Record<string, number>;
  path: string;
  line: number;
  command: string | null;
}

/** Counts a tap event into `tallies` (keyed by id until the response names it); bounded by the caller. */
export function tapFailure(cells: Record<string, string>): { failed: boolean; counted: boolean; status: string | null } {
  if (cells.event === 'rsp') {
    const status = cells[':status'] ?? null;
    return { counted: true, failed: status !== null && status.startsWith('5'), status };
  }
  if (cells.event === 'end' && cells['grpc-status'] !== undefined && cells['grpc-status'] !== 'OK')
    return { counted: false, failed: true, status: `grpc ${cells['grpc-status']}` };
  return { counted: false, failed: false, status: null };
}

export function tapFinding(t: TapTally): FindingDraft | null {
  if (t.failed === 0) return null;
  const statuses = Object.entries(t.statuses)
    .map(([s, n]) => `${n} × ${s}`)
    .join(', ');
  return {
    severity: 'warning',
    kind: 'tap-failures',
    title: `Requests to ${t.authority} fail in the tap output (${statuses})`,
    message: `${t.command ?? 'linkerd viz tap'} shows ${t.failed} failed of ${t.total} requests to ${t.authority} (${statuses}). A 503 from the proxy means it had no endpoint to send to or the endpoint failed fast; a 502 that it could not connect; a gRPC status other than OK an application error.`,
    subject: { target: t.authority },
    evidence: { table: 'tap', failed: t.failed, total: t.total, statuses: t.statuses, samples: [{ path: t.path, line: t.line, text: statuses }] },
    locations: [{ path: t.path, line: t.line }],
    remediation: `1. Check the endpoints the destination controller gives for it: linkerd diagnostics endpoints ${t.authority.includes(':') ? t.authority : `${t.authority}:80`}, and the proxy log of the client (kubectl logs <client pod> -c linkerd-proxy).`,
  };
}
