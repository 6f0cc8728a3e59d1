import { lstatSync, readdirSync, statSync, unlinkSync, write as fsWrite } from 'node:fs';
import { lstat, open, readlink, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { InputError, UsageError, describeSystemError } from '../core/errors.js';
import { EXIT_INTERRUPTED, EXIT_USAGE_OR_INPUT } from '../report/exit-code.js';
import { installStderrGuard, stderrLine, unguardedStderr } from './stderr.js';

// How `--output FILE` (and --write-baseline) lands, decided per kind of node at FILE:
// - a regular file or a new name: written to a temporary sibling, fsynced, then renamed into place,
//   so an interrupted run never leaves a partial report; an existing file keeps its mode (and, when
//   run as root, its owner);
// - a symbolic link: followed, and its target is replaced the same way; the link stays a link;
// - a FIFO, socket, character or block device, and /dev/stdout, /dev/fd/N, /proc/<pid>/fd/N: written
//   in place (appending), as `> FILE` in a shell would: such a node is not ours to replace (as root,
//   a rename would swap /dev/stdout for a plain file), and `-o /dev/stdout` is a common idiom;
// - a directory: an error.
// Temporary files are named `.NAME.linkerd-doctor-PID.tmp`. SIGINT, SIGTERM and SIGHUP remove them;
// SIGKILL cannot be caught, so the next write to the same FILE removes those whose process is gone.

const TEMP_TAG = '.linkerd-doctor-';
const MAX_SYMLINK_HOPS = 40;

type OutputNode = { kind: 'replace'; path: string; mode?: number; uid?: number; gid?: number } | { kind: 'in-place'; path: string };

/** Writes a report file as described above; every failure is an InputError naming `file`. */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  let node: OutputNode;
  try {
    node = await outputNode(file);
  } catch (err) {
    throw err instanceof InputError ? err : new InputError(file, `cannot write the report: ${describeSystemError(err)}`);
  }
  if (node.kind === 'in-place') {
    try {
      const fd = ownDescriptor(node.path);
      // Our own stdout goes through the stream, in order with what else is written there; our
      // other descriptors are written directly (opening /proc/self/fd/N of a socket fails).
      if (fd === 1) await writeStdout(content);
      else if (fd !== null) await writeToDescriptor(fd, content);
      else await writeFile(node.path, content, { flag: 'a' });
    } catch (err) {
      throw new InputError(file, `cannot write the report: ${describeSystemError(err)}`);
    }
    return;
  }
  removeStaleTemporaries(node.path);
  const tmp = temporaryNameFor(node.path, process.pid);
  pendingTemporaries.add(tmp);
  try {
    const handle = await open(tmp, 'wx', node.mode ?? 0o666);
    try {
      await handle.writeFile(content);
      // open() applies the umask; an existing report keeps exactly the mode it had.
      if (node.mode !== undefined) await handle.chmod(node.mode);
      if (node.uid !== undefined && node.gid !== undefined) await handle.chown(node.uid, node.gid).catch(() => {});
      // Renaming before the data is on disk can leave an empty file after a crash.
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, node.path);
    await syncDirectory(path.dirname(node.path));
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw new InputError(file, `cannot write the report: ${describeSystemError(err)}`);
  } finally {
    pendingTemporaries.delete(tmp);
  }
}

/** Paths that name an already open descriptor: the node behind them belongs to whoever opened it. */
const DESCRIPTOR_PATH = /^\/(?:dev\/(?:stdout|stderr|stdin|fd\/\d+)|proc\/(?:self|thread-self|\d+)\/fd\/\d+)$/;

/** The descriptor number when `p` names one of this process's own descriptors. */
function ownDescriptor(p: string): number | null {
  if (p === '/dev/stdout') return 1;
  if (p === '/dev/stderr') return 2;
  if (p === '/dev/stdin') return 0;
  const m = /^\/(?:dev\/fd|proc\/(?:self|thread-self)\/fd)\/(\d+)$/.exec(p) ?? new RegExp(`^/proc/${process.pid}/fd/(\\d+)$`).exec(p);
  return m ? Number(m[1]) : null;
}

