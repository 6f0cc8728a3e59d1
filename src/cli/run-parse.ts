import { InputError, UsageError } from '../core/errors.js';
import type { LdRecord } from '../core/types.js';
import { readInputs } from '../engine/analyze.js';
import { decompressionLimits } from '../input/open.js';
import { EXIT_CLEAN, EXIT_USAGE_OR_INPUT } from '../report/exit-code.js';
import { wellFormedJson } from '../util/json-safe.js';
import { resolvePathArgs } from './paths.js';

export interface ParseFlags {
  strict: boolean;
  kind?: string[];
}

/** Buffered NDJSON writer that respects back-pressure and stops quietly when stdout closes. */
class NdjsonWriter {
  private buffer: string[] = [];
  private size = 0;
  closed = false;

  constructor() {
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') this.closed = true;
    });
  }

  write(record: LdRecord): void {
    if (this.closed) return;
    const line = wellFormedJson(JSON.stringify(record)) + '\n';
    this.buffer.push(line);
    this.size += line.length;
    if (this.size >= 1 << 16) this.flush();
  }

  flush(): boolean {
    if (this.buffer.length === 0 || this.closed) return true;
    const chunk = this.buffer.join('');
    this.buffer = [];
    this.size = 0;
    return process.stdout.write(chunk);
  }

  end(): Promise<void> {
    this.flush();
    return new Promise((resolve) => (this.closed ? resolve() : process.stdout.write('', () => resolve())));
  }
}

const SHOWN_ERRORS = 20;

export async function runParse(argv: string[], flags: ParseFlags): Promise<number> {
  try {
    const paths = resolvePathArgs(argv, process.stdin.isTTY);
    decompressionLimits();
    const kinds = flags.kind ? new Set(flags.kind) : null;
    const out = new NdjsonWriter();
    // Keep only the first rejected lines; a strict read of a big legacy dump rejects millions.
    const strictErrors: InputError[] = [];
    let moreStrictErrors = 0;
    const result = await readInputs(
      paths,
      (record) => {
        if (!kinds || kinds.has(record.kind)) out.write(record);
      },
      {
        strict: flags.strict,
        onUnparsed: flags.strict
          ? (stats, line, reason) => {
              if (strictErrors.length < SHOWN_ERRORS) strictErrors.push(new InputError(stats.path, reason, line));
              else moreStrictErrors++;
            }
          : undefined,
      },
    );
    await out.end();
    for (const n of result.notices) process.stderr.write(`linkerd-doctor: notice: ${n.toLine()}\n`);
    const errors = [...result.errors, ...strictErrors];
    const hidden = Math.max(0, errors.length - SHOWN_ERRORS) + moreStrictErrors;
    for (const e of errors.slice(0, SHOWN_ERRORS)) process.stderr.write(`linkerd-doctor: ${e.toLine()}\n`);
    if (hidden > 0) process.stderr.write(`linkerd-doctor: … and ${hidden} more errors\n`);
    return errors.length > 0 ? EXIT_USAGE_OR_INPUT : EXIT_CLEAN;
  } catch (err) {
    if (err instanceof UsageError) process.stderr.write(`linkerd-doctor: ${err.message}\n`);
    else if (err instanceof InputError) process.stderr.write(`linkerd-doctor: ${err.toLine()}\n`);
    else process.stderr.write(`linkerd-doctor: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT_USAGE_OR_INPUT;
  }
}
