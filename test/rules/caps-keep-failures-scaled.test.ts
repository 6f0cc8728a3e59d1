// Issue 44, item 1: what a rule does once its bounded state is full. The caps are shrunk (as in
// test/engine/state-bounds.test.ts: LINKERD_DOCTOR_STATE_CAP_SCALE, read once when the rules load,
// so the modules are imported after it is set) to 20 containers / probe keys, and far more pods
// than that are thrown at pod-restarts and probe-failure. Failures stay (the weakest signal goes
// first, healthy containers are only counted), the finding says what was dropped, and the verdict
// is the same whatever the order of the input.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Finding } from '../../src/core/types.js';

process.env.LINKERD_DOCTOR_STATE_CAP_SCALE = '0.002';
const { default: podRestarts } = await import('../../src/rules/pod-restarts/index.js');
const { default: probeFailure } = await import('../../src/rules/probe-failure/index.js');
const { default: controllerApiErrors } = await import('../../src/rules/controller-api-errors/index.js');
const { default: failfast } = await import('../../src/rules/failfast/index.js');
const { default: dnsResolutionFailure } = await import('../../src/rules/dns-resolution-failure/index.js');
const { every, proxyLog } = await import('../support/log-inputs.js');
const { default: staleEndpointMetrics } = await import('../../src/rules/stale-endpoint-metrics/index.js');
const { endpoints, legacyEndpointDump, podSection } = await import('../support/metrics-inputs.js');
const { runRule, runRuleMerged } = await import('../support/rule-tester.js');
const { describePod, EVENTS_HEADER, eventRow, READINESS_403, READINESS_REFUSED } = await import('../support/kube-shapes.js');

