// Thresholds at their exact boundary, where an off-by-one (`>=` written `>`, a tolerance of 0)
// changes what an SRE is told and the fire/quiet cases, which sit well inside or outside, do not
// notice. Each test names the mutation it catches (see the table in docs/reliability.md).

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { LdRecord, ProxyLogRecord } from '../../src/core/types.js';
import { readEntry } from '../../src/engine/pipeline.js';
import type { ParserState } from '../../src/parsers/parser.js';
import fdExhaustion from '../../src/rules/fd-exhaustion/index.js';
import { fds } from '../support/metrics-inputs.js';
import { runRule } from '../support/rule-tester.js';

describe('fd-exhaustion at its ratio', () => {
  // Catches `ratio >= options.ratio` written `>`: exactly the documented 80 % must warn.
  it('warns at exactly 80 % of the limit, and not one descriptor below', async () => {
    const at = await runRule(fdExhaustion, [{ path: 'dump.txt', content: fds(800, 1000) }]);
    assert.deepEqual(
      at.findings.map((f) => [f.severity, f.evidence.ratio]),
      [['warning', 0.8]],
    );
    const below = await runRule(fdExhaustion, [{ path: 'dump.txt', content: fds(799, 1000) }]);
    assert.deepEqual(below.findings, []);
  });

  it('is an error at exactly the error ratio (95 %)', async () => {
    const { findings } = await runRule(fdExhaustion, [{ path: 'dump.txt', content: fds(950, 1000) }]);
    assert.deepEqual(
      findings.map((f) => f.severity),
      ['error'],
    );
  });
});

/** A plain proxy log line at `uptime` seconds. */
const line = (uptime: number, n: number) =>
  `[${uptime.toFixed(6).padStart(13)}s]  WARN ThreadId(0${(n % 2) + 1}) dst:controller{addr=linkerd-dst-headless.linkerd.svc.cluster.local:8086}: linkerd_reconnect: Failed to connect error=Connection refused (os error 111)`;

async function restartsOf(lines: readonly string[], splitAt?: number): Promise<number[]> {
  const records: LdRecord[] = [];
  const parts = splitAt === undefined ? [lines] : [lines.slice(0, splitAt), lines.slice(splitAt)];
  let state: ParserState | undefined;
  let before = 0;
  for (const part of parts) {
    const stream = Readable.from([Buffer.from(part.map((l) => `${l}\n`).join(''))]);
    const slice = state ? { linesBefore: before, kind: 'proxy-log' as const, parserState: state } : undefined;
    const result = await readEntry(
      { path: 'shop/web-5d8f7c9b4-abcde/linkerd-proxy.log', stream, size: null },
      { record: (r) => records.push(r) },
      {},
      'proxy-log',
      slice,
    );
    state = result.endState;
    before += part.length;
  }
  return records.map((r) => (r as ProxyLogRecord).restart);
}

describe('proxy restarts from uptime going back', () => {
  // Lines of one proxy come from several threads, each stamping its own uptime: a line can carry an
  // uptime a fraction of a second older than the line before it. Catches a restart tolerance of 0.
  const jittery = [line(10.5, 0), line(10.2, 1), line(10.9, 2), line(10.05, 3), line(11.4, 4)];

  it('does not take a step back under a second (threads interleaving) for a restart', async () => {
    assert.deepEqual(await restartsOf(jittery), [0, 0, 0, 0, 0]);
  });

  it('takes a step back of more than a second for a restart', async () => {
    assert.deepEqual(await restartsOf([...jittery, line(2.1, 5), line(2.3, 6)]), [0, 0, 0, 0, 0, 1, 1]);
  });

  it("reads the same when two threads each parse one half and the second starts from the first one's state", async () => {
    const lines = [...jittery, line(2.1, 5), line(1.9, 6), line(2.6, 7), line(0.4, 8), line(0.3, 9)];
    const whole = await restartsOf(lines);
    assert.deepEqual(whole, [0, 0, 0, 0, 0, 1, 1, 1, 2, 2]);
    for (let at = 1; at < lines.length; at++) assert.deepEqual(await restartsOf(lines, at), whole, `split before line ${at + 1}`);
  });
});
