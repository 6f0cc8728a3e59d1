// Progress on stderr, only when stderr is a terminal: bytes of the total (when known), the
// current file, lines per second and elapsed time, on one line that fits the terminal. Never on
// stdout, never in CI logs.
//
// A bar and a percentage only when the total is known in the bytes being counted: stdin has no
// size, and for a .gz or a tar member the bytes counted are decompressed while the size on disk is
// compressed, so a percentage would run past 100 % or jump; those show bytes and rates only.

import { createRequire } from 'node:module';
import type { ReadProgress } from '../engine/analyze.js';
import { formatBytes } from '../report/formats/text.js';
import { truncate } from '../report/formats/values.js';
import { compact } from '../util/stats.js';
import { terminalSafe } from '../util/terminal-safe.js';
import { unguardedStderr } from './stderr.js';
import { terminalWidth } from './terminal.js';

/**
 * cli-progress, loaded when a bar is drawn: most runs have no terminal on stderr (CI, pipes), and
 * importing it cost each of them a few milliseconds of start-up. Its CommonJS build loads in place.
 */
const cliProgress = () => createRequire(import.meta.url)('cli-progress') as typeof import('cli-progress');

const BAR_SIZE = 20;
/** cli-progress's bar formatter draws the bar from these. */
const BAR_STYLE = { barsize: BAR_SIZE, barCompleteString: '█'.repeat(BAR_SIZE), barIncompleteString: '░'.repeat(BAR_SIZE), barGlue: '' };

/** Inputs whose bytes are counted after decompression, so their size on disk says nothing. */
export function isCompressedPath(path: string): boolean {
  return /\.(gz|tgz)$/i.test(path) || /\.(tar|tgz|tar\.gz):/i.test(path);
}

export interface ProgressState {
  read: number;
  lines: number;
  total: number | null;
  file: string;
  seconds: number;
  /** Seconds left as cli-progress estimates them from the recent rate; null when unknown. */
  eta?: number | null;
}

/** The progress line for `width` columns: bar, percentage and time left only when the total is meaningful. */
export function progressLine(s: ProgressState, width: number): string {
  const window = Math.max(s.seconds, 0.5);
  const rates = `${formatBytes(s.read / window)}/s | ${compact(Math.round(s.lines / window))} lines/s | ${s.seconds.toFixed(s.seconds < 10 ? 1 : 0)} s`;
  let head: string;
  if (s.total !== null && s.total > 0) {
    const ratio = Math.min(1, s.read / s.total);
    const bar = width >= 70 ? `${cliProgress().Format.BarFormat(ratio, BAR_STYLE)} ` : '';
    const eta = s.eta !== undefined && s.eta !== null && Number.isFinite(s.eta) && s.eta > 0 && ratio < 1 ? `, ${s.eta} s left` : '';
    head = `${bar}${Math.floor(ratio * 100)}% | ${formatBytes(s.read)} of ${formatBytes(s.total)}${eta}`;
  } else {
    head = `${formatBytes(s.read)} read`;
  }
  const line = ` ${head} | ${rates}`;
  // One column spare: writing into the last column makes some terminals wrap.
  const room = width - 1 - line.length - 3;
  return room >= 8 && s.file ? `${line} | ${s.file.length > room ? `…${s.file.slice(-(room - 1))}` : s.file}` : truncate(line, width - 1);
}

/** What the bar carries besides its value (bytes read) and total (bytes on disk). */
interface Payload {
  lines: number;
  file: string;
  /** A compressed input was seen: the bytes read are decompressed, so the total means nothing. */
  compressed: boolean;
}

/**
 * A cli-progress bar counting bytes against the total size: it keeps the value, the start time
 * and the rate for the time left, redraws at most 5 times a second, hides the cursor and clears
 * the line when done; progressLine lays the frame out.
 */
export function createProgress(enabled: boolean, stream: NodeJS.WriteStream = unguardedStderr()): ReadProgress | undefined {
  if (!enabled || !stream.isTTY) return undefined;
  const payload: Payload = { lines: 0, file: '', compressed: false };
  let total: number | null = null;
  let read = 0;
  let drawing = false;
  const bar = new (cliProgress().SingleBar)({
    stream,
    format: (_options, params, p: Payload) =>
      progressLine(
        {
          read: params.value,
          lines: p.lines,
          total: p.compressed || params.total <= 0 ? null : params.total,
          file: p.file,
          seconds: ((params.stopTime ?? Date.now()) - params.startTime) / 1000,
          eta: p.compressed ? null : params.eta,
        },
        terminalWidth(stream),
      ),
    hideCursor: true,
    clearOnComplete: true,
    fps: 5,
    linewrap: false,
    etaBuffer: 50,
  });
  return {
    start(totalBytes) {
      total = totalBytes;
    },
    file(path) {
      // The bar writes around the stderr guard: a name from the inputs must not carry escapes.
      payload.file = terminalSafe(path, true);
      if (isCompressedPath(path)) payload.compressed = true;
      // The first frame waits for the first file: before it, a .gz would flash a 0 % bar.
      if (!drawing) bar.start(total ?? 0, read, payload);
      else bar.update(read, payload);
      drawing = true;
    },
    bytes(count, lineCount) {
      read += count;
      payload.lines += lineCount;
      if (drawing) bar.update(read, payload);
    },
    stop() {
      if (drawing) bar.stop();
    },
  };
}
