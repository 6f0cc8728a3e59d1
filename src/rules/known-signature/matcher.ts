// Catalogue patterns are data, compiled at run time, and entries keep being added. They run on
// untrusted lines of up to 1 MiB, where V8's backtracking engine makes one `A.*B.*C` cost hours:
// every start of A runs `.*` to the end of the line and back, and every B inside does the same
// (`controller\{addr=[^}]*\}.*Failed to connect.*Connection refused` took 30 s on a 32 KiB line).
//
// The contract (also in catalogue.ts): a pattern is alternatives of segments joined by `.*` at
// its top level. Each segment is an ordinary JavaScript regex that is linear on its own (literals,
// classes, bounded repeats, groups of those); the `.*` between segments is not handed to V8 but
// matched here as "the next segment somewhere further on": each segment's leftmost match from
// where the previous one ended, found by one forward scan. So a line costs one pass per segment,
// whatever the line holds. This is exact for `test()` when every segment but the last ends its
// leftmost match no later than any other of its matches (true for literals and for classes that
// stop at a delimiter, e.g. `\{addr=[^}]{0,256}\}`): test/rules/known-signature-matcher.test.ts checks it by
// comparing every entry with RE2's answer (re2js, a development dependency) on the entry's own
// examples and on pump lines, and test/security/regex-linear.test.ts measures every entry on
// adversarial lines, so a super-linear segment fails a test instead of shipping.
//
// This replaced re2js at run time (0.9 MB of the 7.4 MB install): with the literal prefilter in
// index.ts most lines never reach a pattern, and the ones that do need no automaton.

export interface LinearPattern {
  readonly source: string;
  test(text: string): boolean;
}

/** Line terminators: `.` matches none of them, so a `.*` gap never crosses one. */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

/**
 * Splits `source` at its top-level `|` and, within each alternative, at top-level `.*` (greedy or
 * lazy), skipping escapes, character classes and groups. A `.*` inside a group stays in its
 * segment (and is measured there by the linear-time test like any other part of a segment).
 */
export function splitAtGaps(source: string): string[][] {
  const alternatives: string[][] = [];
  let segments: string[] = [];
  let current = '';
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      current += c + (source[i + 1] ?? '');
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      current += c;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && c === '|') {
      segments.push(current);
      alternatives.push(segments);
      segments = [];
      current = '';
      continue;
    } else if (depth === 0 && c === '.' && source[i + 1] === '*') {
      const lazy = source[i + 2] === '?';
      // `.*+` or `.*{` is no gap (and no valid regex); leave it to the segment's compiler.
      if (!'*+{'.includes(source[i + (lazy ? 3 : 2)] ?? 'x')) {
        segments.push(current);
        current = '';
        i += lazy ? 2 : 1;
        continue;
      }
    }
    current += c;
  }
  segments.push(current);
  alternatives.push(segments);
  return alternatives;
}

function compileAlternative(segments: readonly string[], source: string): (text: string) => boolean {
  const scanners = segments.map((segment) => {
    try {
      return new RegExp(segment, 'g');
    } catch (err) {
      throw new Error(`known-signature pattern ${JSON.stringify(source)}: segment ${JSON.stringify(segment)} is not a valid regex: ${(err as Error).message}`);
    }
  });
  const testLine = (line: string): boolean => {
    let from = 0;
    for (const scanner of scanners) {
      scanner.lastIndex = from;
      const found = scanner.exec(line);
      if (found === null) return false;
      from = found.index + found[0].length;
    }
    return true;
  };
  if (scanners.length === 1) return testLine;
  // A gap is `.`: it does not cross a line terminator, so such a text is tried line by line.
  return (text) => (LINE_TERMINATOR.test(text) ? text.split(LINE_TERMINATOR).some(testLine) : testLine(text));
}

export function compileSignaturePattern(source: string): LinearPattern {
  const alternatives = splitAtGaps(source).map((segments) => compileAlternative(segments, source));
  return { source, test: (text) => alternatives.some((matches) => matches(text)) };
}

/** The same pattern compiled on its first test: most entries never get past their literal prefilter. */
export function compileSignaturePatternOnFirstUse(source: string): LinearPattern {
  let compiled: LinearPattern | null = null;
  return {
    source,
    test: (text) => (compiled ??= compileSignaturePattern(source)).test(text),
  };
}
