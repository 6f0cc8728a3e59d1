// A collector reads records in the same pass as the rules but makes no findings: it learns facts
// later stages need (which proxy version each pod runs). The caller hands collectors to the engine
// beside the rules; the engine dispatches records to them, merges their states across parallel
// workers like rule states, and returns each one's result by its id. The engine knows no
// collector by name.

import type { InputKind, Visitors } from '../core/types.js';

export interface Collector<S = unknown, R = unknown> {
  /** Unique among the rules and collectors of a run; workers rebuild the collector by it (WorkerCatalog). */
  id: string;
  /** Input kinds it reads. */
  inputs: readonly InputKind[];
  /** As RuleMeta.lineInterest: the substrings that a line it reads always holds. */
  lineInterest?: Partial<Record<InputKind, readonly string[]>>;
  createState(): S;
  visitors: Visitors<S>;
  /** Applied in input order; the state must be structured-clonable, as a rule's. */
  merge(into: S, from: S): void;
  /** What the collector learned, from its state once every record was seen. */
  result(state: S): R;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCollector = Collector<any, any>;

export function defineCollector<S, R>(collector: Collector<S, R>): Collector<S, R> {
  return collector;
}

/**
 * How a worker thread rebuilds the rules and collectors of a run: `url` is a module whose
 * `resolveModule(id)` export returns the same object `resolve(id)` returns on this thread. The
 * caller (which knows the registry) provides it, so the engine imports no rule.
 */
export interface WorkerCatalog {
  url: string;
  resolve(id: string): unknown;
}

/** The shape of the module behind WorkerCatalog.url. */
export interface WorkerCatalogModule {
  resolveModule(id: string): unknown;
}
