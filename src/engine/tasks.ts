// The work of one task of a parallel analysis (see parallel.ts): the parser and the rules over one
// source or one byte range of a large file, returning the rule states and input statistics. It
// runs in worker threads (analyze-worker.ts) and on the main thread, which takes a share too.

import { closeSync, openSync, readSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { InputError } from '../core/errors.js';
import type { InputKind, InputStats } from '../core/types.js';
import { PARSERS } from '../parsers/index.js';
import type { ParserOptions, ParserState } from '../parsers/parser.js';
import { readSources } from './read.js';
import { RuleEngine, type EngineModules } from './engine.js';
import { serializeError, type TaskResult, type WorkerMessage, type WorkerTask } from './messages.js';
import { LineSplitter } from '../input/lines.js';
import { fileRange } from '../input/file-range.js';
import { MAX_LINE_BYTES, readEntry, type EntryCallbacks } from './pipeline.js';

const MiB = 1 << 20;
/** How far before its start a range reads to learn the parser state there. */
const WARM_UP_BYTES = 256 * 1024;

/**
 * A worker thread runs many tasks of a run: none sees or keeps another's rule state, so what rules
 * remembered on the run's cached bodies is forgotten when a task starts and ends.
 */
export async function runTask(task: WorkerTask, modules: EngineModules, parserOptions: ParserOptions, post: (m: WorkerMessage) => void): Promise<TaskResult> {
  parserOptions.context?.betweenTasks();
  try {
    return await readTask(task, modules, parserOptions, post);
  } finally {
    parserOptions.context?.betweenTasks();
  }
}

async function readTask(task: WorkerTask, modules: EngineModules, parserOptions: ParserOptions, post: (m: WorkerMessage) => void): Promise<TaskResult> {
  const engine = RuleEngine.of(modules);
  const callbacks: EntryCallbacks = {
    record: (r) => engine.emit(r),
    bytes: (bytes, lines) => post({ type: 'progress', bytes, lines }),
  };
  if (task.type === 'sources') {
    const inputs: InputStats[] = [];
    const errors: InputError[] = [];
    const announce = { start() {}, stop() {}, bytes() {}, file: (path: string) => post({ type: 'file', path }) };
    await readSources(task.sources, callbacks, { ...parserOptions, progress: announce }, inputs, errors, task.until);
    return { states: engine.snapshot(), failures: engine.failedRules(), inputs, errors: errors.map(serializeError) };
  }
  if (task.start === 0) post({ type: 'file', path: task.path });
  let linesBefore = task.linesBefore;
  let anchorCandidate: number | null = null;
  if (linesBefore === undefined) {
    // The count reads every byte before the range anyway: it also notes where the wall-time anchor may be.
    const counted = await countLinesNotingAnchor(task.path, 0, task.start, Math.max(0, task.start - WARM_UP_BYTES));
    linesBefore = counted.lines;
    anchorCandidate = counted.anchorCandidate;
  }
  const assumedState = task.parserState ?? (task.start > 0 ? await stateBefore(task.path, task.start, task.kind, parserOptions, anchorCandidate) : undefined);
  const entry = { path: task.path, stream: fileRange(task.path, task.start, task.end), size: task.end - task.start };
  const slice = assumedState ? { linesBefore, kind: task.kind, parserState: assumedState } : { linesBefore, kind: task.kind };
  const result = await readEntry(entry, callbacks, parserOptions, task.kind, slice);
  const out: TaskResult = {
    states: engine.snapshot(),
    failures: engine.failedRules(),
    inputs: [result.stats],
    errors: result.error ? [serializeError(result.error)] : [],
    linesBefore,
  };
  if (assumedState) out.assumedState = assumedState;
  if (result.endState) out.endState = result.endState;
  return out;
}

/**
 * Newlines in [start, end) of a file. Synchronous reads: this is all the thread does until it
 * knows the count, and a thread-pool round trip per megabyte made it twice as slow. It still
 * yields to the event loop now and then, so messages from workers are not held up.
 */
export async function countLines(file: string, start: number, end: number): Promise<number> {
  return (await countLinesNotingAnchor(file, start, end, -1)).lines;
}

/**
 * countLines, plus the start of the last line at or before `anchorBefore` whose first byte may
 * begin a collector prefix (a digit of a timestamp, or the `{` of Docker JSON): the only place the
 * wall-time anchor before a range can be, if that line is one (stateBefore checks). `start` counts
 * as a line start only when it is 0.
 */
export async function countLinesNotingAnchor(
  file: string,
  start: number,
  end: number,
  anchorBefore: number,
  chunkBytes = 4 * MiB,
): Promise<{ lines: number; anchorCandidate: number | null }> {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(chunkBytes);
    let lines = 0;
    let anchorCandidate: number | null = null;
    // A line starting at the chunk's first byte: after a newline that ended the previous chunk.
    let lineStartsChunk = start === 0;
    for (let at = start, turn = 0; at < end; turn++) {
      const bytesRead = readSync(fd, buf, 0, Math.min(buf.length, end - at), at);
      if (bytesRead === 0) break;
      const chunk = bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
      const noteUpTo = anchorBefore - at;
      if (lineStartsChunk && noteUpTo >= 0 && mayStartCollectorLine(chunk[0]!)) anchorCandidate = at;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) {
        lines++;
        if (i < noteUpTo && i + 1 < chunk.length && mayStartCollectorLine(chunk[i + 1]!)) anchorCandidate = at + i + 1;
      }
      lineStartsChunk = chunk[chunk.length - 1] === 10;
      at += bytesRead;
      if (turn % 4 === 3) await new Promise((resolve) => setImmediate(resolve));
    }
    return { lines, anchorCandidate };
  } finally {
    closeSync(fd);
  }
}

