import assert from 'node:assert/strict';
import type { RuleCases } from '../../../test/support/rule-cases.js';
import { every, healthyLogs, proxyLog, real, realHealthy, startup } from '../../../test/support/log-inputs.js';

const ID = (sa: string, ns: string) => `${sa}.${ns}.serviceaccount.identity.linkerd.cluster.local`;

// Shapes of real #8343 / #5932 (identity-headless, SRV no record) and #11624 (SRV and A lookups).
const NO_IDENTITY_RECORD =
  'identity:controller{addr=linkerd-identity-headless.linkerd.svc.cluster.local:8080}: linkerd_app_core::control: Failed to resolve control-plane component error=no record found for name: linkerd-identity-headless.linkerd.svc.cluster.local. type: SRV class: IN';
const DST_LOOKUPS_FAILED =
  'dst:controller{addr=linkerd-dst-headless.linkerd.svc.cluster.local:8086}: linkerd_app_core::control: Failed to resolve control-plane component error=failed SRV and A record lookups: failed to resolve SRV record: no record found for name: linkerd-dst-headless.linkerd.svc.cluster.local. type: SRV class: IN; failed to resolve A record: no record found for name: linkerd-dst-headless.linkerd.svc.cluster.local. type: AAAA class: IN';
/** 2.8-era shape of real #4905. */
const REFINE = (peer: number) =>
  `outbound:accept{peer.addr=10.240.2.${peer}:4${1000 + peer}}:source{target.addr=10.240.5.17:80}:logical{addr=ppe.testhost.example.com:80}: linkerd2_proxy_http::canonicalize: DNS refinement timed out`;

/**
 * Lines outside a proxy log (issue 45, the last look): nslookup run from a pod as users paste it
 * into threads (its NXDOMAIN line, busybox's wording), and a gRPC client's error (grpc-go's
 * transport wording) naming the Go resolver's "no such host" (net.DNSError).
 */
const NSLOOKUP = [
  'Server:    10.96.0.10',
  'Address:   10.96.0.10:53',
  '',
  "** server can't find linkerd-dst-headless.linkerd.svc.cluster.local: NXDOMAIN",
  '',
].join('\n');
const GO_NO_SUCH_HOST =
  'Error: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp: lookup linkerd-identity-headless.linkerd.svc.cluster.local on 10.96.0.10:53: no such host"\n';

/**
 * CoreDNS's log plugin, default format (`{remote}:{port} - {>id} "{type} {class} {name} {proto}
 * {size} {>do} {>bufsize}" {rcode} {>rflags} {rsize} {duration}`, coredns plugin/log README):
 * proxies asking for the destination Service's SRV records, answered NXDOMAIN (no ready pod), and
 * the same names expanded by a client's search path, which NXDOMAIN by design.
 */
const corednsAnswer = (i: number, name: string, rcode: string) =>
  `[INFO] 10.244.${i % 3}.${10 + i}:${40000 + i} - ${1000 + i} "SRV IN ${name} udp 76 false 512" ${rcode} qr,aa,rd 169 0.000${100 + i}s`;
const DST = 'linkerd-dst-headless.linkerd.svc.cluster.local.';
const corednsLog = (rows: [string, string][]) => rows.map(([name, rcode], i) => corednsAnswer(i, name, rcode)).join('\n') + '\n';

const PODS = ['orders-7d9f8c6b5-x2x8k', 'orders-7d9f8c6b5-q7w2e', 'billing-5f6d7c8b9-m3n4p', 'billing-5f6d7c8b9-r5t6y'];

