// Distinct counting with bounded memory. Up to `cap` values are kept exactly in a Set; past the cap
// the Set is folded into a HyperLogLog sketch (16 KiB, about 0.8 % standard error) and the count
// becomes an estimate. A label bomb (millions of distinct label values or addresses) therefore costs
// at most `cap` strings plus 16 KiB per counter. Everything here is plain data (Set, Uint8Array), so
// rule states that hold counters stay structured-clonable and mergeable.

/** Index bits: 2^14 = 16384 one-byte registers. */
const PRECISION = 14;
const REGISTERS = 1 << PRECISION;
/** Hash bits left for the rank after the index (64-bit hash: 18 low bits of the first word + 32 of the second). */
const RANK_BITS = 64 - PRECISION;

export interface DistinctCounter {
  cap: number;
  /** Exact values while at most `cap`; null once the counter switched to the sketch. */
  exact: Set<string> | null;
  sketch: Uint8Array | null;
  /**
   * The value added last: adding it again changes nothing, and a storm adds one pod's or one
   * endpoint's name line after line, so the repeat skips the Set's hashing or the sketch's.
   */
  last: string | null;
}

export interface DistinctCount {
  value: number;
  /** True when the value comes from the sketch rather than an exact count. */
  estimated: boolean;
}

export function distinctCounter(cap = 10_000): DistinctCounter {
  return { cap, exact: new Set(), sketch: null, last: null };
}

export function addDistinct(counter: DistinctCounter, value: string): void {
  if (value === counter.last) return;
  counter.last = value;
  if (counter.exact) {
    counter.exact.add(value);
    if (counter.exact.size > counter.cap) foldIntoSketch(counter);
    return;
  }
  addToSketch(counter.sketch!, value);
}

/** Adds `from` into `into`; the result counts the union, as if every value had been added to `into`. */
export function mergeDistinct(into: DistinctCounter, from: DistinctCounter): void {
  if (from.exact) {
    for (const v of from.exact) addDistinct(into, v);
    return;
  }
  if (into.exact) foldIntoSketch(into);
  const target = into.sketch!;
  const source = from.sketch!;
  for (let i = 0; i < REGISTERS; i++) if (source[i]! > target[i]!) target[i] = source[i]!;
}

export function distinctCount(counter: DistinctCounter): DistinctCount {
  if (counter.exact) return { value: counter.exact.size, estimated: false };
  return { value: Math.round(estimateCardinality(counter.sketch!)), estimated: true };
}

/** `1234` or `≈1.2 M (estimated)`, for messages that show a distinct count. */
export function describeDistinct(count: DistinctCount, format: (n: number) => string = (n) => n.toLocaleString('en-US')): string {
  return count.estimated ? `≈${format(count.value)} (estimated)` : format(count.value);
}

function foldIntoSketch(counter: DistinctCounter): void {
  const sketch = new Uint8Array(REGISTERS);
  for (const v of counter.exact ?? []) addToSketch(sketch, v);
  counter.exact = null;
  counter.sketch = sketch;
}

export function addToSketch(sketch: Uint8Array, value: string): void {
  const [high, low] = hash64(value);
  const index = high >>> (32 - PRECISION);
  // Rank = position of the first 1 bit in the remaining 50 bits (18 from `high`, 32 from `low`).
  const rest = high & ((1 << (32 - PRECISION)) - 1);
  let rank: number;
  if (rest !== 0) rank = Math.clz32(rest) - PRECISION + 1;
  else if (low !== 0) rank = 32 - PRECISION + Math.clz32(low) + 1;
  else rank = RANK_BITS + 1;
  if (rank > sketch[index]!) sketch[index] = rank;
}

/**
 * Two 32-bit lanes over the UTF-16 code units, cross-mixed and finished with the murmur3 finaliser,
 * so every input bit reaches every output bit. Not cryptographic; only uniformity matters here.
 */
export function hash64(value: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  a ^= value.length;
  a = fmix32(a ^ Math.imul(b, 0x27d4eb2d));
  b = fmix32(b ^ Math.imul(a, 0x165667b1));
  a = fmix32(a + b);
  return [a >>> 0, b >>> 0];
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/**
 * Ertl's improved raw estimator ("New cardinality estimation algorithms for HyperLogLog
 * sketches", 2017): accurate from a handful of values to 2^50 without empirical bias tables or a
 * switch to linear counting.
 */
export function estimateCardinality(sketch: Uint8Array): number {
  const histogram = new Array<number>(RANK_BITS + 2).fill(0);
  for (let i = 0; i < REGISTERS; i++) histogram[sketch[i]!]!++;
  const m = REGISTERS;
  let z = m * tau(1 - histogram[RANK_BITS + 1]! / m);
  for (let k = RANK_BITS; k >= 1; k--) z = 0.5 * (z + histogram[k]!);
  z += m * sigma(histogram[0]! / m);
  return (m * m) / (2 * Math.LN2 * z);
}

function sigma(x: number): number {
  if (x === 1) return Infinity;
  let y = 1;
  let z = x;
  for (;;) {
    x *= x;
    const previous = z;
    z += x * y;
    y += y;
    if (z === previous) return z;
  }
}

function tau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let y = 1;
  let z = 1 - x;
  for (;;) {
    x = Math.sqrt(x);
    const previous = z;
    y *= 0.5;
    z -= (1 - x) ** 2 * y;
    if (z === previous) return z / 3;
  }
}
