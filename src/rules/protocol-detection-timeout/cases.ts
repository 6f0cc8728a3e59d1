import assert from 'node:assert/strict';
import type { RuleCases } from '../../../test/support/rule-cases.js';
import { every, healthyLogs, proxyLog, real, realHealthy } from '../../../test/support/log-inputs.js';

/** Plain form of the JSON line in real #12505 (linkerd_detect, outbound, proxy 2.210). */
const DETECT_TIMEOUT = (ip: string, port: number) =>
  `outbound:proxy{addr=${ip}:${port}}: linkerd_detect: Continuing after timeout: linkerd_proxy_http::version::Version protocol detection timed out after 10s`;

/**
 * Proxies from v2.286 (linkerd2-proxy#3720) print only the timeout: the outbound and inbound
 * messages of linkerd_app_outbound::protocol and linkerd_app_inbound::detect, as the source logs them.
 */
const DETECT_TIMEOUT_OUTBOUND_2_286 = (ip: string, port: number) =>
  `outbound:proxy{addr=${ip}:${port}}: linkerd_app_outbound::protocol: Continuing after timeout: 10s`;
/**
 * Proxies 2.11-2.13 name the outbound connection `server{orig_dst=…}` instead of `proxy{addr=…}`
 * (the pre-sidecar outbound stack, linkerd2-proxy linkerd/app/outbound/src/server.rs at v2.150).
 */
const DETECT_TIMEOUT_ORIG_DST = (ip: string, port: number) =>
  `outbound:server{orig_dst=${ip}:${port}}: linkerd_detect: Continuing after timeout: linkerd_proxy_http::version::Version protocol detection timed out after 10s`;
const DETECT_TIMEOUT_INBOUND_2_286 = (port: number) =>
  `inbound:server{port=${port}}: linkerd_app_inbound::detect: Handling connection as opaque due to policy timeout=10s`;

