// The format sniffer decides every input's fate; hostile first lines must never throw or make it
// flip between runs, and a BOM or CRLF line ends must not change its mind.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { INPUT_KINDS, type InputKind } from '../../src/core/types.js';
import { SNIFF_LINES, sniffKind } from '../../src/input/sniff.js';
import { checkProperty, hostileInput, physicalLines } from '../support/fuzz.js';
import { CORPUS } from './corpus.js';

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
    const nasty = ['x'.repeat(1 << 20), '\u0000'.repeat(1000), '\ud800\udfff\ud800', '[' + ' '.repeat(100_000), '{"log":' + '['.repeat(10_000), '# TYPE ' + 'a'.repeat(100_000)];
    for (const line of nasty) assert.doesNotThrow(() => sniffKind([line, line]));
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
