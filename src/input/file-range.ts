// Reading a plain file, or a byte range of one, with the next read always in flight.

import { open, stat, type FileHandle } from 'node:fs/promises';
import { InputError } from '../core/errors.js';

/** The same words whichever thread (and --jobs) notices that a listed file went away. */
export const VANISHED_WHILE_READ = 'the file was deleted or replaced while it was read; its analysis is incomplete';

/** Opens a file that discovery listed: gone now means it vanished during the run. */
export async function openListed(file: string): Promise<FileHandle> {
  try {
    return await open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new InputError(file, VANISHED_WHILE_READ);
    throw err;
  }
}

/**
 * After a read: the path must still name the file that was read. A log rotated or deleted
 * mid-read was read from a handle that outlived it, so nothing looked wrong; it is an input
 * error, as it is when a later thread finds the path gone.
 */
async function checkStillThere(file: string, handle: FileHandle): Promise<void> {
  const [read, now] = await Promise.all([handle.stat(), stat(file).catch(() => null)]);
  if (now === null || now.ino !== read.ino || now.dev !== read.dev) throw new InputError(file, VANISHED_WHILE_READ);
}

/**
 * The bytes [start, end) of a file, read into two reused buffers: while the caller works on one
 * chunk, the next is already being read into the other, so the read's round trip through the
 * thread pool overlaps the parsing instead of adding to it. Each chunk is only valid until the
 * next is requested, which suits readEntry (it copies what it keeps) and spares the allocator a
 * fresh megabyte per read.
 */
export async function* fileRange(file: string, start: number, end: number, chunkBytes = 1 << 20): AsyncGenerator<Buffer> {
  const handle = await openListed(file);
  const buffers = [Buffer.allocUnsafe(chunkBytes), Buffer.allocUnsafe(chunkBytes)];
  let pending: { read: Promise<{ bytesRead: number }>; at: number } | null = null;
  const issue = (buf: Buffer, at: number) => ({ read: handle.read(buf, 0, Math.min(buf.length, end - at), at), at });
  try {
    if (start < end) pending = issue(buffers[0]!, start);
    for (let turn = 0; pending !== null; turn ^= 1) {
      const { bytesRead } = await pending.read;
      const after = pending.at + bytesRead;
      pending = null;
      if (bytesRead === 0) {
        // The range was measured when the file was listed: ending early means it was truncated.
        const { size } = await handle.stat();
        throw new InputError(file, `the file shrank to ${size} bytes while it was read (truncated or rotated); its analysis is incomplete`);
      }
      if (after < end) pending = issue(buffers[turn ^ 1]!, after);
      yield buffers[turn]!.subarray(0, bytesRead);
    }
    await checkStillThere(file, handle);
  } finally {
    // A read still in flight (the caller stopped early) must settle before its handle closes.
    await pending?.read.catch(() => undefined);
    await handle.close();
  }
}
