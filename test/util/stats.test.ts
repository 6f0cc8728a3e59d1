import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { earliest, latest, mergeKeyed } from '../../src/util/stats.js';

describe('mergeKeyed', () => {
  it('adopts new entries, combines shared ones, and hands entries past the cap to overflow', () => {
    const into = new Map([['a', { n: 1 }]]);
    const from = new Map([
      ['a', { n: 2 }],
      ['b', { n: 3 }],
      ['c', { n: 4 }],
    ]);
    const overflowed: number[] = [];
    mergeKeyed(
      into,
      from,
      (mine, theirs) => (mine.n += theirs.n),
      2,
      (theirs) => overflowed.push(theirs.n),
    );
    assert.deepEqual(
      [...into],
      [
        ['a', { n: 3 }],
        ['b', { n: 3 }],
      ],
    );
    assert.deepEqual(overflowed, [4]);
  });
});

describe('earliest and latest', () => {
  it('treat null as "none seen yet" and otherwise take the min or max', () => {
    assert.equal(earliest(null, null), null);
    assert.equal(earliest(null, 5), 5);
    assert.equal(earliest(7, null), 7);
    assert.equal(earliest(7, 5), 5);
    assert.equal(latest(null, 5), 5);
    assert.equal(latest(7, null), 7);
    assert.equal(latest(7, 5), 7);
    assert.equal(latest(-3, -8), -3);
  });
});
