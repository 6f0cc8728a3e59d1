// Seeded generators for the benchmark inputs: a proxy log in the shape of the seed incident's
// reconnect storm, and a multi-pod `linkerd diagnostics proxy-metrics` dump. The same size and
// seed always give byte-identical files, so cached inputs can be reused and figures compared.

import { closeSync, openSync, renameSync, writeSync } from 'node:fs';
import { podName, seeded, type Random } from '../fixtures/prng.js';
import { LATENCY_BUCKETS } from '../fixtures/metrics.js';

const MiB = 1 << 20;

/** Buffers output and writes it in large blocks; the file appears under its name only when complete. */
class BlockWriter {
  private parts: string[] = [];
  private pending = 0;
  written = 0;
  lines = 0;
  private readonly fd: number;

  constructor(private readonly file: string) {
    this.fd = openSync(`${file}.partial`, 'w');
  }

  line(text: string): void {
    this.parts.push(text, '\n');
    this.pending += text.length + 1;
    this.lines++;
    if (this.pending >= 4 * MiB) this.flush();
  }

  private flush(): void {
    const buf = Buffer.from(this.parts.join(''), 'utf8');
    writeSync(this.fd, buf);
    this.written += buf.length;
    this.parts = [];
    this.pending = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
    renameSync(`${this.file}.partial`, this.file);
  }
}

interface Pod {
  name: string;
  namespace: string;
  workload: string;
  ip: string;
  port: number;
}

const WORKLOADS = ['web', 'cart', 'checkout', 'catalog', 'payments', 'search', 'ads', 'auth', 'emoji', 'voting', 'books', 'authors'];
const NAMESPACES = ['shop', 'emojivoto', 'booksapp', 'payments'];

function makePods(r: Random, count: number): Pod[] {
  const pods: Pod[] = [];
  for (let i = 0; i < count; i++) {
    const workload = r.pick(WORKLOADS);
    pods.push({
      name: podName(r, workload),
      namespace: r.pick(NAMESPACES),
      workload,
      ip: `10.42.${r.int(0, 63)}.${r.int(2, 254)}`,
      port: r.pick([8080, 8080, 8080, 9090, 7000, 3000]),
    });
  }
  return pods;
}

const CONTROL_ENDPOINTS = ['10.42.0.15', '10.42.1.22', '10.42.2.9'];
const RECONNECT_ERRORS = ['Connection refused (os error 111)', 'connect timed out after 1s', 'No route to host (os error 113)'];

function uptimeText(seconds: number): string {
  const whole = Math.floor(seconds);
  const micros = Math.floor((seconds - whole) * 1e6);
  return `[${String(whole).padStart(6)}.${String(micros).padStart(6, '0')}s]`;
}

/** Bump when the generators change, so stale cached inputs are not reused (`npm run bench` and `bench:profile` name their inputs with it). */
export const GENERATOR_VERSION = 3;

export interface ProxyLogShape {
  bytes: number;
  seed?: number;
  pods?: number;
  /** Share of the file (from the start) whose lines carry a `kubectl logs --timestamps` prefix. */
  timestampedShare?: number;
  /** Log lines per second of proxy uptime (default: ~2,700, which gives each of ~400 loops the 2/s of a 500 ms backoff at 30 % reconnect lines). */
  linesPerSecond?: number;
}

/**
 * One busy proxy during a storm: 30 % `linkerd_reconnect` warnings (towards the destination
 * controller and towards ~400 application endpoints), the rest INFO/WARN traffic naming the same
 * addresses. The first part of the file carries kubectl --timestamps prefixes; the rest is plain
 * (as when two captures are concatenated), so wall time must be anchored across the file.
 */
