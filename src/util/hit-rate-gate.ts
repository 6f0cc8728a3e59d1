// A shortcut that pays only when its inputs repeat (a cache of parsed bodies, counting repeated
// lines) costs on inputs that never do: every try is a miss that still has to be paid for. Such a
// shortcut asks this gate before each try and tells it whether the try paid. Every `window` tries
// the gate checks what share paid; under `minShare` it closes for `pause` tries, a pause that
// doubles with each failed check up to `longestPause` and starts again from `firstPause` after a
// check that passes. The pause starts short because a cold shortcut also fails its first check.

export interface HitRateGateOptions {
  window: number;
  firstPause: number;
  longestPause: number;
  /** The share of tries that must pay (0.25: a quarter). */
  minShare: number;
}

export class HitRateGate {
  private tries = 0;
  private hits = 0;
  private pauseLeft = 0;
  private nextPause: number;

  constructor(private readonly options: HitRateGateOptions) {
    this.nextPause = options.firstPause;
  }

  /** Whether to try the shortcut now; false while paused (each call counts one skipped try). */
  open(): boolean {
    if (this.pauseLeft === 0) return true;
    this.pauseLeft--;
    return false;
  }

  /** Tells the gate whether a try paid. */
  tried(hit: boolean): void {
    if (hit) this.hits++;
    if (++this.tries < this.options.window) return;
    if (this.hits < this.options.window * this.options.minShare) {
      this.pauseLeft = this.nextPause;
      this.nextPause = Math.min(this.nextPause * 2, this.options.longestPause);
    } else {
      this.nextPause = this.options.firstPause;
    }
    this.tries = 0;
    this.hits = 0;
  }
}
