import assert from 'node:assert/strict';
import type { RuleCases } from '../../../test/support/rule-cases.js';
import { every, healthyLogs, proxyLog, real, realHealthy, startup, type LogEvent } from '../../../test/support/log-inputs.js';

const ID = (sa: string, ns: string) => `${sa}.${ns}.serviceaccount.identity.linkerd.cluster.local`;

// Line shapes of 2.15+ proxies (PoolQueue balancer; linkerd2 #12720, #13851) and of ≤ 2.10 (#4048).
const svc = (name: string, ns: string, ip: string, port = 80) => `outbound:proxy{addr=${ip}:${port}}:service{ns=${ns} name=${name} port=${port}}`;
const ENTER = (spans: string) => `${spans}: linkerd_proxy_balance_queue::worker: Unavailable; entering failfast timeout=3.0`;
const EXIT = (spans: string, elapsed: string) => `${spans}: linkerd_proxy_balance_queue::worker: Available; exited failfast elapsed=${elapsed}`;
const NO_ENDPOINTS = (spans: string) => `${spans}: linkerd_proxy_api_resolve::resolve: No endpoints`;
const REFUSED = (name: string, ns: string, ip: string, client: string) =>
  `outbound:proxy{addr=${ip}:80}:rescue{client.addr=${client}}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=logical service ${name}.${ns}.svc.cluster.local:80: service in fail-fast error.sources=[service in fail-fast]`;
const DST_DOWN = (ip: string) =>
  `dst:controller{addr=linkerd-dst-headless.linkerd.svc.cluster.local:8086}:endpoint{addr=${ip}:8086}: linkerd_reconnect: Failed to connect error=endpoint ${ip}:8086: Connection refused (os error 111)`;
const DST_FAILFAST =
  'dst:controller{addr=linkerd-dst-headless.linkerd.svc.cluster.local:8086}: linkerd_proxy_balance_queue::worker: Unavailable; entering failfast timeout=30.0';

const CLIENTS = ['frontend-7d9f8c6b5-x2x8k', 'frontend-7d9f8c6b5-q7w2e', 'checkout-5f6d7c8b9-m3n4p'];

function clients(events: (i: number) => LogEvent[]) {
  return CLIENTS.map((pod, i) => proxyLog(`shop/${pod}/linkerd-proxy.log`, '2024-06-07T09:00:00Z', [...startup(ID(pod.split('-')[0]!, 'shop')), ...events(i)]));
}

