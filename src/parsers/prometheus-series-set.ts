// The set of series a Prometheus section has already seen, to flag duplicates in bounded memory.

/** Series hashes remembered per section for duplicate detection; beyond this duplicates go unflagged. */
export const DUPLICATE_TRACKING_CAP = 500_000;

/**
 * Remembers series by a 64-bit hash (two 32-bit FNV-style hashes) in an open-addressing table of
 * typed arrays: 8 bytes per slot, so tracking the cap of 500,000 series costs at most 8 MiB.
 */
export interface HashState {
  a: number;
  b: number;
}

export const INITIAL_HASH: HashState = { a: 0x811c9dc5, b: 0x01000193 };

/** The hash state after the first `end` characters of `text`, to resume SeriesSet.add from. */
export function prefixState(text: string, end: number): HashState {
  let a = INITIAL_HASH.a;
  let b = INITIAL_HASH.b;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  return { a, b };
}

/** A power of two; a single-target dump or a small POD section fits without growing. */
const MIN_SLOTS = 64;

export class SeriesSet {
  private hi = new Uint32Array(MIN_SLOTS);
  private lo = new Uint32Array(MIN_SLOTS);
  size = 0;

  /**
   * Adds the series `text`; returns false when it was already there. Beyond the cap nothing is
   * added. `from` skips a prefix whose hash state is already known (see prefixState): bucket
   * lines of one histogram share all but their last label.
   */
  add(text: string, from = 0, state: HashState = INITIAL_HASH): boolean {
    let a = state.a;
    let b = state.b;
    for (let i = from; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 13;
    }
    b = Math.imul(b ^ text.length, 0x5bd1e995);
    const hi = a >>> 0;
    const lo = (b ^ (b >>> 15)) >>> 0 || 1;
    const mask = this.hi.length - 1;
    let slot = hi & mask;
    while (this.lo[slot] !== 0) {
      if (this.hi[slot] === hi && this.lo[slot] === lo) return false;
      slot = (slot + 1) & mask;
    }
    if (this.size >= DUPLICATE_TRACKING_CAP) return true;
    this.hi[slot] = hi;
    this.lo[slot] = lo;
    if (++this.size * 2 > this.hi.length) this.grow();
    return true;
  }

  /**
   * Forgets every series but keeps a table as large as the last section needed: the next section
   * of a dump is usually as large, and growing to it again costs more than clearing. Clearing is
   * linear in that table, so it is paid for by the section that filled it.
   */
  clear(): void {
    // Sized for the section just read (the table is kept at most half full): a dump of a million
    // one-series sections must not zero a table that one large section once needed.
    let slots = MIN_SLOTS;
    while (slots < this.size * 2) slots *= 2;
    if (slots < this.hi.length) {
      this.hi = new Uint32Array(slots);
      this.lo = new Uint32Array(slots);
    } else {
      this.hi.fill(0);
      this.lo.fill(0);
    }
    this.size = 0;
  }

  private grow(): void {
    const oldHi = this.hi;
    const oldLo = this.lo;
    this.hi = new Uint32Array(oldHi.length * 2);
    this.lo = new Uint32Array(oldLo.length * 2);
    const mask = this.hi.length - 1;
    for (let i = 0; i < oldHi.length; i++) {
      if (oldLo[i] === 0) continue;
      let slot = oldHi[i]! & mask;
      while (this.lo[slot] !== 0) slot = (slot + 1) & mask;
      this.hi[slot] = oldHi[i]!;
      this.lo[slot] = oldLo[i]!;
    }
  }
}
