// File names are bytes. Linux allows any byte but `/` and NUL in a name, and captures made on
// Windows or unpacked from a ZIP carry Latin-1 names that are not UTF-8. Such a file is opened by
// its raw bytes (a Buffer path) and shown with each byte that is not part of valid UTF-8 written
// as `\xNN`, so a report names it unambiguously and a terminal never sees the raw byte.

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Where a file is on disk: its path as text, or its raw bytes when the name is not valid UTF-8. */
export type DiskPath = string | Buffer;

/** The name as text: decoded UTF-8, with every byte that is not part of valid UTF-8 escaped as `\xNN`. */
export function displayName(bytes: Uint8Array): string {
  try {
    return fatalUtf8.decode(bytes);
  } catch {
    return escapeInvalid(bytes);
  }
}

/** Whether the bytes are valid UTF-8 (the text path then names the same file). */
export function isUtf8Name(bytes: Uint8Array): boolean {
  try {
    fatalUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function escapeInvalid(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const length = utf8SequenceLength(bytes, i);
    if (length === 0) {
      out += `\\x${bytes[i]!.toString(16).padStart(2, '0')}`;
      i++;
    } else {
      out += fatalUtf8.decode(bytes.subarray(i, i + length));
      i += length;
    }
  }
  return out;
}

/** The length of the valid UTF-8 sequence starting at `i` (RFC 3629: no overlongs, no surrogates), or 0. */
function utf8SequenceLength(bytes: Uint8Array, i: number): number {
  const lead = bytes[i]!;
  if (lead < 0x80) return 1;
  let length: number;
  let low = 0x80;
  let high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) length = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead === 0xe0) low = 0xa0;
    if (lead === 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead === 0xf0) low = 0x90;
    if (lead === 0xf4) high = 0x8f;
  } else return 0;
  if (i + length > bytes.length) return 0;
  const second = bytes[i + 1]!;
  if (second < low || second > high) return 0;
  for (let k = 2; k < length; k++) {
    const b = bytes[i + k]!;
    if (b < 0x80 || b > 0xbf) return 0;
  }
  return length;
}

/** A display path for errors about a path given as bytes or text. */
export function shownPath(file: DiskPath | Uint8Array): string {
  return typeof file === 'string' ? file : displayName(file);
}