function writeToDescriptor(fd: number, content: string): Promise<void> {
  return new Promise((resolve, reject) => fsWrite(fd, content, (err) => (err ? reject(err) : resolve())));
}

async function outputNode(file: string): Promise<OutputNode> {
  let current = path.resolve(file);
  for (let hop = 0; hop <= MAX_SYMLINK_HOPS; hop++) {
    if (DESCRIPTOR_PATH.test(current)) return { kind: 'in-place', path: current };
    let info;
    try {
      info = await lstat(current);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'replace', path: current };
      throw err;
    }
    if (info.isSymbolicLink()) {
      current = path.resolve(path.dirname(current), await readlink(current));
      continue;
    }
    if (info.isDirectory()) throw new InputError(file, 'cannot write the report: is a directory');
    if (!info.isFile()) return { kind: 'in-place', path: current };
    const node: OutputNode = { kind: 'replace', path: current, mode: info.mode & 0o7777 };
    if (process.getuid?.() === 0) Object.assign(node, { uid: info.uid, gid: info.gid });
    return node;
  }
  throw new InputError(file, 'cannot write the report: too many levels of symbolic links');
}

export function temporaryNameFor(file: string, pid: number): string {
  return path.join(path.dirname(file), `.${path.basename(file)}${TEMP_TAG}${pid}.tmp`);
}

