import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeRegExp, literalRegex } from '../../src/util/literal-regex.js';
import { seeded } from '../../scripts/fixtures/prng.js';

/** The regex literalRegex replaces: a flat alternation, longest literals first. */
function flat(literals: readonly string[], flags?: string): RegExp {
  return new RegExp(
    [...literals]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|'),
    flags,
  );
}

function allMatches(re: RegExp, text: string): string[] {
  const found: string[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    found.push(`${m.index}:${m[0]}`);
    re.lastIndex = m.index + 1;
  }
  return found;
}

describe('literalRegex', () => {
  const r = seeded(19);
  // A small alphabet with regex metacharacters, so literals share prefixes, contain each other and need escaping.
  const alphabet = ['a', 'b', 'c', '{', '}', '.', '|', '(', '[', ' ', '\\', '$'];
  const word = (min: number, max: number) => Array.from({ length: r.int(min, max) }, () => r.pick(alphabet)).join('');

  it('matches exactly where a flat alternation does, on random literals and text', () => {
    for (let round = 0; round < 300; round++) {
      const literals = [...new Set(Array.from({ length: r.int(1, 12) }, () => word(1, 5)))];
      const text = word(0, 40);
      assert.equal(literalRegex(literals).test(text), flat(literals).test(text), `${JSON.stringify(literals)} on ${JSON.stringify(text)}`);
      assert.deepEqual(allMatches(literalRegex(literals, { longest: true, flags: 'g' }), text), allMatches(flat(literals, 'g'), text));
    }
  });

  it('reports the longest literal at a position when asked, and may stop at a shorter one otherwise', () => {
    const literals = ['entering failfast', 'entering', 'enter'];
    assert.equal(literalRegex(literals, { longest: true }).exec('Unavailable; entering failfast timeout=3.0')?.[0], 'entering failfast');
    assert.equal(literalRegex(literals).exec('Unavailable; entering failfast timeout=3.0')?.[0], 'enter');
  });

  it('factors shared prefixes instead of repeating them', () => {
    const re = literalRegex(['inbound:server{port=8086}', 'inbound:server{port=8090}', 'inbound:server{port=8080}']);
    assert.equal(re.source.match(/inbound/g)?.length, 1);
    assert.ok(re.test('INFO inbound:server{port=8090}: linkerd_app_inbound'));
    assert.ok(!re.test('INFO inbound:server{port=4143}: linkerd_app_inbound'));
  });

  it('refuses an empty list or an empty literal, which would match every line', () => {
    assert.throws(() => literalRegex([]));
    assert.throws(() => literalRegex(['a', '']));
  });
});
