// Line splitting under hostile shapes: lines over the cap, lines split across many chunks, CRLF,
// multi-byte characters cut by chunk boundaries, and CRI partial lines that never end.

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { LineSplitter } from '../../src/input/lines.js';
import { MAX_LINE_BYTES, OVERLONG_LINE_REASON, readEntry } from '../../src/engine/pipeline.js';
import { CollectorPrefixReader } from '../../src/parsers/collector-prefix.js';
import { parseBytes } from '../support/fuzz.js';
import { CRI_PARTIAL_PAIR, PROXY_LOG_LINES } from './corpus.js';

function split(chunks: (string | Buffer)[], max = 10): (string | 'OVERLONG')[] {
  const out: (string | 'OVERLONG')[] = [];
  const s = new LineSplitter(max, { line: (l) => out.push(l), overlong: () => out.push('OVERLONG') });
  for (const c of chunks) s.write(Buffer.isBuffer(c) ? c : Buffer.from(c));
  s.end();
  return out;
}

const LINE = PROXY_LOG_LINES[1]!;

describe('line splitter', () => {
  it('splits LF and CRLF, keeps a lone CR, and ends an unterminated last line', () => {
    assert.deepEqual(split(['a\nb\r\nc\rd\ne']), ['a', 'b', 'c\rd', 'e']);
    assert.deepEqual(split(['a\n\n']), ['a', '']);
  });

  it('joins a line split across chunks, and a UTF-8 character split across chunks', () => {
    const euro = Buffer.from('€'); // 3 bytes
    assert.deepEqual(split(['ab', 'cd', '\nx']), ['abcd', 'x']);
    assert.deepEqual(split([euro.subarray(0, 1), euro.subarray(1, 2), Buffer.concat([euro.subarray(2), Buffer.from('\n')])]), ['€']);
  });

  it('reports a line over the cap once and drops its bytes, whether it arrives whole or in pieces', () => {
    assert.deepEqual(split(['0123456789ABC\nok\n']), ['OVERLONG', 'ok']);
    assert.deepEqual(split(['01234', '56789', 'ABCDE', 'FGHIJ', '\nok']), ['OVERLONG', 'ok']);
    assert.deepEqual(split(['0123456789ABCDEFGHIJ']), ['OVERLONG']);
  });

  it('keeps a line of exactly the cap, with or without a CR', () => {
    assert.deepEqual(split(['0123456789\n0123456789\r\n']), ['0123456789', '0123456789']);
  });
});

describe('pipeline with very long lines', () => {
  it('counts a 1 MiB+ line without newline as one unparsed line, with flat memory', async () => {
    const before = process.memoryUsage().heapUsed;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const total = 64; // 4 MiB, no newline at all
    async function* chunks() {
      yield Buffer.from(LINE + '\n');
      for (let i = 0; i < total; i++) yield chunk;
    }
    const unparsed: { line: number; reason: string }[] = [];
    const result = await readEntry(
      { path: 'long.log', stream: Readable.from(chunks()), size: null },
      { record: () => {}, unparsed: (_s, line, reason) => unparsed.push({ line, reason }) },
      {},
      'proxy-log',
    );
    assert.equal(result.stats.lines, 2);
    assert.equal(result.stats.records, 1);
    assert.deepEqual(unparsed, [{ line: 2, reason: OVERLONG_LINE_REASON }]);
    assert.ok(process.memoryUsage().heapUsed - before < 32 * 1024 * 1024, 'the long line was buffered');
  });

  it('keeps the line numbers after an overlong line exact', async () => {
    const bytes = Buffer.from(`${LINE}\n${'y'.repeat(MAX_LINE_BYTES + 10)}\n${LINE}\n`);
    for (const kind of ['proxy-log', undefined] as const) {
      const outcome = await parseBytes('long.log', bytes, { kind });
      assert.equal(outcome.stats.kind, 'proxy-log');
      assert.deepEqual(
        outcome.records.map((r) => r.line),
        [1, 3],
      );
      assert.deepEqual(
        outcome.unparsed.map((u) => u.line),
        [2],
      );
    }
  });

  it('does not count lines of an unrecognised input as unparsed', async () => {
    const outcome = await parseBytes('blob.bin', Buffer.from('z'.repeat(MAX_LINE_BYTES + 1)));
    assert.equal(outcome.stats.kind, 'unknown');
    assert.equal(outcome.stats.lines, 1);
    assert.equal(outcome.stats.unparsed, 0);
  });
});

describe('CRI partial lines', () => {
  it('joins P chunks with their F chunk into one record at the first line', async () => {
    const outcome = await parseBytes('cri.log', Buffer.from(CRI_PARTIAL_PAIR.join('\n') + '\n'), { kind: 'proxy-log' });
    assert.equal(outcome.records.length, 1);
    assert.equal(outcome.records[0]!.line, 1);
  });

  it('hands on a partial whose final chunk never came, instead of dropping it', async () => {
    const bytes = Buffer.from(`${CRI_PARTIAL_PAIR[0]}\n\u0001garbage\n${LINE}\n`);
    const outcome = await parseBytes('cri.log', bytes, { kind: 'proxy-log' });
    assert.deepEqual(
      outcome.records.map((r) => r.line),
      [1, 3],
    );
    assert.deepEqual(
      outcome.unparsed.map((u) => u.line),
      [2],
    );
  });

  it('bounds an endless run of P chunks', () => {
    const reader = new CollectorPrefixReader();
    const chunk = 'p'.repeat(64 * 1024);
    let handedOn = 0;
    for (let i = 1; i <= 100; i++) {
      assert.equal(reader.feed(`2024-06-06T11:01:41.000000000Z stdout P ${chunk}`, i), null);
      const displaced = reader.takeDisplaced();
      if (displaced) {
        handedOn++;
        assert.ok(displaced.content.length <= 1 << 20);
      }
    }
    assert.ok(handedOn >= 5, `only ${handedOn} pieces handed on`);
  });
});

describe('streams that stop without ending', () => {
  it('ends with an error naming the input when the stream is destroyed mid-way, keeping what was read', async () => {
    const stream = new Readable({ read() {} });
    stream.push(`${LINE}\n${LINE}\n`);
    setImmediate(() => stream.destroy());
    let records = 0;
    const result = await readEntry({ path: 'vanished.log', stream, size: null }, { record: () => records++ }, {}, 'proxy-log');
    assert.equal(records, 2);
    assert.equal(result.error!.toLine(), 'vanished.log:3: input closed before its end');
  });
});
