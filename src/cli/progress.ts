// Progress on stderr, only when stderr is a terminal: bytes of the total (when known), the
// current file, lines per second and elapsed time. Never on stdout, never in CI logs.

import cliProgress from 'cli-progress';
import type { ReadProgress } from '../engine/analyze.js';
import { formatBytes } from '../report/formats/text.js';

export function createProgress(enabled: boolean): ReadProgress | undefined {
  if (!enabled || !process.stderr.isTTY) return undefined;
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: ' {bar} {percentage}% | {done} of {total_h} | {rate}/s | {duration}s | {file}',
      hideCursor: true,
      clearOnComplete: true,
      fps: 5,
      barsize: 24,
    },
    cliProgress.Presets.shades_classic,
  );
  let read = 0;
  let total: number | null = null;
  let file = '';
  const started = Date.now();
  const payload = () => {
    const seconds = Math.max((Date.now() - started) / 1000, 0.001);
    return { done: formatBytes(read), total_h: total === null ? '?' : formatBytes(total), rate: formatBytes(read / seconds), file: file.length > 50 ? `…${file.slice(-49)}` : file };
  };
  return {
    start(totalBytes) {
      total = totalBytes;
      bar.start(totalBytes ?? 1, 0, payload());
    },
    file(path) {
      file = path;
      bar.update(payload());
    },
    bytes(count) {
      read += count;
      if (total !== null && read > total) total = read;
      bar.setTotal(total ?? read + 1);
      bar.update(read, payload());
    },
    stop() {
      bar.stop();
    },
  };
}