export const cases: RuleCases = {
  fires: [
    {
      name: 'identity-headless has no record for a minute: four new proxies retry every ~5 s (negative TTL)',
      expect: [{ severity: 'error', kind: 'identity-unresolvable', subject: { target: 'linkerd-identity-headless:8080' } }],
      inputs: PODS.map((pod, i) =>
        proxyLog(
          `payments/${pod}/linkerd-proxy.log`,
          `2024-06-07T09:00:0${i}Z`,
          [...startup(ID(pod.split('-')[0]!, 'payments')), ...every(0.0039, 5.02, 13, 'WARN', NO_IDENTITY_RECORD)],
          2,
        ),
      ),
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.equal(findings[0]!.evidence.controller, 'identity');
        assert.equal(findings[0]!.severity, 'error');
        assert.equal(findings[0]!.evidence.podsAffected, 4);
        assert.equal(findings[0]!.subject.target, 'linkerd-identity-headless:8080');
        // The commands name the namespace and cluster domain the proxies looked up, not placeholders.
        assert.match(findings[0]!.remediation, /kubectl -n linkerd get pods,endpointslices/);
        assert.match(findings[0]!.remediation, /dig SRV linkerd-identity-headless\.linkerd\.svc\.cluster\.local \(the name the proxies looked up\)/);
      },
    },
    {
      name: 'wrong cluster domain: three proxies each fail the dst-headless SRV and A lookups once, well after start-up',
      expect: [{ severity: 'error', kind: 'destination-unresolvable', subject: { target: 'linkerd-dst-headless:8086' } }],
      inputs: PODS.slice(0, 3).map((pod, i) =>
        proxyLog(`payments/${pod}/linkerd-proxy.log`, '2024-06-07T09:00:00Z', [{ uptime: 3600.5 + i * 7.1, level: 'WARN', body: DST_LOOKUPS_FAILED }]),
      ),
      check: (findings) => {
        assert.equal(findings[0]!.evidence.controller, 'destination');
        assert.deepEqual(findings[0]!.evidence.errorKinds, { 'no record found': 3 });
      },
    },
    {
      name: 'slow upstream DNS on a 2.8 proxy: refinement of one name times out on request after request',
      expect: [{ severity: 'warning', kind: 'refine-timeout', subject: { target: 'ppe.testhost.example.com:80' } }],
      inputs: [
        proxyLog(
          'web/gateway-6c8d9f7b5-m3n4p/linkerd-proxy.log',
          '2020-08-01T10:00:00Z',
          every(5000.1, 2.7, 12, 'INFO', (n) => REFINE(n % 7)),
        ),
      ],
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.equal(findings[0]!.severity, 'warning');
        assert.equal(findings[0]!.subject.target, 'ppe.testhost.example.com:80');
      },
    },
    {
      name: "nslookup pasted alone: the destination Service's name is NXDOMAIN",
      expect: [{ severity: 'warning', kind: 'destination-unresolvable', subject: { target: 'linkerd-dst-headless' } }],
      inputs: [{ path: 'nslookup.txt', content: NSLOOKUP }],
      check: (findings) => {
        assert.match(findings[0]!.title, /^linkerd-dst-headless\.linkerd\.svc\.cluster\.local does not resolve \(NXDOMAIN ×1\)$/);
        assert.match(findings[0]!.remediation, /kubectl -n linkerd get endpoints linkerd-dst-headless/);
      },
    },
    {
      name: "a gRPC client's error: lookup of identity-headless on the cluster DNS, no such host",
      expect: [{ severity: 'warning', kind: 'identity-unresolvable', subject: { target: 'linkerd-identity-headless' } }],
      inputs: [{ path: 'paste.txt', content: GO_NO_SUCH_HOST }],
      check: (findings) => assert.deepEqual(findings[0]!.evidence.servers, ['10.96.0.10:53']),
    },
    {
      name: "CoreDNS's log: the destination Service's SRV records answered NXDOMAIN again and again",
      expect: [{ severity: 'warning', kind: 'destination-unresolvable', subject: { target: 'linkerd-dst-headless' } }],
      inputs: [{ path: 'coredns.log', content: corednsLog(Array.from({ length: 6 }, () => [DST, 'NXDOMAIN'] as [string, string])) }],
      check: (findings) => assert.match(findings[0]!.title, /^linkerd-dst-headless\.linkerd\.svc\.cluster\.local does not resolve \(NXDOMAIN ×6\)$/),
    },
  ],
  quiet: [
    {
      name: "CoreDNS's log: search-path expansions of the control-plane names NXDOMAIN by design",
      inputs: [
        {
          path: 'coredns.log',
          content: corednsLog(
            Array.from({ length: 8 }, (_, i) => [i % 2 === 0 ? `${DST}cluster.local.` : `${DST}ec2.internal.`, 'NXDOMAIN'] as [string, string]),
          ),
        },
      ],
    },
    {
      name: "CoreDNS's log: a control plane starting, three NXDOMAIN then answers",
      inputs: [
        {
          path: 'coredns.log',
          content: corednsLog([
            ...Array.from({ length: 3 }, () => [DST, 'NXDOMAIN'] as [string, string]),
            ...Array.from({ length: 8 }, () => [DST, 'NOERROR'] as [string, string]),
          ]),
        },
      ],
    },
    {
      name: 'nslookup of a search-path expansion of the destination name: NXDOMAIN by design',
      inputs: [
        ...realHealthy().slice(0, 1),
        {
          path: 'nslookup.txt',
          content: NSLOOKUP.replace('linkerd-dst-headless.linkerd.svc.cluster.local', 'linkerd-dst-headless.linkerd.svc.cluster.local.cluster.local'),
        },
      ],
    },
    {
      name: "nslookup of an application's name beside a healthy proxy log: NXDOMAIN is not the control plane's",
      inputs: [...realHealthy().slice(0, 1), { path: 'nslookup.txt', content: NSLOOKUP.replace('linkerd-dst-headless.linkerd', 'books.bookstore') }],
    },
    { name: 'the healthy bundle and the real healthy start-up excerpts', inputs: [...healthyLogs(), ...realHealthy()] },
    {
      name: 'single lines: identity-headless missing at 4 ms (real #8343), once at 25 s (real #5932), one refinement timeout (real #4905)',
      inputs: [real('l2-8343-destination-startup.log'), real('l2-5932-accessdenied-identity-srv.log'), real('l2-4905-no-uptime-no-thread-masked.log')],
    },
    {
      name: 'start-up race: identity-headless has no record for the first 5 s of a control-plane install, then resolves',
      inputs: PODS.map((pod, i) =>
        proxyLog(
          `linkerd/${pod}/linkerd-proxy.log`,
          '2024-06-07T09:00:00Z',
          [
            ...startup(ID(pod.split('-')[0]!, 'linkerd')),
            ...[0.0039, 0.51, 1.2, 4.8 + i].map((uptime) => ({ uptime, level: 'WARN' as const, body: NO_IDENTITY_RECORD })),
          ],
          2,
        ),
      ),
    },
  ],
};
