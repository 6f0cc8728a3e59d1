// Progress on stderr, only when stderr is a terminal: bytes of the total (when known), the
// current file, lines per second and elapsed time, on one line that fits the terminal. Never on
// stdout, never in CI logs.
//
// A bar and a percentage only when the total is known in the bytes being counted: stdin has no
// size, and for a .gz or a tar member the bytes counted are decompressed while the size on disk is
// compressed, so a percentage would run past 100 % or jump; those show bytes and rates only.

import cliProgress from 'cli-progress';
import type { ReadProgress } from '../engine/analyze.js';
import { formatBytes } from '../report/formats/text.js';
import { truncate } from '../report/formats/values.js';
import { compact } from '../util/stats.js';
import { terminalSafe } from '../util/terminal-safe.js';
import { unguardedStderr } from './stderr.js';
import { terminalWidth } from './terminal.js';

const BAR_SIZE = 20;

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
}

/** The progress line for `width` columns: bar and percentage only when the total is meaningful. */
export function progressLine(s: ProgressState, width: number): string {
  const window = Math.max(s.seconds, 0.5);
  const rates = `${formatBytes(s.read / window)}/s | ${compact(Math.round(s.lines / window))} lines/s | ${s.seconds.toFixed(s.seconds < 10 ? 1 : 0)} s`;
  let head: string;
  if (s.total !== null && s.total > 0) {
    const ratio = Math.min(1, s.read / s.total);
    const filled = Math.round(ratio * BAR_SIZE);
    const bar = width >= 70 ? `${'█'.repeat(filled)}${'░'.repeat(BAR_SIZE - filled)} ` : '';
    head = `${bar}${Math.floor(ratio * 100)}% | ${formatBytes(s.read)} of ${formatBytes(s.total)}`;
  } else {
    head = `${formatBytes(s.read)} read`;
  }
  const line = ` ${head} | ${rates}`;
  // One column spare: writing into the last column makes some terminals wrap.
  const room = width - 1 - line.length - 3;
  return room >= 8 && s.file ? `${line} | ${s.file.length > room ? `…${s.file.slice(-(room - 1))}` : s.file}` : truncate(line, width - 1);
}

export function createProgress(enabled: boolean, stream: NodeJS.WriteStream = unguardedStderr()): ReadProgress | undefined {
  if (!enabled || !stream.isTTY) return undefined;
  const state: ProgressState = { read: 0, lines: 0, total: null, file: '', seconds: 0 };
  let started = Date.now();
  let compressed = false;
  const bar = new cliProgress.SingleBar({
    stream,
    format: () => {
      state.seconds = (Date.now() - started) / 1000;
      return progressLine({ ...state, total: compressed ? null : state.total }, terminalWidth(stream));
    },
    hideCursor: true,
    clearOnComplete: true,
    fps: 5,
    linewrap: false,
  });
  return {
    start(totalBytes) {
      state.total = totalBytes;
      started = Date.now();
      bar.start(1, 0);
    },
    file(path) {
      // The bar writes around the stderr guard: a name from the inputs must not carry escapes.
      state.file = terminalSafe(path, true);
      if (isCompressedPath(path)) compressed = true;
      bar.update(0);
    },
    bytes(count, lineCount) {
      state.read += count;
      state.lines += lineCount;
      bar.update(0);
    },
    stop() {
      bar.stop();
    },
  };
}
