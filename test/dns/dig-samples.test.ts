// The 36 real BIND 9.18.49 outputs in data/dig-samples (index: its README.md), each with the
// facts a reader of that file can check by eye: status, answer-section TTLs and types, errors,
// transports, notes printed before the banner.

import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { DigFormat } from '../../src/core/types.js';
import { DATA, parseFile } from './helpers.js';

interface Expected {
  /** One entry per query record, in order. */
  queries: {
    name: string;
    type: string;
    status: string | null;
    format?: DigFormat;
    error?: RegExp;
    protocol?: string | null;
    time?: string | null;
    /** TTLs of the answer-section records (null: printed without one). */
    answerTtls: (number | null)[];
    answerTypes?: string[];
    authority?: number;
    additional?: number;
    notes?: RegExp;
  }[];
  check?: (parsed: Awaited<ReturnType<typeof parseFile>>) => void;
}

const DST = 'linkerd-dst-headless.linkerd.svc.cluster.local.';
const POLICY = 'linkerd-policy.linkerd.svc.cluster.local.';
const T20 = '2026-12-02T12:13:20.000Z';
const T25 = '2026-12-02T12:13:25.000Z';

const dst0 = { name: DST, type: 'SRV', status: 'NOERROR', answerTtls: [0, 0], answerTypes: ['SRV', 'SRV'], authority: 1, additional: 3 };
const policy30 = { name: POLICY, type: 'SRV', status: 'NOERROR', answerTtls: [30, 30, 30], authority: 1, additional: 4 };

const SAMPLES: Record<string, Expected> = {
  '01-srv-ttl0-default.out': {
    queries: [{ ...dst0, protocol: 'UDP', time: T20 }],
    check: (p) => {
      assert.deepEqual(p.answers[0]!.srv, { priority: 0, weight: 50, port: 8086, target: '10-42-1-7.linkerd-dst-headless.linkerd.svc.cluster.local.' });
      assert.equal(p.answers.find((a) => a.section === 'additional')!.address, '10.42.1.7');
      assert.deepEqual(p.queries[0]!.flags, ['qr', 'aa', 'rd']);
      assert.equal(p.queries[0]!.server, '127.0.0.1#15353');
    },
  },
  '02-srv-ttl30-default.out': { queries: [{ ...policy30, time: T20 }], check: (p) => assert.equal(p.answers[0]!.srv?.weight, 33) },
  '03-srv-short.out': {
    queries: [{ name: '', type: 'SRV', status: null, format: 'short', answerTtls: [null, null] }],
    check: (p) => assert.equal(p.answers[1]!.srv?.target, '10-42-1-7.linkerd-dst-headless.linkerd.svc.cluster.local.'),
  },
  '04-srv-noall-answer.out': { queries: [{ name: DST, type: 'SRV', status: null, answerTtls: [0, 0] }] },
  '05-srv-multiline.out': { queries: [policy30] },
  '06-soa-multiline.out': {
    queries: [{ name: 'cluster.local.', type: 'SOA', status: 'NOERROR', answerTtls: [5], answerTypes: ['SOA'], authority: 1, additional: 1 }],
    check: (p) => assert.equal(p.answers[0]!.data, 'ns.dns.cluster.local. hostmaster.cluster.local. 1735000000 7200 1800 86400 5'),
  },
  '07-srv-yaml.out': { queries: [{ ...dst0, format: 'yaml', protocol: 'UDP', time: '2026-12-02T12:13:20.688Z' }] },
  '08-srv-ttlunits.out': {
    queries: [policy30],
    check: (p) =>
      assert.deepEqual(
        p.answers.filter((a) => a.section === 'authority').map((a) => a.ttl),
        [5],
      ),
  },
  '09-multi-query.out': { queries: [dst0, policy30] },
  '10-srv-nocmd.out': { queries: [dst0] },
  '11-srv-nostats.out': { queries: [{ ...dst0, time: null }] },
  '12-nxdomain.out': {
    queries: [{ name: 'nope.linkerd.svc.cluster.local.', type: 'SRV', status: 'NXDOMAIN', answerTtls: [], authority: 1, additional: 0 }],
    check: (p) => assert.equal(p.answers[0]!.type, 'SOA'),
  },
  '13-servfail.out': { queries: [{ name: 'foo.broken.local.', type: 'A', status: 'SERVFAIL', answerTtls: [], authority: 0, additional: 0 }] },
  '14-truncated-tcp-retry.out': {
    queries: [
      {
        name: 'big-headless.default.svc.cluster.local.',
        type: 'SRV',
        status: 'NOERROR',
        protocol: 'TCP',
        answerTtls: new Array(40).fill(30),
        notes: /Truncated, retrying in TCP mode/,
      },
    ],
  },
  '15-timeout.out': {
    queries: [
      {
        name: DST,
        type: 'SRV',
        status: null,
        error: /timed out; no servers could be reached/,
        answerTtls: [],
        notes: /communications error to 127\.0\.0\.1#15354: timed out/,
      },
    ],
  },
  '16-timeout-3tries.out': {
    queries: [{ name: DST, type: 'SRV', status: null, error: /timed out/, answerTtls: [] }],
    check: (p) => assert.equal(p.queries[0]!.notes.filter((n) => n.startsWith('communications error')).length, 3),
  },
  '17-conn-refused.out': { queries: [{ name: DST, type: 'SRV', status: null, error: /connection refused/, answerTtls: [] }] },
  '18-a-cname.out': {
    queries: [{ name: 'www.web.svc.cluster.local.', type: 'A', status: 'NOERROR', answerTtls: [30, 30], answerTypes: ['CNAME', 'A'], time: T25 }],
    check: (p) => {
      assert.equal(p.answers[0]!.cname, 'web.web.svc.cluster.local.');
      assert.equal(p.answers[1]!.address, '10.96.14.2');
    },
  },
  '19-aaaa.out': {
    queries: [
      { name: 'fd00-10-42--5.linkerd-identity-headless.linkerd.svc.cluster.local.', type: 'AAAA', status: 'NOERROR', answerTtls: [5], answerTypes: ['AAAA'] },
    ],
    check: (p) => assert.equal(p.answers[0]!.address, 'fd00:10:42::5'),
  },
  '20-ptr.out': { queries: [{ name: '12.0.42.10.in-addr.arpa.', type: 'PTR', status: 'NOERROR', answerTtls: [30], answerTypes: ['PTR'] }] },
  '21-txt.out': {
    queries: [{ name: 'txt.web.svc.cluster.local.', type: 'TXT', status: 'NOERROR', answerTtls: [30] }],
    check: (p) => assert.equal(p.answers[0]!.data, '"v=spf1 -all" "second string with spaces"'),
  },
  '22-mx.out': {
    queries: [{ name: 'mail.web.svc.cluster.local.', type: 'MX', status: 'NOERROR', answerTtls: [30, 30], answerTypes: ['MX', 'MX'], additional: 3 }],
  },
  '23-srv-tcp.out': { queries: [{ ...dst0, protocol: 'TCP' }] },
  '24-srv-qr.out': { queries: [dst0], check: (p) => assert.equal(p.queries[0]!.line, 19, 'the response, not the ;; Sending: half') },
  '25-srv-nocomments.out': {
    // No section titles: records outside the question's chain go to authority (NS) and additional.
    queries: [{ name: DST, type: 'SRV', status: null, answerTtls: [0, 0], authority: 1, additional: 3, time: T25 }],
  },
  '26-trace.out': {
    queries: [
      { name: POLICY, type: 'SRV', status: null, format: 'trace', answerTtls: [86400], answerTypes: ['NS'] },
      { name: POLICY, type: 'SRV', status: null, format: 'trace', answerTtls: [30, 30, 30, 5] },
    ],
  },
  '27-multi-yaml.out': {
    queries: [
      { ...dst0, format: 'yaml' },
      { ...policy30, format: 'yaml' },
    ],
  },
  '28-noall-answer-ttlunits.out': { queries: [{ name: POLICY, type: 'SRV', status: null, answerTtls: [30, 30, 30] }] },
  '29-srv-short-multi.out': {
    // Two +short answers printed back to back cannot be told apart: one rdata-only group.
    queries: [{ name: '', type: 'SRV', status: null, format: 'short', answerTtls: [null, null, null, null, null] }],
  },
  '30-nodata.out': { queries: [{ name: POLICY, type: 'TXT', status: 'NOERROR', answerTtls: [], authority: 1 }] },
  '31-yaml-timeout.out': { queries: [{ name: DST, type: 'SRV', status: null, format: 'yaml', error: /no servers could be reached/, answerTtls: [] }] },
  '32-noedns.out': { queries: [dst0] },
  '33-ttlunits-day.out': { queries: [{ name: '.', type: 'NS', status: null, answerTtls: [86400] }] },
  '34-short-identify.out': {
    queries: [{ name: '', type: 'SRV', status: null, format: 'short', answerTtls: [null, null, null] }],
    check: (p) => assert.equal(p.queries[0]!.server, '127.0.0.1'),
  },
  '35-noall-answer-stats.out': { queries: [{ name: DST, type: 'SRV', status: null, answerTtls: [0, 0], time: '2026-12-02T12:13:58.000Z' }] },
  '36-nottlid.out': { queries: [{ name: DST, type: 'SRV', status: null, answerTtls: [null, null] }] },
};

