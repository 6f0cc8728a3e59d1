import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { AnyRule, InputStats } from '../../src/core/types.js';
import { RuleEngine } from '../../src/engine/engine.js';
import { readEntry } from '../../src/engine/pipeline.js';
import fdExhaustion from '../../src/rules/fd-exhaustion/index.js';
import { findRule, RULES } from '../../src/rules/index.js';
import ingressPodIpBypass from '../../src/rules/ingress-pod-ip-bypass/index.js';
import metricCardinality from '../../src/rules/metric-cardinality/index.js';
import staleEndpointMetrics from '../../src/rules/stale-endpoint-metrics/index.js';
import { runRule, type TestInput } from '../support/rule-tester.js';
import { endpoints } from '../support/metrics-inputs.js';
import { legacyEndpointDump, podSection } from './helpers.js';

const sampleMetrics = readFileSync(new URL('../data/linkerd2/sampleMetrics.txt', import.meta.url), 'utf8');
const healthyDump = readFileSync(new URL('../../fixtures/healthy-metrics/proxy-metrics.txt', import.meta.url), 'utf8');
const healthyIngress = readFileSync(new URL('../../fixtures/healthy-ingress/proxy-metrics.txt', import.meta.url), 'utf8');

const balancerSeries = (svc: string) =>
  [
    '# HELP outbound_http_balancer_endpoints Endpoints.',
    '# TYPE outbound_http_balancer_endpoints gauge',
    `outbound_http_balancer_endpoints{endpoint_state="ready",parent_group="core",parent_kind="Service",parent_namespace="shop",parent_name="${svc}",parent_port="8080",parent_section_name="",backend_group="core",backend_kind="Service",backend_namespace="shop",backend_name="${svc}",backend_port="8080",backend_section_name=""} 3`,
    '# EOF',
  ].join('\n') + '\n';