export const cases: RuleCases = {
  fires: [
    {
      name: 'proxies from v2.286, which print only the duration: MySQL outbound on 3306, NATS inbound on 4222',
      expect: [
        { severity: 'warning', kind: 'detect-timeout', subject: { pod: 'orders-7d9f8c6b5-x2x8k', target: 'port 3306' } },
        { severity: 'warning', kind: 'detect-timeout', subject: { pod: 'nats-0', target: 'port 4222' } },
      ],
      inputs: [
        proxyLog('shop/orders-7d9f8c6b5-x2x8k/linkerd-proxy.log', '2025-06-07T09:00:00Z', [
          { uptime: 412.7, level: 'INFO', body: DETECT_TIMEOUT_OUTBOUND_2_286('10.96.33.4', 3306) },
        ]),
        proxyLog('apps/nats-0/linkerd-proxy.log', '2025-06-07T09:00:00Z', [{ uptime: 98.2, level: 'INFO', body: DETECT_TIMEOUT_INBOUND_2_286(4222) }]),
      ],
      check: (findings) => assert.deepEqual(findings.map((f) => f.evidence.port).sort(), ['3306', '4222']),
    },
    {
      name: "MySQL (server speaks first): one client's connection to 3306 waits the full 10 s",
      expect: [{ severity: 'warning', kind: 'detect-timeout', subject: { target: 'port 3306', pod: 'orders-7d9f8c6b5-x2x8k' } }],
      inputs: [
        proxyLog('shop/orders-7d9f8c6b5-x2x8k/linkerd-proxy.log', '2024-06-07T09:00:00Z', [
          { uptime: 412.7, level: 'INFO', body: DETECT_TIMEOUT('10.96.33.4', 3306) },
        ]),
      ],
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.equal(findings[0]!.evidence.port, '3306');
        assert.equal(findings[0]!.evidence.inDefaultOpaquePorts, true);
        assert.match(findings[0]!.remediation, /opaque-ports: "3306"/);
      },
    },
    {
      name: 'NATS on 4222 from two clients, and an in-house protocol on 7000 on every connection',
      expect: [
        { severity: 'warning', kind: 'detect-timeout', subject: { target: 'port 4222' } },
        { severity: 'warning', kind: 'detect-timeout', subject: { target: 'port 7000' } },
      ],
      inputs: ['bastion-7dd45cdc99-rj9mf', 'worker-6c8d9f7b5-m3n4p'].map((pod, i) =>
        proxyLog(`apps/${pod}/linkerd-proxy.log`, '2024-06-07T09:00:00Z', [
          ...every(217.7 + i, 30.2, 4, 'INFO', DETECT_TIMEOUT('10.96.8.12', 4222)),
          ...every(220.1 + i, 11.4, 3, 'INFO', (n) => DETECT_TIMEOUT(`10.42.7.${10 + n}`, 7000)),
        ]),
      ),
      check: (findings) => {
        assert.deepEqual(findings.map((f) => f.evidence.port).sort(), ['4222', '7000']);
        const nats = findings.find((f) => f.evidence.port === '4222')!;
        assert.equal(nats.evidence.podsAffected, 2);
        assert.match(nats.title, /NATS/);
      },
    },
    {
      name: 'the 2.11-2.13 span form outbound:server{orig_dst=…}: a silent client to 443 times out on every connection',
      expect: [{ severity: 'warning', kind: 'detect-timeout', subject: { pod: 'billing-6c8d9f7b5-q7r2t', target: 'port 443' } }],
      inputs: [
        proxyLog(
          'billing/billing-6c8d9f7b5-q7r2t/linkerd-proxy.log',
          '2024-06-07T09:00:00Z',
          every(301.4, 12.5, 4, 'INFO', (n) => DETECT_TIMEOUT_ORIG_DST(`10.96.40.${7 + n}`, 443)),
        ),
      ],
      check: (findings) => {
        assert.equal(findings[0]!.evidence.direction, 'outbound');
        assert.match(findings[0]!.title, /port 443/);
        assert.deepEqual((findings[0]!.evidence.addresses as string[]).length, 4);
      },
    },
    {
      name: 'the current span form outbound:proxy{addr=…} on 443',
      expect: [{ severity: 'warning', kind: 'detect-timeout', subject: { pod: 'billing-6c8d9f7b5-q7r2t', target: 'port 443' } }],
      inputs: [
        proxyLog(
          'billing/billing-6c8d9f7b5-q7r2t/linkerd-proxy.log',
          '2025-06-07T09:00:00Z',
          every(301.4, 12.5, 3, 'INFO', DETECT_TIMEOUT_OUTBOUND_2_286('10.96.40.7', 443)),
        ),
      ],
    },
    {
      name: 'real #12505: one JSON detection timeout on port 9000 is reported as a notice (one can be an idle client)',
      expect: [{ severity: 'info', kind: 'detect-timeout', subject: { pod: 'real/l2-12505-json-uptime-timestamp.log', target: 'port 9000' } }],
      inputs: [real('l2-12505-json-uptime-timestamp.log')],
      check: (findings) => {
        assert.equal(findings[0]!.evidence.timeouts, 1);
        assert.match(findings[0]!.message, /idle client/);
      },
    },
    {
      name: 'a lone timeout on 443 (no known protocol) fires as a notice naming the port; two more make it a warning',
      expect: [{ severity: 'info', kind: 'detect-timeout', subject: { pod: 'billing-6c8d9f7b5-q7r2t', target: 'port 443' } }],
      inputs: [
        proxyLog(
          'billing/billing-6c8d9f7b5-q7r2t/linkerd-proxy.log',
          '2025-06-07T09:00:00Z',
          every(301.4, 12.5, 1, 'INFO', DETECT_TIMEOUT_ORIG_DST('10.96.40.7', 443)),
        ),
      ],
      check: (findings) => {
        assert.match(findings[0]!.remediation, /opaque-ports: "443"/);
      },
    },
    {
      name: 'two idle pool connections on an HTTP port time out over an hour: a notice, not a warning',
      expect: [{ severity: 'info', kind: 'detect-timeout', subject: { pod: 'web-7d9f8c6b5-x2x8k', target: 'port 8080' } }],
      inputs: [proxyLog('shop/web-7d9f8c6b5-x2x8k/linkerd-proxy.log', '2024-06-07T09:00:00Z', every(100, 1800, 2, 'INFO', DETECT_TIMEOUT('10.96.1.2', 8080)))],
    },
  ],
  quiet: [
    {
      name: 'the healthy bundle (TLS detection timeouts of idle clients are not counted) and the real healthy excerpts',
      inputs: [...healthyLogs(), ...realHealthy()],
    },
  ],
};
