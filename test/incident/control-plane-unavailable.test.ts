import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import rule from '../../src/rules/control-plane-unavailable/index.js';
import { runRule } from '../support/rule-tester.js';

const ISSUE_LINE =
  'INFO ThreadId(01) inbound:server{port=8086}:rescue{client.addr=CLIENT}: linkerd_app_core::errors::respond: gRPC request failed error=client CLIENT: server: 10.2.24.49:8086: server 10.2.24.49:8086: service linkerd-dst-headless.linkerd2.svc.cluster.local:8086: service unavailable error.sources=[server 10.2.24.49:8086: service linkerd-dst-headless.linkerd2.svc.cluster.local:8086: service unavailable, service unavailable]';

function ts(ms: number): string {
  return new Date(ms).toISOString();
}

function up(s: number): string {
  const whole = Math.floor(s);
  return `[${String(whole).padStart(6)}.${String(Math.round((s - whole) * 1e6)).padStart(6, '0')}s]`;
}

/** `count` failed calls, `perSecond` a second, starting at uptime `startUptime`. */
function failures(count: number, opts: { perSecond?: number; startUptime?: number; clients?: number; wallStart?: number; line?: string } = {}): string {
  const perSecond = opts.perSecond ?? 4;
  const start = opts.startUptime ?? 5000;
  const wall = opts.wallStart ?? Date.parse('2025-03-04T03:12:00Z');
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const t = start + i / perSecond;
    const client = `10.2.118.${(i % (opts.clients ?? 7)) + 2}:${40000 + i}`;
    lines.push(`${ts(wall + (t - start) * 1000)} ${up(t)}  ${(opts.line ?? ISSUE_LINE).replaceAll('CLIENT', client)}`);
  }
  return lines.join('\n') + '\n';
}

const DST_POD = 'linkerd/linkerd-destination-7d9f8c6b5d-x2x8k/linkerd-proxy.log';

