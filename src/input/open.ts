// Opens a source as a sequence of byte streams: a plain file is one entry, a gzip file is one
// decompressed entry, a tar (or tar.gz) bundle is one entry per member. Compression and archive
// layout are recognised by magic bytes, so `cat bundle.tgz | linkerd-doctor analyze -` works too.
// Nothing is ever extracted to disk.

import { createReadStream } from 'node:fs';
import { pipeline, Readable, Transform } from 'node:stream';
import { createGunzip, type Gunzip } from 'node:zlib';
import { InputError, UsageError, describeSystemError } from '../core/errors.js';
import { diskPathOf, type InputSource } from './discover.js';
import { fileRange, primeFile, releasePrimed, type PrimedFile } from './file-range.js';
import { boundTarHeaders, formatSize } from './tar-headers.js';

export { MAX_TAR_LONG_HEADER } from './tar-headers.js';

export interface InputEntry {
  /** Display path; tar members are `archive:member`. */
  path: string;
  /** Chunks of bytes; a plain file's chunks are only valid until the next one is taken (see fileRange). */
  stream: AsyncIterable<Buffer>;
  /** Uncompressed size when known, for progress. */
  size: number | null;
  /** Tar members: the bytes the member takes in the archive, as its header says (the same for every reader). */
  stored?: number;
}

/**
 * How a reader of a bundle counts against the run's gzip totals. A bundle read by two threads
 * (engine/archive.ts) is inflated by both up to the cut: the thread that only skips the first
 * members leaves them to the one that reads them, so the run counts each byte once.
 */
export interface RunCounting {
  counts: boolean;
}

// 64 KiB, Node's default, for gzip and tar files: with 1 MiB chunks dead buffers piled up in the old
// generation between major GCs (an address bomb peaked at 220 MB RSS instead of 150 MB) for no gain
// in throughput. Plain files are read by fileRange into two reused 1 MiB buffers instead.
const READ_CHUNK = 1 << 16;
const TAR_HEADER = 512;
/**
 * Up to 1 MiB inflated ahead of the parser, 32 KiB at a time. With zlib's 16 KiB buffer each
 * chunk was a thread-pool round trip that the parser waited for: on 50 pod logs (.gz, 128 MiB
 * inflated, --jobs 1, CPU profile) zlib callbacks took 31 % of the main thread and it sat idle
 * 28 % of the time (23.5 s profiled); with 1 MiB ahead, 16.2 s at 64 KiB chunks, 16.0 s at
 * 256 KiB. The chunk stays small because the decompression budget is checked per chunk, and a
 * stop should report the limit it crossed (8.0 MiB, not 8.3).
 */
const GUNZIP_OPTIONS = { chunkSize: 32 * 1024, highWaterMark: 1 << 20 };

export function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

export function isTar(head: Buffer): boolean {
  return head.length >= 262 && head.toString('latin1', 257, 262) === 'ustar';
}

function isPlain(head: Buffer): boolean {
  return !isGzip(head) && !isTar(head) && unsupportedContainer(head) === null;
}

/** Archive and compression formats this tool cannot open, by magic bytes: the name of the format, or null. */
export function unsupportedContainer(head: Buffer): string | null {
  const starts = (...bytes: number[]) => head.length >= bytes.length && bytes.every((b, i) => head[i] === b);
  if (starts(0x50, 0x4b, 0x03, 0x04) || starts(0x50, 0x4b, 0x05, 0x06) || starts(0x50, 0x4b, 0x07, 0x08)) return 'zip';
  if (starts(0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00)) return 'xz';
  if (starts(0x28, 0xb5, 0x2f, 0xfd)) return 'zstd';
  if (starts(0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c)) return '7z';
  // `BZh1`-`BZh9`, then a block (π in BCD) or the end-of-stream mark (√π): text never starts so.
  if (starts(0x42, 0x5a, 0x68) && head.length >= 10 && head[3]! >= 0x31 && head[3]! <= 0x39) {
    const magic = head.toString('hex', 4, 10);
    if (magic === '314159265359' || magic === '177245385090') return 'bzip2';
  }
  return null;
}

/**
 * Refusing a container is an input error, never a silent skip: a .zip beside a recognised log
 * would otherwise leave the logs inside it unread while the gate passes.
 */
function unsupportedError(displayPath: string, format: string): InputError {
  return new InputError(
    displayPath,
    `${format} archive: not supported, so nothing in it was read; unpack it and pass the folder, or pipe it (e.g. \`${format === 'zip' || format === '7z' ? 'unzip -p' : format === 'bzip2' ? 'bzip2 -dc' : format === 'xz' ? 'xz -dc' : 'zstd -dc'} FILE | linkerd-doctor analyze -\`)`,
  );
}

