// With a line interest (analyze), the proxy-log parser skims lines no rule reads. The records it
// still builds must be exactly those of a full parse: same restart numbers, same anchored wall
// times, same line numbers.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LdRecord } from '../../src/core/types.js';
import { createProxyLogParser } from '../../src/parsers/proxy-log.js';

function parse(lines: string[], interest?: string[]): { records: LdRecord[]; skipped: number[]; unparsed: number[] } {
  const records: LdRecord[] = [];
  const skipped: number[] = [];
  const unparsed: number[] = [];
  const parser = createProxyLogParser(
    { path: 'web.log', kind: 'proxy-log' },
    { emit: (r) => records.push(r), unparsed: (l) => unparsed.push(l), skipped: (l) => skipped.push(l) },
    interest ? { interest: { 'proxy-log': interest } } : {},
  );
  lines.forEach((l, i) => parser.line(l, i + 1));
  parser.end();
  return { records, skipped, unparsed };
}

const info = (up: string) => `[${up}s]  INFO ThreadId(01) outbound:proxy{addr=10.0.0.1:80}: linkerd_pool_p2c: Adding endpoint addr=10.0.0.1:80`;
const warn = (up: string) =>
  `[${up}s]  WARN ThreadId(01) outbound:proxy{addr=10.0.0.1:80}:endpoint{addr=10.0.0.1:80}: linkerd_reconnect: Failed to connect error=Connection refused (os error 111)`;

describe('skimming lines no rule reads', () => {
  const lines = [
    `2026-11-27T03:00:00.250000000Z ${info('   100.000000')}`,
    info('   100.500000'),
    warn('   101.000000'),
    `2026-11-27T03:00:02.000000Z stdout F ${info('   101.750000')}`,
    warn('   102.000000'),
    info('     0.400000'), // uptime went back: a restart; this line must still be built
    warn('     1.000000'),
    `\u001b[2m${info('     1.500000')}\u001b[0m`,
    '{"timestamp":"[     1.600000s]","level":"INFO","fields":{"message":"x"},"target":"linkerd_app"}',
    info('     2.0'),
    warn('     3.000000'),
    '[  not an uptime]  INFO ThreadId(01) linkerd_app: x',
    `2026-11-27T03:00:09.000000Z ${info('     8.000000')}`,
    warn('     9.000000'),
  ];

  it('builds the same records (and counts the others) as a full parse', () => {
    const full = parse(lines);
    const skim = parse(lines, ['linkerd_reconnect']);
    const built = new Set(skim.records.map((r) => r.line));
    assert.deepEqual(
      skim.records,
      full.records.filter((r) => built.has(r.line)),
    );
    assert.deepEqual(skim.unparsed, full.unparsed);
    assert.equal(skim.records.length + skim.skipped.length, full.records.length);
    // Skimmed: plain lines without the interest, except the restart line (6) and the ANSI (8) and JSON (9) lines.
    assert.deepEqual(skim.skipped, [1, 2, 4, 10, 13]);
    const byLine = new Map(skim.records.map((r) => [r.line, r]));
    const w3 = byLine.get(3) as Extract<LdRecord, { kind: 'proxy-log' }>;
    assert.equal(w3.time, Date.UTC(2026, 10, 27, 3, 0, 0) + 250 + 1000, 'wall time anchored by a skimmed timestamped line');
    assert.equal((byLine.get(6) as Extract<LdRecord, { kind: 'proxy-log' }>).restart, 1);
    assert.equal((byLine.get(14) as Extract<LdRecord, { kind: 'proxy-log' }>).time, Date.UTC(2026, 10, 27, 3, 0, 9) + 1000);
  });
});
