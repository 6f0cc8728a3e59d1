import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addDistinct, describeDistinct, distinctCount, distinctCounter, estimateCardinality, mergeDistinct } from '../../src/util/distinct.js';

/** HyperLogLog with 2^14 registers: standard error 1.04 / sqrt(16384) ≈ 0.81 %. */
const STANDARD_ERROR = 1.04 / Math.sqrt(1 << 14);

function fill(n: number, prefix: string, cap = 0) {
  const c = distinctCounter(cap);
  for (let i = 0; i < n; i++) addDistinct(c, `${prefix}${i}`);
  return c;
}

describe('distinct counter (exact below the cap, HyperLogLog above)', () => {
  it('counts exactly up to the cap and says so', () => {
    const c = distinctCounter(100);
    for (let i = 0; i < 250; i++) addDistinct(c, `pod-${i % 100}`);
    assert.deepEqual(distinctCount(c), { value: 100, estimated: false });
    assert.equal(describeDistinct(distinctCount(c)), '100');
  });

  it('switches to an estimate past the cap, and the report text says it is one', () => {
    const c = fill(101, 'v', 100);
    assert.equal(c.exact, null);
    const count = distinctCount(c);
    assert.equal(count.estimated, true);
    assert.ok(Math.abs(count.value - 101) <= 2, `estimate ${count.value}`);
    assert.match(describeDistinct(count), /^≈\d+ \(estimated\)$/);
  });

  it('stays within 3 standard errors at every scale, including the small-range transition', () => {
    for (const n of [500, 5_000, 20_000, 40_000, 80_000, 300_000]) {
      for (const prefix of ['10.0.', 'dst_pod=web-', 'x']) {
        const { value } = distinctCount(fill(n, prefix));
        const relative = Math.abs(value - n) / n;
        assert.ok(relative < 3 * STANDARD_ERROR, `n=${n} prefix=${prefix}: estimate ${value} is ${(relative * 100).toFixed(2)} % off`);
      }
    }
  });

  it('has a root-mean-square error close to the theoretical standard error', () => {
    const n = 50_000;
    let squares = 0;
    const trials = 12;
    for (let t = 0; t < trials; t++) squares += ((distinctCount(fill(n, `trial${t}-`)).value - n) / n) ** 2;
    const rms = Math.sqrt(squares / trials);
    assert.ok(rms < 1.6 * STANDARD_ERROR, `rms error ${(rms * 100).toFixed(2)} %`);
  });

  it('ignores duplicates once estimating', () => {
    const c = fill(20_000, 'a');
    const before = distinctCount(c).value;
    for (let i = 0; i < 20_000; i++) addDistinct(c, `a${i}`);
    assert.equal(distinctCount(c).value, before);
  });

  it('keeps memory flat: the sketch does not grow with the input', () => {
    const c = fill(200_000, 'addr-', 1_000);
    assert.equal(c.exact, null);
    assert.equal(c.sketch!.byteLength, 1 << 14);
  });

  it('merges to the count of the union, whichever side is exact', () => {
    const overlapping = mergeAll([fill(30_000, 'p', 1_000), fill(30_000, 'p', 1_000)]);
    assert.ok(Math.abs(distinctCount(overlapping).value - 30_000) / 30_000 < 3 * STANDARD_ERROR);

    const small = distinctCounter(1_000);
    for (let i = 0; i < 10; i++) addDistinct(small, `q${i}`);
    const disjoint = mergeAll([fill(40_000, 'r', 1_000), small]);
    assert.ok(Math.abs(distinctCount(disjoint).value - 40_010) / 40_010 < 3 * STANDARD_ERROR);

    const exactInto = distinctCounter(1_000);
    addDistinct(exactInto, 'only');
    mergeDistinct(exactInto, fill(40_000, 's', 1_000));
    assert.equal(distinctCount(exactInto).estimated, true);
    assert.ok(Math.abs(distinctCount(exactInto).value - 40_001) / 40_001 < 3 * STANDARD_ERROR);

    const bothExact = mergeAll([fill(300, 'e', 1_000), fill(300, 'f', 1_000)]);
    assert.deepEqual(distinctCount(bothExact), { value: 600, estimated: false });
  });

  it('survives structured cloning (rule states are cloned between workers)', () => {
    const c = fill(5_000, 'clone', 100);
    const copy = structuredClone(c);
    assert.deepEqual(distinctCount(copy), distinctCount(c));
  });

  it('estimates zero for an empty sketch and is finite for a saturated one', () => {
    assert.equal(estimateCardinality(new Uint8Array(1 << 14)), 0);
    assert.ok(Number.isFinite(estimateCardinality(new Uint8Array(1 << 14).fill(40))));
  });
});

function mergeAll(counters: ReturnType<typeof distinctCounter>[]) {
  const into = distinctCounter(counters[0]!.cap);
  for (const c of counters) mergeDistinct(into, c);
  return into;
}
