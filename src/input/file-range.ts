// Reading a plain file, or a byte range of one, with the next read always in flight.

import { open } from 'node:fs/promises';

/**
 * The bytes [start, end) of a file, read into two reused buffers: while the caller works on one
 * chunk, the next is already being read into the other, so the read's round trip through the
 * thread pool overlaps the parsing instead of adding to it. Each chunk is only valid until the
 * next is requested, which suits readEntry (it copies what it keeps) and spares the allocator a
 * fresh megabyte per read.
 */
export async function* fileRange(file: string, start: number, end: number, chunkBytes = 1 << 20, limit?: { claim(want: number): number }): AsyncGenerator<Buffer> {
  const handle = await open(file, 'r');
  const buffers = [Buffer.allocUnsafe(chunkBytes), Buffer.allocUnsafe(chunkBytes)];
  let pending: { read: Promise<{ bytesRead: number }>; at: number } | null = null;
  // With a limit, another thread may take the rest of the range: each read is claimed first and
  // stops where the limit says.
  const issue = (buf: Buffer, at: number) => {
    const want = Math.min(at + buf.length, end);
    const to = limit ? limit.claim(want) : want;
    return to > at ? { read: handle.read(buf, 0, to - at, at), at } : null;
  };
  try {
    if (start < end) pending = issue(buffers[0]!, start);
    for (let turn = 0; pending !== null; turn ^= 1) {
      const { bytesRead } = await pending.read;
      const after = pending.at + bytesRead;
      pending = null;
      if (bytesRead === 0) return;
      if (after < end) pending = issue(buffers[turn ^ 1]!, after);
      yield buffers[turn]!.subarray(0, bytesRead);
    }
  } finally {
    // A read still in flight (the caller stopped early) must settle before its handle closes.
    await pending?.read.catch(() => undefined);
    await handle.close();
  }
}
