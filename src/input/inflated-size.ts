// What a file will give once opened, told from a few bytes of it: how many bytes a gzip file
// inflates to, and whether it is a tar bundle (plain or gzipped). The parallel planner weighs and
// cuts work by these bytes; reading them never fails a run, the reader reports a broken file.

import { closeSync, openSync, readSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { constants, gunzipSync } from 'node:zlib';
import { diskPathOf, type InputSource } from './discover.js';
import type { DiskPath } from './names.js';
import { isGzip, isTar } from './open.js';

/** Bytes each file source gives when read (inflatedSize), by path. */
export function bytesWhenRead(sources: readonly InputSource[]): Promise<Map<string, number>> {
  const files = sources.filter((s): s is InputSource & { type: 'file' } => s.type === 'file');
  const sizes = new Map<string, number>();
  for (const f of files) sizes.set(f.path, inflatedSizeNow(diskPathOf(f), f.size));
  return Promise.resolve(sizes);
}

/** Deflate's best ratio (258-byte matches in 2 bits) is about 1032:1; a larger ISIZE is not this file's. */
const MAX_DEFLATE_RATIO = 1032;
/**
 * A gzip member is at most its inflated bytes plus zlib's deflateBound overhead (under 1 byte
 * per KiB for incompressible data) and a header with a file name or comment: an ISIZE that
 * leaves the compressed file larger than that cannot be the size of the whole.
 */
const storedOverhead = (bytes: number) => Math.ceil(bytes / 1024) + 4096;

/**
 * The bytes a file gives when read: its size for plain files, the gzip trailer's ISIZE (the last
 * four bytes, little-endian, the inflated size mod 2^32) for gzip. Where ISIZE cannot be the
 * whole file's (truncated data, 4 GiB or more inflated, a ratio deflate cannot reach), the size on
 * disk. A multi-member gzip (`cat a.gz b.gz`) gives its last member's size: an underestimate,
 * which only weighs the file as less work than it is.
 */
export function inflatedSize(file: DiskPath, size: number): Promise<number> {
  return Promise.resolve(inflatedSizeNow(file, size));
}

/**
 * inflatedSize with blocking calls: two bytes of magic (and four of trailer for gzip) are cheaper
 * read at once than through three thread-pool round trips per file, which in a bundle of 100,000
 * small logs cost more than reading them (see SMALL_FILE in file-range.ts).
 */
function inflatedSizeNow(file: DiskPath, size: number): number {
  if (size < 20) return size;
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const magic = readAtNow(fd, 0, 2);
    if (!isGzip(magic)) return size;
    const trailer = readAtNow(fd, size - 4, 4);
    if (trailer.length < 4) return size;
    return plausibleInflatedSize(trailer.readUInt32LE(0), size) ? trailer.readUInt32LE(0) : size;
  } catch {
    return size;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function readAtNow(fd: number, at: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  return buf.subarray(0, readSync(fd, buf, 0, length, at));
}

/** Whether `isize` can be the inflated size of a whole gzip file of `compressed` bytes. */
export function plausibleInflatedSize(isize: number, compressed: number): boolean {
  return isize + storedOverhead(isize) >= compressed && isize <= compressed * MAX_DEFLATE_RATIO;
}

/** Enough compressed bytes to inflate a tar header (512 bytes) even from badly compressible data. */
const TAR_PROBE_BYTES = 16 * 1024;

/** Whether a file is a tar bundle, plain or gzipped (false for anything unreadable or broken). */
export async function holdsTar(file: DiskPath): Promise<boolean> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, 'r');
    const head = await readAt(handle, 0, TAR_PROBE_BYTES);
    if (isTar(head)) return true;
    if (!isGzip(head)) return false;
    // A sync flush inflates what the head holds instead of failing on the missing rest.
    return isTar(gunzipSync(head, { finishFlush: constants.Z_SYNC_FLUSH }));
  } catch {
    return false;
  } finally {
    await handle?.close().catch(() => {});
  }
}

async function readAt(handle: FileHandle, at: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buf, 0, length, at);
  return buf.subarray(0, bytesRead);
}
