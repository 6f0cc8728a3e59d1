import { unlinkSync } from 'node:fs';
import { rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { InputError, describeSystemError } from '../core/errors.js';
import { EXIT_INTERRUPTED, EXIT_USAGE_OR_INPUT } from '../report/exit-code.js';

/**
 * Writes a report file atomically: a temporary sibling is renamed into place, so an interrupted
 * run never leaves a partial report behind.
 */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  pendingTemporaries.add(tmp);
  try {
    await writeFile(tmp, content);
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw new InputError(file, `cannot write the report: ${describeSystemError(err)}`);
  } finally {
    pendingTemporaries.delete(tmp);
  }
}

const pendingTemporaries = new Set<string>();

/** Temporary files still being written, for the interrupt handler to remove. */
export function temporariesInFlight(): readonly string[] {
  return [...pendingTemporaries];
}

/** Writes to stdout and resolves once flushed; a closed pipe (`| head`) ends quietly. */
export function writeStdout(text: string): Promise<void> {
  return new Promise((resolve) => {
    if (text === '' || stdoutClosed) return resolve();
    process.stdout.write(text, () => resolve());
  });
}

let stdoutClosed = false;
let exitWhenStdoutCloses = true;

/**
 * For commands whose verdict is known before they write (analyze): a reader that goes away must
 * not decide the exit code, so a closed stdout is only noted and the run ends with its own code.
 */
export function finishDespiteClosedStdout(): void {
  exitWhenStdoutCloses = false;
}

/** 128 + the signal number, as shells report a process ended by SIGTERM. */
const EXIT_ON_SIGTERM = 143;

/** Removes every temporary report file still being written; safe to call from a signal handler. */
export function removeTemporaries(): void {
  for (const tmp of pendingTemporaries) {
    try {
      unlinkSync(tmp);
    } catch {
      // Already renamed into place or never created: nothing partial is left either way.
    }
  }
  pendingTemporaries.clear();
}

let guardsInstalled = false;

/**
 * Process-level behaviour every command shares: Ctrl-C exits 130 (SIGTERM 143) without leaving a
 * partial --output file, and a closed stdout (`| head`) ends the run quietly instead of crashing
 * with EPIPE.
 */
export function installProcessGuards(): void {
  if (guardsInstalled) return;
  guardsInstalled = true;
  const interrupted = (code: number) => () => {
    removeTemporaries();
    // The progress bar hides the cursor; give it back before leaving.
    if (process.stderr.isTTY) process.stderr.write('\x1b[?25h\n');
    process.stderr.write('linkerd-doctor: interrupted; unfinished report files removed\n');
    process.exit(code);
  };
  process.once('SIGINT', interrupted(EXIT_INTERRUPTED));
  process.once('SIGTERM', interrupted(EXIT_ON_SIGTERM));
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') {
      stdoutClosed = true;
      if (!exitWhenStdoutCloses) return;
      // The reader went away: nobody wants the rest of the output, so stop reading inputs too.
      removeTemporaries();
      process.exit(process.exitCode ?? 0);
    }
    removeTemporaries();
    process.stderr.write(`linkerd-doctor: stdout: cannot write the report: ${describeSystemError(err)}\n`);
    process.exit(EXIT_USAGE_OR_INPUT);
  });
}
