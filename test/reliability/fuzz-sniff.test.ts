// The format sniffer decides every input's fate; hostile first lines must never throw or make it
// flip between runs, and a BOM or CRLF line ends must not change its mind.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { INPUT_KINDS, type InputKind } from '../../src/core/types.js';
import { SNIFF_LINES, sniffKind } from '../../src/parsers/sniff.js';
import { checkProperty, hostileInput, physicalLines } from '../support/fuzz.js';
import { PARSERS } from '../../src/parsers/index.js';
import { ALL_LINES, CORPUS } from './corpus.js';

const hostileLines = hostileInput.map((bytes) => physicalLines(bytes).slice(0, SNIFF_LINES));

describe('sniffer fuzzing', () => {
  it('always answers with a known kind, the same one every time', async () => {
    await checkProperty(
      'sniff total and deterministic',
      fc.property(hostileLines, (lines) => {
        const kind = sniffKind(lines);
        assert.ok((INPUT_KINDS as readonly string[]).includes(kind), kind);
        assert.equal(sniffKind([...lines]), kind);
      }),
    );
  });

  it('is not swayed by a BOM or by CR line ends', async () => {
    await checkProperty(
      'sniff BOM and CR',
      fc.property(hostileLines, (lines) => {
        fc.pre(lines.length > 0);
        const kind = sniffKind(lines);
        assert.equal(sniffKind(['\uFEFF' + lines[0], ...lines.slice(1)]), kind);
        assert.equal(sniffKind(lines.map((l) => l + '\r')), kind);
      }),
    );
  });

  it('survives 1 MiB lines, NUL bytes and lone surrogates', () => {
    const nasty = [
      'x'.repeat(1 << 20),
      '\u0000'.repeat(1000),
      '\ud800\udfff\ud800',
      '[' + ' '.repeat(100_000),
      '{"log":' + '['.repeat(10_000),
      '# TYPE ' + 'a'.repeat(100_000),
    ];
    for (const line of nasty) assert.doesNotThrow(() => sniffKind([line, line]));
  });

  it('sniffs and parses (every registered parser) 32 KiB lines that repeat a piece of a real line in linear time', async () => {
    // A real line with one 1–3 character piece repeated: exactly what makes an ambiguous pattern
    // such as \d+[\d…]* backtrack quadratically. Linear code handles each in well under 10 ms; the
    // quadratic sniffer patterns this replaced took over a second.
    const repeated = fc.tuple(fc.constantFrom(...ALL_LINES.filter((l) => l !== '')), fc.nat(), fc.integer({ min: 1, max: 3 })).map(([line, at, length]) => {
      const i = at % line.length;
      const piece = line.slice(i, i + length);
      return line.slice(0, i) + piece.repeat(Math.ceil((32 << 10) / piece.length)) + line.slice(i + length);
    });
    await checkProperty(
      'linear-time sniffing and parsing',
      fc.property(repeated, (line) => {
        const started = performance.now();
        sniffKind([line]);
        for (const [kind, factory] of Object.entries(PARSERS)) {
          const parser = factory!({ path: 'x', kind: kind as InputKind }, { emit: () => {}, unparsed: () => {} }, {});
          parser.line(line, 1);
          parser.end();
        }
        const ms = performance.now() - started;
        assert.ok(ms < 300, `${ms.toFixed(0)} ms for ${JSON.stringify(line.slice(0, 60))}…`);
      }),
      300,
    );
  });

  for (const [kind, lines] of Object.entries(CORPUS) as [InputKind, string[]][]) {
    it(`recognises ${kind} from its real lines in any order`, async () => {
      await checkProperty(
        `sniff ${kind}`,
        fc.property(fc.shuffledSubarray(lines, { minLength: lines.length, maxLength: lines.length }), (shuffled) => {
          assert.equal(sniffKind(shuffled), kind);
        }),
        30,
      );
    });
  }
});
