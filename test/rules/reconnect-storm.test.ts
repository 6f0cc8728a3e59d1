import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { backoffVerdict, medianWithZeros } from '../../src/rules/reconnect-storm/cadence.js';
import reconnectStorm, { classifyError } from '../../src/rules/reconnect-storm/index.js';
import { checkProperty } from '../support/fuzz.js';
import { runRule, type TestInput } from '../support/rule-tester.js';

const DST = 'linkerd-dst-headless.linkerd.svc.cluster.local:8086';
const POLICY = 'linkerd-policy.linkerd.svc.cluster.local:8090';
const T0 = Date.parse('2024-06-06T11:00:00Z');

interface LoopSpec {
  controller?: string;
  endpoint: string;
  fromSeconds: number;
  toSeconds: number;
  /** Attempt spacing after the 100/200/400 ms warm-up; default 0.5 s (pre-v2.307 cap). */
  capSeconds?: number;
  /** Exponential growth without a 0.5 s cap (v2.307+: outbound max 60 s). */
  maxSeconds?: number;
}

type Layout = 'kubectl' | 'plain' | 'json';

function failureTimes(loop: LoopSpec): number[] {
  const times: number[] = [];
  let t = loop.fromSeconds;
  let backoff = 0.1;
  const cap = loop.maxSeconds ?? loop.capSeconds ?? 0.5;
  while (t < loop.toSeconds) {
    times.push(t);
    t += backoff;
    backoff = Math.min(backoff * 2, cap);
  }
  return times;
}

function line(layout: Layout, loop: LoopSpec, t: number, bootSeconds: number): string {
  const uptime = (t - bootSeconds).toFixed(6).padStart(13);
  const spans = loop.controller
    ? `outbound:proxy{addr=10.2.7.7:8080}:controller{addr=${loop.controller}}:endpoint{addr=${loop.endpoint}}`
    : `outbound:proxy{addr=10.2.7.7:8080}:endpoint{addr=${loop.endpoint}}`;
  const error = `endpoint ${loop.endpoint}: Connection refused (os error 111)`;
  if (layout === 'json') {
    const jsonSpans = [
      { name: 'outbound' },
      ...(loop.controller ? [{ addr: loop.controller, name: 'controller' }] : []),
      { addr: loop.endpoint, name: 'endpoint' },
    ];
    return JSON.stringify({
      timestamp: new Date(T0 + t * 1000).toISOString(),
      level: 'WARN',
      fields: { message: 'Failed to connect', error },
      target: 'linkerd_reconnect',
      spans: jsonSpans,
      threadId: 'ThreadId(1)',
    });
  }
  const payload = `[${uptime}s]  WARN ThreadId(01) ${spans}: linkerd_reconnect: Failed to connect error=${error} error.sources=[Connection refused (os error 111)]`;
  return layout === 'kubectl' ? `${new Date(T0 + t * 1000).toISOString()} ${payload}` : payload;
}

function proxyLog(pod: string, loops: LoopSpec[], layout: Layout = 'kubectl', extra: (t: number) => string[] = () => []): TestInput {
  const events = loops.flatMap((loop) => failureTimes(loop).map((t) => ({ t, text: line(layout, loop, t, -3600) })));
  events.sort((a, b) => a.t - b.t);
  const lines = events.flatMap((e) => [e.text, ...extra(e.t)]);
  return { path: `ingress/${pod}/linkerd-proxy.log`, content: lines.join('\n') + '\n' };
}

const pod = (i: number) => `traefik-7d9f8c6b5${i.toString(36).padStart(1, '0')}-x2x8${String.fromCharCode(98 + (i % 20))}`;

