// What the main thread and the worker threads of a parallel analysis send each other: the rules
// by registry id (workers rebuild them), the tasks, their results and progress. Plain data only,
// since every message is structured-cloned between threads.

import { InputError } from '../core/errors.js';
import type { AnyRule, InputKind, InputStats } from '../core/types.js';
import type { InputSource } from '../input/discover.js';
import { versionCollector } from '../incident/versions.js';
import type { ParserOptions, ParserState } from '../parsers/parser.js';
import { findRule } from '../rules/index.js';
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
  /** Files read in order into one rule state; with `until`, only the first members of a tar bundle (readSource). */
  | { type: 'sources'; sources: InputSource[]; until?: number }
  | {
      type: 'range';
      path: string;
      start: number;
      end: number;
      kind: InputKind;
      linesBefore?: number;
      parserState?: ParserState;
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
  /** Set by the pool on results computed on this thread: their states are live objects, not copies. */
  builtHere?: boolean;
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

/**
 * Rule modules the engine runs besides the RULES registry (collectors riding along as rules):
 * list them here so workers can rebuild them too; a configured rule found in neither keeps the
 * whole analysis on the main thread.
 */
const BUILT_IN_MODULES: readonly AnyRule[] = [versionCollector];

export function resolveRule(id: string): AnyRule | undefined {
  return findRule(id) ?? BUILT_IN_MODULES.find((r) => r.meta.id === id);
}

export function configuredRules(specs: readonly RuleSpec[]): ConfiguredRule[] {
  return specs.map((s) => {
    const rule = resolveRule(s.id);
    if (!rule) throw new Error(`unknown rule ${s.id}`);
    return s.severity ? { rule, options: s.options, severity: s.severity } : { rule, options: s.options };
  });
}
