// dig grammar beyond the sample files: loops concatenated into one file, BIND 9.16 timeouts,
// multiline rdata with comments, EDE, collector prefixes, noise, and the unit helpers.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sniffKind } from '../../src/parsers/sniff.js';
import type { LdRecord } from '../../src/core/types.js';
import { parseDigWhen, plannedQueries } from '../../src/parsers/dig-banner.js';
import { parseRrText, parseTtl } from '../../src/parsers/dig-rr.js';
import { createDigParser } from '../../src/parsers/dig.js';
import { DATA, parseFile, parseText } from './helpers.js';

const SAMPLES = join(DATA, 'dig-samples');
const sample = (name: string) => readFileSync(join(SAMPLES, name), 'utf8');

describe('dig parser: captures and loops', () => {
  it('reads the outputs captured here with dig 9.18.49', async () => {
    const dir = join(DATA, 'captured');
    const files = readdirSync(dir).filter((f) => f.endsWith('.out'));
    assert.equal(files.length, 8);
    for (const f of files) {
      const p = await parseFile(join(dir, f));
      assert.equal(p.stats.kind, 'dig', f);
      assert.deepEqual(p.unparsed, [], f);
    }
    const loop = await parseFile(join(dir, 'loop-refused.out'));
    assert.deepEqual(
      loop.queries.map((q) => [q.name, q.type, q.error]),
      new Array(3).fill(['linkerd-identity-headless.linkerd.svc.cluster.local.', 'SRV', 'connection refused; no servers could be reached']),
    );
    assert.ok(
      loop.queries.every((q) => q.notes.length === 1),
      'each run owns the error printed before its banner',
    );
    const twoTries = await parseFile(join(dir, 'timeout-2tries.out'));
    assert.equal(twoTries.queries[0]!.notes.length, 2);
    const resolver = await parseFile(join(dir, 'default-resolver.out'));
    assert.deepEqual([resolver.queries[0]!.status, resolver.queries[0]!.server, resolver.answers.length], ['NXDOMAIN', '10.255.255.53#53', 0]);
  });

  it('splits `while true; do dig …; done` captures into one query per run, with its time', async () => {
    const text = [
      sample('01-srv-ttl0-default.out'),
      sample('02-srv-ttl30-default.out'),
      sample('15-timeout.out'),
      sample('07-srv-yaml.out'),
      sample('14-truncated-tcp-retry.out'),
      sample('31-yaml-timeout.out'),
    ].join('');
    const p = await parseText('loop.txt', text);
    assert.deepEqual(p.unparsed, []);
    assert.deepEqual(
      p.queries.map((q) => [q.format, q.type, q.status, q.error !== null]),
      [
        ['text', 'SRV', 'NOERROR', false],
        ['text', 'SRV', 'NOERROR', false],
        ['text', 'SRV', null, true],
        ['yaml', 'SRV', 'NOERROR', false],
        ['text', 'SRV', 'NOERROR', false],
        ['yaml', 'SRV', null, true],
      ],
    );
    assert.match(p.queries[4]!.notes[0]!, /Truncated/);
    assert.equal(p.queries[2]!.notes.length, 1, 'the timeout, not the truncation, belongs to run 3');
  });

  it('separates back-to-back +noall +answer and +short runs when a record repeats, and reads `date` lines', async () => {
    const noall = sample('04-srv-noall-answer.out');
    const p = await parseText('loop.txt', `Wed Dec  2 12:13:20 UTC 2026\n${noall}Wed Dec  2 12:13:21 UTC 2026\n${noall}${noall}`);
    assert.equal(p.queries.length, 3);
    assert.deepEqual(
      p.queries.map((q) => (q.time === null ? null : new Date(q.time).toISOString())),
      ['2026-12-02T12:13:20.000Z', '2026-12-02T12:13:21.000Z', '2026-12-02T12:13:21.000Z'],
    );
    assert.ok(p.answers.every((a) => a.ttl === 0 && a.name === 'linkerd-dst-headless.linkerd.svc.cluster.local.'));
    const short = await parseText('short.txt', sample('03-srv-short.out').repeat(3));
    assert.equal(short.queries.length, 3);
    assert.equal(short.answers.length, 6);
  });

  it('reads BIND 9.16 timeouts and SERVER lines without a transport', async () => {
    const p = await parseText(
      'old.txt',
      [
        '',
        '; <<>> DiG 9.16.1-Ubuntu <<>> linkerd-policy.linkerd.svc.cluster.local SRV',
        ';; global options: +cmd',
        ';; connection timed out; no servers could be reached',
        '',
      ].join('\n'),
    );
    assert.equal(p.stats.kind, 'dig');
    assert.deepEqual(
      [p.queries[0]!.name, p.queries[0]!.type, p.queries[0]!.error],
      ['linkerd-policy.linkerd.svc.cluster.local.', 'SRV', 'connection timed out; no servers could be reached'],
    );
  });

  it('joins parenthesised +multiline rdata and drops comments, but not `;` inside quotes', async () => {
    const p = await parseText(
      'ml.txt',
      [
        ';; ANSWER SECTION:',
        'example.org.\t\t3600 IN DNSKEY 257 3 13 (',
        '\t\t\t\tmdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+',
        '\t\t\t\tKkxLbxILfDLUT0rAK9iUzy1L53eKGQ==',
        '\t\t\t\t) ; KSK; alg = ECDSAP256SHA256 ; key id = 2371',
        'cmdexec.example.org. 300 IN TXT "; ls (x" "(y"',
      ].join('\n'),
    );
    assert.deepEqual(p.unparsed, []);
    assert.deepEqual(
      p.answers.map((a) => [a.type, a.data]),
      [
        ['DNSKEY', '257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+ KkxLbxILfDLUT0rAK9iUzy1L53eKGQ=='],
        ['TXT', '"; ls (x" "(y"'],
      ],
    );
  });

  it('does not let an unterminated ( swallow the records after it', async () => {
    const p = await parseText(
      'cut.txt',
      [
        'cluster.local. 5 IN SOA ns.dns.cluster.local. hostmaster.cluster.local. (',
        '\t1735000000 ; serial',
        '',
        'web.default.svc.cluster.local. 30 IN A 10.96.0.5',
      ].join('\n'),
    );
    assert.deepEqual(p.unparsed, [{ line: 1, reason: 'unterminated ( in a +multiline record' }]);
    assert.deepEqual(
      p.answers.map((a) => a.address),
      ['10.96.0.5'],
    );
  });

  it('keeps EDE options, strips collector prefixes and counts pasted noise as unparsed', async () => {
    const body = sample('01-srv-ttl0-default.out').replace('; COOKIE:', '; EDE: 3 (Stale Answer)\n; COOKIE:');
    const prefixed = body
      .split('\n')
      .map((l) => `2026-12-02T12:13:20.5Z ${l}`)
      .join('\n');
    const p = await parseText('pod.log', `$ dig linkerd-dst-headless.linkerd.svc.cluster.local SRV\n${prefixed}\nreal\t0m0.012s\n`);
    assert.equal(p.stats.kind, 'dig');
    assert.deepEqual(p.queries[0]!.ede, ['3 (Stale Answer)']);
    assert.equal(p.answers.length, 6);
    assert.deepEqual(
      p.unparsed.map((u) => u.line),
      [1, body.split('\n').length + 2],
    );
  });

  it('+identify after a plain answer is not a +trace step', async () => {
    const p = await parseText('id.txt', `${sample('04-srv-noall-answer.out')};; Received 351 bytes from 127.0.0.1#15353(127.0.0.1) in 0 ms\n`);
    assert.deepEqual([p.queries[0]!.format, p.queries[0]!.server, p.answers.length], ['text', '127.0.0.1#15353', 2]);
  });

  it('+nocomments: records outside the question chain go to authority and additional', async () => {
    const p = await parseText('nc.txt', sample('25-srv-nocomments.out'));
    assert.deepEqual(
      p.answers.map((a) => a.section),
      ['answer', 'answer', 'authority', 'additional', 'additional', 'additional'],
    );
  });
});

