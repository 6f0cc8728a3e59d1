// Property-based fuzzing of every registered parser (iterating PARSERS, so parsers added later are
// covered without touching this file) and of the sniffed path, through the real pipeline.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { InputKind } from '../../src/core/types.js';
import { MAX_LINE_BYTES } from '../../src/engine/pipeline.js';
import { PARSERS } from '../../src/parsers/index.js';
import {
  accountingViolation,
  checkProperty,
  chunkCuts,
  garbageLine,
  hostileInput,
  mutatedLine,
  parseBytes,
  physicalLines,
  strictViolation,
  toChunks,
  type Outcome,
} from '../support/fuzz.js';
import { ALL_LINES, CORPUS } from './corpus.js';

const KINDS = Object.keys(PARSERS) as InputKind[];
/** `undefined` = let the sniffer decide, as for a real file. */
const TARGETS: (InputKind | undefined)[] = [...KINDS, undefined];

const label = (kind: InputKind | undefined) => kind ?? 'sniffed kind';
const comparable = (o: Outcome) => ({ kind: o.stats.kind, lines: o.stats.lines, records: o.records, unparsed: o.unparsed });

describe('parser fuzzing', () => {
  it('registers at least the proxy-log parser (the loop below fuzzes every registered one)', () => {
    assert.ok(KINDS.includes('proxy-log'));
  });

  for (const kind of TARGETS) {
    describe(label(kind), () => {
      it('survives hostile bytes and accounts for every line (lenient and strict)', async () => {
        await checkProperty(
          `${label(kind)} accounting`,
          fc.asyncProperty(hostileInput, fc.boolean(), async (bytes, strict) => {
            const outcome = await parseBytes('fuzz/input.log', bytes, { kind, strict });
            const violation = accountingViolation(outcome.stats.kind, bytes, outcome, { strict });
            assert.equal(violation, null, violation ?? '');
            if (strict) {
              const difference = strictViolation(await parseBytes('fuzz/input.log', bytes, { kind }), outcome);
              assert.equal(difference, null, difference ?? '');
            }
          }),
        );
      });

      // Needs a parser to report to; the sniffed path is covered by the accounting property.
      if (kind !== undefined) {
        it('reports every line no format accepts as unparsed, wherever it sits', async () => {
          const input = fc.array(
            fc.oneof(
              { weight: 3, arbitrary: mutatedLine },
              garbageLine.map((g) => Buffer.from(g)),
            ),
            { minLength: 1, maxLength: 50 },
          );
          await checkProperty(
            `${kind} garbage is never silently dropped`,
            fc.asyncProperty(input, async (lines) => {
              const bytes = Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]));
              // Line numbers are those of the bytes: a mutated line may itself hold newlines.
              const physical = physicalLines(bytes);
              const garbageNumbers = physical.flatMap((l, i) => (l.startsWith('\u0001') ? [i + 1] : []));
              const outcome = await parseBytes('fuzz/garbage.log', bytes, { kind });
              const unparsed = new Set(outcome.unparsed.map((u) => u.line));
              for (const n of garbageNumbers) assert.ok(unparsed.has(n), `garbage line ${n} ${JSON.stringify(physical[n - 1])} was not reported unparsed`);
              const violation = accountingViolation(kind, bytes, outcome);
              assert.equal(violation, null, violation ?? '');
            }),
          );
        });
      }

      it('accounts for a line over 1 MiB anywhere in the input, and keeps the numbering after it', async () => {
        const withLongLine = fc.tuple(hostileInput, fc.nat(), fc.integer({ min: 1, max: 4096 }), fc.boolean()).map(([bytes, at, extra, newline]) => {
          const cut = bytes.length === 0 ? 0 : at % bytes.length;
          const long = Buffer.alloc(MAX_LINE_BYTES + extra, 'x'.charCodeAt(0));
          return Buffer.concat([bytes.subarray(0, cut), Buffer.from('\n'), long, Buffer.from(newline ? '\n' : ''), bytes.subarray(cut)]);
        });
        await checkProperty(
          `${label(kind)} overlong line`,
          fc.asyncProperty(withLongLine, chunkCuts, async (bytes, cuts) => {
            const outcome = await parseBytes('fuzz/long.log', toChunks(bytes, cuts), { kind });
            const violation = accountingViolation(outcome.stats.kind, bytes, outcome);
            assert.equal(violation, null, violation ?? '');
          }),
          10,
        );
      });

      it('never leaks state from one input into the next', async () => {
        await checkProperty(
          `${label(kind)} isolation`,
          fc.asyncProperty(hostileInput, hostileInput, async (first, second) => {
            const alone = await parseBytes('fuzz/b.log', second, { kind });
            await parseBytes('fuzz/a.log', first, { kind });
            const afterAnother = await parseBytes('fuzz/b.log', second, { kind });
            assert.deepEqual(comparable(afterAnother), comparable(alone));
          }),
        );
      });

      it('reads the same records whatever the chunk boundaries (lines and UTF-8 split across chunks)', async () => {
        await checkProperty(
          `${label(kind)} chunking`,
          fc.asyncProperty(hostileInput, chunkCuts, async (bytes, cuts) => {
            const whole = await parseBytes('fuzz/c.log', bytes, { kind });
            const chunked = await parseBytes('fuzz/c.log', toChunks(bytes, cuts), { kind });
            assert.deepEqual(comparable(chunked), comparable(whole));
          }),
        );
      });

      it('reads CRLF files like LF files, with or without a BOM', async () => {
        const cleanLines = fc.array(fc.constantFrom(...ALL_LINES.filter((l) => !l.includes('\r'))), { minLength: 1, maxLength: 40 });
        await checkProperty(
          `${label(kind)} line ends and BOM`,
          fc.asyncProperty(cleanLines, async (lines) => {
            const lf = await parseBytes('fuzz/d.log', Buffer.from(lines.join('\n') + '\n'), { kind });
            const crlf = await parseBytes('fuzz/d.log', Buffer.from(lines.join('\r\n') + '\r\n'), { kind });
            const bom = await parseBytes('fuzz/d.log', Buffer.from('\uFEFF' + lines.join('\r\n') + '\r\n'), { kind });
            assert.deepEqual(comparable(crlf), comparable(lf));
            assert.deepEqual(comparable(bom), comparable(lf));
          }),
        );
      });
    });
  }

  it('treats a lone CR as data, not a line end', async () => {
    const outcome = await parseBytes('fuzz/cr.log', Buffer.from('[  1.000000s]  INFO ThreadId(01) linkerd2_proxy: a\rb\n'), { kind: 'proxy-log' });
    assert.equal(outcome.stats.lines, 1);
    assert.equal(outcome.records.length, 1);
  });

  it('names a line with NUL bytes and invalid UTF-8 as unparsed, and goes on with the next line', async () => {
    const bytes = Buffer.concat([
      Buffer.from('\u0000\u0000'),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from('\n'),
      Buffer.from(CORPUS['proxy-log']![1]! + '\n'),
    ]);
    const outcome = await parseBytes('fuzz/nul.log', bytes, { kind: 'proxy-log' });
    assert.deepEqual(
      outcome.unparsed.map((u) => u.line),
      [1],
    );
    assert.deepEqual(
      outcome.records.map((r) => r.line),
      [2],
    );
  });
});
