import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLogText } from '../support/parse-log.js';

const parse = (content: string, path = 'ingress/traefik-7d9f8c6b5-x2x8k/linkerd-proxy.log') => parseLogText(content, path);

// Real lines, quoted in the incident report and in public linkerd2 issues.
const SEED_NO_UPTIME =
  'WARN ThreadId(01) outbound:proxy{addr=10.2.40.58:8126}:controller{addr=linkerd-dst-headless.linkerd2.svc.cluster.local:8086}:endpoint{addr=10.2.102.227:8086}: linkerd_reconnect: Failed to connect error=endpoint 10.2.102.227:8086: Connection refused (os error 111) error.sources=[Connection refused (os error 111)]';
const SEED_POLICY =
  '[1210272.776747s]  WARN ThreadId(01) watch{port=8443}:controller{addr=linkerd-policy.linkerd2.svc.cluster.local:8090}:endpoint{addr=10.2.92.201:8090}: linkerd_reconnect: Failed to connect error=endpoint 10.2.92.201:8090: Connection refused (os error 111) error.sources=[Connection refused (os error 111)]';
const GRPC_UNAVAILABLE =
  '[ 73137.020135s]  INFO ThreadId(01) inbound:server{port=8086}:rescue{client.addr=10.2.118.24:47634}: linkerd_app_core::errors::respond: gRPC request failed error=client 10.2.118.24:47634: server: 10.2.24.49:8086: server 10.2.24.49:8086: service linkerd-dst-headless.linkerd2.svc.cluster.local:8086: service unavailable error.sources=[server 10.2.24.49:8086: service linkerd-dst-headless.linkerd2.svc.cluster.local:8086: service unavailable, service unavailable]';

