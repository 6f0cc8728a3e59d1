import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { HitRateGate } from '../../src/util/hit-rate-gate.js';

const gate = () => new HitRateGate({ window: 8, firstPause: 4, longestPause: 16, minShare: 0.25 });

/** Tries until the gate closes; then how many tries it stays closed. */
function pauseAfter(g: HitRateGate, hitsPerWindow: number): number {
  for (let i = 0; i < 8; i++) {
    assert.equal(g.open(), true);
    g.tried(i < hitsPerWindow);
  }
  let closed = 0;
  while (!g.open()) closed++;
  return closed;
}

describe('HitRateGate', () => {
  it('stays open while a quarter of the tries pay', () => {
    const g = gate();
    assert.equal(pauseAfter(g, 2), 0);
    assert.equal(pauseAfter(g, 8), 0);
  });

  it('closes under a quarter, for a pause that doubles up to the longest', () => {
    const g = gate();
    assert.deepEqual(
      [1, 2, 3, 4].map(() => pauseAfter(g, 1)),
      [4, 8, 16, 16],
    );
  });

  it('starts again from the first pause after a window that pays', () => {
    const g = gate();
    assert.equal(pauseAfter(g, 0), 4);
    assert.equal(pauseAfter(g, 0), 8);
    assert.equal(pauseAfter(g, 3), 0);
    assert.equal(pauseAfter(g, 0), 4);
  });
});
