// Progress on stderr, only when stderr is a terminal: bytes of the total (when known), the
// current file, lines per second and elapsed time. Never on stdout, never in CI logs.

import cliProgress from 'cli-progress';
import type { ReadProgress } from '../engine/analyze.js';
import { formatBytes } from '../report/formats/text.js';
import { compact } from '../util/stats.js';
import { terminalSafe } from '../util/terminal-safe.js';
import { unguardedStderr } from './stderr.js';

export function createProgress(enabled: boolean, stream: NodeJS.WriteStream = unguardedStderr()): ReadProgress | undefined {
  if (!enabled || !stream.isTTY) return undefined;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: ' {bar} {percentage}% | {done} of {total_h} | {rate}/s | {lines} lines/s | {elapsed} | {file}',
      hideCursor: true,
      clearOnComplete: true,
      fps: 5,
      barsize: 24,
    },
    cliProgress.Presets.shades_classic,
  );
  let read = 0;
  let lines = 0;
  let total: number | null = null;
  let file = '';
  let started = Date.now();
  const payload = () => {
    const seconds = (Date.now() - started) / 1000;
    // Rates over the first instants of a run say nothing; average over half a second at least.
    const window = Math.max(seconds, 0.5);
    return {
      done: formatBytes(read),
      total_h: total === null ? '?' : formatBytes(total),
      rate: formatBytes(read / window),
      lines: compact(Math.round(lines / window)),
      elapsed: `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`,
      file: file.length > 50 ? `…${file.slice(-49)}` : file,
    };
  };
  return {
    start(totalBytes) {
      total = totalBytes;
      started = Date.now();
      bar.start(totalBytes ?? 1, 0, payload());
    },
    file(path) {
      // The bar writes around the stderr guard: a name from the inputs must not carry escapes.
      file = terminalSafe(path, true);
      bar.update(payload());
    },
    bytes(count, lineCount) {
      read += count;
      lines += lineCount;
      if (total !== null && read > total) total = read;
      // Without a known total (stdin, gzip), keep the bar just short of full.
      bar.setTotal(total ?? read + 1);
      bar.update(read, payload());
    },
    stop() {
      bar.stop();
    },
  };
}
