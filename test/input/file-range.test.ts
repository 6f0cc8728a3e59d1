// The byte-range reader used by parallel analysis: exact bytes for any range and chunk size (it
// reads the next chunk while the caller works on the current one), and line counts for a range.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileRange } from '../../src/input/file-range.js';
import { countLines } from '../../src/engine/tasks.js';

let dir = '';
let file = '';
const content = Buffer.from(Array.from({ length: 500 }, (_, i) => `line ${i} ${'x'.repeat(i % 37)}`).join('\n') + '\n');

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
    for (const [start, end] of [[0, content.length], [0, 1], [123, 4567], [content.length - 5, content.length], [10, 10]] as const) {
      for (const chunk of [1, 7, 64, 1 << 20]) assert.deepEqual(await collect(start, end, chunk), content.subarray(start, end), `${start}-${end} by ${chunk}`);
    }
  });

  it('stops at the end of the file when the range runs past it', async () => {
    assert.deepEqual(await collect(content.length - 10, content.length + 1000, 4), content.subarray(content.length - 10));
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
    for (const [a, b] of [[0, content.length], [0, 0], [100, 9000], [5, 6]] as const) assert.equal(await countLines(file, a, b), newlines(a, b), `${a}-${b}`);
  });
});
