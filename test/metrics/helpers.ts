// Shared by the metrics tests: run the real pipeline over a dump and collect what the parser emits.

import { Readable } from 'node:stream';
import type { LdRecord, MetricSampleRecord, MetricScrapeErrorRecord } from '../../src/core/types.js';
import { readEntry } from '../../src/engine/pipeline.js';
import { LATENCY_BUCKETS as BUCKETS } from '../../scripts/fixtures/metrics.js';

export interface Parsed {
  samples: MetricSampleRecord[];
  errors: MetricScrapeErrorRecord[];
  unparsed: { line: number; reason: string }[];
  kind: string;
}

export async function parseDump(content: string | Buffer, options: { strict?: boolean; path?: string; forceKind?: boolean } = {}): Promise<Parsed> {
  const out: Parsed = { samples: [], errors: [], unparsed: [], kind: '' };
  const result = await readEntry(
    { path: options.path ?? 'dump.txt', stream: Readable.from([typeof content === 'string' ? Buffer.from(content) : content]), size: null },
    {
      record: (r: LdRecord) => {
        if (r.kind === 'metric-sample') out.samples.push(r);
        else if (r.kind === 'metric-scrape-error') out.errors.push(r);
      },
      unparsed: (_s, line, reason) => out.unparsed.push({ line, reason }),
    },
    { strict: options.strict ?? false },
    options.forceKind === false ? undefined : 'prometheus',
  );
  if (result.error) throw result.error;
  out.kind = result.stats.kind;
  return out;
}

/** Distinct series (name + labels) among samples, independent of the parser's duplicate flag. */
export function distinctSeries(samples: readonly MetricSampleRecord[]): number {
  return new Set(samples.map((s) => `${s.section ?? ''}\u0000${s.name}\u0000${JSON.stringify(Object.entries(s.labels).sort())}`)).size;
}

/** One outbound endpoint of a legacy proxy dump, in the proxy's label order. */
export interface EndpointSpec {
  ip: string;
  pod: string;
  deployment: string;
  hash: string;
  service?: string;
  namespace?: string;
  open?: number;
  statuses?: string[];
}

export function endpointLabels(e: EndpointSpec, peer?: string): string {
  const ns = e.namespace ?? 'shop';
  return [
    'direction="outbound"',
    ...(peer ? [`peer="${peer}"`] : []),
    ...(e.service ? [`authority="${e.service}.${ns}.svc.cluster.local:8080"`] : []),
    `target_addr="${e.ip}:8080"`,
    `target_ip="${e.ip}"`,
    'target_port="8080"',
    'tls="true"',
    `server_id="${e.deployment}.${ns}.serviceaccount.identity.linkerd.cluster.local"`,
    'dst_control_plane_ns="linkerd"',
    `dst_deployment="${e.deployment}"`,
    `dst_namespace="${ns}"`,
    `dst_pod="${e.pod}"`,
    `dst_pod_template_hash="${e.hash}"`,
    ...(e.service ? [`dst_service="${e.service}"`] : []),
    `dst_serviceaccount="${e.deployment}"`,
  ].join(',');
}

/** Legacy families for these endpoints: request_total, latency histogram, transport (dst side, and src side with `origDst`). */
export function legacyEndpointDump(endpoints: readonly EndpointSpec[], origDst: readonly string[] = []): string {
  const lines: string[] = ['# HELP request_total Total count of HTTP requests.', '# TYPE request_total counter'];
  for (const e of endpoints) lines.push(`request_total{${endpointLabels(e)}} 10`);
  lines.push('# HELP response_latency_ms Elapsed times.', '# TYPE response_latency_ms histogram');
  for (const e of endpoints) {
    for (const s of e.statuses ?? ['200']) {
      const base = `${endpointLabels(e)},status_code="${s}"`;
      BUCKETS.forEach((le, i) => lines.push(`response_latency_ms_bucket{${base},le="${le}"} ${i}`));
      lines.push(`response_latency_ms_count{${base}} 25`, `response_latency_ms_sum{${base}} 100`);
    }
  }
  lines.push('# HELP tcp_open_connections Number of currently-open connections', '# TYPE tcp_open_connections gauge');
  for (const ip of origDst)
    lines.push(
      `tcp_open_connections{direction="outbound",peer="src",target_addr="${ip}:8080",target_ip="${ip}",target_port="8080",tls="no_identity",no_tls_reason="loopback"} 1`,
    );
  for (const e of endpoints) lines.push(`tcp_open_connections{${endpointLabels(e, 'dst')}} ${e.open ?? 1}`);
  return lines.join('\n') + '\n';
}

export function podSection(pod: string, i: number, n: number, body: string): string {
  return `#\n# POD ${pod} (${i} of ${n})\n#\n${body}`;
}