describe('reconnect-storm: fires', () => {
  it('on one loop failing at the 500 ms backoff cap for 40 s (warning: one pod)', async () => {
    const { findings } = await runRule(reconnectStorm, [proxyLog(pod(1), [{ controller: DST, endpoint: '10.2.88.14:8086', fromSeconds: 0, toSeconds: 40 }])]);
    assert.equal(findings.length, 1);
    const f = findings[0]!;
    assert.equal(f.severity, 'warning');
    assert.equal(f.subject.target, DST);
    assert.equal(f.subject.pod, pod(1));
    assert.equal(f.evidence.sustainedLoops, 1);
    assert.match(String((f.evidence.backoff as { verdict: string }).verdict), /500 ms backoff cap/);
    assert.equal(f.locations.length, 3);
    assert.equal(f.locations[0]!.line, 1);
  });

  it('as an error when many pods storm the destination and policy controllers, one finding per controller', async () => {
    const inputs = Array.from({ length: 8 }, (_, i) =>
      proxyLog(pod(i), [
        { controller: DST, endpoint: '10.2.88.14:8086', fromSeconds: i, toSeconds: 60 + i },
        { controller: DST, endpoint: '10.2.102.227:8086', fromSeconds: i, toSeconds: 60 + i },
        { controller: POLICY, endpoint: '10.2.88.14:8090', fromSeconds: i, toSeconds: 60 + i },
      ]),
    );
    const { findings } = await runRule(reconnectStorm, inputs);
    assert.deepEqual(
      findings.map((f) => [f.subject.target, f.severity]),
      [
        [DST, 'error'],
        [POLICY, 'error'],
      ],
    );
    const dst = findings[0]!;
    const perLoop = failureTimes({ endpoint: '', fromSeconds: 0, toSeconds: 60 }).length;
    assert.equal(dst.evidence.totalLines, 8 * 2 * perLoop);
    assert.equal(dst.evidence.podsAffected, 8);
    assert.equal(dst.evidence.loops, 16);
    assert.equal(dst.subject.namespace, 'ingress');
    assert.equal(dst.subject.pod, undefined, 'a storm across pods has no single pod subject');
    const rate = dst.evidence.rate as Record<string, number>;
    assert.ok(rate.medianLinesPerSecondPerLoop! > 1.9 && rate.medianLinesPerSecondPerLoop! < 2.1, `median per loop ${rate.medianLinesPerSecondPerLoop}`);
    assert.ok(rate.peakLinesPerSecondCluster! >= 30);
    assert.ok(dst.evidence.timeline && dst.evidence.timeline.counts.length === 2, 'per-minute timeline over the 67 s window');
    assert.deepEqual((dst.evidence.topTargets as { endpoint: string }[]).map((t) => t.endpoint).sort(), ['10.2.102.227:8086', '10.2.88.14:8086']);
    assert.match(dst.remediation, /#12598/);
    assert.match(dst.remediation, /proxy\.additionalEnv/);
    assert.equal(dst.keyFigure?.value, dst.evidence.totalLines);
  });

  it('when many pods fail at once even though no single capture is 30 s long', async () => {
    const inputs = Array.from({ length: 6 }, (_, i) => proxyLog(pod(i), [{ controller: DST, endpoint: '10.2.88.14:8086', fromSeconds: 100, toSeconds: 115 }]));
    const { findings } = await runRule(reconnectStorm, inputs);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.evidence.sustainedLoops, 0);
    assert.equal(findings[0]!.evidence.podsFailingContinuously, 6);
  });

  it('on logs without collector timestamps, timing loops by proxy uptime', async () => {
    const { findings } = await runRule(reconnectStorm, [
      proxyLog(pod(2), [{ controller: DST, endpoint: '10.2.88.14:8086', fromSeconds: 0, toSeconds: 45 }], 'plain'),
    ]);
    assert.equal(findings.length, 1);
    assert.match(String((findings[0]!.evidence.window as { clock: string }).clock), /uptime/);
    assert.equal(findings[0]!.evidence.timeline, undefined, 'no wall-clock timeline is invented');
  });

  it('on JSON logs', async () => {
    const { findings } = await runRule(reconnectStorm, [
      proxyLog(pod(3), [{ controller: POLICY, endpoint: '10.2.88.14:8090', fromSeconds: 0, toSeconds: 40 }], 'json'),
    ]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.subject.target, POLICY);
  });

  it('on proxies with the v2.307 backoff (attempts stretching to 60 s) that keep failing for minutes', async () => {
    const { findings } = await runRule(reconnectStorm, [
      proxyLog(pod(4), [{ controller: DST, endpoint: '10.2.88.14:8086', fromSeconds: 0, toSeconds: 400, maxSeconds: 60 }]),
    ]);
    assert.equal(findings.length, 1);
    assert.match(String((findings[0]!.evidence.backoff as { verdict: string }).verdict), /v2\.307|custom/);
  });

  it('says when the rate is faster than any backoff allows (events collected twice)', async () => {
    const { findings } = await runRule(reconnectStorm, [
      proxyLog(pod(5), [{ controller: DST, endpoint: '10.2.88.14:8086', fromSeconds: 0, toSeconds: 40 }], 'kubectl', (t) => [
        line('kubectl', { controller: DST, endpoint: '10.2.88.14:8086', fromSeconds: 0, toSeconds: 0 }, t, -3600),
      ]),
    ]);
    assert.equal(findings.length, 1);
    const backoff = findings[0]!.evidence.backoff as { verdict: string; loopsExceedingBackoff: number };
    assert.match(backoff.verdict, /shorter than any proxy backoff allows/);
    assert.equal(backoff.loopsExceedingBackoff, 1);
  });

  it('on exports that list the newest line first', async () => {
    const input = proxyLog(pod(7), [{ controller: DST, endpoint: '10.2.88.14:8086', fromSeconds: 0, toSeconds: 40 }]);
    const reversed = String(input.content).trimEnd().split('\n').reverse().join('\n');
    const { findings } = await runRule(reconnectStorm, [{ ...input, content: reversed }]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.evidence.sustainedLoops, 1);
  });

  it('on a sustained data-plane loop (no controller span), as a warning naming the endpoint', async () => {
    const { findings } = await runRule(reconnectStorm, [proxyLog(pod(6), [{ endpoint: '10.2.9.9:8080', fromSeconds: 0, toSeconds: 40 }])]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.severity, 'warning');
    assert.equal(findings[0]!.subject.target, '10.2.9.9:8080');
    assert.doesNotMatch(findings[0]!.remediation, /#12598/);
  });
});

describe('reconnect-storm: stays quiet', () => {
  it('through a control-plane rollout: every pod fails a few seconds towards the replaced endpoint', async () => {
    const inputs = Array.from({ length: 20 }, (_, i) =>
      proxyLog(pod(i), [
        { controller: DST, endpoint: '10.2.40.11:8086', fromSeconds: 100 + (i % 3), toSeconds: 104 + (i % 3) },
        { controller: POLICY, endpoint: '10.2.40.11:8090', fromSeconds: 100 + (i % 3), toSeconds: 104 + (i % 3) },
        { controller: DST, endpoint: '10.2.51.20:8086', fromSeconds: 160, toSeconds: 166 },
      ]),
    );
    const { findings } = await runRule(reconnectStorm, inputs);
    assert.deepEqual(findings, []);
    // The same input fires once the thresholds are below the rollout's few seconds: the quiet
    // result comes from the thresholds, not from missing data.
    const strict = await runRule(reconnectStorm, inputs, { sustainSeconds: 2, clusterRunSeconds: 2 });
    assert.equal(strict.findings.length, 2);
  });

  it('when one loop fails briefly twice, ten minutes apart', async () => {
    const { findings } = await runRule(reconnectStorm, [
      proxyLog(pod(1), [
        { controller: DST, endpoint: '10.2.88.14:8086', fromSeconds: 0, toSeconds: 20 },
        { controller: DST, endpoint: '10.2.88.14:8086', fromSeconds: 620, toSeconds: 640 },
      ]),
    ]);
    assert.deepEqual(findings, []);
  });

  it('on warnings that are not reconnect failures', async () => {
    const lines = Array.from(
      { length: 200 },
      (_, i) =>
        `${new Date(T0 + i * 500).toISOString()} [  ${(100 + i / 2).toFixed(6)}s]  WARN ThreadId(01) linkerd_app_outbound::policy::api: Unexpected policy controller response; retrying with a backoff grpc.status=Deadline expired before operation could complete grpc.message=""`,
    );
    const { findings } = await runRule(reconnectStorm, [{ path: `ingress/${pod(1)}/linkerd-proxy.log`, content: lines.join('\n') }]);
    assert.deepEqual(findings, []);
  });

  it('is skipped, not passed, when there is no proxy log', async () => {
    const { skipped } = await runRule(reconnectStorm, [
      { path: 'dump.txt', content: '# TYPE process_open_fds gauge\nprocess_open_fds 12\n', kind: 'prometheus' },
    ]);
    assert.equal(skipped, true);
  });

  it('on the healthy rollout bundle', async () => {
    const { readdirSync } = await import('node:fs');
    const files = readdirSync('fixtures/healthy', { recursive: true, withFileTypes: true }).filter((d) => d.isFile() && d.name.endsWith('.log'));
    const inputs = files.map((d) => ({ path: `${d.parentPath}/${d.name}`, content: readFileSync(`${d.parentPath}/${d.name}`) }));
    assert.ok(inputs.length >= 10);
    assert.ok(inputs.filter((i) => i.content.includes('Failed to connect')).length >= 10, 'the rollout does log reconnect failures');
    const { findings } = await runRule(reconnectStorm, inputs);
    assert.deepEqual(findings, []);
  });
});

describe('reconnect-storm: helpers', () => {
  it('classifies errors by cause', () => {
    assert.equal(classifyError('endpoint 10.2.102.227:8086: Connection refused (os error 111)'), 'connection refused');
    assert.equal(classifyError('endpoint 10.2.102.227:8086: connect timed out after 1s'), 'connect timed out');
    assert.equal(classifyError('invalid peer certificate: UnknownIssuer'), 'TLS failure');
  });

  it('compares retry intervals with the backoff the proxy versions allow', () => {
    assert.equal(backoffVerdict({ low: 0, high: 0.05 }).exceedsBackoff, true);
    assert.match(backoffVerdict({ low: 0.45, high: 0.55 }).verdict, /500 ms backoff cap/);
    assert.match(backoffVerdict({ low: 1.2, high: 1.7 }).verdict, /connect timeout/);
    assert.match(backoffVerdict({ low: 30, high: 50 }).verdict, /v2\.307/);
    assert.equal(backoffVerdict(null).exceedsBackoff, false);
  });

  it('takes the median of per-second counts plus silent seconds, as sorting them all would', async () => {
    const bySort = (values: number[], zeros: number) => {
      const all = [...values, ...new Array<number>(zeros).fill(0)].sort((a, b) => a - b);
      if (all.length === 0) return null;
      const mid = all.length >> 1;
      return all.length % 2 ? all[mid]! : (all[mid - 1]! + all[mid]!) / 2;
    };
    assert.equal(medianWithZeros([], 0), null);
    assert.equal(medianWithZeros([3, 1, 2], 0), 2);
    assert.equal(medianWithZeros([4, 4], 2), 2);
    assert.equal(medianWithZeros([70_000, 1], 1), 1, 'counts too large for a histogram are sorted');
    await checkProperty(
      'median of counts',
      fc.property(fc.array(fc.nat({ max: 300 }), { maxLength: 200 }), fc.nat({ max: 300 }), (values, zeros) => {
        assert.equal(medianWithZeros(values, zeros), bySort(values, zeros));
      }),
      300,
    );
  });
});
