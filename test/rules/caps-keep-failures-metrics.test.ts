// Issue 44, item 1, the rest of the audit: the proxy rules' bounded state never hides a failure.
// metric-cardinality and ingress-pod-ip-bypass let go of every proxy below their threshold at each
// sweep, however close to it, so a proxy whose lines come interleaved with thousands of others
// (`kubectl logs --prefix -l …` of a whole namespace) never reached it, and the finding did not say
// that proxies had gone. The caps are shrunk as in caps-keep-failures-scaled.test.ts (4 proxies
// held, 2 kept); the dumps have the label layout of real proxies (test/metrics/helpers.ts) and the
// log lines the span layout of linkerd2-proxy's forward stack. authorization-denied kept a server per
// name without bound; it now keeps the servers with the most denials.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Finding } from '../../src/core/types.js';

process.env.LINKERD_DOCTOR_STATE_CAP_SCALE = '0.002';
const { default: metricCardinality } = await import('../../src/rules/metric-cardinality/index.js');
const { default: ingressPodIpBypass } = await import('../../src/rules/ingress-pod-ip-bypass/index.js');
const { default: authorizationDenied } = await import('../../src/rules/authorization-denied/index.js');
const { endpoints, legacyEndpointDump, podSection } = await import('../support/metrics-inputs.js');
const { runRule, runRuleMerged } = await import('../support/rule-tester.js');

const verdict = (findings: Finding[]) =>
  findings
    .map((f) => `${f.severity} ${f.title}`)
    .sort()
    .join('\n');
const pad = (i: number) => String(i).padStart(4, '0');

describe('metric-cardinality: the biggest proxy is kept past the cap of proxies (issue 44, item 1)', () => {
  const options = { warningSeries: 500, errorSeries: 1_000 };
  // 2 endpoints: 60 series each; 40 endpoints: 1,200 series, an error at these thresholds.
  const small = Array.from({ length: 30 }, (_, i) => podSection(`web-5d8f7c9b4f-${pad(i)}`, i + 1, 31, legacyEndpointDump(endpoints(2))));
  const big = podSection('traefik-7d9f8c6b5-x2x8k', 31, 31, legacyEndpointDump(endpoints(40)));
  for (const [order, sections] of [
    ['after', [...small, big]],
    ['before', [big, ...small]],
  ] as const) {
    it(`a proxy over errorSeries ${order} 30 small proxies is an error that says the small ones were only counted`, async () => {
      const { findings } = await runRule(metricCardinality, [{ path: 'proxy-metrics.txt', content: sections.join('') }], options);
      assert.equal(findings.length, 1);
      assert.equal(findings[0]!.severity, 'error');
      assert.equal(findings[0]!.subject?.pod, 'traefik-7d9f8c6b5-x2x8k');
      assert.match(findings[0]!.message, /more proxies than the rule keeps: \d+ that showed nothing wrong were only counted/);
      assert.ok((findings[0]!.evidence.proxiesNotTracked as number) >= 28);
    });
  }

  it('the same when the dump is split between workers and merged', async () => {
    const inputs = [0, 1, 2].map((k) => ({
      path: `dump-${k}.txt`,
      content: (k === 2 ? [...small.slice(20), big] : small.slice(k * 10, k * 10 + 10)).join(''),
    }));
    const findings = await runRuleMerged(metricCardinality, inputs, options);
    assert.equal(verdict(findings), 'error 1,200 metric series in one proxy');
    assert.equal(findings[0]!.subject?.pod, 'traefik-7d9f8c6b5-x2x8k');
  });
});

/** A line of `kubectl logs --prefix` for one pod's proxy. */
const prefixed = (pod: string, seconds: number, body: string) => `[pod/${pod}/linkerd-proxy] [${seconds.toFixed(6).padStart(12)}s]  INFO ThreadId(01) ${body}`;
/** The ingress dialled a pod IP itself: the proxy forwards to the original destination. */
const forwarded = (ip: string) =>
  `outbound:proxy{addr=${ip}:8080}:forward{addr=${ip}:8080}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=endpoint ${ip}:8080: connect timed out after 1s`;
/** A meshed client that dialled a Service: the proxy balances over its endpoints. */
const balanced = `outbound:proxy{addr=10.96.14.20:80}:service{ns=shop name=web port=80}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=Service Unavailable`;

