// What the main thread and the worker threads of a parallel analysis send each other: the rules
// and collectors by id (workers rebuild them through the caller's catalog module), the tasks,
// their results and progress. Plain data only, since every message is structured-cloned between threads.

import { InputError } from '../core/errors.js';
import type { AnyRule, InputKind, InputStats } from '../core/types.js';
import type { InputSource } from '../input/discover.js';
import type { ParserOptions, ParserState } from '../parsers/parser.js';
import type { AnyCollector } from './collector.js';
import type { ConfiguredRule, EngineModules } from './engine.js';

/** A rule as a worker can rebuild it: by id, through the catalog. */
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
  /** Collector ids, rebuilt through the catalog. */
  collectors: string[];
  /** URL of the module whose resolveModule(id) rebuilds rules and collectors (WorkerCatalog.url). */
  catalog: string;
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

/** Rebuilds the rules and collectors of a run from their ids with a catalog's resolve. */
export function modulesFromSpecs(rules: readonly RuleSpec[], collectors: readonly string[], resolve: (id: string) => unknown): EngineModules {
  return {
    rules: rules.map((s) => {
      const rule = resolve(s.id) as AnyRule | undefined;
      if (!rule?.meta) throw new Error(`unknown rule ${s.id}`);
      return s.severity ? { rule, options: s.options, severity: s.severity } : { rule, options: s.options };
    }),
    collectors: collectors.map((id) => {
      const collector = resolve(id) as AnyCollector | undefined;
      if (!collector?.result) throw new Error(`unknown collector ${id}`);
      return collector;
    }),
  };
}