const pad = (i: number) => String(i).padStart(5, '0');
/** Deterministic shuffle (a linear congruential generator), so a failure lands anywhere in the input. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const verdict = (findings: Finding[]) =>
  findings
    .map((f) => `${f.severity} ${f.title}`)
    .sort()
    .join('\n');

describe('full caps keep failures first and say what they dropped (issue 44, item 1)', () => {
  const healthy = Array.from({ length: 300 }, (_, i) => describePod({ name: `web-6d4cf56db6-${pad(i)}`, namespace: 'shop' }));
  const ooms = Array.from({ length: 3 }, (_, i) => describePod({ name: `payments-7f9c8d6b5-${pad(i)}`, namespace: 'pay', oomRestarts: 6 }));

  it('pod-restarts: the same OOMKilled proxies in any order of 300 healthy pods, and the healthy ones counted', async () => {
    const verdicts = new Set<string>();
    for (const seed of [1, 2, 3, 4, 5]) {
      const { findings } = await runRule(podRestarts, [{ path: 'describe-pods.txt', content: shuffled([...healthy, ...ooms], seed).join('') }]);
      assert.equal(findings.length, 1, `seed ${seed}`);
      assert.equal(findings[0]!.severity, 'error');
      assert.equal(findings[0]!.evidence.podsAffected ?? (findings[0]!.evidence.pods as unknown[]).length, 3);
      assert.ok((findings[0]!.evidence.containersNotTracked as number) > 0);
      assert.match(findings[0]!.message, /that showed nothing wrong were only counted/);
      verdicts.add(verdict(findings));
    }
    assert.equal(verdicts.size, 1);
  });

  it('pod-restarts: the same when the input is split between workers and merged', async () => {
    const parts = [...healthy.slice(0, 150), ooms[0]!, ...healthy.slice(150), ooms[1]!, ooms[2]!];
    const inputs = [0, 1, 2, 3].map((k) => ({ path: `describe-${k}.txt`, content: parts.filter((_, i) => i % 4 === k).join('') }));
    const findings = await runRuleMerged(podRestarts, inputs);
    assert.equal(findings.length, 1);
    assert.equal((findings[0]!.evidence.pods as unknown[]).length, 3);
  });

  it('pod-restarts: past the cap of failing containers too, the errors outrank the warnings', async () => {
    // 60 proxies OOMKilled once (a warning each), and one OOMKilled six times (an error).
    const once = Array.from({ length: 60 }, (_, i) => describePod({ name: `web-6d4cf56db6-${pad(i)}`, namespace: 'shop', oomRestarts: 1 }));
    const repeated = describePod({ name: 'payments-7f9c8d6b5-00000', namespace: 'pay', oomRestarts: 6 });
    for (const content of [[...once, repeated].join(''), [repeated, ...once].join('')]) {
      const { findings } = await runRule(podRestarts, [{ path: 'describe-pods.txt', content }]);
      assert.ok(findings.some((f) => f.severity === 'error'));
      assert.match(findings[0]!.message, /with a weaker signal than the ones reported were dropped/);
    }
  });

  const blips = Array.from({ length: 300 }, (_, i) => eventRow('shop', `web-6d4cf56db6-${pad(i)}`, 'Unhealthy', READINESS_REFUSED));
  const denied = eventRow('shop', 'api-7f9c8d6b5-zzzzz', 'Unhealthy', READINESS_403);

  it('probe-failure: one 403 among 300 start-up blips fires wherever it is', async () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const rows = shuffled([...blips, denied], seed);
      const { findings } = await runRule(probeFailure, [{ path: 'events.txt', content: [EVENTS_HEADER, ...rows, ''].join('\n') }]);
      assert.equal(findings.length, 1, `seed ${seed}`);
      assert.equal(findings[0]!.evidence.cause, 'policy-denied');
      assert.match(findings[0]!.message, /weaker signal than the ones reported were dropped/);
    }
  });

  it('probe-failure: once more pods are meshed than it keeps, a 403 on a pod it let go is still reported', async () => {
    // The proxy of every pod is listed first (a describe), then the 403 of the last one, whose
    // liveness kill names the application container (without Linkerd a 403 is the app's own).
    const meshed = Array.from({ length: 150 }, (_, i) => describePod({ name: `api-7f9c8d6b5-${pad(i)}`, namespace: 'shop' }));
    const events = [
      EVENTS_HEADER,
      eventRow('shop', 'api-7f9c8d6b5-00149', 'Unhealthy', READINESS_403),
      eventRow('shop', 'api-7f9c8d6b5-00149', 'Killing', 'Container app failed liveness probe, will be restarted', 'Normal'),
      '',
    ].join('\n');
    const { findings } = await runRule(probeFailure, [
      { path: 'describe-pods.txt', content: meshed.join('') },
      { path: 'events.txt', content: events },
    ]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.evidence.cause, 'policy-denied');
  });

  it('controller-api-errors: a failing webhook after a hundred distinct one-off API blips is reported', async () => {
    // klog reflector lines as client-go writes them, each to another API server address (one blip each, below minApiErrors).
    const blips = Array.from(
      { length: 100 },
      (_, i) =>
        `W0605 11:01:${String(i % 60).padStart(2, '0')}.123456       1 reflector.go:324] k8s.io/client-go/informers/factory.go:134: failed to list *v1.Pod: Get "https://10.96.${i >> 8}.${i & 255}:443/api/v1/pods?limit=500&resourceVersion=0": dial tcp 10.96.${i >> 8}.${i & 255}:443: connect: connection refused`,
    );
    const webhook = [
      'LAST SEEN   TYPE      REASON         OBJECT                        MESSAGE',
      '2m          Warning   FailedCreate   replicaset/web-7d9f8c6b5      Error creating: Internal error occurred: failed calling webhook "linkerd-proxy-injector.linkerd.io": failed to call webhook: Post "https://linkerd-proxy-injector.linkerd.svc:443/?timeout=10s": context deadline exceeded',
      '',
    ].join('\n');
    const log = { path: 'linkerd/linkerd-destination-5d8f7c6b9-x2x8k/destination.log', content: blips.join('\n') + '\n' };
    for (const inputs of [
      [log, { path: 'events.txt', content: webhook }],
      [{ path: 'events.txt', content: webhook }, log],
    ]) {
      const { findings } = await runRule(controllerApiErrors, inputs);
      assert.deepEqual(
        findings.map((f) => f.kind),
        ['webhook-failed'],
      );
      assert.ok((findings[0]!.evidence.problemsNotTracked as number) > 0);
    }
  });

  it('failfast: a service refused twenty times after a hundred services refused once each is reported', async () => {
    // A 2.7 proxy's load shedding (linkerd2#4048 shape): one line per refused request, by target address.
    const line = (i: number, addr: string) =>
      `${new Date(Date.parse('2020-02-20T10:00:00Z') + i * 500).toISOString()} [ 12${String(400 + i).padStart(3, '0')}.${String(100000 + i * 7919).slice(0, 6)}s]  WARN inbound:accept{peer.addr=10.20.1.${i % 40}:63058}:source{peer.id=None(NoPeerName(NotProvidedByRemote)) target.addr=${addr}}: linkerd2_app_core::errors: Failed to proxy request: router capacity reached (100)`;
    const once = Array.from({ length: 100 }, (_, i) => line(i, `10.20.${4 + (i >> 8)}.${i & 255}:8084`));
    const outage = Array.from({ length: 20 }, (_, i) => line(100 + i, '10.20.3.7:8084'));
    for (const lines of [
      [...once, ...outage],
      [...outage, ...once],
    ]) {
      const { findings } = await runRule(failfast, [{ path: 'shop/gateway-6c8d9f7b5-m3n4p/linkerd-proxy.log', content: lines.join('\n') + '\n' }]);
      assert.deepEqual(
        findings.map((f) => f.subject.target),
        ['10.20.3.7:8084'],
      );
      assert.ok((findings[0]!.evidence.untrackedServiceLines as number) > 0);
    }
  });

  it('dns-resolution-failure: a name whose refinement keeps timing out after a hundred names timing out once is reported', async () => {
    // A 2.8 proxy's refinement timeouts (linkerd2_proxy_http::canonicalize), one name per logical address.
    const refine = (host: string) =>
      `outbound:accept{peer.addr=10.240.2.7:41007}:source{target.addr=10.240.5.17:80}:logical{addr=${host}:80}: linkerd2_proxy_http::canonicalize: DNS refinement timed out`;
    const once = every(5000.1, 0.5, 100, 'INFO', (n) => refine(`svc-${n}.example.com`));
    const slow = every(5100.1, 2.7, 12, 'INFO', () => refine('ppe.testhost.example.com'));
    for (const lines of [
      [...once, ...slow],
      [...slow, ...once],
    ]) {
      const { findings } = await runRule(dnsResolutionFailure, [proxyLog('web/gateway-6c8d9f7b5-m3n4p/linkerd-proxy.log', '2020-08-01T10:00:00Z', lines)]);
      assert.deepEqual(
        findings.map((f) => f.subject.target),
        ['ppe.testhost.example.com:80'],
      );
      assert.ok((findings[0]!.evidence.namesNotTracked as number) > 0);
    }
  });

  it('stale-endpoint-metrics: a destination with stale generations after a hundred healthy ones is reported', async () => {
    // One proxy's metrics: a hundred Deployments with one generation each, and checkout with two gone.
    const healthy = Array.from({ length: 100 }, (_, i) =>
      endpoints(2, { deployment: `svc${i}`, hash: 'aaaaaaaaaa', open: 1, ipBase: 1000 + 2 * i, statuses: ['200'] }),
    ).flat();
    const stale = [
      ...endpoints(6, { hash: 'aaaaaaaaaa', open: 2, statuses: ['200', '500'] }),
      ...endpoints(6, { hash: 'bbbbbbbbbb', open: 0, ipBase: 100, statuses: ['200', '500'] }),
      ...endpoints(6, { hash: 'cccccccccc', open: 0, ipBase: 200, statuses: ['200', '500'] }),
    ];
    for (const series of [
      [...healthy, ...stale],
      [...stale, ...healthy],
    ]) {
      const { findings } = await runRule(staleEndpointMetrics, [{ path: 'dump.txt', content: podSection('traefik-1', 1, 1, legacyEndpointDump(series)) }]);
      assert.deepEqual(
        findings.map((f) => f.subject.target),
        ['deployment/shop/checkout'],
      );
      assert.ok((findings[0]!.evidence.workloadsNotTracked as number) > 0);
    }
  });
});
