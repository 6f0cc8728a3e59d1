// Tar header blocks read ahead of tar-stream, to bound what it would buffer.

import { Transform } from 'node:stream';
import { InputError } from '../core/errors.js';

const TAR_HEADER = 512;

/**
 * GNU long-name and pax headers above this size are refused before they are buffered: tar-stream
 * holds a long header whole, so a 408 KB .tgz declaring a 400 MiB name peaked at 3.4 GB. Real
 * names are under 4 KiB (PATH_MAX) and pax records of a capture a few hundred bytes.
 */
export const MAX_TAR_LONG_HEADER = 64 * 1024;

export function formatSize(bytes: number): string {
  if (bytes >= 1 << 30) return `${(bytes / (1 << 30)).toFixed(1)} GiB`;
  if (bytes >= 1 << 20) return `${(bytes / (1 << 20)).toFixed(1)} MiB`;
  return `${Math.ceil(bytes / 1024)} KiB`;
}

const TYPE_GNU_LONG_NAME = 0x4c; // 'L'
const TYPE_GNU_LONG_LINK = 0x4b; // 'K'
const TYPE_PAX = 0x78; // 'x'
const TYPE_PAX_GLOBAL = 0x67; // 'g'
const TYPE_DIRECTORY = 0x35; // '5'

/**
 * Passes a tar stream through unchanged while walking its 512-byte header blocks the way
 * tar-stream does, and stops it with one error naming the archive when a GNU long-name or pax
 * header declares more than MAX_TAR_LONG_HEADER bytes, before tar-stream starts buffering it.
 * Pax headers (bounded by then) are read for a `size` record, which changes where the next
 * header is, as it does in tar-stream. Memory: one header block and at most one pax header.
 */
export function boundTarHeaders(archivePath: string, limit = MAX_TAR_LONG_HEADER): Transform {
  const block = Buffer.alloc(TAR_HEADER);
  let filled = 0;
  /** Data bytes (with padding) still to pass before the next header. */
  let skip = 0;
  /** A pax header's records, collected while they pass. */
  let pax: { global: boolean; parts: Buffer[]; left: number } | null = null;
  let globalPaxSize: number | null = null;
  let nextSize: number | null = null;
  const onHeader = (): InputError | null => {
    if (block.every((b) => b === 0)) return null;
    const type = block[156]!;
    let size = tarNumber(block.subarray(124, 136));
    const long = type === TYPE_GNU_LONG_NAME || type === TYPE_GNU_LONG_LINK || type === TYPE_PAX || type === TYPE_PAX_GLOBAL;
    if (long) {
      if (size > limit) {
        const what = type === TYPE_GNU_LONG_NAME ? 'GNU long name' : type === TYPE_GNU_LONG_LINK ? 'GNU long link name' : 'pax';
        return new InputError(archivePath, `tar ${what} header of ${formatSize(size)} (over ${formatSize(limit)}): not a capture's; archive refused`);
      }
      if (type === TYPE_PAX || type === TYPE_PAX_GLOBAL) pax = { global: type === TYPE_PAX_GLOBAL, parts: [], left: size };
    } else {
      if (nextSize !== null) size = nextSize;
      nextSize = null;
      const nameEnd = block.indexOf(0);
      const name = block.subarray(0, nameEnd === -1 || nameEnd > 100 ? 100 : nameEnd);
      const directory = type === TYPE_DIRECTORY || ((type === 0 || type === 0x30) && name[name.length - 1] === 0x2f);
      if (directory) size = 0;
    }
    skip = Math.ceil(size / TAR_HEADER) * TAR_HEADER;
    if (long && skip === 0) finishPax();
    return null;
  };
  const finishPax = () => {
    if (!pax) return;
    const size = paxRecord(Buffer.concat(pax.parts), 'size');
    // As tar-stream: a global record applies only with a local pax header.
    if (pax.global) globalPaxSize = size;
    else nextSize = size ?? globalPaxSize;
    pax = null;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let i = 0;
      while (i < chunk.length) {
        if (skip > 0) {
          const n = Math.min(skip, chunk.length - i);
          if (pax && pax.left > 0) {
            const take = Math.min(n, pax.left);
            pax.parts.push(Buffer.from(chunk.subarray(i, i + take)));
            pax.left -= take;
          }
          skip -= n;
          i += n;
          if (skip === 0) finishPax();
          continue;
        }
        const n = Math.min(TAR_HEADER - filled, chunk.length - i);
        chunk.copy(block, filled, i, i + n);
        filled += n;
        i += n;
        if (filled === TAR_HEADER) {
          filled = 0;
          const error = onHeader();
          if (error) return done(error);
        }
      }
      done(null, chunk);
    },
  });
}

/** A tar numeric field: octal text, or base-256 when the high bit of its first byte is set. */
function tarNumber(field: Buffer): number {
  if (field[0]! & 0x80) {
    let value = field[0]! & 0x7f;
    for (let i = 1; i < field.length; i++) value = value * 256 + field[i]!;
    return value;
  }
  const nul = field.indexOf(0);
  const text = field.toString('latin1', 0, nul === -1 ? field.length : nul).trim();
  const value = parseInt(text, 8);
  return Number.isFinite(value) ? value : 0;
}

/** One record of a pax header (`<length> <key>=<value>\n` records), as a number; null when absent. */
function paxRecord(data: Buffer, key: string): number | null {
  let at = 0;
  let found: number | null = null;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space === -1) break;
    const length = parseInt(data.toString('latin1', at, space), 10);
    if (!Number.isFinite(length) || length <= 0) break;
    const record = data.toString('utf8', space + 1, at + length).replace(/\n$/, '');
    const eq = record.indexOf('=');
    if (eq !== -1 && record.slice(0, eq) === key) found = parseInt(record.slice(eq + 1), 10);
    at += length;
  }
  return found !== null && Number.isFinite(found) ? found : null;
}
