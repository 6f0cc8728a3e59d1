// The lexer takes over labels written exactly as on the line before (the bucket prefix, and label
// by label otherwise). Whatever it takes over, a line must read as it reads on its own: same
// labels in the same order, same values, same verdicts.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lexSample, type LexedSample, type SamplePrefix } from '../../src/parsers/prometheus-lexer.js';

/** Lexes `lines` in sequence, as the parser does, and each line alone; returns both readings. */
function bothWays(lines: readonly string[]): { inContext: (LexedSample | string)[]; alone: (LexedSample | string)[] } {
  const inContext: (LexedSample | string)[] = [];
  let previous: SamplePrefix | null = null;
  for (const line of lines) {
    const lexed = lexSample(line, previous);
    inContext.push(lexed);
    previous = typeof lexed === 'string' ? null : (lexed.reusable ?? null);
  }
  return { inContext, alone: lines.map((line) => lexSample(line)) };
}

function reading(l: LexedSample | string): unknown {
  if (typeof l === 'string') return l;
  return { name: l.name, labels: Object.entries(l.labels), labelNames: l.labelNames, value: l.valueText, violations: l.violations, series: l.seriesText };
}

function assertSameReadings(lines: readonly string[]): void {
  const { inContext, alone } = bothWays(lines);
  lines.forEach((line, i) => {
    assert.deepEqual(reading(inContext[i]!), reading(alone[i]!), line);
    // What a line hands on must read the next line right: its prefix and last label name make a
    // line that, read alone, has the prefix's labels with the last one replaced.
    const handed = (inContext[i] as LexedSample).reusable;
    if (typeof inContext[i] === 'string' || !handed) return;
    const next = `${handed.prefix}${handed.lastName}="v"} 1`;
    const viaPrefix = lexSample(next, handed);
    assert.deepEqual(reading(viaPrefix), reading(lexSample(next)), `after ${line}`);
    assert.deepEqual(structuredClone((viaPrefix as LexedSample).labels), { ...handed.labels, [handed.lastName]: 'v' }, `after ${line}`);
  });
}

describe('label reuse between sample lines', () => {
  it('reads _sum and _count after buckets, and the next label set, as on their own', () => {
    assertSameReadings([
      'lat_bucket{a="1",b="x",le="1"} 1',
      'lat_bucket{a="1",b="x",le="+Inf"} 2',
      'lat_sum{a="1",b="x"} 3',
      'lat_count{a="1",b="x"} 2',
      'lat_bucket{a="1",b="y",le="1"} 1',
      'other{a="1",b="y",c="z"} 1',
    ]);
  });

  it('reads lines that repeat the whole label set, or the prefix without its last label, as on their own', () => {
    assertSameReadings([
      'lat_bucket{a="1",b="x",le="1"} 1',
      'lat_sum{a="1",b="x"}x 3',
      'lat_bucket{a="1",b="x",le="1"} 1',
      'lat_sum{a="1",b="x",} 3',
      'lat_bucket{a="1",b="x",le="1"} 1',
      'lat_sum{a="1",b="x"}  3',
      'lat_count{a="1",b="x"} 2 # {t="1"} 1',
      'lat_count{a="1",b="x"} 2 3',
      'lat_count{a="1",b="x",c="y"} 2',
      'lat_bucket{a="1",bb="xyz",le="1"} 1',
      'lat_sum{a="1",bb="xyz"} 3',
      'two_bucket{a="1",le="1"} 1',
      'two_sum{a="1"} 1',
      'two_count{a="1"} 1',
      'other{a="1",b="y",c="z"} 1',
      'other2{a="1",b="y",c="z"} 1',
      'other3{a="1",b="y"} 1',
      'other3{a="1",b="y"} 1 5',
      'bad name{a="1",b="y"} 1',
      '{"quoted",a="1",b="y"} 1',
    ]);
  });

  it('does not take over a label whose value only starts like the previous one', () => {
    const lines = ['m{a="1",b="2",c="3"} 1', 'm{a="12",b="2",c="3"} 1', 'm{a="1",b="2x",c="3"} 1', 'm{a="1",b="2"x,c="3"} 1'];
    assertSameReadings(lines);
    const { inContext } = bothWays(lines);
    assert.deepEqual(structuredClone((inContext[1] as LexedSample).labels), { a: '12', b: '2', c: '3' });
    assert.deepEqual(structuredClone((inContext[2] as LexedSample).labels), { a: '1', b: '2x', c: '3' });
    assert.equal(typeof inContext[3], 'string', 'text after a quoted value is still rejected');
  });

  it('keeps escapes, duplicates, whitespace and reordered labels as they read alone', () => {
    assertSameReadings([
      'm{a="x\\"y",b="2",c="3"} 1',
      'm{a="x\\"y",b="2",c="4"} 1',
      'm{a="x\\"y",a="x\\"y",c="4"} 1',
      'm{b="2",a="x\\"y",c="4"} 1',
      'm{a="x\\"y", b="2",c="4"} 1',
      'm{a="x\\"y",b = "2",c="4"} 1',
      'm{a="x\\"y",b="2",c="4",} 1',
      'm{a="x\\"y",b="2"} 1',
      'm{a="x\\"y"} 1',
    ]);
  });
});