/**
 * Archives inside archives (a .tgz in a .tgz, a .gz.gz) are opened up to this many layers of gzip
 * and tar (a .tgz is two: three .tgz inside each other are six); deeper ones are input errors.
 */
export const MAX_NESTING = 6;
const TOO_DEEP = `archives nested more than ${MAX_NESTING} layers of gzip and tar deep; not read`;

export async function* openSource(
  source: InputSource,
  stdin: Readable = process.stdin,
  run: RunCounting = { counts: true },
  opened?: Promise<PrimedFile>,
): AsyncGenerator<InputEntry> {
  if (source.type === 'file') {
    const primed = await (opened ?? primeFile(diskPathOf(source), source.size)).catch((err: unknown) => {
      throw err instanceof InputError ? err : new InputError(source.path, describeSystemError(err));
    });
    try {
      const head = primed.buffer.subarray(0, Math.min(TAR_HEADER, primed.bytesRead));
      const unsupported = unsupportedContainer(head);
      if (unsupported) throw unsupportedError(source.path, unsupported);
      if (isPlain(head)) {
        // A stream costs a read through the thread pool and an event per 64 KiB, and waits for
        // each; fileRange keeps the next megabyte in flight while this one is parsed. On the 256
        // MiB bench log read by one thread: 3.4-4.8 s against 5.1-5.5 s, system time 0.2 s
        // against 0.7 s.
        yield { path: source.path, stream: fileRange(diskPathOf(source), 0, source.size, undefined, primed), size: source.size };
        return;
      }
    } finally {
      // Gzip and tar are read as streams; a plain entry whose reading never started leaves it here.
      await releasePrimed(primed);
    }
  }
  const raw = source.type === 'stdin' ? stdin : createReadStream(diskPathOf(source), { highWaterMark: READ_CHUNK });
  const size = source.type === 'file' ? source.size : null;
  yield* openStream(source.path, raw, size, run);
}

async function* openStream(displayPath: string, raw: Readable, size: number | null, run: RunCounting): AsyncGenerator<InputEntry> {
  const { head, stream } = await peek(displayPath, tagErrors(displayPath, raw), TAR_HEADER);
  // Every gzip stream of this source (the outer one, or one per tar member) draws on one budget.
  const archive: Inflation = { archivePath: displayPath, inflated: 0, compressed: 0, run };
  const opened = await unwrap(displayPath, head, stream, archive, 0);
  if (opened.refused) {
    opened.stream.destroy();
    throw opened.refused;
  }
  if (opened.tar) {
    yield* tarEntries(displayPath, opened.stream, archive, opened.depth + 1);
    return;
  }
  yield { path: displayPath, stream: opened.stream, size: opened.inflated ? null : size };
}

interface Unwrapped {
  stream: Readable;
  tar: boolean;
  inflated: boolean;
  /** Layers of gzip and tar around the stream. */
  depth: number;
  /** Why the stream is not read (a format this tool cannot open, nesting too deep); the stream must then be drained or destroyed. */
  refused?: InputError;
}

/** Inflates gzip layers (a .gz.gz too) and tells what is inside: a tar archive, a plain stream, or something refused. */
async function unwrap(displayPath: string, head: Buffer, stream: Readable, archive: Inflation, depth: number): Promise<Unwrapped> {
  let inflated = false;
  while (isGzip(head)) {
    if (depth >= MAX_NESTING) return { stream, tar: false, inflated, depth, refused: new InputError(displayPath, TOO_DEEP) };
    ({ head, stream } = await peek(displayPath, gunzip(displayPath, stream, archive), TAR_HEADER));
    inflated = true;
    depth++;
  }
  const unsupported = unsupportedContainer(head);
  if (unsupported) return { stream, tar: false, inflated, depth, refused: unsupportedError(displayPath, unsupported) };
  const tar = isTar(head);
  if (tar && depth >= MAX_NESTING) return { stream, tar: false, inflated, depth, refused: new InputError(displayPath, TOO_DEEP) };
  return { stream, tar, inflated, depth };
}

/** An entry that fails when read: the error is reported at that member, and the archive goes on. */
function failingEntry(memberPath: string, error: InputError, stored?: number): InputEntry {
  const stream = {
    [Symbol.asyncIterator]() {
      return {
        next: (): Promise<IteratorResult<Buffer>> => Promise.reject(error),
      };
    },
  };
  return stored === undefined ? { path: memberPath, stream, size: null } : { path: memberPath, stream, size: null, stored };
}

