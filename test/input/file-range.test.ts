// The byte-range reader used by parallel analysis: exact bytes for any range and chunk size (it
// reads the next chunk while the caller works on the current one), and line counts for a range.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { InputError } from '../../src/core/errors.js';
import { SMALL_FILE, VANISHED_WHILE_READ, fileRange, primeFile, releasePrimed } from '../../src/input/file-range.js';
import { countLines, countLinesNotingAnchor } from '../../src/engine/tasks.js';

let dir = '';
let file = '';
// Every seventh line starts like a kubectl timestamp, every eleventh like Docker JSON.
const content = Buffer.from(
  Array.from({ length: 500 }, (_, i) => `${i % 7 === 0 ? '2026-11-27T03:12:00Z ' : i % 11 === 0 ? '{"log":"' : ''}line ${i} ${'x'.repeat(i % 37)}`).join('\n') +
    '\n',
);

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ld-range-'));
  file = path.join(dir, 'f.log');
  writeFileSync(file, content);
});
after(() => rmSync(dir, { recursive: true, force: true }));

async function collect(start: number, end: number, chunk: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  // Copied: each chunk is only valid until the next one is requested.
  for await (const c of fileRange(file, start, end, chunk)) parts.push(Buffer.from(c));
  return Buffer.concat(parts);
}

describe('fileRange', () => {
  it('yields exactly the bytes of the range, whatever the chunk size', async () => {
    for (const [start, end] of [
      [0, content.length],
      [0, 1],
      [123, 4567],
      [content.length - 5, content.length],
      [10, 10],
    ] as const) {
      for (const chunk of [1, 7, 64, 1 << 20]) assert.deepEqual(await collect(start, end, chunk), content.subarray(start, end), `${start}-${end} by ${chunk}`);
    }
  });

  it('fails, naming the file and its size, when the file ends before the range (it shrank since it was listed)', async () => {
    await assert.rejects(collect(content.length - 10, content.length + 1000, 4), (err: Error & { path?: string }) => {
      assert.equal(err.path, file);
      assert.equal(err.message, `the file shrank to ${content.length} bytes while it was read (truncated or rotated); its analysis is incomplete`);
      return true;
    });
  });

  it('can be left early without leaking a read in flight', async () => {
    let seen = 0;
    for await (const c of fileRange(file, 0, content.length, 16)) {
      seen += c.length;
      if (seen >= 48) break;
    }
    assert.equal(seen, 48);
  });
});

describe('countLines', () => {
  it('counts the newlines of a range', async () => {
    const newlines = (a: number, b: number) => content.subarray(a, b).filter((byte) => byte === 10).length;
    for (const [a, b] of [
      [0, content.length],
      [0, 0],
      [100, 9000],
      [5, 6],
    ] as const)
      assert.equal(await countLines(file, a, b), newlines(a, b), `${a}-${b}`);
  });

  it('notes the last line at or before a limit that may start with a collector prefix, across chunk seams', async () => {
    const lineStarts = [0, ...[...content].flatMap((byte, i) => (byte === 10 && i + 1 < content.length ? [i + 1] : []))];
    const expected = (limit: number) =>
      lineStarts.filter((at) => at <= limit && (content[at] === 123 || (content[at]! >= 48 && content[at]! <= 57))).at(-1) ?? null;
    for (const limit of [-1, 0, 1, 500, 4321, 9000, content.length]) {
      for (const chunk of [1, 7, 64, 4096]) {
        const counted = await countLinesNotingAnchor(file, 0, content.length, limit, chunk);
        assert.equal(counted.lines, 500, `lines by ${chunk}`);
        assert.equal(counted.anchorCandidate, expected(limit), `limit ${limit} by ${chunk}`);
      }
    }
  });
});

describe('a small file read whole with blocking calls (SMALL_FILE)', () => {
  it('gives the exact bytes through fileRange, and nothing to close afterwards', async () => {
    const primed = await primeFile(file, content.length);
    assert.equal(primed.handle, null, 'a file under SMALL_FILE is read without a file handle');
    const parts: Buffer[] = [];
    for await (const c of fileRange(file, 0, content.length, undefined, primed)) parts.push(Buffer.from(c));
    assert.deepEqual(Buffer.concat(parts), content);
  });

  it('reports a file shorter than listed (truncated since discovery) as an input error naming it', async () => {
    await assert.rejects(
      primeFile(file, content.length + 10),
      (err: Error) => err instanceof InputError && err.path === file && /shrank to \d+ bytes/.test(err.message),
    );
  });

  it('reports a file deleted since discovery as vanished, not as a system error', async () => {
    const gone = path.join(dir, 'gone.log');
    await assert.rejects(primeFile(gone, 10), (err: Error) => err instanceof InputError && err.message === VANISHED_WHILE_READ);
  });

  it('keeps the asynchronous, read-ahead path for files over SMALL_FILE', async () => {
    const big = path.join(dir, 'big.log');
    writeFileSync(big, Buffer.alloc(SMALL_FILE + 1, 0x61));
    const primed = await primeFile(big, SMALL_FILE + 1);
    assert.notEqual(primed.handle, null);
    await releasePrimed(primed);
  });
});