export const cases: RuleCases = {
  fires: [
    {
      name: 'no endpoints: web.shop scaled to zero, three client proxies fail fast and refuse requests for minutes',
      expect: [{ severity: 'error', kind: 'failfast/no-endpoints', subject: { namespace: 'shop', target: 'web.shop:80' } }],
      inputs: clients((i) => [
        { uptime: 600.1 + i, level: 'INFO', body: NO_ENDPOINTS(svc('web', 'shop', '10.96.12.7')) },
        { uptime: 603.1 + i, level: 'INFO', body: ENTER(svc('web', 'shop', '10.96.12.7')) },
        ...every(603.2 + i, 4.1, 40, 'INFO', (n) => REFUSED('web', 'shop', '10.96.12.7', `10.42.3.${7 + i}:5${1000 + n}`)),
      ]),
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.equal(findings[0]!.evidence.cause, 'no endpoints');
        assert.equal(findings[0]!.subject.target, 'web.shop:80');
        assert.equal(findings[0]!.severity, 'error');
        assert.equal(findings[0]!.evidence.podsAffected, 3);
      },
    },
    {
      name: 'controller unreachable: the clients lose the destination controller and then fail fast on two services',
      expect: [{ severity: 'error', kind: 'failfast/controller-unreachable', subject: { namespace: 'shop', target: 'web.shop:80' } }],
      inputs: clients((i) => [
        ...every(300 + i * 0.2, 0.5, 60, 'WARN', (n) => DST_DOWN(n % 2 ? '10.42.0.15' : '10.42.1.9')),
        { uptime: 330.4 + i, level: 'INFO', body: DST_FAILFAST },
        { uptime: 333.5 + i, level: 'INFO', body: ENTER(svc('cart', 'shop', '10.96.40.2')) },
        { uptime: 333.6 + i, level: 'INFO', body: ENTER(svc('web', 'shop', '10.96.12.7')) },
        ...every(333.7 + i, 1.3, 8, 'INFO', (n) => REFUSED('web', 'shop', '10.96.12.7', `10.42.3.${7 + i}:4${1000 + n}`)),
      ]),
      check: (findings) => {
        // cart went into fail-fast once per proxy and refused nothing: a blip, even here.
        assert.deepEqual(
          findings.map((f) => f.subject.target),
          ['web.shop:80'],
        );
        for (const f of findings) assert.equal(f.evidence.cause, 'controller unreachable');
        assert.match(findings[0]!.message, /reconnect-storm and control-plane-unavailable/);
      },
    },
    {
      name: 'load shedding on a 2.7 proxy: router capacity reached (100) on every request for a minute (shape of #4048)',
      expect: [{ severity: 'warning', kind: 'load-shedding', subject: { namespace: 'shop', pod: 'gateway-6c8d9f7b5-m3n4p', target: '10.20.3.7:8084' } }],
      inputs: [
        {
          path: 'shop/gateway-6c8d9f7b5-m3n4p/linkerd-proxy.log',
          content:
            Array.from(
              { length: 120 },
              (_, i) =>
                `${new Date(Date.parse('2020-02-20T10:00:00Z') + i * 500).toISOString()} [ 12${String(400 + i).padStart(3, '0')}.${String(100000 + i * 7919).slice(0, 6)}s]  WARN inbound:accept{peer.addr=10.20.1.${i % 40}:63058}:source{peer.id=None(NoPeerName(NotProvidedByRemote)) target.addr=10.20.3.7:8084}: linkerd2_app_core::errors: Failed to proxy request: router capacity reached (100)`,
            ).join('\n') + '\n',
        },
      ],
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.equal(findings[0]!.evidence.cause, 'load shedding');
        assert.equal(findings[0]!.subject.target, '10.20.3.7:8084');
      },
    },
    {
      name: 'one long episode: a single client stays in fail-fast for 95 s',
      expect: [
        {
          severity: 'warning',
          kind: 'failfast/endpoints-not-ready-or-unreachable',
          subject: { namespace: 'shop', pod: 'frontend-7d9f8c6b5-x2x8k', target: 'search.shop:8080' },
        },
      ],
      inputs: [
        proxyLog('shop/frontend-7d9f8c6b5-x2x8k/linkerd-proxy.log', '2024-06-07T09:00:00Z', [
          { uptime: 1200.2, level: 'INFO', body: ENTER(svc('search', 'shop', '10.96.7.1', 8080)) },
          { uptime: 1295.4, level: 'INFO', body: EXIT(svc('search', 'shop', '10.96.7.1', 8080), '95.2s') },
        ]),
      ],
      check: (findings) => {
        assert.equal(findings[0]!.evidence.longestEpisodeSeconds, 95.2);
        assert.equal(findings[0]!.evidence.cause, 'endpoints not ready or unreachable');
      },
    },
    {
      name: 'two unrelated pastes in one folder, both failing fast on an address only: each keeps its own cause',
      expect: [
        { severity: 'warning', kind: 'failfast/controller-unreachable', subject: { pod: 'incident/paste-a.log', target: '10.96.12.7:80' } },
        { severity: 'warning', kind: 'failfast/endpoints-not-ready-or-unreachable', subject: { pod: 'incident/paste-b.log', target: '10.96.12.7:80' } },
      ],
      inputs: [
        // Incident A: the proxy lost its destination controller, so it has no discovery for anything.
        proxyLog('incident/paste-a.log', '2024-06-07T09:00:00Z', [
          ...every(40.1, 2.5, 6, 'WARN', () => DST_DOWN('10.42.0.15')),
          { uptime: 41, level: 'WARN', body: DST_FAILFAST },
          ...every(50.2, 20, 4, 'INFO', `outbound:proxy{addr=10.96.12.7:80}: linkerd_proxy_balance_queue::worker: Unavailable; entering failfast timeout=3.0`),
        ]),
        // Incident B, another cluster, another day: its backend's pods were not ready; its control plane was fine.
        proxyLog('incident/paste-b.log', '2025-02-11T14:00:00Z', [
          ...every(900.4, 20, 4, 'INFO', `outbound:proxy{addr=10.96.12.7:80}: linkerd_proxy_balance_queue::worker: Unavailable; entering failfast timeout=3.0`),
        ]),
      ],
      check: (findings) => {
        const b = findings.find((f) => f.subject.pod === 'incident/paste-b.log')!;
        assert.doesNotMatch(b.message, /control plane/);
      },
    },
    {
      name: "a bundle's pods failing fast on a service known only by its address: one service, one finding naming every pod",
      expect: [{ severity: 'error', kind: 'failfast/endpoints-not-ready-or-unreachable', subject: { namespace: 'shop', target: '10.96.12.7:80' } }],
      inputs: clients((i) =>
        every(600.3 + i, 20, 4, 'INFO', `outbound:proxy{addr=10.96.12.7:80}: linkerd_proxy_balance_queue::worker: Unavailable; entering failfast timeout=3.0`),
      ),
      check: (findings) => assert.equal((findings[0]!.evidence.pods as unknown[]).length, 3),
    },
  ],
  quiet: [
    { name: 'the healthy bundle and the real healthy start-up excerpts', inputs: [...healthyLogs(), ...realHealthy()] },
    {
      name: "the controllers' own fail-fast is control-plane-unavailable's and reconnect-storm's: real #11279, a client's dst pool, one pasted #4048 line",
      inputs: [
        real('l2-11279-destination-failfast.log'),
        real('l2-4048-router-capacity-fragment.log'),
        ...clients((i) => [...every(300 + i, 0.5, 40, 'WARN', DST_DOWN('10.42.0.15')), { uptime: 330.4 + i, level: 'INFO', body: DST_FAILFAST }]),
      ],
    },
    {
      name: 'a rollout blip: each of three clients fails fast once for about a second, four requests refused in all',
      inputs: clients((i) => [
        { uptime: 900.1 + i, level: 'INFO', body: ENTER(svc('web', 'shop', '10.96.12.7')) },
        ...every(900.2 + i, 0.3, i === 0 ? 2 : 1, 'INFO', (n) => REFUSED('web', 'shop', '10.96.12.7', `10.42.3.9:3${1000 + n}`)),
        { uptime: 901.3 + i, level: 'INFO', body: EXIT(svc('web', 'shop', '10.96.12.7'), '1.2s') },
      ]),
    },
  ],
};
