// The catalogue matcher (src/rules/known-signature/matcher.ts) answers like a real regex engine.
// RE2 (re2js, a development dependency only) is the reference: for every catalogue entry, on the
// entry's own example lines, on those lines cut and doubled, and on lines built to trip the `.*`
// gaps (segments repeated, out of order, across a newline), the matcher and RE2 must agree. An
// entry whose segments break the matcher's contract (see matcher.ts) fails here.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RE2JS } from 're2js';
import { SIGNATURES, compileSignaturePattern } from '../../src/rules/known-signature/index.js';
import { splitAtGaps } from '../../src/rules/known-signature/matcher.js';

/** Strings that exercise the gaps: each segment's literal text in order, reversed, repeated, split by a newline. */
function probesFor(pattern: string, examples: readonly string[]): string[] {
  const probes = new Set<string>(['', 'x']);
  for (const line of examples) {
    probes.add(line);
    probes.add(line.slice(0, Math.floor(line.length / 2)));
    probes.add(line.slice(Math.floor(line.length / 2)));
    probes.add(`${line} ${line}`);
    probes.add(line.replace(/ /g, '\n'));
  }
  for (const segments of splitAtGaps(pattern)) {
    // The literal characters of each segment (escapes dropped, classes and groups left out).
    const literal = segments.map((s) => s.replace(/\\(.)/g, '$1').replace(/\[[^\]]*\]|[()?*+{}^$|]/g, ''));
    probes.add(literal.join(' '));
    probes.add([...literal].reverse().join(' '));
    probes.add(literal.join('\n'));
    probes.add(literal.map((l) => `${l}${l}`).join(''));
    probes.add(literal.slice(0, -1).join(' '));
  }
  return [...probes];
}

describe('known-signature matcher', () => {
  it('splits at top-level `.*` and `|` only', () => {
    assert.deepEqual(splitAtGaps('a.*b.*?c|d'), [['a', 'b', 'c'], ['d']]);
    assert.deepEqual(splitAtGaps('x(?:a.*b|c)\\.*[.*|]'), [['x(?:a.*b|c)\\.*[.*|]']]);
    assert.deepEqual(splitAtGaps('a.*+b'), [['a.*+b']]);
  });

  it('agrees with RE2 on every catalogue entry, on its examples and on gap probes', () => {
    let compared = 0;
    for (const s of SIGNATURES) {
      const reference = RE2JS.compile(s.match.pattern);
      const ours = compileSignaturePattern(s.match.pattern);
      for (const text of probesFor(
        s.match.pattern,
        s.examples.map((e) => e.line),
      )) {
        assert.equal(ours.test(text), reference.test(text), `${s.id} /${s.match.pattern}/ on ${JSON.stringify(text.slice(0, 200))}`);
        compared++;
      }
    }
    assert.ok(compared > SIGNATURES.length * 8, `only ${compared} comparisons`);
  });

  it('matches `A.*B.*C` only in order, and not across a line break', () => {
    const p = compileSignaturePattern('controller\\{addr=[^}]*\\}.*Failed to connect.*Connection refused');
    assert.equal(p.test('controller{addr=x:8086}: Failed to connect error=Connection refused (os error 111)'), true);
    assert.equal(p.test('controller{addr=x:8086}: Connection refused then Failed to connect'), false);
    assert.equal(p.test('controller{addr=x:8086}: Failed to connect\nConnection refused'), false);
    assert.equal(p.test('other\ncontroller{addr=x:8086}: Failed to connect; Connection refused'), true);
  });

  it('tests 1 MiB hostile lines in well under a second each', () => {
    const p = compileSignaturePattern('controller\\{addr=[^}]{0,256}\\}.*Failed to connect.*Connection refused');
    for (const line of [
      'controller{addr=x}' + 'Failed to connect'.repeat(60 * 1024) + '\u0001',
      'controller{addr='.repeat(64 * 1024) + '\u0001',
      'controller{addr=x}'.repeat(56 * 1024) + '\u0001',
    ]) {
      const start = process.cpuUsage();
      assert.equal(p.test(line), false);
      const used = process.cpuUsage(start);
      assert.ok((used.user + used.system) / 1000 < 500, `${(used.user + used.system) / 1000} ms on ${line.slice(0, 40)}`);
    }
  });
});
