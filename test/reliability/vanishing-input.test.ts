// A log truncated or deleted while the built CLI reads it (log rotation during a capture) must be
// an input error, with the same exit code and message for every --jobs. The race is real: the
// file is large enough (192 MiB, seconds of reading) that cutting it once the process has read
// 48 MiB of it (its rchar in /proc) always lands mid-read.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, unlinkSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

const BIN = path.resolve('bin/run.js');
const MiB = 1 << 20;
const SIZE_MIB = 192;
const CUT_AFTER_READ = 48 * MiB;
const canWatch = existsSync('/proc/self/io');

let dir = '';

before(() => {
  assert.ok(existsSync('dist/commands/analyze.js'), 'run `npm run build` first');
  dir = mkdtempSync(path.join(tmpdir(), 'ld-vanish-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

async function writeLog(file: string): Promise<void> {
  const lines: string[] = [];
  for (let i = 0, size = 0; size < MiB; i++) {
    const line = `[${(10 + i * 0.01).toFixed(6).padStart(13)}s]  WARN ThreadId(01) outbound:endpoint{addr=10.0.${i % 200}.${i % 250}:8080}: linkerd_reconnect: Failed to connect error=Connection refused (os error 111)\n`;
    lines.push(line);
    size += line.length;
  }
  const block = Buffer.from(lines.join(''));
  const out = createWriteStream(file);
  for (let i = 0; i < SIZE_MIB; i++) if (!out.write(block)) await once(out, 'drain');
  out.end();
  await once(out, 'close');
}

function bytesRead(pid: number): number {
  try {
    return Number(/rchar: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * Runs analyze on `file` and applies `cut` once the process has read CUT_AFTER_READ bytes. On a
 * machine busy enough that this process is not scheduled between two polls while the CLI reads
 * 144 MiB, the run can end before the cut: the input is untouched then, so it runs again.
 */
async function analyzeWhile(file: string, jobs: number, cut: () => void): Promise<{ status: number | null; stderr: string; cutMidRead: boolean }> {
  let run = await analyzeOnce(file, jobs, cut);
  for (let attempt = 1; attempt < 3 && !run.cutApplied; attempt++) run = await analyzeOnce(file, jobs, cut);
  return run;
}

async function analyzeOnce(
  file: string,
  jobs: number,
  cut: () => void,
): Promise<{ status: number | null; stderr: string; cutMidRead: boolean; cutApplied: boolean }> {
  const child = spawn(
    process.execPath,
    [BIN, 'analyze', file, '--jobs', String(jobs), '--quiet', '--format', 'json', '--output', path.join(dir, `report-${jobs}.json`)],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let exited = false;
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  void exit.then(() => (exited = true));
  let cutMidRead = false;
  let cutApplied = false;
  while (!exited) {
    if (bytesRead(child.pid!) >= CUT_AFTER_READ) {
      cut();
      cutApplied = true;
      cutMidRead = !exited;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return { status: await exit, stderr, cutMidRead, cutApplied };
}

describe('an input that changes while it is read', { skip: canWatch ? false : 'needs /proc/<pid>/io' }, () => {
  for (const jobs of [1, 2]) {
    it(`a log truncated mid-read is an input error (--jobs ${jobs})`, async () => {
      const file = path.join(dir, `shrinking-${jobs}.log`);
      await writeLog(file);
      const run = await analyzeWhile(file, jobs, () => truncateSync(file, MiB));
      assert.ok(run.cutMidRead, 'the file was cut before the run ended');
      assert.equal(run.status, 2, run.stderr);
      assert.equal(
        run.stderr,
        `linkerd-doctor: ${file}: the file shrank to ${MiB} bytes while it was read (truncated or rotated); its analysis is incomplete\n`,
      );
    });

    it(`a log deleted mid-read is an input error (--jobs ${jobs})`, async () => {
      const file = path.join(dir, `vanishing-${jobs}.log`);
      await writeLog(file);
      const run = await analyzeWhile(file, jobs, () => unlinkSync(file));
      assert.ok(run.cutMidRead, 'the file was deleted before the run ended');
      assert.equal(run.status, 2, run.stderr);
      assert.equal(run.stderr, `linkerd-doctor: ${file}: the file was deleted or replaced while it was read; its analysis is incomplete\n`);
    });
  }
});
