import assert from 'node:assert/strict';
import type { RuleCases } from '../../../test/support/rule-cases.js';
import { every, healthyLogs, proxyLog, real, realHealthy } from '../../../test/support/log-inputs.js';

/** The 2.11 shape of real #8608: GKE Dataplane V2 probes from 169.254.42.1 refused on the collector's port. */
const PROBE_DENIED = (port: number) =>
  `inbound:server{port=${port}}:rescue{client.addr=169.254.42.1:5${2000 + (port % 1000)}}: linkerd_app_core::errors::respond: Request failed error=unauthorized connection on server collector-opencensus`;
/** 2.13+ policy module line with server, route and client fields. */
const MESHED_DENIED = (ip: string) =>
  `inbound:server{port=8080}:http: linkerd_app_inbound::policy::http: Request denied server.group=policy.linkerd.io server.kind=server server.name=payments-http route.group= route.kind=default route.name=default client.tls=Some(Established { client_id: Some(ClientId(Name("reporting.analytics.serviceaccount.identity.linkerd.cluster.local"))), negotiated_protocol: None }) client.ip=${ip}`;

/** The error text from proxy v2.178 (Linkerd 2.12): `on <kind>/<name>`, here a default policy. */
const DEFAULT_POLICY_DENIED = `inbound:server{port=8080}:rescue{client.addr=10.42.0.1:40312}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=unauthorized connection on default/all-authenticated`;
const SERVER_DENIED_2_12 = `inbound:server{port=9090}:rescue{client.addr=10.42.3.7:51840}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=unauthorized connection on server/prometheus-admin`;

export const cases: RuleCases = {
  fires: [
    {
      name: 'Linkerd 2.12+ wording: a default policy and a Server named as kind/name',
      expect: [
        { severity: 'warning', kind: 'requests-denied', subject: { namespace: 'shop', pod: 'web-5d8f7c9b4-abcde', target: 'default:all-authenticated' } },
        { severity: 'warning', kind: 'requests-denied', subject: { namespace: 'monitoring', pod: 'prometheus-0', target: 'prometheus-admin' } },
      ],
      inputs: [
        proxyLog('shop/web-5d8f7c9b4-abcde/linkerd-proxy.log', '2024-06-07T09:00:00Z', every(300.1, 2.3, 20, 'INFO', DEFAULT_POLICY_DENIED)),
        proxyLog('monitoring/prometheus-0/linkerd-proxy.log', '2024-06-07T09:00:00Z', every(300.4, 3.1, 20, 'INFO', SERVER_DENIED_2_12)),
      ],
      check: (findings) => assert.deepEqual(findings.map((f) => f.evidence.server).sort(), ['default:all-authenticated', 'prometheus-admin']),
    },
    {
      name: 'probe flood: every 10 s probe of two collector pods denied for three minutes (real #8608 shape)',
      expect: [{ severity: 'warning', kind: 'probe-denied', subject: { namespace: 'observability', target: 'collector-opencensus' } }],
      inputs: ['otel-collector-6b9c8d7f5-k8s9t', 'otel-collector-6b9c8d7f5-z2x3c'].map((pod, i) =>
        proxyLog(`observability/${pod}/linkerd-proxy.log`, '2022-06-01T08:00:00Z', every(54.6 + i, 10, 18, 'INFO', PROBE_DENIED(55678))),
      ),
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.equal(findings[0]!.evidence.kind, 'probe flood');
        assert.equal(findings[0]!.evidence.server, 'collector-opencensus');
        assert.match(findings[0]!.remediation, /169\.254\.0\.0\/16/);
      },
    },
    {
      name: 'a meshed workload without authorization calls payments-http from three pods',
      expect: [{ severity: 'warning', kind: 'requests-denied', subject: { namespace: 'payments', pod: 'payments-5f6d7c8b9-m3n4p', target: 'payments-http' } }],
      inputs: [
        proxyLog(
          'payments/payments-5f6d7c8b9-m3n4p/linkerd-proxy.log',
          '2024-06-07T09:00:00Z',
          every(800.2, 1.7, 30, 'INFO', (n) => MESHED_DENIED(`10.42.5.${20 + (n % 3)}`)),
        ),
      ],
      check: (findings) => {
        assert.equal(findings[0]!.evidence.kind, 'denied clients');
        assert.equal(findings[0]!.evidence.fromMeshedClients, 30);
        assert.equal(findings[0]!.evidence.distinctClients, 3);
        assert.match(findings[0]!.message, /reporting\.analytics\.serviceaccount/);
      },
    },
    {
      name: 'real #8608: the one pasted denial of a link-local probe is the probe flood the thread found',
      expect: [{ severity: 'warning', kind: 'probe-denied', subject: { pod: 'l2-8608-jaeger-unauthorized-flood', target: 'collector-opencensus' } }],
      inputs: [real('l2-8608-jaeger-unauthorized-flood.log')],
    },
    {
      name: 'a handful of Request denied lines of one misdirected client: a 403 from policy is deterministic',
      expect: [{ severity: 'warning', kind: 'requests-denied', subject: { namespace: 'payments', pod: 'payments-5f6d7c8b9-m3n4p', target: 'payments-http' } }],
      inputs: [
        proxyLog(
          'payments/payments-5f6d7c8b9-m3n4p/linkerd-proxy.log',
          '2024-06-07T09:00:00Z',
          every(800.2, 31, 4, 'INFO', () => MESHED_DENIED('10.42.5.20')),
        ),
      ],
    },
    {
      name: 'a single Request denied line',
      expect: [{ severity: 'warning', kind: 'requests-denied', subject: { namespace: 'payments', pod: 'payments-5f6d7c8b9-m3n4p', target: 'payments-http' } }],
      inputs: [
        proxyLog('payments/payments-5f6d7c8b9-m3n4p/linkerd-proxy.log', '2024-06-07T09:00:00Z', [
          { uptime: 800.2, level: 'INFO', body: MESHED_DENIED('10.42.5.20') },
        ]),
      ],
    },
  ],
  quiet: [{ name: 'the healthy bundle and the real healthy start-up excerpts', inputs: [...healthyLogs(), ...realHealthy()] }],
};