export function writeProxyLog(file: string, shape: ProxyLogShape): { bytes: number; lines: number } {
  const r = seeded(shape.seed ?? 6);
  const pods = makePods(r, shape.pods ?? 400);
  const out = new BlockWriter(file);
  const start = Date.UTC(2026, 10, 27, 3, 12, 0);
  const prefixedUntil = shape.bytes * (shape.timestampedShare ?? 0.35);
  let uptime = 73137.020135;
  const meanStep = 1 / (shape.linesPerSecond ?? 2700);
  while (out.written + 0 < shape.bytes) {
    for (let i = 0; i < 2000; i++) {
      uptime += r.next() * meanStep * 2;
      const pod = r.pick(pods);
      const client = r.pick(pods);
      const thread = `ThreadId(0${r.int(1, 2)})`;
      const roll = r.next();
      let body: string;
      if (roll < 0.3) {
        if (r.chance(0.25)) {
          const ep = r.pick(CONTROL_ENDPOINTS);
          body = ` WARN ${thread} dst:controller{addr=linkerd-dst-headless.linkerd.svc.cluster.local:8086}:endpoint{addr=${ep}:8086}: linkerd_reconnect: Failed to connect error=endpoint ${ep}:8086: ${r.pick(RECONNECT_ERRORS)} error.sources=[${r.pick(RECONNECT_ERRORS)}]`;
        } else {
          body = ` WARN ${thread} outbound:proxy{addr=${pod.ip}:${pod.port}}:service{ns=${pod.namespace} name=${pod.workload} port=${pod.port}}:endpoint{addr=${pod.ip}:${pod.port}}: linkerd_reconnect: Failed to connect error=${r.pick(RECONNECT_ERRORS)}`;
        }
      } else if (roll < 0.55) {
        body = ` INFO ${thread} inbound:server{port=4143}:rescue{client.addr=${client.ip}:${r.int(32768, 60999)}}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=error trying to connect: Connection refused (os error 111) error.sources=[Connection refused (os error 111)]`;
      } else if (roll < 0.7) {
        body = ` INFO ${thread} outbound:proxy{addr=${pod.ip}:${pod.port}}:service{ns=${pod.namespace} name=${pod.workload} port=${pod.port}}: linkerd_pool_p2c: ${r.chance(0.5) ? 'Adding' : 'Removing'} endpoint addr=${pod.ip}:${pod.port}`;
      } else if (roll < 0.82) {
        body = ` INFO ${thread} outbound:proxy{addr=${pod.ip}:${pod.port}}:service{ns=${pod.namespace} name=${pod.workload} port=${pod.port}}: linkerd_proxy_balance_queue::worker: Unavailable; entering failfast timeout=3.0`;
      } else if (roll < 0.92) {
        body = ` WARN ${thread} outbound:proxy{addr=${pod.ip}:${pod.port}}:rescue{client.addr=${client.ip}:${r.int(32768, 60999)}}: linkerd_app_core::errors::respond: gRPC request failed error=logical service ${pod.ip}:${pod.port}: service in fail-fast error.sources=[service in fail-fast]`;
      } else {
        body = ` INFO ${thread} inbound:server{port=4143}: linkerd_app_inbound::detect: Handling connection as opaque client.addr=${client.ip}:${r.int(32768, 60999)} server.addr=${pod.ip}:4143`;
      }
      const line = `${uptimeText(uptime)} ${body}`;
      if (out.written < prefixedUntil) {
        const wall = new Date(start + (uptime - 73137) * 1000).toISOString().replace('Z', `${String(r.int(0, 999999)).padStart(6, '0')}Z`);
        out.line(`${wall} ${line}`);
      } else {
        out.line(line);
      }
    }
  }
  out.close();
  return { bytes: out.written, lines: out.lines };
}

export interface DumpShape {
  series: number;
  seed?: number;
  pods?: number;
}

/**
 * A `linkerd diagnostics proxy-metrics` dump of several pods: per pod a `# POD` header, the legacy
 * families (response_latency_ms histograms per destination pod dominate, as in the 250k-series
 * reports), then the prometheus-client section with `# UNIT` and `# EOF`.
 */