/** `depth`: the layers of gzip and tar around the members, this tar's included (a tar of tars of tars is nested too). */
async function* tarEntries(archivePath: string, stream: Readable, archive: Inflation, depth: number): AsyncGenerator<InputEntry> {
  // Loaded on the first bundle, not at start-up (worker threads import this module too).
  const tar = await import('tar-stream');
  const extract = tar.extract();
  let failure: unknown = null;
  pipeline(stream, boundTarHeaders(archivePath), extract, (err) => {
    if (err) failure = err;
  });
  let files = 0;
  const skipped = new Map<string, number>();
  try {
    for await (const entry of extract) {
      const member = entry.header.name;
      if (entry.header.type !== 'file' && entry.header.type !== 'contiguous-file') {
        const type = entry.header.type ?? 'unknown';
        skipped.set(type, (skipped.get(type) ?? 0) + 1);
        entry.resume();
        continue;
      }
      files++;
      // Member names are only labels: absolute and `..` paths are shown, never resolved.
      const memberPath = `${archivePath}:${member}`;
      const stored = entry.header.size ?? 0;
      const { head, stream: memberStream } = await peek(memberPath, entry as unknown as Readable, TAR_HEADER);
      let opened: Unwrapped;
      try {
        opened = await unwrap(memberPath, head, memberStream, archive, depth);
      } catch (err) {
        // Inflating the member's head already failed (corrupt data, the archive's gzip budget):
        // the member reports it, as when its reader meets it.
        if (!(err instanceof InputError)) throw err;
        yield failingEntry(memberPath, err, stored);
        return;
      }
      if (opened.refused) {
        yield failingEntry(memberPath, opened.refused, stored);
        // Drained, not destroyed: destroying a member's stream destroys the whole archive.
        opened.stream.resume();
        entry.resume();
        continue;
      }
      if (opened.tar) {
        // A bundle inside the bundle (a .tgz of per-node .tgz): its members are read as members.
        // The first carries the outer member's stored bytes, so a bundle shared by two threads
        // (engine/archive.ts) gives the inner archive whole to one of them.
        let first = true;
        try {
          for await (const inner of tarEntries(memberPath, opened.stream, archive, opened.depth + 1)) {
            yield first ? { ...inner, stored } : { ...inner, stored: 0 };
            first = false;
          }
        } catch (err) {
          yield failingEntry(memberPath, err instanceof InputError ? err : new InputError(memberPath, describeTarError(err)), first ? stored : 0);
        }
        entry.resume();
        continue;
      }
      yield { path: memberPath, stream: opened.stream, size: opened.inflated ? null : stored, stored };
      entry.resume();
    }
  } catch (err) {
    throw new InputError(archivePath, `broken tar archive: ${describeTarError(err)}`);
  }
  if (failure) throw new InputError(archivePath, `broken tar archive: ${describeTarError(failure)}`);
  // A bundle of only folders or links is a capture that went wrong, not a clean snapshot.
  if (files === 0) {
    const kinds = [...skipped].map(([type, n]) => `${n} ${type}`).join(', ');
    throw new InputError(archivePath, `the tar archive holds no regular files${kinds ? ` (only ${kinds} entries)` : ''}`);
  }
}

function describeTarError(err: unknown): string {
  if (err instanceof InputError) return err.message;
  const msg = describeSystemError(err);
  return msg.replace(/^Unexpected end of data$/, 'unexpected end of data (truncated)');
}

function gunzip(displayPath: string, stream: Readable, archive: Inflation): Readable {
  const out = createGunzip(GUNZIP_OPTIONS);
  const guarded = bombGuard(out, decompressionLimits(), archive);
  pipeline(stream, out, guarded, () => {});
  return tagErrors(displayPath, guarded);
}

export interface DecompressionLimits {
  /** Decompressed bytes past which the ratio is checked. */
  maxBytes: number;
  /** Decompressed/compressed ratio that, past maxBytes, stops the input. */
  maxRatio: number;
}

export const DEFAULT_DECOMPRESSION_LIMITS: DecompressionLimits = { maxBytes: 1 << 30, maxRatio: 1000 };

/** Limits from LINKERD_DOCTOR_MAX_DECOMPRESSED_BYTES and LINKERD_DOCTOR_MAX_DECOMPRESSION_RATIO (0 disables). */
export function decompressionLimits(env: NodeJS.ProcessEnv = process.env): DecompressionLimits {
  const read = (name: string, fallback: number) => {
    const text = env[name];
    if (text === undefined || text.trim() === '') return fallback;
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0) throw new UsageError(`${name}=${text} is not a non-negative number`);
    return value === 0 ? Infinity : value;
  };
  return {
    maxBytes: read('LINKERD_DOCTOR_MAX_DECOMPRESSED_BYTES', DEFAULT_DECOMPRESSION_LIMITS.maxBytes),
    maxRatio: read('LINKERD_DOCTOR_MAX_DECOMPRESSION_RATIO', DEFAULT_DECOMPRESSION_LIMITS.maxRatio),
  };
}

/** What the gzip streams of one source have inflated so far, from how many compressed bytes. */
interface Inflation {
  archivePath: string;
  inflated: number;
  compressed: number;
  run: RunCounting;
}