describe('control-plane-unavailable: fires', () => {
  it('on the destination proxy shedding load, with counts, clients, window and controller', async () => {
    const { findings } = await runRule(rule, [{ path: DST_POD, content: failures(120, { clients: 9 }) }]);
    assert.equal(findings.length, 1);
    const f = findings[0]!;
    assert.equal(f.severity, 'error');
    assert.equal(f.evidence.controller, 'destination');
    assert.equal(f.evidence.failures, 120);
    assert.equal(f.evidence.distinctClients, 9);
    assert.deepEqual(f.evidence.failureKinds, { 'service unavailable': 120 });
    const window = f.evidence.window as { start: string; end: string; durationSeconds: number; clock: string };
    assert.equal(window.clock, 'wall');
    assert.equal(window.start, '2025-03-04T03:12:00.000Z');
    assert.equal(window.durationSeconds, 29.8);
    assert.equal(f.subject.target, 'linkerd-dst-headless.linkerd2.svc.cluster.local:8086');
    assert.equal(f.subject.workload, 'linkerd-destination');
    assert.match(f.message, /saturated/);
    assert.ok(f.evidence.timeline && f.evidence.timeline.counts.reduce((a, b) => a + b, 0) === 120);
  });

  it('on the issue line even when the pod name is unknown, because the error names the dst service', async () => {
    const { findings } = await runRule(rule, [{ path: 'capture.txt', content: failures(30), kind: 'proxy-log' }]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.evidence.controller, 'destination');
  });

  it('on older proxies logging `Failed to proxy request` on inbound 8086, identified by the Local identity line', async () => {
    const line =
      'WARN ThreadId(01) inbound:accept{peer.addr=CLIENT target.addr=10.36.216.4:8086}: linkerd_app_core::errors: Failed to proxy request: HTTP Logical service in fail-fast';
    const head = `${up(0.006)}  INFO ThreadId(01) linkerd2_proxy: Local identity is linkerd-destination.linkerd.serviceaccount.identity.linkerd.cluster.local\n`;
    const body = failures(25, { line }).replace(/^\S+ /gm, '');
    const { findings } = await runRule(rule, [{ path: 'dst.log', content: head + body, kind: 'proxy-log' }]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.evidence.failures, 25);
    assert.deepEqual(findings[0]!.evidence.failureKinds, { 'fail-fast': 25 });
    assert.equal((findings[0]!.evidence.window as { clock: string }).clock, 'proxy uptime (no collector timestamps)');
  });

  it('on repeated fail-fast of the policy port inside the destination pod', async () => {
    const content = [5000, 5100]
      .map((t) => `${up(t)}  WARN ThreadId(01) inbound:server{port=8090}: linkerd_stack::failfast: Service entering failfast after 3s`)
      .join('\n');
    const { findings } = await runRule(rule, [{ path: DST_POD, content }]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.evidence.controller, 'policy');
    assert.equal(findings[0]!.evidence.failfastEpisodes, 2);
  });

  it('on an identity pod that restarted twice in one capture, as a warning', async () => {
    const run = (n: number) =>
      `${up(0.002)}  INFO ThreadId(01) linkerd2_proxy: release 2.210.4 (abc1234) by linkerd on 2023-11-22T17:01:46Z\n${up(1.5)}  INFO ThreadId(01) linkerd2_proxy: Admin interface on 0.0.0.0:4191 run=${n}\n`;
    const { findings } = await runRule(rule, [{ path: 'linkerd/linkerd-identity-6f8d9c7b4f-qw2zl/linkerd-proxy.log', content: run(1) + run(2) + run(3) }]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.evidence.controller, 'identity');
    assert.equal(findings[0]!.evidence.restarts, 2);
    assert.equal(findings[0]!.severity, 'warning');
  });

  it('on a destination controller container that started three times (Go `running version` lines)', async () => {
    const start = (t: string) =>
      `${t} time="${t.slice(0, 19)}Z" level=info msg="running version stable-2.14.9"\n${t} time="${t.slice(0, 19)}Z" level=info msg="starting admin server on :9996"\n`;
    const content = start('2024-06-06T11:01:45.527253157Z') + start('2024-06-06T11:03:10.100000000Z') + start('2024-06-06T11:05:00.100000000Z');
    const { findings } = await runRule(rule, [{ path: 'linkerd/linkerd-destination-7d9f8c6b5d-x2x8k/destination.log', content }]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.evidence.restarts, 2);
    assert.deepEqual((findings[0]!.evidence.podRestarts as { lastRestart: string }[])[0]!.lastRestart, '2024-06-06T11:05:00.100Z');
  });

  it('on JSON-format controller proxies (v2.252+ wall-clock timestamps)', async () => {
    const lines = Array.from({ length: 25 }, (_, i) =>
      JSON.stringify({
        timestamp: new Date(Date.parse('2025-03-04T03:12:00Z') + i * 250).toISOString(),
        level: 'INFO',
        fields: { message: 'gRPC request failed', error: 'server 10.2.24.49:8090: service linkerd-policy.linkerd.svc.cluster.local:8090: service unavailable' },
        target: 'linkerd_app_core::errors::respond',
        spans: [{ name: 'inbound' }, { port: 8090, name: 'server' }, { 'client.addr': `10.2.7.${i % 5}:4000${i}`, name: 'rescue' }],
        threadId: 'ThreadId(1)',
      }),
    );
    const { findings } = await runRule(rule, [{ path: 'dst.json.log', content: lines.join('\n'), kind: 'proxy-log' }]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.evidence.controller, 'policy');
    assert.equal(findings[0]!.evidence.distinctClients, 5);
    assert.equal((findings[0]!.evidence.window as { durationSeconds: number }).durationSeconds, 6);
  });

  it('reads minFailures from its options', async () => {
    const quiet = await runRule(rule, [{ path: DST_POD, content: failures(8) }]);
    assert.equal(quiet.findings.length, 0);
    const loud = await runRule(rule, [{ path: DST_POD, content: failures(8) }], { minFailures: 8 });
    assert.equal(loud.findings.length, 1);
  });
});