const mayStartCollectorLine = (b: number) => (b >= 48 && b <= 57) || b === 123;

/**
 * The parser state just before `start`, as well as nearby lines tell: the lines of a short window
 * before it give the last uptime (and usually the wall-time anchor); when they hold no anchor,
 * the nearest earlier line with a collector time is read first. The restart count is taken as 0
 * and records are taken to precede the range. parallel.ts checks all of it against the previous
 * range's real end state, so a wrong guess costs a re-read, never a wrong result.
 */
async function stateBefore(
  file: string,
  start: number,
  kind: InputKind,
  options: ParserOptions,
  anchorCandidate: number | null,
): Promise<ParserState | undefined> {
  const handle = await open(file, 'r');
  try {
    let windowStart = Math.max(0, start - WARM_UP_BYTES);
    const window = await readAt(handle, windowStart, start);
    // The window's first line is probably cut: start after it, unless the window starts the file.
    const skip = windowStart === 0 ? 0 : window.indexOf(10) + 1;
    windowStart += skip;
    const lines = skip === 0 && windowStart !== 0 ? Buffer.alloc(0) : window.subarray(skip);
    let state = warmUp(kind, options, null, lines);
    if (state && state.bootTime === null && windowStart > 0) {
      const noted = anchorCandidate !== null && anchorCandidate < windowStart ? await collectorLineAt(handle, anchorCandidate, windowStart) : null;
      const anchor = noted ?? (await lastCollectorLine(handle, windowStart));
      if (anchor) state = warmUp(kind, options, anchor, lines);
    }
    return state;
  } finally {
    await handle.close();
  }
}

function warmUp(kind: InputKind, options: ParserOptions, anchor: Buffer | null, lines: Buffer): ParserState | undefined {
  const factory = PARSERS[kind];
  if (!factory) return undefined;
  const info: InputStats = { path: '', kind, bytes: 0, records: 0, unparsed: 0, lines: 0 };
  const parser = factory(info, { emit() {}, unparsed() {} }, options);
  if (!parser.saveState || !parser.restoreState) return undefined;
  parser.restoreState({ ...parser.saveState(), recordsSinceRestart: true });
  let n = 0;
  const splitter = new LineSplitter(MAX_LINE_BYTES, { line: (text) => parser.line(text, ++n), overlong: () => n++ });
  if (anchor) splitter.write(Buffer.concat([anchor, Buffer.from('\n')]));
  splitter.write(lines);
  splitter.end();
  return { ...parser.saveState(), restart: 0 };
}

async function readAt(handle: FileHandle, start: number, end: number): Promise<Buffer> {
  const buf = Buffer.alloc(end - start);
  const { bytesRead } = await handle.read(buf, 0, buf.length, start);
  return buf.subarray(0, bytesRead);
}

/** The last line starting before `before` with a collector timestamp or Docker JSON, searched backwards block by block in one buffer. */
async function lastCollectorLine(handle: FileHandle, before: number): Promise<Buffer | null> {
  // Blocks overlap so that the start of a line is always seen whole enough to be recognised.
  const overlap = 32;
  const buf = Buffer.allocUnsafe(MiB + overlap);
  for (let end = before; end > 0;) {
    const start = Math.max(0, end - MiB);
    const { bytesRead } = await handle.read(buf, 0, Math.min(before, end + overlap) - start, start);
    const block = buf.subarray(0, bytesRead);
    for (let nl = block.lastIndexOf(10, end - start - 1); ; nl = nl > 0 ? block.lastIndexOf(10, nl - 1) : -1) {
      if (nl === -1 && start > 0) break;
      const lineStart = nl + 1;
      if (start + lineStart < before && startsCollectorLine(block, lineStart)) {
        const line = await readAt(handle, start + lineStart, Math.min(before, start + lineStart + MiB));
        const lineEnd = line.indexOf(10);
        return lineEnd === -1 ? line : line.subarray(0, lineEnd);
      }
      if (nl === -1) break;
    }
    end = start;
  }
  return null;
}

/** The line starting at `at` (cut at `before`), if it starts with a collector timestamp or Docker JSON. */
async function collectorLineAt(handle: FileHandle, at: number, before: number): Promise<Buffer | null> {
  const line = await readAt(handle, at, Math.min(before, at + MiB));
  if (!startsCollectorLine(line, 0)) return null;
  const lineEnd = line.indexOf(10);
  return lineEnd === -1 ? line : line.subarray(0, lineEnd);
}

const isDigit = (b: number | undefined) => b !== undefined && b >= 48 && b <= 57;
const DOCKER_JSON = Buffer.from('{"log":');
/** Offsets of the digits in `2026-11-27T03:12:45`. */
const TIMESTAMP_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];

/** `2026-11-27T03:12:45` (kubectl/CRI) or `{"log":` (Docker json-file) at `at`. */
function startsCollectorLine(b: Buffer, at: number): boolean {
  if (b[at] === 123) return b.subarray(at, at + DOCKER_JSON.length).equals(DOCKER_JSON);
  return (
    TIMESTAMP_DIGITS.every((d) => isDigit(b[at + d])) && b[at + 4] === 45 && b[at + 7] === 45 && b[at + 10] === 84 && b[at + 13] === 58 && b[at + 16] === 58
  );
}