describe('rule registry', () => {
  it('registers every metrics rule with its agreed options, and each has a docs page', () => {
    for (const id of ['metric-cardinality', 'stale-endpoint-metrics', 'ingress-pod-ip-bypass', 'fd-exhaustion']) {
      const rule = findRule(id);
      assert.ok(rule, id);
      const page = readFileSync(new URL(`../../docs/rules/${id}.md`, import.meta.url), 'utf8');
      const sections = new Map(
        page
          .split(/^## +/m)
          .slice(1)
          .map((chunk) => [chunk.slice(0, chunk.indexOf('\n')).trim(), chunk.slice(chunk.indexOf('\n')).trim()]),
      );
      for (const name of ['What it means', 'Evidence', 'How to fix it', 'False positives', 'References']) {
        assert.ok((sections.get(name)?.length ?? 0) >= 40, `${id}: section "${name}"`);
      }
      assert.match(sections.get('How to fix it')!, /\bv?\d+\.\d+|\bedge-\d|\bstable-\d/, `${id}: fix names a version`);
      assert.match(sections.get('References')!, /#\d+|https?:\/\//, `${id}: references cite upstream`);
    }
    assert.deepEqual(
      { warningSeries: metricCardinality.meta.defaultOptions.warningSeries, errorSeries: metricCardinality.meta.defaultOptions.errorSeries },
      { warningSeries: 10_000, errorSeries: 50_000 },
    );
    assert.equal(staleEndpointMetrics.meta.defaultOptions.maxTemplateHashes, 1);
    assert.ok('minStaleSeries' in staleEndpointMetrics.meta.defaultOptions);
    assert.ok('minEndpoints' in ingressPodIpBypass.meta.defaultOptions);
    assert.equal(fdExhaustion.meta.defaultOptions.ratio, 0.8);
    assert.equal(new Set(RULES.map((r) => r.meta.code)).size, RULES.length);
  });
});

describe('metric-cardinality', () => {
  it('is an error for a proxy holding ≥ 50,000 series, with the cut|sort|uniq view as evidence', async () => {
    // 400 endpoints × 5 status codes × 28 latency lines = 56,000 + request_total + transport.
    const eps = endpoints(400, { statuses: ['200', '304', '404', '500', '503'] });
    const { findings } = await runRule(metricCardinality, [
      { path: 'dump.txt', content: podSection('traefik-7d9f8c6b5-x2x8k', 1, 1, legacyEndpointDump(eps)) },
    ]);
    assert.equal(findings.length, 1);
    const f = findings[0]!;
    assert.equal(f.severity, 'error');
    assert.equal(f.keyFigure?.value, 400 + 400 * 5 * 28 + 400);
    assert.equal(f.subject.pod, 'traefik-7d9f8c6b5-x2x8k');
    const top = f.evidence.topMetrics as { metric: string; series: number }[];
    assert.deepEqual(top[0], { metric: 'response_latency_ms_bucket', series: 400 * 5 * 26, share: '91.5 %' });
    const perEndpoint = f.evidence.perEndpointLabels as { label: string; distinctValues: number }[];
    assert.equal(perEndpoint.find((l) => l.label === 'dst_pod')?.distinctValues, 400);
    const histograms = f.evidence.histograms as { family: string; bucketsPerLabelSet: number; labelSets: number }[];
    assert.deepEqual([histograms[0]!.family, histograms[0]!.bucketsPerLabelSet, histograms[0]!.labelSets], ['response_latency_ms', 26, 2000]);
    assert.match(f.remediation, /LINKERD2_PROXY_METRICS_RETAIN_IDLE/);
    assert.match(f.remediation, /10 min/);
    assert.match(f.remediation, /linkerd2#12916/);
  });

  it('measures each POD section on its own and warns between the thresholds', async () => {
    const big = legacyEndpointDump(endpoints(100, { statuses: ['200', '500', '503', '404'] })); // 100 + 11,200 + 100
    const small = legacyEndpointDump(endpoints(20));
    const dump = podSection('ingress-a', 1, 2, big) + podSection('web-b', 2, 2, small);
    const { findings } = await runRule(metricCardinality, [{ path: 'dump.txt', content: dump }]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.severity, 'warning');
    assert.equal(findings[0]!.subject.pod, 'ingress-a');
    assert.equal(findings[0]!.keyFigure?.value, 11_400);
  });

  it('reads its thresholds from the options', async () => {
    const content = legacyEndpointDump(endpoints(10));
    assert.equal((await runRule(metricCardinality, [{ path: 'web-1.txt', content }])).findings.length, 0);
    const { findings } = await runRule(metricCardinality, [{ path: 'web-1.txt', content }], { warningSeries: 100, errorSeries: 200 });
    assert.equal(findings[0]!.severity, 'error');
  });

  it('counts duplicate series lines separately instead of as more series', async () => {
    const line = 'inbound_http_authz_allow_total{target_addr="10.0.0.1:4191",tls="true"} 1\n';
    const { findings } = await runRule(metricCardinality, [{ path: 'p.txt', content: line.repeat(5) + 'x 1\n' }], { warningSeries: 2 });
    assert.equal(findings[0]!.keyFigure?.value, 2);
    assert.equal(findings[0]!.evidence.duplicateLines, 4);
  });

  it('shows capped distinct-value counts as lower bounds and points at client-controlled inbound authorities', async () => {
    const lines = ['# TYPE request_total counter'];
    for (let i = 0; i < 300; i++) lines.push(`request_total{direction="inbound",authority="tenant-${i}.example.com",target_addr="10.0.0.9:8080",tls="true"} 1`);
    const { findings } = await runRule(metricCardinality, [{ path: 'web-1.txt', content: lines.join('\n') + '\n' }], {
      warningSeries: 100,
      maxLabelValues: 50,
    });
    const f = findings[0]!;
    const authority = (f.evidence.perEndpointLabels as { label: string; distinctValues: number | string }[]).find((l) => l.label === 'authority');
    assert.equal(authority?.distinctValues, '≥ 50');
    assert.equal(f.evidence.inboundAuthorities, 300);
    assert.match(f.message, /v2\.277 \(Linkerd 2\.18\)/);
  });

  it('stays quiet on the real linkerd2 dump and the healthy 2.15+ dump', async () => {
    assert.deepEqual((await runRule(metricCardinality, [{ path: 'sampleMetrics.txt', content: sampleMetrics }])).findings, []);
    assert.deepEqual((await runRule(metricCardinality, [{ path: 'healthy.txt', content: healthyDump }])).findings, []);
  });
});

describe('stale-endpoint-metrics', () => {
  const current = endpoints(6, { hash: 'aaaaaaaaaa', open: 2, statuses: ['200', '500'] });
  const old1 = endpoints(6, { hash: 'bbbbbbbbbb', open: 0, ipBase: 100, statuses: ['200', '500'] });
  const old2 = endpoints(6, { hash: 'cccccccccc', open: 0, ipBase: 200, statuses: ['200', '500'] });

  it('fires when one workload has series from several ReplicaSet generations, with the series per generation', async () => {
    const { findings } = await runRule(staleEndpointMetrics, [
      { path: 'dump.txt', content: podSection('traefik-1', 1, 1, legacyEndpointDump([...current, ...old1, ...old2])) },
    ]);
    assert.equal(findings.length, 1);
    const f = findings[0]!;
    const perEndpoint = 1 + 2 * 28 + 1;
    assert.equal(f.keyFigure?.value, 12 * perEndpoint);
    const gens = f.evidence.generations as { templateHash: string; series: number; openConnections: number }[];
    assert.deepEqual(
      gens.map((g) => [g.templateHash, g.series, g.openConnections]),
      [
        ['aaaaaaaaaa', 6 * perEndpoint, 12],
        ['bbbbbbbbbb', 6 * perEndpoint, 0],
        ['cccccccccc', 6 * perEndpoint, 0],
      ],
    );
    assert.equal(f.subject.target, 'deployment/shop/checkout');
  });

  it('stays quiet during a rollout (an old generation with few series) and with one generation', async () => {
    const rolling = endpoints(1, { hash: 'bbbbbbbbbb', open: 1, ipBase: 100 });
    assert.deepEqual((await runRule(staleEndpointMetrics, [{ path: 'd.txt', content: legacyEndpointDump([...current, ...rolling]) }])).findings, []);
    assert.deepEqual((await runRule(staleEndpointMetrics, [{ path: 'd.txt', content: legacyEndpointDump(current) }])).findings, []);
  });

  it('stays quiet while a rollout is in progress: the old generation still has open connections', async () => {
    const stillServing = endpoints(6, { hash: 'bbbbbbbbbb', open: 1, ipBase: 100, statuses: ['200', '500'] });
    assert.deepEqual((await runRule(staleEndpointMetrics, [{ path: 'd.txt', content: legacyEndpointDump([...current, ...stillServing]) }])).findings, []);
    const { findings } = await runRule(staleEndpointMetrics, [{ path: 'd.txt', content: legacyEndpointDump([...current, ...stillServing, ...old2]) }]);
    assert.equal(findings[0]!.keyFigure?.value, 6 * (1 + 2 * 28 + 1), 'only the unconnected generation counts as stale');
  });

  it('reads maxTemplateHashes and minStaleSeries from the options', async () => {
    const content = legacyEndpointDump([...current, ...old1, ...old2]);
    assert.deepEqual((await runRule(staleEndpointMetrics, [{ path: 'd.txt', content }], { maxTemplateHashes: 3 })).findings, []);
    assert.deepEqual((await runRule(staleEndpointMetrics, [{ path: 'd.txt', content }], { minStaleSeries: 100_000 })).findings, []);
  });

  it('fires on far more dst_pod values than connected pods within one generation', async () => {
    const connected = endpoints(3, { hash: 'aaaaaaaaaa', open: 1 });
    const idle = endpoints(30, { hash: 'aaaaaaaaaa', open: 0, ipBase: 50 });
    const { findings } = await runRule(staleEndpointMetrics, [{ path: 'd.txt', content: legacyEndpointDump([...connected, ...idle]) }]);
    assert.equal(findings.length, 1);
    const w = (findings[0]!.evidence.workloads as { distinctPods: number; podsWithOpenConnections: number }[])[0]!;
    assert.deepEqual([w.distinctPods, w.podsWithOpenConnections], [33, 3]);
  });

  it('stays quiet on the real and healthy dumps', async () => {
    assert.deepEqual((await runRule(staleEndpointMetrics, [{ path: 'sampleMetrics.txt', content: sampleMetrics }])).findings, []);
    assert.deepEqual(
      (
        await runRule(staleEndpointMetrics, [
          { path: 'healthy.txt', content: healthyDump },
          { path: 'ingress.txt', content: healthyIngress },
        ])
      ).findings,
      [],
    );
  });
});

describe('ingress-pod-ip-bypass', () => {
  const bypass = endpoints(12);
  const bypassDump = (pod: string) =>
    podSection(
      pod,
      1,
      1,
      legacyEndpointDump(
        bypass,
        bypass.map((e) => e.ip),
      ),
    );

  it('fires for Traefik dialling pod IPs, names it and gives the nativeLB fix', async () => {
    const { findings } = await runRule(ingressPodIpBypass, [{ path: 'dump.txt', content: bypassDump('traefik-7d9f8c6b5-x2x8k') }]);
    assert.equal(findings.length, 1);
    const f = findings[0]!;
    assert.equal(f.severity, 'warning');
    assert.equal(f.evidence.ingress, 'Traefik');
    assert.equal(f.evidence.endpointTargetsWithoutService, 12);
    assert.equal(f.evidence.origDstOverlap, '12/12');
    assert.match(f.remediation, /nativeLB: true/);
  });

  it('gives each ingress its own fix', async () => {
    const nginx = (await runRule(ingressPodIpBypass, [{ path: 'd.txt', content: bypassDump('ingress-nginx-controller-6b9f5c7d8-abcde') }])).findings[0]!;
    assert.match(nginx.remediation, /nginx\.ingress\.kubernetes\.io\/service-upstream: "true"/);
    const contour = (await runRule(ingressPodIpBypass, [{ path: 'd.txt', content: bypassDump('envoy-7c9d8-qwert') }])).findings[0]!;
    assert.match(contour.remediation, /linkerd\.io\/inject: ingress/);
    assert.match(contour.remediation, /l5d-dst-override/);
    const kong = (await runRule(ingressPodIpBypass, [{ path: 'd.txt', content: bypassDump('kong-gateway-5f6d7-zxcvb') }])).findings[0]!;
    assert.match(kong.remediation, /ingress\.kubernetes\.io\/service-upstream/);
  });

  it('is informational for a metrics scraper, which dials pods by design', async () => {
    const { findings } = await runRule(ingressPodIpBypass, [{ path: 'd.txt', content: bypassDump('prometheus-server-6d7f8-kk2lm') }]);
    assert.equal(findings[0]!.severity, 'info');
  });

  it('stays quiet for an ingress in ingress mode that balances over Services', async () => {
    const viaService = endpoints(12, { service: 'checkout-svc' });
    const content = podSection(
      'traefik-6f8b9d7c4-q7w2x',
      1,
      1,
      legacyEndpointDump(
        viaService,
        viaService.map((e) => e.ip),
      ) + balancerSeries('checkout-svc'),
    );
    assert.deepEqual((await runRule(ingressPodIpBypass, [{ path: 'd.txt', content }])).findings, []);
    assert.deepEqual((await runRule(ingressPodIpBypass, [{ path: 'ingress.txt', content: healthyIngress }])).findings, []);
  });

  it('stays quiet below minEndpoints and on the real and healthy dumps', async () => {
    const few = endpoints(3);
    assert.deepEqual((await runRule(ingressPodIpBypass, [{ path: 'd.txt', content: legacyEndpointDump(few) }])).findings, []);
    assert.equal((await runRule(ingressPodIpBypass, [{ path: 'd.txt', content: legacyEndpointDump(few) }], { minEndpoints: 3 })).findings.length, 1);
    assert.deepEqual(
      (
        await runRule(ingressPodIpBypass, [
          { path: 'sampleMetrics.txt', content: sampleMetrics },
          { path: 'healthy.txt', content: healthyDump },
        ])
      ).findings,
      [],
    );
  });

  it('uses proxy{addr=X}:forward{addr=X} spans in proxy logs, and not balanced service spans', async () => {
    const forward = (ip: string, i: number) =>
      `[  ${100 + i}.000001s]  INFO ThreadId(01) outbound:proxy{addr=${ip}:8080}:forward{addr=${ip}:8080}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=endpoint ${ip}:8080: connect timed out after 1s`;
    const logs = Array.from({ length: 8 }, (_, i) => forward(`10.42.7.${i + 10}`, i)).join('\n') + '\n';
    const { findings } = await runRule(ingressPodIpBypass, [{ path: 'ingress/traefik-7d9f8c6b5-x2x8k/linkerd-proxy.log', content: logs }]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.evidence.forwardedAddresses, 8);
    assert.equal((findings[0]!.evidence.samples as unknown[]).length, 3);
    const balanced =
      Array.from(
        { length: 8 },
        (_, i) =>
          `[  ${100 + i}.000001s]  WARN ThreadId(01) outbound:proxy{addr=10.43.0.${i + 10}:80}:service{ns=shop name=web port=80}:endpoint{addr=10.42.7.${i}:8080}: linkerd_reconnect: Failed to connect error=Connection refused (os error 111)`,
      ).join('\n') + '\n';
    assert.deepEqual((await runRule(ingressPodIpBypass, [{ path: 'web-7d9f8c6b5-x2x8k.log', content: balanced }])).findings, []);
  });
});

describe('fd-exhaustion', () => {
  const fds = (open: number, max: number) =>
    `# TYPE process_open_fds gauge\nprocess_open_fds ${open}\n# TYPE process_max_fds gauge\nprocess_max_fds ${max}\n# EOF\n`;

  it('warns at ratio ≥ 0.8 and is an error close to the limit', async () => {
    const warn = await runRule(fdExhaustion, [{ path: 'd.txt', content: podSection('web-1', 1, 1, fds(850, 1024)) }]);
    assert.equal(warn.findings[0]!.severity, 'warning');
    assert.equal(warn.findings[0]!.evidence.ratio, 0.83);
    const err = await runRule(fdExhaustion, [{ path: 'd.txt', content: fds(1020, 1024) }]);
    assert.equal(err.findings[0]!.severity, 'error');
  });

  it('treats process_max_fds 0 as unlimited and reads its ratio from the options', async () => {
    assert.deepEqual((await runRule(fdExhaustion, [{ path: 'd.txt', content: fds(50_000, 0) }])).findings, []);
    assert.deepEqual((await runRule(fdExhaustion, [{ path: 'd.txt', content: fds(100, 1024) }])).findings, []);
    assert.deepEqual((await runRule(fdExhaustion, [{ path: 'd.txt', content: fds(850, 1024) }], { ratio: 0.9 })).findings, []);
  });

  it('fires on "Too many open files (os error 24)" in proxy logs', async () => {
    const line =
      '[  4012.003212s]  WARN ThreadId(01) inbound:accept{client.addr=10.42.0.1:3322}: linkerd_app_core::serve: Server failed to accept connection error=Too many open files (os error 24)\n';
    const { findings } = await runRule(fdExhaustion, [{ path: 'web-5d8f7c9b4-abcde.log', content: line.repeat(3) }]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.severity, 'error');
    assert.equal(findings[0]!.evidence.emfileLogLines, 3);
  });

  it('stays quiet on the real and healthy dumps', async () => {
    assert.deepEqual(
      (
        await runRule(fdExhaustion, [
          { path: 'sampleMetrics.txt', content: sampleMetrics },
          { path: 'healthy.txt', content: healthyDump },
        ])
      ).findings,
      [],
    );
  });
});

describe('metrics rule state', () => {
  async function engineOver(rules: AnyRule[], inputs: TestInput[]): Promise<{ engine: RuleEngine; stats: InputStats[] }> {
    const engine = new RuleEngine(rules.map((rule) => ({ rule, options: rule.meta.defaultOptions })));
    const stats: InputStats[] = [];
    for (const input of inputs) {
      const result = await readEntry({ path: input.path, stream: Readable.from([Buffer.from(input.content)]), size: null }, { record: (r) => engine.emit(r) });
      stats.push(result.stats);
    }
    return { engine, stats };
  }

  it('merges structured-cloned partial states into the same findings as one sequential run', async () => {
    const rules = [metricCardinality, staleEndpointMetrics, ingressPodIpBypass, fdExhaustion];
    const eps = [...endpoints(120, { statuses: ['200', '500', '503'] }), ...endpoints(40, { hash: 'oldoldoldo', open: 0, ipBase: 300 })];
    const inputs: TestInput[] = [
      {
        path: 'a/traefik-1.txt',
        content: podSection(
          'traefik-1',
          1,
          1,
          legacyEndpointDump(
            eps,
            eps.map((e) => e.ip),
          ),
        ),
      },
      { path: 'b/web-2.txt', content: podSection('web-2', 1, 1, 'process_open_fds 900\nprocess_max_fds 1000\n') },
    ];
    const all = await engineOver(rules, inputs);
    const sequential = all.engine.finish(all.stats);
    const first = await engineOver(rules, [inputs[0]!]);
    const second = await engineOver(rules, [inputs[1]!]);
    first.engine.absorb(structuredClone(second.engine.snapshot()));
    const merged = first.engine.finish([...first.stats, ...second.stats]);
    assert.deepEqual(merged, sequential);
    assert.deepEqual(
      new Set(sequential.findings.map((f) => f.ruleId)),
      new Set(['metric-cardinality', 'stale-endpoint-metrics', 'ingress-pod-ip-bypass', 'fd-exhaustion']),
    );
  });
});