describe('dig parser: long lines', () => {
  // Found by the linear-time fuzz property: trailing whitespace was stripped with /\s+$/, which
  // retries from every position of a whitespace run that does not reach the end of the line, so a
  // 64 KiB run of blanks inside a line took seconds (quadratic) instead of microseconds.
  it('reads a record with a 64 KiB whitespace run inside and after it in linear time, as the plain record', () => {
    const read = (line: string) => {
      const records: LdRecord[] = [];
      const unparsed: number[] = [];
      const parser = createDigParser({ path: 'wide.txt', kind: 'dig' }, { emit: (r) => records.push(r), unparsed: (n) => unparsed.push(n) }, {});
      const started = performance.now();
      parser.line(line, 1);
      parser.end();
      return { records, unparsed, ms: performance.now() - started };
    };
    const blanks = ' '.repeat(64 << 10);
    const plain = read('web.emojivoto.svc.cluster.local. 5 IN A 10.96.120.14');
    const wide = read(`web.emojivoto.svc.cluster.local.${blanks}5 IN A 10.96.120.14${blanks}\t`);
    assert.ok(wide.ms < 250, `${wide.ms.toFixed(0)} ms for a 128 KiB line`);
    assert.deepEqual(wide.records, plain.records);
    assert.deepEqual(wide.unparsed, []);
    assert.equal(plain.records.filter((r) => r.kind === 'dns-answer').length, 1);
  });
});