describe('ingress-pod-ip-bypass: an ingress is kept past the cap of proxies (issue 44, item 1)', () => {
  it('keeps an ingress whose forwarded lines come between those of 300 other pods', async () => {
    // Each round: one line forwarded by Traefik to a new pod IP, then one balanced line of each of
    // 10 other pods (30 rounds over 300 pods). The map holds 4 proxies at this scale.
    const lines: string[] = [];
    for (let round = 0; round < 30; round++) {
      lines.push(prefixed('traefik-7d9f8c6b5-x2x8k', round, forwarded(`10.42.0.${round + 2}`)));
      for (let k = 0; k < 10; k++) lines.push(prefixed(`web-5d8f7c9b4f-${pad(round * 10 + k)}`, round + 0.5, balanced));
    }
    const { findings } = await runRule(ingressPodIpBypass, [{ path: 'shop-proxies.log', content: `${lines.join('\n')}\n` }]);
    assert.equal(findings.length, 1, verdict(findings));
    assert.equal(findings[0]!.subject?.pod, 'traefik-7d9f8c6b5-x2x8k');
    // 30 lines, one per address; the set of addresses holds 20 at this scale.
    assert.match(findings[0]!.message, /30 log lines show proxy\{addr=X\}:forward\{addr=X\} for 20 distinct addresses/);
    assert.match(findings[0]!.message, /that showed nothing wrong were only counted/);
  });

  const bypass = endpoints(12);
  const traefik = podSection(
    'traefik-7d9f8c6b5-x2x8k',
    1,
    1,
    legacyEndpointDump(
      bypass,
      bypass.map((e) => e.ip),
    ),
  );
  const clients = Array.from({ length: 30 }, (_, i) =>
    podSection(`web-5d8f7c9b4f-${pad(i)}`, i, 30, legacyEndpointDump(endpoints(1, { service: 'checkout' }))),
  );
  for (const [order, sections] of [
    ['after', [...clients, traefik]],
    ['before', [traefik, ...clients]],
  ] as const) {
    it(`a dump where Traefik dials pod IPs ${order} 30 balancing proxies gives the same finding`, async () => {
      const { findings } = await runRule(ingressPodIpBypass, [{ path: 'proxy-metrics.txt', content: sections.join('') }]);
      assert.equal(findings.length, 1, verdict(findings));
      assert.equal(findings[0]!.evidence.ingress, 'Traefik');
      assert.match(findings[0]!.message, /more proxies than the rule keeps/);
    });
  }
});

/** A request the proxy refused by policy, as linkerd2-proxy logs it (server/<name> since v2.178). */
const denied = (seconds: number, server: string, client: string) =>
  `[${seconds.toFixed(6).padStart(12)}s]  INFO ThreadId(01) inbound:server{port=8080}:rescue{client.addr=${client}:51840}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=unauthorized connection on server/${server}`;

describe('authorization-denied: the servers with the most denials are kept (issue 44, item 1)', () => {
  // minDenials 5: 300 servers named once each cannot fire; payments-api, denied 12 times, does.
  const once = Array.from({ length: 300 }, (_, i) => denied(10 + i * 0.01, `tenant-${pad(i)}`, `10.42.1.${i % 250}`));
  const payments = Array.from({ length: 12 }, (_, i) => denied(20 + i, 'payments-api', '10.42.7.9'));
  for (const [order, lines] of [
    ['after', [...once, ...payments]],
    ['before', [...payments, ...once]],
    ['amid', [...once.slice(0, 150), ...payments, ...once.slice(150)]],
  ] as const) {
    it(`a server denied 12 times ${order} 300 servers denied once is reported, and the others counted`, async () => {
      const { findings } = await runRule(
        authorizationDenied,
        [{ path: 'shop/payments-api-7f9c8d6b5-zq2xw/linkerd-proxy.log', content: `${lines.join('\n')}\n` }],
        {
          minDenials: 5,
        },
      );
      assert.equal(findings.length, 1, verdict(findings));
      assert.equal(findings[0]!.evidence.server, 'payments-api');
      assert.equal(findings[0]!.evidence.denials, 12);
      assert.match(findings[0]!.message, /more servers than the rule keeps: \d+ that showed nothing wrong were only counted/);
    });
  }
});