export function writeMetricsDump(file: string, shape: DumpShape): { bytes: number; lines: number; series: number } {
  const r = seeded(shape.seed ?? 62);
  const podCount = shape.pods ?? 20;
  const targets = makePods(r, 400);
  const out = new BlockWriter(file);
  const perPod = Math.ceil(shape.series / podCount);
  let series = 0;
  for (let p = 0; p < podCount; p++) {
    const self = podName(r, r.pick(WORKLOADS));
    out.line('#');
    out.line(`# POD ${self} (${p + 1} of ${podCount})`);
    out.line('#');
    let podSeries = 0;
    out.line('# HELP request_total Total count of HTTP requests.');
    out.line('# TYPE request_total counter');
    const labelSets: string[] = [];
    for (let i = 0; podSeries < perPod * 0.04; i++) {
      const t = targets[i % targets.length]!;
      const hash = `${r.hex(9)}`.slice(0, 9);
      const labels = `direction="outbound",authority="${t.workload}.${t.namespace}.svc.cluster.local:${t.port}",target_addr="${t.ip}:${t.port}",target_ip="${t.ip}",target_port="${t.port}",tls="true",server_id="${t.workload}.${t.namespace}.serviceaccount.identity.linkerd.cluster.local",dst_control_plane_ns="linkerd",dst_deployment="${t.workload}",dst_namespace="${t.namespace}",dst_pod="${t.name}",dst_pod_template_hash="${hash}",dst_serviceaccount="${t.workload}"`;
      labelSets.push(labels);
      out.line(`request_total{${labels}} ${r.int(1, 900000)}`);
      podSeries++;
    }
    out.line("# HELP response_latency_ms Elapsed times between a request's headers being received and its response stream completing");
    out.line('# TYPE response_latency_ms histogram');
    let k = 0;
    while (podSeries + LATENCY_BUCKETS.length + 2 <= perPod * 0.97) {
      const labels = `${labelSets[k % labelSets.length]},status_code="${r.pick(['200', '200', '200', '503', '504'])}"`;
      k++;
      let cumulative = 0;
      for (const le of LATENCY_BUCKETS) {
        cumulative += r.int(0, 400);
        out.line(`response_latency_ms_bucket{${labels},le="${le}"} ${cumulative}`);
      }
      out.line(`response_latency_ms_sum{${labels}} ${cumulative * r.int(3, 40)}`);
      out.line(`response_latency_ms_count{${labels}} ${cumulative}`);
      podSeries += LATENCY_BUCKETS.length + 2;
    }
    out.line('# HELP tcp_open_connections Number of currently-open connections.');
    out.line('# TYPE tcp_open_connections gauge');
    // Three more samples follow in the prometheus-client section. The label sets begin with
    // `direction`, which must not be written twice: promtool stops at a duplicate label name.
    for (let i = 0; podSeries < perPod - 3; i++) {
      out.line(
        `tcp_open_connections{direction="outbound",peer="dst",${labelSets[i % labelSets.length]!.slice('direction="outbound",'.length)}} ${r.int(0, 40)}`,
      );
      podSeries++;
    }
    out.line('# HELP process_cpu_seconds Total user and system CPU time spent in seconds.');
    out.line('# TYPE process_cpu_seconds counter');
    out.line('# UNIT process_cpu_seconds seconds');
    out.line(`process_cpu_seconds_total ${(r.next() * 9000).toFixed(2)}`);
    out.line('# HELP proxy_build_info Proxy build info.');
    out.line('# TYPE proxy_build_info gauge');
    out.line('proxy_build_info{version="2.280.0",git_sha="0b6ae0b",profile="release",vendor="linkerd"} 1');
    out.line('# HELP outbound_http_balancer_endpoints The number of endpoints currently in a HTTP request balancer.');
    out.line('# TYPE outbound_http_balancer_endpoints gauge');
    out.line(
      `outbound_http_balancer_endpoints{parent_group="core",parent_kind="Service",parent_namespace="shop",parent_name="cart",parent_port="8080",parent_section_name="",backend_group="core",backend_kind="Service",backend_namespace="shop",backend_name="cart",backend_port="8080",backend_section_name="",endpoint_state="ready"} ${r.int(1, 9)}`,
    );
    out.line('# EOF');
    podSeries += 3;
    series += podSeries;
  }
  out.close();
  return { bytes: out.written, lines: out.lines, series };
}