const DIR = join(DATA, 'dig-samples');

describe('dig parser: BIND 9.18 samples', () => {
  it('covers every sample file', () => {
    const files = readdirSync(DIR)
      .filter((f) => f.endsWith('.out'))
      .sort();
    assert.equal(files.length, 36);
    assert.deepEqual(files, Object.keys(SAMPLES).sort());
  });

  for (const [file, expected] of Object.entries(SAMPLES)) {
    it(file, async () => {
      const p = await parseFile(join(DIR, file));
      assert.equal(p.stats.kind, 'dig');
      assert.deepEqual(p.unparsed, []);
      assert.equal(p.queries.length, expected.queries.length, 'query records');
      expected.queries.forEach((e, i) => {
        const q = p.queries[i]!;
        const mine = p.answers.filter((a) => a.queryIndex === q.queryIndex);
        const answers = mine.filter((a) => a.section === 'answer');
        assert.equal(q.name, e.name);
        assert.equal(q.type, e.type);
        assert.equal(q.status, e.status);
        assert.equal(q.format, e.format ?? 'text');
        if (e.error) assert.match(q.error ?? '', e.error);
        else assert.equal(q.error, null);
        if (e.protocol !== undefined) assert.equal(q.protocol, e.protocol);
        if (e.time !== undefined) assert.equal(q.time === null ? null : new Date(q.time).toISOString(), e.time);
        assert.deepEqual(
          answers.map((a) => a.ttl),
          e.answerTtls,
        );
        if (e.answerTypes)
          assert.deepEqual(
            answers.map((a) => a.type),
            e.answerTypes,
          );
        if (e.authority !== undefined) assert.equal(mine.filter((a) => a.section === 'authority').length, e.authority);
        if (e.additional !== undefined) assert.equal(mine.filter((a) => a.section === 'additional').length, e.additional);
        if (e.notes) assert.match(q.notes.join('\n'), e.notes);
        for (const a of mine) assert.equal(a.time, q.time, 'answers carry their message time');
      });
      expected.check?.(p);
    });
  }
});
