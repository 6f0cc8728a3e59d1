// What the main thread and the worker threads of a parallel analysis (parallel.ts, tasks.ts,
// analyze-worker.ts) send each other. Kept apart from both sides so that neither imports the other.

import { InputError } from '../core/errors.js';
import type { InputKind, InputStats } from '../core/types.js';
import type { InputSource } from '../input/discover.js';
import type { ParserOptions, ParserState } from '../parsers/parser.js';
import type { ConfiguredRule } from './engine.js';

/** A rule as a worker can rebuild it: by registry id. */
export interface RuleSpec {
  id: string;
  options: object;
  severity?: ConfiguredRule['severity'];
}

export interface SerializedError {
  path: string;
  message: string;
  line?: number;
}

export type WorkerTask =
  | { type: 'source'; source: InputSource }
  | {
      type: 'range';
      path: string;
      start: number;
      end: number;
      kind: InputKind;
      linesBefore?: number;
      parserState?: ParserState;
      /** SharedRangeEnd memory: the main thread may take the rest of this range while it is read. */
      sharedEnd?: SharedArrayBuffer;
      /** A stolen range: the wall-time anchor its victim had reached, for the assumed start state. */
      bootTimeHint?: number | null;
    };

export interface WorkerSetup {
  rules: RuleSpec[];
  parser: ParserOptions;
  decompressionLedger?: SharedArrayBuffer;
}

export interface TaskResult {
  states: unknown[];
  failures: [string, string][];
  inputs: InputStats[];
  errors: SerializedError[];
  /** Range tasks: lines before the range, the parser state assumed at its start and reached at its end. */
  linesBefore?: number;
  assumedState?: ParserState;
  endState?: ParserState;
}

export type WorkerMessage =
  | { type: 'progress'; bytes: number; lines: number }
  | { type: 'file'; path: string }
  | { type: 'done'; result: TaskResult }
  | { type: 'failed'; message: string };

export function serializeError(e: InputError): SerializedError {
  return e.line ? { path: e.path, message: e.message, line: e.line } : { path: e.path, message: e.message };
}

export function deserializeError(e: SerializedError): InputError {
  return new InputError(e.path, e.message, e.line);
}
