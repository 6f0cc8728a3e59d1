// Inputs shared by the threshold log rules' fire/quiet cases: proxy logs as `kubectl logs
// --timestamps` writes them (RFC 3339 collector time, then the proxy's own `[uptime]` line), the
// committed healthy bundles, and the real proxy excerpts in test/data/real/proxy-log/ (sources in
// test/data/real/README.md, status in its expected.json).

import { readFileSync } from 'node:fs';
import { fixtureInputs } from './fixture-inputs.js';
import type { TestInput } from './rule-tester.js';

export interface LogEvent {
  /** Seconds of proxy uptime. */
  uptime: number;
  level: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** Everything after the thread id: spans, target, message, fields. */
  body: string;
}

/** One proxy's log; `started` is the wall-clock time of uptime 0. */
export function proxyLog(path: string, started: string, events: readonly LogEvent[], thread = 1): TestInput {
  const t0 = Date.parse(started);
  const lines = [...events]
    .sort((a, b) => a.uptime - b.uptime)
    .map((e) => {
      const wall = new Date(t0 + e.uptime * 1000)
        .toISOString()
        .replace('Z', '000000Z')
        .replace(/\.(\d{3})000000Z$/, '.$1000000Z');
      const up = e.uptime.toFixed(6).padStart(13);
      return `${wall} [${up}s] ${e.level.padStart(5)} ThreadId(${String(thread).padStart(2, '0')}) ${e.body}`;
    });
  return { path, content: lines.join('\n') + '\n' };
}

/** `count` events every `period` seconds from `from`, with a little jitter so lines are not identical. */
export function every(from: number, period: number, count: number, level: LogEvent['level'], body: string | ((i: number) => string)): LogEvent[] {
  return Array.from({ length: count }, (_, i) => ({ uptime: from + i * period + (i % 3) * 0.000137, level, body: typeof body === 'string' ? body : body(i) }));
}

/** A proxy's start-up banner, as 2.14+ proxies print it. */
export function startup(identity: string): LogEvent[] {
  return [
    { uptime: 0.002738, level: 'INFO', body: 'linkerd2_proxy: release 2.210.4 (5a910be) by linkerd on 2023-11-22T17:01:46Z' },
    { uptime: 0.004113, level: 'INFO', body: 'linkerd2_proxy::rt: Using single-threaded proxy runtime' },
    { uptime: 0.005312, level: 'INFO', body: 'linkerd2_proxy: Admin interface on 0.0.0.0:4191' },
    { uptime: 0.005331, level: 'INFO', body: 'linkerd2_proxy: Inbound interface on 0.0.0.0:4143' },
    { uptime: 0.005339, level: 'INFO', body: 'linkerd2_proxy: Outbound interface on 127.0.0.1:4140' },
    { uptime: 0.005347, level: 'INFO', body: `linkerd2_proxy: Local identity is ${identity}` },
    {
      uptime: 0.005358,
      level: 'INFO',
      body: 'linkerd2_proxy: Identity verified via linkerd-identity-headless.linkerd.svc.cluster.local:8080 (linkerd-identity.linkerd.serviceaccount.identity.linkerd.cluster.local)',
    },
    {
      uptime: 0.005366,
      level: 'INFO',
      body: 'linkerd2_proxy: Destinations resolved via linkerd-dst-headless.linkerd.svc.cluster.local:8086 (linkerd-destination.linkerd.serviceaccount.identity.linkerd.cluster.local)',
    },
  ];
}

const REAL_ROOT = new URL('../data/real/', import.meta.url);

/** A real proxy excerpt from test/data/real/proxy-log/ (its README names the thread it came from). */
export function real(file: string): TestInput {
  return { path: `real/${file}`, content: readFileSync(new URL(`proxy-log/${file}`, REAL_ROOT)) };
}

/** The real proxy excerpts expected.json marks healthy (start-up output of several releases and formats). */
export function realHealthy(): TestInput[] {
  const expected = JSON.parse(readFileSync(new URL('expected.json', REAL_ROOT), 'utf8')) as { file: string; status: string }[];
  return expected
    .filter((e) => e.status === 'healthy' && e.file.startsWith('proxy-log/'))
    .map((e) => e.file.slice('proxy-log/'.length))
    .sort()
    .map(real);
}

/** The committed healthy bundles' proxy logs (fixtures/healthy). */
export function healthyLogs(): TestInput[] {
  return fixtureInputs('fixtures/healthy', (name) => name.endsWith('.log'));
}
