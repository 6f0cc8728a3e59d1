// Catalogue patterns are data, compiled at run time, so neither review nor the regex lint sees
// them, and entries keep being added. They run on untrusted lines of up to 1 MiB, where one
// `.*X.*Y` in V8's backtracking engine costs hours (`controller\{addr=[^}]*\}.*Failed to
// connect.*Connection refused` took 30 s on a 32 KiB line). RE2's automaton matches in time linear
// in the line whatever the pattern, so every entry is compiled by re2js (pure JavaScript, no
// native build). It accepts the JavaScript syntax the catalogue uses (classes, \d \S \w, bounded
// repeats, groups, anchors); look-arounds and back-references, which no linear engine can match,
// are rejected when the module loads, so such an entry cannot ship.

import { RE2JS } from 're2js';

export interface LinearPattern {
  readonly source: string;
  test(text: string): boolean;
}

export function compileSignaturePattern(source: string): LinearPattern {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source);
  } catch (err) {
    throw new Error(`known-signature pattern ${JSON.stringify(source)} is not linear-time RE2 syntax: ${(err as Error).message}`);
  }
  return { source, test: (text) => compiled.test(text) };
}

/**
 * The same pattern compiled on its first test. RE2's compilation is the costly part (about 1 ms
 * an entry, 0.1 s for the catalogue at every start), and most entries never get past their
 * literal prefilter in a given bundle. Every entry is compiled eagerly by the catalogue's unit
 * test, so a pattern RE2 refuses still cannot ship.
 */
export function compileSignaturePatternOnFirstUse(source: string): LinearPattern {
  let compiled: LinearPattern | null = null;
  return {
    source,
    test: (text) => (compiled ??= compileSignaturePattern(source)).test(text),
  };
}
