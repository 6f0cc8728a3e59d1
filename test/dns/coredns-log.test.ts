// CoreDNS `log` plugin lines: the default Common Log Format with and without collector prefixes,
// IPv6 clients, the {combined} variant, and the other lines CoreDNS prints (counted, not fatal).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CorednsMessageRecord } from '../../src/core/types.js';
import { parseText } from './helpers.js';

const LINE = '[INFO] 10.0.0.1:53000 - 12345 "SRV IN linkerd-dst-headless.linkerd.svc.cluster.local. udp 78 false 1232" NOERROR qr,aa,rd 449 0.000123s';

describe('CoreDNS query-log parser', () => {
  it('reads every field of the default format', async () => {
    const p = await parseText('coredns.log', `${LINE}\n`);
    assert.equal(p.stats.kind, 'coredns-log');
    const { pod: _pod, ...record } = p.coredns[0]!;
    assert.deepEqual(record, {
      kind: 'coredns-query',
      path: 'coredns.log',
      line: 1,
      time: null,
      client: '10.0.0.1',
      clientPort: 53000,
      id: 12345,
      type: 'SRV',
      class: 'IN',
      name: 'linkerd-dst-headless.linkerd.svc.cluster.local.',
      proto: 'udp',
      requestSize: 78,
      dnssecOk: false,
      bufsize: 1232,
      rcode: 'NOERROR',
      flags: ['qr', 'aa', 'rd'],
      responseSize: 449,
      durationSeconds: 0.000123,
    });
  });

  it('takes the time from kubectl --timestamps, CRI and CoreDNS ≤ 1.6.2 prefixes', async () => {
    const p = await parseText(
      'coredns.log',
      [
        `2026-11-18T03:12:00.123456789Z ${LINE}`,
        `2026-11-18T03:12:01.5Z stdout F ${LINE}`,
        '2019-10-08T14:41:05.156Z [INFO] 10.233.64.24:40620 - 45219 "A IN linkerd-prometheus.linkerd.svc.cluster.local. udp 62 false 512" NOERROR qr,rd,ra 122 0.000202852s',
      ].join('\n'),
    );
    assert.deepEqual(
      p.coredns.map((r) => new Date(r.time!).toISOString()),
      ['2026-11-18T03:12:00.123Z', '2026-11-18T03:12:01.500Z', '2019-10-08T14:41:05.156Z'],
    );
    assert.equal(p.coredns[2]!.durationSeconds, 0.000202852);
    assert.equal(p.coredns[2]!.bufsize, 512);
  });

  it('reads IPv6 clients, the {combined} opcode suffix, TCP and empty flags', async () => {
    const p = await parseText(
      'coredns.log',
      [
        '[INFO] [::1]:50759 - 29008 "A IN example.org. udp 41 false 4096" NOERROR qr,rd,ra,ad 68 0.037990251s',
        '[INFO] [fd00:10:42::5]:41000 - 7 "AAAA IN web.default.svc.cluster.local. tcp 60 true 65535" NXDOMAIN - 150 0.5s "QUERY"',
      ].join('\n'),
    );
    assert.deepEqual(
      p.coredns.map((r) => [r.client, r.clientPort, r.proto, r.rcode, r.flags, r.dnssecOk]),
      [
        ['::1', 50759, 'udp', 'NOERROR', ['qr', 'rd', 'ra', 'ad'], false],
        ['fd00:10:42::5', 41000, 'tcp', 'NXDOMAIN', [], true],
      ],
    );
  });

  it('reads start-up, plugin and errors-plugin lines as coredns-message records', async () => {
    const p = await parseText(
      'coredns.log',
      [
        '.:53',
        '[INFO] plugin/reload: Running configuration SHA512 = abc',
        'CoreDNS-1.11.1',
        'linux/amd64, go1.21.8, ae2bbc2',
        LINE,
        '[ERROR] plugin/errors: 2 linkerd-dst-headless.linkerd.svc.cluster.local. SRV: read udp 10.0.0.1:1234->10.96.0.10:53: i/o timeout',
        '[WARNING] plugin/kubernetes: Kubernetes API connection failure',
        '[INFO] 10.0.0.1:53000 - 12345 custom format {type} {name}',
        LINE,
      ].join('\n'),
    );
    assert.equal(p.stats.kind, 'coredns-log');
    assert.equal(p.coredns.length, 2);
    const messages = p.records.filter((r): r is CorednsMessageRecord => r.kind === 'coredns-message');
    assert.deepEqual(
      messages.map((m) => m.line),
      [1, 2, 3, 4, 6, 7],
    );
    assert.deepEqual(
      messages.map((m) => [m.level, m.plugin]),
      [
        [null, null],
        ['INFO', 'reload'],
        [null, null],
        [null, null],
        ['ERROR', 'errors'],
        ['WARNING', 'kubernetes'],
      ],
    );
    assert.equal(messages[4]!.message, '2 linkerd-dst-headless.linkerd.svc.cluster.local. SRV: read udp 10.0.0.1:1234->10.96.0.10:53: i/o timeout');
    assert.deepEqual(
      p.unparsed.map((u) => u.line),
      [8],
    );
    assert.equal(p.unparsed.find((u) => u.line === 8)!.reason, 'query log line in a custom format');
  });

  // Lines below: kubernetes/kubernetes#72826 and coredns/coredns#1265, as users pasted them.
  it('reads the CoreDNS ≤ 1.2 query layout with its own date', async () => {
    const p = await parseText(
      'coredns.log',
      [
        '192.168.2.14:56084 - [11/Jan/2019:19:57:57 +0000] 7 "A IN kubernetes.default.default.svc.cluster.local. udp 62 false 512" NXDOMAIN qr,aa,rd,ra 155 0.000134637s',
        '192.168.2.14:44698 - [11/Jan/2019:19:57:57 -0130] 8 "A IN kubernetes.default.svc.cluster.local. udp 54 false 512" NOERROR qr,aa,rd,ra 106 0.000131808s',
      ].join('\n'),
    );
    assert.equal(p.stats.kind, 'coredns-log');
    assert.equal(p.coredns.length, 2);
    const [a, b] = p.coredns;
    assert.deepEqual(
      [a!.client, a!.clientPort, a!.id, a!.type, a!.name, a!.rcode, a!.responseSize, a!.durationSeconds],
      ['192.168.2.14', 56084, 7, 'A', 'kubernetes.default.default.svc.cluster.local.', 'NXDOMAIN', 155, 0.000134637],
    );
    assert.equal(a!.time, Date.UTC(2019, 0, 11, 19, 57, 57));
    assert.equal(b!.time, Date.UTC(2019, 0, 11, 21, 27, 57));
    assert.deepEqual(p.unparsed, []);
  });

  it('reads the layout before CoreDNS 1.0.5: no client port, no query id, a Go duration', async () => {
    // The default format documented until plugin/log added {port} and {>id} (coredns#1386):
    // `{remote} - [{when}] "{type} {class} {name} {proto} {size} {>do} {>bufsize}" {rcode} {>rflags} {rsize} {duration}`.
    const p = await parseText(
      'coredns.log',
      [
        '10.244.0.5 - [29/Nov/2017:23:16:11 +0000] "A IN kubernetes.default.svc.cluster.local. udp 54 false 512" NOERROR qr,aa,rd,ra 106 116.504µs',
        '10.244.0.5 - [29/Nov/2017:23:16:12 +0000] "AAAA IN example.org. udp 29 false 512" NOERROR qr,rd,ra 56 12.5ms',
      ].join('\n'),
    );
    assert.equal(p.stats.kind, 'coredns-log');
    assert.deepEqual(p.unparsed, []);
    assert.deepEqual(
      p.coredns.map((q) => [q.client, q.clientPort, q.id, q.type, q.rcode, q.time]),
      [
        ['10.244.0.5', null, null, 'A', 'NOERROR', Date.UTC(2017, 10, 29, 23, 16, 11)],
        ['10.244.0.5', null, null, 'AAAA', 'NOERROR', Date.UTC(2017, 10, 29, 23, 16, 12)],
      ],
    );
    assert.ok(Math.abs(p.coredns[0]!.durationSeconds! - 0.000116504) < 1e-12);
    assert.ok(Math.abs(p.coredns[1]!.durationSeconds! - 0.0125) < 1e-12);
  });

  it("reads messages behind Go's log date (CoreDNS ≤ 1.2) and client-go's klog lines", async () => {
    const p = await parseText(
      'coredns.log',
      [
        // coredns/coredns#2087 (mritd) and the catalogue's coredns-kubernetes-watch-failed example.
        '2018/09/06 13:02:45 [FATAL] plugin/loop: Seen "HINFO IN 2050421060481615995.5620656063561519376." more than twice, loop detected',
        'E0411 11:27:17.279482       1 reflector.go:322] github.com/coredns/coredns/plugin/kubernetes/controller.go:318: Failed to watch *v1.Namespace: Get https://172.20.252.1:443/api/v1/namespaces: dial tcp 172.20.252.1:443: i/o timeout',
      ].join('\n'),
    );
    assert.equal(p.stats.kind, 'coredns-log');
    assert.deepEqual(p.unparsed, []);
    const messages = p.records as CorednsMessageRecord[];
    assert.deepEqual(
      messages.map((m) => [m.level, m.plugin, m.time]),
      [
        ['FATAL', 'loop', Date.UTC(2018, 8, 6, 13, 2, 45)],
        ['ERROR', null, null],
      ],
    );
    assert.match(messages[1]!.message, /^github\.com\/coredns\/coredns\/plugin\/kubernetes\/controller\.go:318: Failed to watch/);
  });

  it('reads the 2017 errors-plugin layout as messages, and sniffs a file of them as a CoreDNS log', async () => {
    const p = await parseText(
      'errors.log',
      [
        '29/Nov/2017:23:16:11 +0000 [ERROR 0 kubernetes.monitoring.svc.cluster.local. A] no items found',
        '29/Nov/2017:23:16:11 +0000 [ERROR 0 kubernetes.svc.cluster.local. A] invalid query name',
      ].join('\n'),
    );
    assert.equal(p.stats.kind, 'coredns-log');
    const messages = p.records as CorednsMessageRecord[];
    assert.deepEqual(
      messages.map((m) => [m.kind, m.level, m.plugin, m.message]),
      [
        ['coredns-message', 'ERROR', null, '0 kubernetes.monitoring.svc.cluster.local. A: no items found'],
        ['coredns-message', 'ERROR', null, '0 kubernetes.svc.cluster.local. A: invalid query name'],
      ],
    );
    assert.equal(messages[0]!.time, Date.UTC(2017, 10, 29, 23, 16, 11));
    assert.equal(messages[0]!.raw, '29/Nov/2017:23:16:11 +0000 [ERROR 0 kubernetes.monitoring.svc.cluster.local. A] no items found');
  });
});