/** Temporaries for `file` left by runs that were killed (SIGKILL, power loss); live runs' are kept. */
function removeStaleTemporaries(file: string): void {
  const prefix = `.${path.basename(file)}${TEMP_TAG}`;
  let names: string[];
  try {
    names = readdirSync(path.dirname(file));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const pid = Number(name.slice(prefix.length, -'.tmp'.length));
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || processAlive(pid)) continue;
    try {
      unlinkSync(path.join(path.dirname(file), name));
    } catch {
      // Removed by someone else meanwhile, or not ours to remove: either way not our problem.
    }
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function syncDirectory(dir: string): Promise<void> {
  // Makes the rename itself durable; not every file system lets a directory be opened or synced.
  try {
    const handle = await open(dir, 'r');
    await handle.sync().finally(() => handle.close());
  } catch {
    // Best effort.
  }
}

function identity(file: string): string | null {
  try {
    const info = statSync(file);
    return info.isFile() ? `${info.dev}:${info.ino}` : null;
  } catch {
    return null;
  }
}

/**
 * Refuses an --output or --write-baseline that is one of the inputs: replacing the captured log
 * with the report loses the evidence. Compared by device and inode, so links and `./` spellings
 * count; `archive:member` inputs are checked as their archive.
 */
export function assertNotAnInput(outputs: readonly { flag: string; file: string }[], inputs: readonly string[]): void {
  const existing = outputs.map((o) => ({ ...o, id: identity(o.file) })).filter((o) => o.id !== null);
  if (existing.length === 0) return;
  for (const input of inputs) {
    if (input === '-') continue;
    const id = inputIdentity(input);
    const clash = id === null ? undefined : existing.find((o) => o.id === id);
    if (clash) throw new UsageError(`${clash.flag} ${clash.file} is also an input (${input}); refusing to overwrite it: write the report elsewhere`);
  }
}

function inputIdentity(input: string): string | null {
  const whole = identity(input);
  if (whole !== null) return whole;
  for (let at = input.indexOf(':'); at > 0; at = input.indexOf(':', at + 1)) {
    const archive = identity(input.slice(0, at));
    if (archive !== null) return archive;
  }
  return null;
}

/** Two outputs on one file: the second would silently overwrite the first. */
export function duplicateOutputWarnings(outputs: readonly { flag: string; file: string }[]): string[] {
  const seen = new Map<string, string>();
  const warnings: string[] = [];
  for (const o of outputs) {
    let key = path.resolve(o.file);
    try {
      const info = statSync(o.file);
      if (info.isFile()) key = `${info.dev}:${info.ino}`;
    } catch {
      // Not there yet: its resolved path identifies it.
    }
    const first = seen.get(key);
    if (first !== undefined) warnings.push(`warning: ${o.flag} ${o.file} names the same file as ${first}; only the last report written stays there`);
    else seen.set(key, `${o.flag} ${o.file}`);
  }
  return warnings;
}

const pendingTemporaries = new Set<string>();
/** What a command must undo before the process ends on a signal (collect's child processes). */
const interruptCleanups = new Set<() => void>();

/**
 * Runs `cleanup` (synchronously, from the signal handler) if the process is ended by SIGINT,
 * SIGTERM or SIGHUP before the returned function is called to withdraw it.
 */
export function onInterrupt(cleanup: () => void): () => void {
  interruptCleanups.add(cleanup);
  return () => interruptCleanups.delete(cleanup);
}

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
let noteCutReport = false;

/**
 * For commands whose verdict is known before they write (analyze): a reader that goes away must
 * not decide the exit code, so a closed stdout is only noted (unless --quiet: the exit code still
 * carries the verdict) and the run ends with its own code.
 */
export function finishDespiteClosedStdout(options: { note: boolean }): void {
  exitWhenStdoutCloses = false;
  noteCutReport = options.note;
}

/** 128 + the signal number, as shells report a process ended by a signal. */
const EXIT_ON_SIGNAL = { SIGHUP: 129, SIGINT: EXIT_INTERRUPTED, SIGTERM: 143 } as const;

/** Removes every temporary report file still being written; safe to call from a signal handler. */
export function removeTemporaries(): void {
  for (const tmp of pendingTemporaries) {
    try {
      // A file that was never created, or was renamed into place already, leaves nothing behind.
      if (lstatSync(tmp, { throwIfNoEntry: false })) unlinkSync(tmp);
    } catch {
      // Nothing partial is left either way.
    }
  }
  pendingTemporaries.clear();
}

let guardsInstalled = false;

/**
 * Process-level behaviour every command shares: every stderr write is made terminal-safe;
 * Ctrl-C exits 130 (SIGTERM 143, SIGHUP 129) without leaving a partial --output file; a closed
 * stdout (`| head`) ends the run instead of crashing with EPIPE.
 */
export function installProcessGuards(): void {
  if (guardsInstalled) return;
  guardsInstalled = true;
  installStderrGuard();
  const interrupted = (code: number) => () => {
    for (const cleanup of interruptCleanups) {
      try {
        cleanup();
      } catch {
        // The process ends either way; the other cleanups still run.
      }
    }
    removeTemporaries();
    // The progress bar hides the cursor; give it back before leaving.
    if (process.stderr.isTTY) unguardedStderr().write('\x1b[?25h\n');
    stderrLine('interrupted; unfinished report files removed');
    process.exit(code);
  };
  for (const [signal, code] of Object.entries(EXIT_ON_SIGNAL)) process.once(signal, interrupted(code));
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'EBADF') {
      // A cut report is worth a note; a cut record stream (`parse | head`) is what the reader asked for.
      const worthANote = noteCutReport || err.code === 'EBADF';
      if (!stdoutClosed && worthANote) stderrLine(`stdout: closed before the report was fully written (${err.code}); the rest of it is lost`);
      stdoutClosed = true;
      // No stdout at all (EBADF): the report was never delivered, whatever the verdict.
      if (err.code === 'EBADF') {
        removeTemporaries();
        process.exit(EXIT_USAGE_OR_INPUT);
      }
      if (!exitWhenStdoutCloses) return;
      // The reader went away: nobody wants the rest of the output, so stop reading inputs too.
      removeTemporaries();
      process.exit(process.exitCode ?? 0);
    }
    removeTemporaries();
    stderrLine(`stdout: cannot write the report: ${describeSystemError(err)}`);
    process.exit(EXIT_USAGE_OR_INPUT);
  });
}