describe('proxy-log parser: plain tracing format', () => {
  it('splits spans, target, message and fields of the seed reconnect line (no uptime)', async () => {
    const { records } = await parse(SEED_NO_UPTIME + '\n');
    const r = records[0]!;
    assert.equal(r.format, 'plain');
    assert.equal(r.level, 'WARN');
    assert.equal(r.thread, 1);
    assert.equal(r.uptime, null);
    assert.deepEqual(
      r.spans.map((s) => s.name),
      ['outbound', 'proxy', 'controller', 'endpoint'],
    );
    assert.equal(r.spans[2]!.fields.addr, 'linkerd-dst-headless.linkerd2.svc.cluster.local:8086');
    assert.equal(r.target, 'linkerd_reconnect');
    assert.equal(r.message, 'Failed to connect');
    assert.equal(r.fields.error, 'endpoint 10.2.102.227:8086: Connection refused (os error 111)');
    assert.equal(r.fields['error.sources'], '[Connection refused (os error 111)]');
  });

  it('reads a 7-digit uptime and keeps `: ` inside error text out of the span list', async () => {
    const { records } = await parse(`${SEED_POLICY}\n${GRPC_UNAVAILABLE}\n`);
    assert.equal(records[0]!.uptime, 1210272.776747);
    assert.deepEqual(structuredClone(records[0]!.spans[0]), { name: 'watch', fields: { port: '8443' } });
    const grpc = records[1]!;
    assert.equal(grpc.target, 'linkerd_app_core::errors::respond');
    assert.equal(grpc.message, 'gRPC request failed');
    assert.equal(grpc.spans[2]!.fields['client.addr'], '10.2.118.24:47634');
    assert.match(grpc.fields.error!, /^client 10\.2\.118\.24:47634: server: .*service unavailable$/);
    assert.match(grpc.fields['error.sources']!, /^\[server .*, service unavailable\]$/);
  });

  it('handles span-less lines, nested span names and empty span field values', async () => {
    const { records } = await parse(
      [
        '[     0.002035s]  INFO ThreadId(01) linkerd2_proxy: release 2.210.4 (5a910be) by linkerd on 2023-11-22T17:01:46Z',
        '[    10.123456s]  WARN ThreadId(02) daemon:identity: linkerd_app_core::control: Failed to resolve control-plane component error=failed SRV and A record lookups',
        '[    11.000001s]  INFO ThreadId(03) outbound:proxy{addr=10.0.0.1:80}:service{ns= name=service port=0}: linkerd_pool_p2c: Adding endpoint addr=10.0.0.9:80',
      ].join('\n'),
    );
    assert.deepEqual(records[0]!.spans, []);
    assert.equal(records[0]!.target, 'linkerd2_proxy');
    assert.equal(records[0]!.message, 'release 2.210.4 (5a910be) by linkerd on 2023-11-22T17:01:46Z');
    assert.deepEqual(
      records[1]!.spans.map((s) => s.name),
      ['daemon', 'identity'],
    );
    assert.equal(records[1]!.target, 'linkerd_app_core::control');
    assert.deepEqual(structuredClone(records[2]!.spans[2]), { name: 'service', fields: { ns: '', name: 'service', port: '0' } });
    assert.equal(records[2]!.fields.addr, '10.0.0.9:80');
  });

  it('reads old proxies: no ThreadId (before v2.106) and raw nanosecond fractions (before v2.116)', async () => {
    const { records } = await parse('[     0.15728023s]  INFO linkerd2_proxy::app::main: using destination service at Some(ControlAddr)\n');
    assert.equal(records[0]!.thread, null);
    // The fraction is integer nanoseconds, unpadded: 15728023 ns.
    assert.ok(Math.abs(records[0]!.uptime! - 0.015728023) < 1e-12);
    assert.equal(records[0]!.target, 'linkerd2_proxy::app::main');
  });

  it('reads the pre-2020 legacy layout', async () => {
    const { records } = await parse(
      'ERR! [  4019.362478s] proxy={server=out listen=127.0.0.1:4140 remote=10.1.2.3:54104} linkerd2_proxy::proxy::http::router: service error: an error occurred\n',
    );
    assert.equal(records[0]!.format, 'legacy');
    assert.equal(records[0]!.level, 'ERROR');
    assert.equal(records[0]!.target, 'linkerd2_proxy::proxy::http::router');
  });

  it('strips ANSI colour codes', async () => {
    const { records } = await parse(
      '\x1b[2m[     1.000000s]\x1b[0m \x1b[33m WARN\x1b[0m ThreadId(01) linkerd_reconnect: Failed to connect error=connect timed out after 1s\n',
    );
    assert.equal(records[0]!.level, 'WARN');
    assert.equal(records[0]!.fields.error, 'connect timed out after 1s');
  });

  it('counts lines that are not log lines without failing', async () => {
    const { records, unparsed } = await parse(
      `${SEED_POLICY}\nnote: run with \`RUST_BACKTRACE=1\` environment variable to display a backtrace\n\n${SEED_POLICY}\n`,
    );
    assert.equal(records.length, 2);
    assert.deepEqual(unparsed, [2]);
  });
});

describe('proxy-log parser: JSON format', () => {
  it('reads RFC 3339 timestamps (v2.252+), spans with numeric fields and the unpadded threadId', async () => {
    const line = JSON.stringify({
      timestamp: '2025-12-12T19:55:11.333411Z',
      level: 'WARN',
      fields: { message: 'Failed to connect', error: 'endpoint 10.42.0.7:8090: connect timed out after 1s' },
      target: 'linkerd_reconnect',
      spans: [
        { name: 'policy' },
        { addr: 'linkerd-policy.linkerd.svc.cluster.local:8090', name: 'controller' },
        { addr: '10.42.0.7:8090', name: 'endpoint' },
        { port: 8090, name: 'server' },
      ],
      threadId: 'ThreadId(1)',
    });
    const { records } = await parse(line + '\n');
    const r = records[0]!;
    assert.equal(r.format, 'json');
    assert.equal(r.time, Date.parse('2025-12-12T19:55:11.333Z') + 0.411);
    assert.equal(r.thread, 1);
    assert.equal(r.spans[1]!.fields.addr, 'linkerd-policy.linkerd.svc.cluster.local:8090');
    assert.equal(r.spans[3]!.fields.port, '8090');
    assert.equal(r.message, 'Failed to connect');
    assert.equal(r.fields.error, 'endpoint 10.42.0.7:8090: connect timed out after 1s');
  });

  it('reads the uptime-string timestamp of proxies before v2.252', async () => {
    const { records } = await parse(
      '{"timestamp":"[     0.000595s]","level":"INFO","fields":{"message":"Admin interface on 0.0.0.0:4191"},"target":"linkerd2_proxy","threadId":"ThreadId(1)"}\n',
    );
    assert.equal(records[0]!.uptime, 0.000595);
    assert.equal(records[0]!.time, null);
  });
});

