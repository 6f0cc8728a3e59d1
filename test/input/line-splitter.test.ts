// The chunked line splitter (src/input/lines.ts) replaced split2 in the pipeline; it must cut lines exactly as the
// parser contract says (newline and one trailing CR removed) whatever the chunk boundaries.

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { MAX_LINE_BYTES, readEntry } from '../../src/engine/pipeline.js';
import { LineSplitter } from '../../src/input/lines.js';

function split(chunks: Buffer[]): { lines: string[]; overlong: number } {
  const lines: string[] = [];
  let overlong = 0;
  const splitter = new LineSplitter(MAX_LINE_BYTES, { line: (l) => lines.push(l), overlong: () => overlong++ });
  for (const c of chunks) splitter.write(c);
  splitter.end();
  return { lines, overlong };
}

/** Every way of cutting `bytes` in two, plus byte-by-byte. */
function cuts(bytes: Buffer): Buffer[][] {
  const out: Buffer[][] = [[bytes], Array.from(bytes, (b) => Buffer.from([b]))];
  for (let i = 1; i < bytes.length; i++) out.push([bytes.subarray(0, i), bytes.subarray(i)]);
  return out;
}

describe('LineSplitter', () => {
  it('gives the same lines for any chunking, including inside multi-byte characters', () => {
    const text = 'première ligne\r\n[ 1.0s]  WARN ünïcødé → ok\n\nlast without newline ✓';
    const expected = ['première ligne', '[ 1.0s]  WARN ünïcødé → ok', '', 'last without newline ✓'];
    for (const chunks of cuts(Buffer.from(text))) assert.deepEqual(split(chunks).lines, expected);
  });

  it('does not invent a line after a final newline, and keeps a lone CR inside a line', () => {
    assert.deepEqual(split([Buffer.from('a\rb\nc\n')]).lines, ['a\rb', 'c']);
    assert.deepEqual(split([Buffer.from('')]).lines, []);
  });

  it('splits an input with CR-only line ends on CR, for any chunking', () => {
    const text = '[ 1.0s]  WARN a\r[ 2.0s]  WARN ünï\r\rlast';
    for (const chunks of cuts(Buffer.from(text))) assert.deepEqual(split(chunks).lines, ['[ 1.0s]  WARN a', '[ 2.0s]  WARN ünï', '', 'last']);
  });

  it('decides CR-only line ends on the first 64 KiB: a lone CR in an LF file stays data', () => {
    const lf = `a\rb\n${'x'.repeat(70_000)}\rc\n`;
    assert.deepEqual(split([Buffer.from(lf)]).lines, ['a\rb', `${'x'.repeat(70_000)}\rc`]);
    const crOnly = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join('\r') + '\r';
    const lines = split([Buffer.from(crOnly.slice(0, 40_000)), Buffer.from(crOnly.slice(40_000))]).lines;
    assert.equal(lines.length, 5000);
    assert.equal(lines[4999], 'line 4999');
  });

  it('skips over-long lines as one unit each, carried across chunks or not', () => {
    const long = Buffer.alloc(MAX_LINE_BYTES + 10, 0x61);
    const input = Buffer.concat([Buffer.from('before\n'), long, Buffer.from('\nafter\n'), long]);
    for (const chunks of [[input], [input.subarray(0, 100), input.subarray(100, 600_000), input.subarray(600_000)]]) {
      assert.deepEqual(split(chunks), { lines: ['before', 'after'], overlong: 2 });
    }
  });
});

describe('readEntry line numbers', () => {
  it('counts an over-long line, reports it as unparsed, and keeps later line numbers right', async () => {
    const long = 'x'.repeat(MAX_LINE_BYTES + 1);
    const content = [
      `[     1.000000s]  INFO ThreadId(01) linkerd2_proxy: Admin interface on 0.0.0.0:4191`,
      long,
      `[     2.000000s]  WARN ThreadId(01) linkerd_reconnect: Failed to connect error=Connection refused`,
    ].join('\n');
    const lines: number[] = [];
    const unparsed: number[] = [];
    const result = await readEntry(
      { path: 'p.log', stream: Readable.from([Buffer.from(content)]), size: null },
      { record: (r) => lines.push(r.line), unparsed: (_s, line) => unparsed.push(line) },
      {},
      'proxy-log',
    );
    assert.deepEqual(lines, [1, 3]);
    assert.deepEqual(unparsed, [2]);
    assert.equal(result.stats.lines, 3);
  });
});
