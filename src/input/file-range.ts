// Reading a plain file, or a byte range of one, with the next read always in flight.

import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { InputError } from '../core/errors.js';
import { ownedByRun } from '../util/run-caches.js';
import { shownPath, type DiskPath } from './names.js';

/** The same words whichever thread (and --jobs) notices that a listed file went away. */
export const VANISHED_WHILE_READ = 'the file was deleted or replaced while it was read; its analysis is incomplete';

/** Opens a file that discovery listed: gone now means it vanished during the run. */
export async function openListed(file: DiskPath): Promise<FileHandle> {
  try {
    return await open(file, 'r');
  } catch (err) {
    throw vanishedOr(file, err);
  }
}

function vanishedOr(file: DiskPath, err: unknown): unknown {
  return (err as NodeJS.ErrnoException).code === 'ENOENT' ? new InputError(shownPath(file), VANISHED_WHILE_READ) : err;
}

/**
 * After a read: the path must still name the file that was read. A log rotated or deleted
 * mid-read was read from a handle that outlived it, so nothing looked wrong; it is an input
 * error, as it is when a later thread finds the path gone.
 */
async function checkStillThere(file: DiskPath, handle: FileHandle): Promise<void> {
  const [read, now] = await Promise.all([handle.stat(), stat(file).catch(() => null)]);
  if (now === null || now.ino !== read.ino || now.dev !== read.dev) throw new InputError(shownPath(file), VANISHED_WHILE_READ);
}

/**
 * A listed file opened, with its first chunk already read: the kind of a file is told from its
 * first bytes, and a small file is often that chunk whole. Reading the head through this handle
 * instead of a handle of its own saves an open, a read and a close per file, each a thread-pool
 * round trip the reader waits for: in a bundle of 4,000 pod logs they were most of the time.
 */
export interface PrimedFile {
  /** null: the file was small and read whole at once (readSmallFile); there is nothing to close. */
  handle: FileHandle | null;
  buffer: Buffer;
  bytesRead: number;
  /** Set once fileRange owns the handle (and closes it). */
  taken: boolean;
}

export async function primeFile(file: DiskPath, size: number, chunkBytes = DEFAULT_CHUNK): Promise<PrimedFile> {
  if (size <= SMALL_FILE && size <= chunkBytes) return readSmallFile(file, size);
  const handle = await openListed(file);
  const buffer = takeBuffer(chunkBytes);
  try {
    const { bytesRead } = size > 0 ? await handle.read(buffer, 0, Math.min(chunkBytes, size), 0) : { bytesRead: 0 };
    return { handle, buffer, bytesRead, taken: false };
  } catch (err) {
    await handle.close().catch(() => undefined);
    giveBack(buffer);
    throw err;
  }
}

/**
 * Files up to this size are read whole with blocking calls. Each asynchronous open, read, stat and
 * close is a round trip through libuv's thread pool that the reader waits for; a bundle of 100,000
 * one-line logs paid about eight of them per file, and the futex and epoll waits of those hand-offs
 * were 85 % of its system time (strace -c, 10,000 files: 320 k futex, 48 k epoll_pwait). A read of
 * 256 KiB from the page cache blocks for well under a millisecond, and the parse that follows is
 * longer, so the overlap the asynchronous path buys is worth nothing here.
 */
export const SMALL_FILE = 256 * 1024;

/**
 * Opens, reads, checks and closes a small listed file in one go: open, fstat, read, stat, close,
 * five system calls and no thread-pool hop. The checks are fileRange's: a file shorter than listed
 * was truncated, a path that no longer names the file read was replaced.
 */
function readSmallFile(file: DiskPath, size: number): PrimedFile {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    throw vanishedOr(file, err);
  }
  const buffer = takeBuffer(size === 0 ? 0 : DEFAULT_CHUNK);
  try {
    const opened = fstatSync(fd);
    let bytesRead = 0;
    while (bytesRead < size) {
      const n = readSync(fd, buffer, bytesRead, size - bytesRead, bytesRead);
      if (n === 0)
        throw new InputError(shownPath(file), `the file shrank to ${bytesRead} bytes while it was read (truncated or rotated); its analysis is incomplete`);
      bytesRead += n;
    }
    const now = statSync(file, { throwIfNoEntry: false });
    if (now === undefined || now.ino !== opened.ino || now.dev !== opened.dev) throw new InputError(shownPath(file), VANISHED_WHILE_READ);
    return { handle: null, buffer, bytesRead, taken: false };
  } catch (err) {
    giveBack(buffer);
    throw err;
  } finally {
    closeSync(fd);
  }
}