describe('proxy-log parser: collector prefixes', () => {
  it('uses kubectl --timestamps as wall time', async () => {
    const { records } = await parse(`2024-06-06T11:01:39.532896292Z ${SEED_POLICY}\n`);
    assert.equal(records[0]!.time, Date.parse('2024-06-06T11:01:39.532Z') + 0.896292);
    assert.equal(records[0]!.target, 'linkerd_reconnect');
  });

  it('joins CRI partial lines and keeps the stream and the first line number', async () => {
    const half = SEED_POLICY.length >> 1;
    const { records } = await parse(
      [
        `2024-06-06T11:01:39.000000001Z stdout F [     1.000000s]  INFO ThreadId(01) linkerd2_proxy: Admin interface on 0.0.0.0:4191`,
        `2024-06-06T11:01:40.000000001Z stdout P ${SEED_POLICY.slice(0, half)}`,
        `2024-06-06T11:01:40.000000002Z stdout F ${SEED_POLICY.slice(half)}`,
        `2020-01-26T03:17:29.346494690+00:00 stderr F {"client.addr":"10.0.0.1:1234","status":200}`,
      ].join('\n'),
    );
    assert.equal(records.length, 2);
    assert.equal(records[1]!.line, 2);
    assert.equal(records[1]!.stream, 'stdout');
    assert.equal(records[1]!.fields['error.sources'], '[Connection refused (os error 111)]');
  });

  it('takes pod and container from stern-style prefixes', async () => {
    const { records } = await parse(`traefik-7d9f8c6b5-abcde linkerd-proxy ${SEED_POLICY}\n`);
    assert.equal(records[0]!.pod, 'traefik-7d9f8c6b5-abcde');
    assert.equal(records[0]!.container, 'linkerd-proxy');
  });

  it('takes namespace, pod and container from stern --all-namespaces and kubectl --prefix', async () => {
    const { records } = await parse(
      [
        `shop traefik-7d9f8c6b5-abcde linkerd-proxy ${SEED_POLICY}`,
        `[pod/traefik-7d9f8c6b5-fghij/linkerd-proxy] ${SEED_POLICY}`,
        `[pod/traefik-7d9f8c6b5-fghij/linkerd-proxy] 2024-06-06T11:01:39.5Z ${SEED_POLICY}`,
      ].join('\n') + '\n',
    );
    assert.deepEqual(
      records.map((r) => [r.namespace, r.pod, r.container, r.message]),
      [
        ['shop', 'traefik-7d9f8c6b5-abcde', 'linkerd-proxy', 'Failed to connect'],
        // kubectl names no namespace: the file's path does (ingress/…).
        ['ingress', 'traefik-7d9f8c6b5-fghij', 'linkerd-proxy', 'Failed to connect'],
        ['ingress', 'traefik-7d9f8c6b5-fghij', 'linkerd-proxy', 'Failed to connect'],
      ],
    );
    assert.equal(records[2]!.time, Date.parse('2024-06-06T11:01:39.5Z'));
  });

  it("takes pod and container from the bracketed prefix of 2019-2020 `linkerd logs`, and from a tailer before Go's standard logger", async () => {
    // linkerd/linkerd2#3497 (stable-2.5) and #4988 (2.8): the tap server's Go log through `linkerd logs`.
    const { records } = await parse(
      [
        '[linkerd-tap-86c9f7cc98-p49b5 tap] 2019/09/30 14:58:25 http: TLS handshake error from 127.0.0.1:33188: remote error: tls: bad certificate',
        'linkerd-tap-6fb6d7d7-b22pk tap 2020/09/21 07:39:30 http: TLS handshake error from 127.0.0.1:50466: remote error: tls: bad certificate',
      ].join('\n') + '\n',
      'tap.log',
    );
    assert.deepEqual(
      records.map((r) => [r.pod, r.container, r.format, r.message]),
      [
        ['linkerd-tap-86c9f7cc98-p49b5', 'tap', 'go-std', 'http: TLS handshake error from 127.0.0.1:33188: remote error: tls: bad certificate'],
        ['linkerd-tap-6fb6d7d7-b22pk', 'tap', 'go-std', 'http: TLS handshake error from 127.0.0.1:50466: remote error: tls: bad certificate'],
      ],
    );
  });

  it('reads Docker json-file lines', async () => {
    const { records } = await parse(JSON.stringify({ log: `${SEED_POLICY}\n`, stream: 'stdout', time: '2021-03-19T13:37:56.123456789Z' }) + '\n');
    assert.equal(records[0]!.message, 'Failed to connect');
    assert.equal(records[0]!.time, Date.parse('2021-03-19T13:37:56.123Z') + 0.456789);
  });

  it('reads logfmt lines from Go components in the same file', async () => {
    const { records } = await parse(`time="2021-03-19T13:37:56Z" level=info msg="running version stable-2.10.0"\n${SEED_POLICY}\n`);
    assert.equal(records[0]!.format, 'logfmt');
    assert.equal(records[0]!.level, 'INFO');
    assert.equal(records[0]!.message, 'running version stable-2.10.0');
    assert.equal(records[0]!.time, Date.parse('2021-03-19T13:37:56Z'));
    assert.equal(records[1]!.format, 'plain');
  });
});

