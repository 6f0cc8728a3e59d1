// Sources are read in order with the next file opened, and its first chunk read, ahead: the
// records, statistics and errors are those of reading one file after another, and no handle is
// left open, whether every file was read or one could not be.

import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { InputError } from '../../src/core/errors.js';
import type { InputStats, LdRecord } from '../../src/core/types.js';
import type { InputSource } from '../../src/input/discover.js';
import { readSource, readSources } from '../../src/engine/read.js';
import { primeFile, fileRange } from '../../src/input/file-range.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ld-read-ahead-'));
after(() => rmSync(dir, { recursive: true, force: true }));
/** What /proc/self/fd links to (a temporary directory reached through a symlink resolves). */
const realDir = realpathSync(dir);

const line = (i: number) =>
  `[${(100 + i).toFixed(6).padStart(13)}s]  WARN ThreadId(01) outbound:proxy{addr=10.0.0.${i % 250}:80}:endpoint{addr=10.0.0.${i % 250}:80}: linkerd_reconnect: Failed to connect error=Connection refused (os error 111)`;

type FileSource = Extract<InputSource, { type: 'file' }>;

function file(name: string, lines: number): FileSource {
  const p = path.join(dir, name);
  const text = Array.from({ length: lines }, (_, i) => line(i)).join('\n') + '\n';
  writeFileSync(p, text);
  return { type: 'file', path: p, size: Buffer.byteLength(text), origin: dir } as FileSource;
}

/**
 * Descriptors open on this test's files. Not every descriptor of the process: the test runner,
 * the loader and coverage open and close their own meanwhile (CI once saw one fewer after).
 */
const openHandles = () =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(realDir);
    } catch {
      return false; // closed between the listing and the look
    }
  }).length;

async function read(sources: InputSource[], ahead: boolean) {
  const records: LdRecord[] = [];
  const inputs: InputStats[] = [];
  const errors: InputError[] = [];
  const callbacks = { record: (r: LdRecord) => void records.push(r) };
  if (ahead) await readSources(sources, callbacks, {}, inputs, errors);
  else for (const s of sources) await readSource(s, callbacks, {}, inputs, errors);
  return { records: records.map((r) => `${r.path}:${r.line}`), inputs, errors: errors.map((e) => e.message) };
}

describe('reading ahead', () => {
  const sources = Array.from({ length: 30 }, (_, i) => file(`pod-${i}.log`, 1 + ((i * 37) % 300)));
  const missing = { type: 'file', path: path.join(dir, 'gone.log'), size: 10, origin: dir } as InputSource;

  it('gives the records, statistics and errors of reading one file after another', async () => {
    const mixed = [sources[0]!, missing, ...sources.slice(1, 5)];
    for (const list of [sources, mixed]) assert.deepEqual(await read(list, true), await read(list, false));
    assert.equal((await read(mixed, true)).errors.length, 1);
  });

  it('leaves no file open, after a full read or a failed one', { skip: process.platform !== 'linux' }, async () => {
    const before = openHandles();
    await read(sources, true);
    await read([sources[0]!, missing, sources[1]!], true);
    assert.equal(openHandles(), before);
  });

  it('hands a primed file to fileRange, which reads it from its first chunk on', async () => {
    const primed = await primeFile(sources[3]!.path, sources[3]!.size);
    const chunks: Buffer[] = [];
    for await (const c of fileRange(sources[3]!.path, 0, sources[3]!.size, undefined, primed)) chunks.push(Buffer.from(c));
    assert.equal(primed.taken, true);
    assert.equal(Buffer.concat(chunks).length, sources[3]!.size);
  });
});