/** Closes a primed file no fileRange took (it was not plain text, or the run stopped before it). */
export async function releasePrimed(primed: PrimedFile): Promise<void> {
  if (primed.taken) return;
  primed.taken = true;
  await primed.handle?.close();
  giveBack(primed.buffer);
}

const DEFAULT_CHUNK = 1 << 20;

/**
 * Read buffers of files already read, for the next ones. A fresh pair of megabytes per file was
 * garbage only a major GC returns, and V8 lets such external memory grow before it collects: on
 * the 1 GiB bench log cut into 400 pod files (--jobs 1), 65 MB of peak RSS were dead read
 * buffers. A file's chunks are only valid until the next is requested (readEntry copies what it
 * keeps), so a buffer is free again once its file is done.
 */
const SPARE_BUFFERS = 4;
let spareBuffers: Buffer[] = [];
ownedByRun(() => (spareBuffers = []));

function takeBuffer(bytes: number): Buffer {
  const spare = bytes === DEFAULT_CHUNK ? spareBuffers.pop() : undefined;
  return spare ?? Buffer.allocUnsafe(bytes);
}

function giveBack(buffer: Buffer): void {
  if (buffer.length === DEFAULT_CHUNK && spareBuffers.length < SPARE_BUFFERS) spareBuffers.push(buffer);
}

/**
 * The bytes [start, end) of a file, read into two reused buffers: while the caller works on one
 * chunk, the next is already being read into the other, so the read's round trip through the
 * thread pool overlaps the parsing instead of adding to it. Each chunk is only valid until the
 * next is requested, which suits readEntry (it copies what it keeps) and spares the allocator a
 * fresh megabyte per read. `primed` (from 0 only) continues a file primeFile opened.
 */
export async function* fileRange(file: DiskPath, start: number, end: number, chunkBytes = DEFAULT_CHUNK, primed?: PrimedFile): AsyncGenerator<Buffer> {
  if (primed) primed.taken = true;
  if (primed?.handle === null) {
    // Read whole and checked by readSmallFile: nothing left to read, check or close.
    try {
      if (start < end) yield primed.buffer.subarray(0, primed.bytesRead);
    } finally {
      giveBack(primed.buffer);
    }
    return;
  }
  const handle = primed?.handle ?? (await openListed(file));
  // A file that fits in its primed chunk (most pod logs of a bundle) never needs the second buffer.
  const fitsPrimed = primed !== undefined && start + primed.bytesRead >= end;
  const buffers = fitsPrimed ? [primed.buffer] : [primed?.buffer ?? takeBuffer(chunkBytes), takeBuffer(chunkBytes)];
  let pending: { read: Promise<{ bytesRead: number }>; at: number } | null = null;
  const issue = (buf: Buffer, at: number) => ({ read: handle.read(buf, 0, Math.min(buf.length, end - at), at), at });
  try {
    if (start < end) pending = primed ? { read: Promise.resolve({ bytesRead: primed.bytesRead }), at: start } : issue(buffers[0]!, start);
    for (let turn = 0; pending !== null; turn ^= 1) {
      const { bytesRead } = await pending.read;
      const after = pending.at + bytesRead;
      pending = null;
      if (bytesRead === 0) {
        // The range was measured when the file was listed: ending early means it was truncated.
        const { size } = await handle.stat();
        throw new InputError(shownPath(file), `the file shrank to ${size} bytes while it was read (truncated or rotated); its analysis is incomplete`);
      }
      if (after < end) pending = issue(buffers[turn ^ 1]!, after);
      yield buffers[turn]!.subarray(0, bytesRead);
    }
    await checkStillThere(file, handle);
  } finally {
    // A read still in flight (the caller stopped early) must settle before its handle closes
    // and its buffer is reused.
    await pending?.read.catch(() => undefined);
    await handle.close();
    for (const buffer of buffers) giveBack(buffer);
  }
}
