// The end of a byte range that one thread reads while another may pull that end in, to take the
// rest itself (work stealing). Ranges of one file are cut before the run starts, and a static cut
// leaves one thread idle while the other finishes: ranges differ in cost per byte (timestamped
// collector prefixes cost more than plain lines) and the last range starts late (it counts the
// lines in front of it first). The reader claims each read before issuing it and publishes how far
// it has parsed; the thief cuts only beyond what was claimed, so no byte is read twice or skipped.
//
// Layout of the shared memory: one Int32 lock word, then Float64 cells (byte offsets up to 2^53).
// Every cell is read and written under the lock; the lock's atomic operations order those accesses
// between threads.

const LOCK = 0;
const END = 0;
const CLAIMED = 1;
const BOUNDARY = 2;
const LINES = 3;
const BOOT_TIME = 4;
const CELLS = 5;
const CELLS_OFFSET = 8;

/** What the reader has published: the range's current end and how far it got. */
export interface RangeProgress {
  end: number;
  /** End of the last read issued: no cut may fall before it. */
  claimed: number;
  /** Offset of the first line not yet parsed (a line start). */
  boundary: number;
  /** Physical lines of the file before `boundary`. */
  lines: number;
  /** The parser's wall-time anchor (wall time minus uptime) at `boundary`, or null. */
  bootTime: number | null;
}

export class SharedRangeEnd {
  private readonly lock: Int32Array;
  private readonly cells: Float64Array;

  /** A new range end; pass `buffer` to the reader's thread (it is shared, not copied). */
  static create(start: number, end: number, linesBefore: number | null): SharedRangeEnd {
    const shared = new SharedRangeEnd(new SharedArrayBuffer(CELLS_OFFSET + CELLS * 8));
    shared.cells[END] = end;
    shared.cells[CLAIMED] = start;
    shared.cells[BOUNDARY] = start;
    shared.cells[LINES] = linesBefore ?? Number.NaN;
    shared.cells[BOOT_TIME] = Number.NaN;
    return shared;
  }

  constructor(readonly buffer: SharedArrayBuffer) {
    this.lock = new Int32Array(buffer, 0, 1);
    this.cells = new Float64Array(buffer, CELLS_OFFSET, CELLS);
  }

  /** The reader wants to read up to `want`: returns how far it may read (at most the current end). */
  claim(want: number): number {
    return this.locked(() => {
      const allowed = Math.min(want, this.cells[END]!);
      if (allowed > this.cells[CLAIMED]!) this.cells[CLAIMED] = allowed;
      return allowed;
    });
  }

  /** The reader has parsed every line before `boundary`, which is the file's line `lines` + 1. */
  publish(boundary: number, lines: number, bootTime: number | null): void {
    this.locked(() => {
      this.cells[BOUNDARY] = boundary;
      this.cells[LINES] = lines;
      this.cells[BOOT_TIME] = bootTime ?? Number.NaN;
    });
  }

  progress(): RangeProgress {
    return this.locked(() => {
      const bootTime = this.cells[BOOT_TIME]!;
      return { end: this.cells[END]!, claimed: this.cells[CLAIMED]!, boundary: this.cells[BOUNDARY]!, lines: this.cells[LINES]!, bootTime: Number.isNaN(bootTime) ? null : bootTime };
    });
  }

  /** Moves the end in to `at` unless the reader already claimed bytes at or past it; true when cut. */
  cut(at: number): boolean {
    return this.locked(() => {
      if (at < this.cells[CLAIMED]! || at >= this.cells[END]!) return false;
      this.cells[END] = at;
      return true;
    });
  }

  private locked<T>(body: () => T): T {
    // The holder keeps the lock for a few loads and stores, so contention is rare and brief.
    while (Atomics.compareExchange(this.lock, LOCK, 0, 1) !== 0) Atomics.wait(this.lock, LOCK, 1, 1);
    try {
      return body();
    } finally {
      Atomics.store(this.lock, LOCK, 0);
      Atomics.notify(this.lock, LOCK, 1);
    }
  }
}
