// Event rows wrapped by a terminal or a log UI: a `kubectl get events` (or describe Events) row
// longer than the window is broken onto the next line, so the message goes on on a line of its
// own (`…context dead` / `line exceeded (Client.Timeout exceeded while awaiting headers)`). The
// reader holds the last event row for one line: a line that reads as nothing else and looks like
// the rest of a message (prose, not a row) is joined to it; anything else lets the row go as it was.

import type { KubeEventRecord } from '../core/types.js';

/** A row shorter than this was not wrapped: terminals are at least 80 columns wide, log UIs wider. */
const MIN_WRAPPED_WIDTH = 70;
/** Lines joined to one row at most, and the longest message kept (the reader's own cap). */
const MAX_CONTINUATIONS = 3;
const MAX_MESSAGE = 1000;
/** Widths terminals are commonly set to: a row cut at exactly one of them was cut mid-word, and its halves join without a space. */
const TERMINAL_WIDTHS = new Set([80, 100, 120, 132, 140, 150, 160, 180, 200, 220, 240, 250, 256]);
/**
 * What a message's tail cannot look like: a table row or header (cells two spaces apart), a YAML
 * or JSON line, a shell prompt or comment, a describe key at the margin (`Events:`), a kubectl
 * table row's leading age or type.
 */
const NOT_A_TAIL = /\S {2,}\S|^\s*[-{}[\]#$>]|^[A-Z][A-Za-z ]*:(?: |$)|^\s*(?:Normal|Warning)\s/;

export class WrappedRows {
  private row: KubeEventRecord | null = null;
  private width = 0;
  private joined = 0;
  /** The line the held row (or its last tail) was on: only the very next line can go on with it. */
  private lastLine = 0;

  /** Holds an event row (its line's width) until the next line says whether it goes on. */
  hold(record: KubeEventRecord, width: number): void {
    this.row = record;
    this.width = width;
    this.joined = 0;
    this.lastLine = record.line;
  }

  /** The held row, if any, now that it is complete; null when none is held. */
  release(): KubeEventRecord | null {
    const row = this.row;
    this.row = null;
    return row;
  }

  /** Joins `text` to the held row when it is the row's message going on; false (and nothing changed) otherwise. */
  continues(text: string, lineNo: number): boolean {
    const row = this.row;
    if (row === null || lineNo !== this.lastLine + 1 || this.width < MIN_WRAPPED_WIDTH || this.joined >= MAX_CONTINUATIONS || NOT_A_TAIL.test(text))
      return false;
    const tail = text.trim();
    if (tail === '' || row.message.length + tail.length >= MAX_MESSAGE) return false;
    // A hard wrap at the terminal's width cuts wherever the column falls; a UI wraps at a space, which the split lost.
    row.message = TERMINAL_WIDTHS.has(this.width) ? `${row.message}${tail}` : `${row.message} ${tail}`;
    this.width = text.length;
    this.lastLine = lineNo;
    this.joined++;
    return true;
  }
}
