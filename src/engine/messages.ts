// What the main thread and the worker threads of a parallel analysis send each other: the rules
// and collectors by id (workers rebuild them through the caller's catalog module), the tasks,
// their results and progress. Plain data only, since every message is structured-cloned between threads.

import { DefaultDeserializer, serialize } from 'node:v8';
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
  /** Live objects when built on this thread; packed (packStates) when they come from a worker. */
  states: unknown[] | PackedStates;
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

/**
 * A worker's rule states as bytes, handed over (transferred) with its result and unpacked only when
 * they are merged. Posted as objects, they were cloned into this thread's heap on arrival while
 * the worker's heap still held the originals: on a 400-pod bundle the states are ~40 MB, and both
 * copies plus the worker's uncollected garbage were the run's peak. Packed, the worker is stopped
 * and its heap freed before anything is unpacked.
 */
export interface PackedStates {
  packed: Uint8Array;
}

export function packStates(states: unknown[]): PackedStates {
  return { packed: serialize(states) };
}

/** What a worker posts its packed states with, so the bytes move instead of being copied. */
export function transferOf(states: PackedStates): ArrayBuffer[] {
  const { packed } = states;
  // Only a buffer the bytes fill alone can move; anything else is copied with the message.
  return packed.byteOffset === 0 && packed.buffer instanceof ArrayBuffer && packed.byteLength === packed.buffer.byteLength ? [packed.buffer] : [];
}

export function unpackStates(states: unknown[] | PackedStates): unknown[] {
  if (Array.isArray(states)) return states;
  const reader = new OwningDeserializer(states.packed);
  reader.readHeader();
  return reader.readValue() as unknown[];
}

/**
 * Node's deserializer returns typed arrays as views into the bytes it reads, so one PodBits or
 * sketch kept by the merged state would keep the whole message alive. Each is copied out.
 */
class OwningDeserializer extends DefaultDeserializer {
  _readHostObject(): unknown {
    const view = (DefaultDeserializer.prototype as unknown as { _readHostObject(this: DefaultDeserializer): ArrayBufferView })._readHostObject.call(this);
    const bytes = new Uint8Array(view.byteLength);
    bytes.set(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
    const View = view.constructor as new (buffer: ArrayBuffer, offset: number, length: number) => ArrayBufferView;
    const perElement = (view as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1;
    return new View(bytes.buffer, 0, view.byteLength / perElement);
  }
}

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
