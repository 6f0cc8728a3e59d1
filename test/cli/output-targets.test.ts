// Pairing --format and --output from oclif's ordered flag tokens (issue 28: `-o out.json` alone
// must write JSON, and `-o x.html -f html` must be accepted).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatForFile, orderedOutputTargets, pairOutputTargets, type ParsedToken } from '../../src/cli/output-targets.js';
import { UsageError } from '../../src/core/errors.js';

const f = (value: string) => ({ flag: 'format' as const, value });
const o = (value: string) => ({ flag: 'output' as const, value });

describe('formatForFile', () => {
  it('names the format from the extension, case-insensitively, text otherwise', () => {
    const cases: [string, string][] = [
      ['out.json', 'json'],
      ['results.sarif', 'sarif'],
      ['results.SARIF.json', 'sarif'],
      ['junit.xml', 'junit'],
      ['r.md', 'markdown'],
      ['r.markdown', 'markdown'],
      ['r.html', 'html'],
      ['r.HTM', 'html'],
      ['r.txt', 'text'],
      ['report', 'text'],
      ['run.log', 'text'],
      ['dir.json/report', 'text'],
    ];
    for (const [file, format] of cases) assert.equal(formatForFile(file), format, file);
  });
});

describe('pairOutputTargets', () => {
  it('no flags: text on stdout', () => {
    assert.deepEqual(pairOutputTargets([]), [{ format: 'text', file: null }]);
  });

  it('a format followed by its output, and an output followed by its format, are pairs', () => {
    assert.deepEqual(pairOutputTargets([f('json'), o('a.json'), o('x.html'), f('html')]), [
      { format: 'json', file: 'a.json' },
      { format: 'html', file: 'x.html' },
    ]);
  });

  it('a format between two outputs goes with the one after, unless only the one before names it', () => {
    assert.deepEqual(pairOutputTargets([o('a.md'), f('html'), o('b.html')]), [
      { format: 'markdown', file: 'a.md' },
      { format: 'html', file: 'b.html' },
    ]);
    assert.deepEqual(pairOutputTargets([o('a.txt'), f('html'), o('b.out')]), [
      { format: 'text', file: 'a.txt' },
      { format: 'html', file: 'b.out' },
    ]);
    assert.deepEqual(pairOutputTargets([o('x.html'), f('html'), o('r.sarif.json')]), [
      { format: 'html', file: 'x.html' },
      { format: 'sarif', file: 'r.sarif.json' },
    ]);
  });

  it('outputs alone take their formats from their names; a format alone goes to stdout; - is stdout', () => {
    // b.sarif has a --format beside it, which wins over its name.
    assert.deepEqual(pairOutputTargets([o('a.json'), o('b.sarif'), f('text')]), [
      { format: 'json', file: 'a.json' },
      { format: 'text', file: 'b.sarif' },
    ]);
    assert.deepEqual(pairOutputTargets([o('a.json'), o('b.sarif')]), [
      { format: 'json', file: 'a.json' },
      { format: 'sarif', file: 'b.sarif' },
    ]);
    assert.deepEqual(pairOutputTargets([f('json'), o('-'), f('html'), o('r.html')]), [
      { format: 'json', file: null },
      { format: 'html', file: 'r.html' },
    ]);
    assert.deepEqual(pairOutputTargets([o('-')]), [{ format: 'text', file: null }]);
  });

  it('refuses two reports on stdout and an unknown format', () => {
    assert.throws(
      () => pairOutputTargets([f('json'), f('sarif')]),
      (err: unknown) => err instanceof UsageError && /--format json and --format sarif would all go to stdout/.test(err.message),
    );
    assert.throws(() => pairOutputTargets([f('json'), o('-'), f('html')]), /--format json and --format html would all go to stdout/);
    assert.throws(() => pairOutputTargets([f('yaml')]), /unknown --format yaml/);
  });
});

describe('orderedOutputTargets', () => {
  it('reads only the --format/--output flag tokens of the parse, in order', () => {
    const raw: ParsedToken[] = [
      { type: 'arg', input: 'bundle/' },
      { type: 'flag', flag: 'output', input: 'x.html' },
      { type: 'flag', flag: 'fail-on', input: 'warning' },
      { type: 'flag', flag: 'format', input: 'html' },
      { type: 'flag', flag: 'format', input: 'text' },
    ];
    assert.deepEqual(orderedOutputTargets(raw), [
      { format: 'html', file: 'x.html' },
      { format: 'text', file: null },
    ]);
  });
});
