// The one way text reaches stderr. Messages name files, tar members and pods taken from the
// inputs; written raw, an escape sequence in a name would drive the terminal and a newline in a
// member name would forge further "linkerd-doctor: …" lines. installStderrGuard() routes every
// write to process.stderr (ours, oclif's, worker threads') through terminalSafe; only the
// progress bar, which draws with escape sequences on purpose, writes around it.

import { terminalSafe } from '../util/terminal-safe.js';

export const MESSAGE_PREFIX = 'linkerd-doctor: ';

/** Writes `linkerd-doctor: text` as exactly one line. */
export function stderrLine(text: string): void {
  process.stderr.write(`${MESSAGE_PREFIX}${terminalSafe(text, true)}\n`);
}

type Write = typeof process.stderr.write;
let rawWrite: Write | null = null;

/**
 * A chunk is made safe as a whole: controls become visible; a chunk that is one of our messages
 * keeps only its final newline, so a name cannot start a line of its own. Multi-line text from
 * others (oclif's usage errors) keeps its newlines.
 */
export function safeStderrChunk(chunk: string): string {
  if (!chunk.startsWith(MESSAGE_PREFIX)) return terminalSafe(chunk);
  let end = chunk.length;
  while (end > 0 && chunk.charCodeAt(end - 1) === 10) end--;
  const body = chunk.slice(0, end);
  return terminalSafe(body, true) + chunk.slice(body.length);
}

export function installStderrGuard(stream: NodeJS.WriteStream = process.stderr): void {
  if (rawWrite) return;
  const original = stream.write;
  rawWrite = original;
  stream.write = function guardedWrite(this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
    const text = typeof chunk === 'string' ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk).toString('utf8') : null;
    const safe = text === null ? chunk : safeStderrChunk(text);
    return (original as (...args: unknown[]) => boolean).call(this, safe, ...(typeof chunk === 'string' ? rest : rest.filter((r) => typeof r !== 'string')));
  } as Write;
}

/**
 * stderr as the progress bar needs it: writes (and the cursor movements built on them) go out
 * unfiltered. Whatever the bar shows from the inputs (the file name) it makes safe itself.
 */
export function unguardedStderr(stream: NodeJS.WriteStream = process.stderr): NodeJS.WriteStream {
  if (!rawWrite || stream !== process.stderr) return stream;
  const write = rawWrite;
  return Object.create(stream, { write: { value: (...args: unknown[]) => (write as (...a: unknown[]) => boolean).apply(stream, args) } }) as NodeJS.WriteStream;
}