describe('control-plane-unavailable: stays quiet', () => {
  it('for an application serving HTTP on 8080 (the identity port number) that sheds load', async () => {
    const line =
      'INFO ThreadId(01) inbound:server{port=8080}:rescue{client.addr=CLIENT}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=server 10.2.9.9:8080: service web.default.svc.cluster.local:8080: service unavailable';
    const { findings } = await runRule(rule, [{ path: 'default/web-5c9f8d7b6c-abcde/linkerd-proxy.log', content: failures(200, { line }) }]);
    assert.deepEqual(findings, []);
  });

  it('for failures in the first seconds after the controller proxy started (its container is still starting)', async () => {
    const { findings } = await runRule(rule, [{ path: DST_POD, content: failures(30, { startUptime: 1, perSecond: 10 }) }]);
    assert.deepEqual(findings, []);
  });

  it('for a client proxy whose outbound calls to the destination fail (that is the client side)', async () => {
    const line =
      'INFO ThreadId(01) outbound:proxy{addr=10.2.24.49:8086}:rescue{client.addr=CLIENT}: linkerd_app_core::errors::respond: gRPC request failed error=service linkerd-dst-headless.linkerd.svc.cluster.local:8086: service unavailable';
    const { findings } = await runRule(rule, [{ path: 'ingress/traefik-7d9f8c6b5d-x2x8k/linkerd-proxy.log', content: failures(100, { line }) }]);
    assert.deepEqual(findings, []);
  });

  it('for one restart of a destination pod (a rollout), and for a healthy destination log', async () => {
    const log = `${up(0.002)}  INFO ThreadId(01) linkerd2_proxy: release 2.210.4 (abc1234) by linkerd on 2023-11-22T17:01:46Z\n${up(3)}  INFO ThreadId(01) linkerd2_proxy: Admin interface on 0.0.0.0:4191\n`;
    const { findings } = await runRule(rule, [{ path: DST_POD, content: log + log }]);
    assert.deepEqual(findings, []);
  });
});

describe('control-plane-unavailable: merge', () => {
  it('two inputs analysed apart and merged give the findings of one sequential run', async () => {
    const { Readable } = await import('node:stream');
    const { RuleEngine } = await import('../../src/engine/engine.js');
    const { readEntry } = await import('../../src/engine/pipeline.js');
    const inputs = [
      { path: DST_POD, content: failures(15, { clients: 4 }) },
      {
        path: 'linkerd/linkerd-destination-7d9f8c6b5d-b4c5d/linkerd-proxy.log',
        content: failures(15, { clients: 6, wallStart: Date.parse('2025-03-04T03:14:00Z') }),
      },
    ];
    const configured = [{ rule, options: { ...rule.meta.defaultOptions } }];
    const feed = async (engine: InstanceType<typeof RuleEngine>, input: (typeof inputs)[number]) => {
      const result = await readEntry({ path: input.path, stream: Readable.from([Buffer.from(input.content)]), size: null }, { record: (r) => engine.emit(r) });
      return result.stats;
    };
    const sequential = new RuleEngine(configured);
    const stats = [await feed(sequential, inputs[0]!), await feed(sequential, inputs[1]!)];
    const left = new RuleEngine(configured);
    const right = new RuleEngine(configured);
    await feed(left, inputs[0]!);
    await feed(right, inputs[1]!);
    left.absorb(structuredClone(right.snapshot()));
    const merged = left.finish(stats).findings;
    assert.equal(merged.length, 1);
    assert.equal(merged[0]!.evidence.failures, 30);
    assert.deepEqual(merged, sequential.finish(stats).findings);
  });
});