describe('dig parser: helpers', () => {
  it('parses TTLs in seconds and +ttlunits', () => {
    assert.equal(parseTtl('0'), 0);
    assert.equal(parseTtl('0s'), 0);
    assert.equal(parseTtl('30s'), 30);
    assert.equal(parseTtl('1d'), 86400);
    assert.equal(parseTtl('1w2d3h4m5s'), 604800 + 2 * 86400 + 3 * 3600 + 4 * 60 + 5);
    assert.equal(parseTtl('IN'), null);
  });

  it('parses `;; WHEN:` in several zones and refuses unknown ones', () => {
    assert.equal(new Date(parseDigWhen('Wed Dec 02 12:13:20 UTC 2026')!).toISOString(), '2026-12-02T12:13:20.000Z');
    assert.equal(new Date(parseDigWhen('Wed Oct 30 05:13:22 PDT 2019')!).toISOString(), '2019-10-30T12:13:22.000Z');
    assert.equal(new Date(parseDigWhen('Fri Dec 07 14:09:43 CET 2018')!).toISOString(), '2018-12-07T13:09:43.000Z');
    assert.equal(parseDigWhen('Fri Dec 07 14:09:43 XYZT 2018'), null);
  });

  it('reads records with any whitespace, +nottlid and unknown types', () => {
    assert.deepEqual(parseRrText('cluster.local.\t\t5\tIN\tNS\tns.dns.cluster.local.'), {
      name: 'cluster.local.',
      ttl: 5,
      class: 'IN',
      type: 'NS',
      data: 'ns.dns.cluster.local.',
    });
    assert.deepEqual(parseRrText('x.example. IN TYPE65534 \\# 2 abcd'), { name: 'x.example.', ttl: null, class: 'IN', type: 'TYPE65534', data: '\\# 2 abcd' });
    assert.equal(parseRrText('total 12 IN files'), null);
    assert.equal(parseRrText('hello world'), null);
  });

  it('plans the queries of a command line: -x, -t, several names, types before names', () => {
    assert.deepEqual(
      plannedQueries(['@127.0.0.1', '-p', '15353', 'a.example', 'SRV', 'b.example', '+short']).queries.map((q) => `${q.name} ${q.type}`),
      ['a.example. SRV', 'b.example. A'],
    );
    assert.deepEqual(
      plannedQueries(['-x', '10.42.0.12']).queries.map((q) => `${q.name} ${q.type}`),
      ['12.0.42.10.in-addr.arpa. PTR'],
    );
    assert.deepEqual(
      plannedQueries(['TXT', 'x.y.z.w.bl.spamcop.net']).queries.map((q) => `${q.name} ${q.type}`),
      ['x.y.z.w.bl.spamcop.net. TXT'],
    );
    assert.deepEqual(
      plannedQueries([]).queries.map((q) => `${q.name} ${q.type}`),
      ['. NS'],
    );
  });
});

describe('sniffing', () => {
  it('calls every sample, jc fixture and capture dig, +short and +yaml included', () => {
    const dirs = [
      SAMPLES,
      join(DATA, 'captured'),
      ...readdirSync(join(DATA, 'jc-dig'), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => join(DATA, 'jc-dig', d.name)),
    ];
    let count = 0;
    for (const dir of dirs) {
      for (const f of readdirSync(dir).filter((n) => n.endsWith('.out'))) {
        assert.equal(sniffKind(readFileSync(join(dir, f), 'utf8').split('\n').slice(0, 64)), 'dig', f);
        count++;
      }
    }
    assert.equal(count, 36 + 8 + 24);
  });

  it('still calls proxy logs and CoreDNS logs what they are', () => {
    const proxy = [
      '[     0.002147s]  INFO ThreadId(01) linkerd2_proxy: release 2.224.0 (8e9e4a5) by linkerd on 2024-02-13T00:00:00Z',
      '[     0.004211s]  INFO ThreadId(01) linkerd2_proxy: Admin interface on 0.0.0.0:4191',
      '[    12.114821s]  WARN ThreadId(01) linkerd_reconnect: Failed to connect error=Connection refused (os error 111)',
    ];
    assert.equal(sniffKind(proxy), 'proxy-log');
    assert.equal(sniffKind(['2026-11-18T03:12:00.1Z [INFO] 10.0.0.1:53000 - 1 "SRV IN a.b. udp 78 false 1232" NOERROR qr,aa,rd 449 0.000123s']), 'coredns-log');
  });
});