/**
 * The whole run's gzip totals, shared by every thread of a parallel run: [inflated, compressed].
 * A bomb split over many streams (a tar of gzip members, a folder of .gz files) must meet the
 * same limits as one stream.
 */
let runTotals = new BigInt64Array(new SharedArrayBuffer(16));

/** A fresh run-wide ledger (one per analysis), to hand to worker threads. */
export function startDecompressionLedger(): SharedArrayBuffer {
  // Checked once, before anything is read: a bad value is one usage error, not one per file.
  decompressionLimits();
  runTotals = new BigInt64Array(new SharedArrayBuffer(16));
  return runTotals.buffer as SharedArrayBuffer;
}

/** In a worker thread: count against the run's ledger, created by the main thread. */
export function joinDecompressionLedger(shared: SharedArrayBuffer): void {
  runTotals = new BigInt64Array(shared);
}

export const RUN_SCOPE = ' (all gzip data of this run)';

/**
 * Stops gzip input that inflates past both limits, counted per stream, per source (archive) and
 * per run: streaming already keeps memory flat, but a few kilobytes that inflate to terabytes
 * would still keep the run busy for hours. Real logs and metric dumps compress 5-200x, so
 * legitimate input never meets both conditions. The error names the archive.
 */
function bombGuard(inflater: Gunzip, limits: DecompressionLimits, archive: Inflation): Transform {
  let inflated = 0;
  let compressedSeen = 0;
  const over = (bytes: number, compressed: number) => bytes > limits.maxBytes && bytes / Math.max(compressed, 1) > limits.maxRatio;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const compressedNow = inflater.bytesWritten - compressedSeen;
      compressedSeen = inflater.bytesWritten;
      inflated += chunk.length;
      archive.inflated += chunk.length;
      archive.compressed += compressedNow;
      const counted = archive.run.counts;
      const runInflated = counted ? Number(Atomics.add(runTotals, 0, BigInt(chunk.length))) + chunk.length : 0;
      const runCompressed = counted ? Number(Atomics.add(runTotals, 1, BigInt(compressedNow))) + compressedNow : 0;
      let scope: string | null = null;
      let bytes = 0;
      let compressed = 0;
      if (over(inflated, compressedSeen)) [scope, bytes, compressed] = ['', inflated, compressedSeen];
      else if (over(archive.inflated, archive.compressed))
        [scope, bytes, compressed] = [' (all gzip data of this archive)', archive.inflated, archive.compressed];
      else if (counted && over(runInflated, runCompressed)) [scope, bytes, compressed] = [RUN_SCOPE, runInflated, runCompressed];
      if (scope !== null) {
        done(
          new InputError(
            archive.archivePath,
            `decompression stopped at ${formatSize(bytes)}${scope} (${Math.round(bytes / Math.max(compressed, 1))}:1 from ${formatSize(compressed)} compressed): looks like a decompression bomb; ` +
              'raise LINKERD_DOCTOR_MAX_DECOMPRESSED_BYTES or LINKERD_DOCTOR_MAX_DECOMPRESSION_RATIO (0 = no limit) if it is genuine',
          ),
        );
        return;
      }
      done(null, chunk);
    },
  });
}

/** Re-labels stream errors as InputErrors naming the file, once. */
function tagErrors(displayPath: string, stream: Readable): Readable {
  const original = stream.emit.bind(stream);
  stream.emit = ((event: string | symbol, ...args: unknown[]) => {
    if (event === 'error' && !(args[0] instanceof InputError)) {
      return original('error', new InputError(displayPath, describeSystemError(args[0])));
    }
    return original(event, ...args);
  }) as typeof stream.emit;
  return stream;
}

/**
 * Reads at least `bytes` bytes (or to the end) and pushes them back, so the stream can be
 * handed on unchanged.
 */
function peek(displayPath: string, stream: Readable, bytes: number): Promise<{ head: Buffer; stream: Readable }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    let ended = false;
    const finish = () => {
      cleanup();
      const head = Buffer.concat(chunks);
      if (ended) return resolve({ head, stream: Readable.from(head.length > 0 ? [head] : []) });
      if (head.length > 0) stream.unshift(head);
      resolve({ head, stream });
    };
    const onEnd = () => {
      ended = true;
      finish();
    };
    const onReadable = () => {
      let chunk: Buffer | null;
      while ((chunk = stream.read() as Buffer | null) !== null) {
        chunks.push(chunk);
        length += chunk.length;
        if (length >= bytes) return finish();
      }
    };
    const onError = (err: unknown) => {
      cleanup();
      reject(err instanceof InputError ? err : new InputError(displayPath, describeSystemError(err)));
    };
    const cleanup = () => {
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    stream.on('readable', onReadable);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}