describe('proxy-log parser: restarts and wall time', () => {
  it('rebuilds wall time from a collector timestamp for lines that only carry uptime', async () => {
    const { records } = await parse(
      [
        `2024-06-06T11:00:10.000000000Z [    10.000000s]  INFO ThreadId(01) linkerd2_proxy: Admin interface on 0.0.0.0:4191`,
        `[    12.500000s]  WARN ThreadId(01) linkerd_reconnect: Failed to connect error=connect timed out after 1s`,
      ].join('\n'),
    );
    assert.equal(records[1]!.time, Date.parse('2024-06-06T11:00:12.500Z'));
  });

  it('detects a restart when uptime goes backwards, and counts the release banner once', async () => {
    const { records } = await parse(
      [
        '[   500.000000s]  WARN ThreadId(01) linkerd_reconnect: Failed to connect error=connect timed out after 1s',
        '[     0.001881s]  INFO ThreadId(01) linkerd2_proxy: release 2.210.4 (5a910be) by linkerd on 2023-11-22T17:01:46Z',
        '[     0.002000s]  INFO ThreadId(01) linkerd2_proxy: Admin interface on 0.0.0.0:4191',
        '[     0.001000s]  INFO ThreadId(01) linkerd2_proxy: release 2.210.4 (5a910be) by linkerd on 2023-11-22T17:01:46Z',
      ].join('\n'),
    );
    assert.deepEqual(
      records.map((r) => r.restart),
      [0, 1, 1, 2],
    );
  });

  it('derives pod, namespace and container from a /var/log/pods path', async () => {
    const { records } = await parse(
      SEED_POLICY + '\n',
      '/var/log/pods/ingress_traefik-7d9f8c6b5-x2x8k_0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0/linkerd-proxy/0.log',
    );
    assert.equal(records[0]!.namespace, 'ingress');
    assert.equal(records[0]!.pod, 'traefik-7d9f8c6b5-x2x8k');
    assert.equal(records[0]!.container, 'linkerd-proxy');
  });
});
