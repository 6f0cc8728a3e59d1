// Dispatches each record to the rules and collectors that declared a visitor for its kind, and
// turns rule state into findings at the end, each stamped with its rule's id, code and docs page.
// Rules are isolated: one that throws is reported, the others go on. The engine runs what it is
// given: it imports no rule, collector or later stage, and folds nothing (report/fold.ts does).

import { docsUrlFor } from '../core/docs.js';
import {
  INPUT_KINDS,
  type AnyRule,
  type Finding,
  type InputKind,
  type InputStats,
  type LdRecord,
  type RecordKind,
  type RuleFailure,
  type Severity,
  type SkippedRule,
} from '../core/types.js';
import type { AnyCollector, Collector } from './collector.js';
import { ALL_RULES, InterestMask } from './interest-mask.js';

export interface ConfiguredRule {
  rule: AnyRule;
  options: object;
  severity?: Severity;
}

export interface EngineResult {
  findings: Finding[];
  skippedRules: SkippedRule[];
  ruleFailures: RuleFailure[];
}

/** What an engine runs: the configured rules, then the collectors. */
export interface EngineModules {
  rules: readonly ConfiguredRule[];
  collectors: readonly AnyCollector[];
}

type Visit = (state: unknown, record: LdRecord) => void;

/** What the engine runs, rule or collector alike: states, dispatch and merge do not tell them apart. */
interface Reducer {
  id: string;
  inputs: readonly InputKind[];
  lineInterest: Partial<Record<InputKind, readonly string[]>> | undefined;
  visitors: Partial<Record<RecordKind, Visit>>;
  createState(): unknown;
  merge(into: unknown, from: unknown): void;
}

const reducerOfRule = ({ rule, options }: ConfiguredRule): Reducer => ({
  id: rule.meta.id,
  inputs: rule.meta.inputs,
  lineInterest: rule.meta.lineInterest,
  visitors: rule.visitors as Reducer['visitors'],
  createState: () => rule.createState(options),
  merge: (into, from) => rule.merge(into, from),
});

const reducerOfCollector = (c: AnyCollector): Reducer => ({
  id: c.id,
  inputs: c.inputs,
  lineInterest: c.lineInterest,
  visitors: c.visitors as Reducer['visitors'],
  createState: () => c.createState(),
  merge: (into, from) => c.merge(into, from),
});

export class RuleEngine {
  /** The rules' reducers, then the collectors'; `states` is in the same order. */
  private readonly reducers: Reducer[];
  private states: unknown[];
  /** Per record kind, the reducers' visitors; `bit` is the reducer's bit in a proxy-log record's interest mask (0: every record). */
  private readonly dispatch = new Map<RecordKind, { index: number; visit: Visit; bit: number }[]>();
  private readonly failures = new Map<string, string>();
  private readonly proxyLogInterest: InterestMask;

  constructor(
    private readonly rules: readonly ConfiguredRule[],
    private readonly collectors: readonly AnyCollector[] = [],
  ) {
    this.reducers = [...rules.map(reducerOfRule), ...collectors.map(reducerOfCollector)];
    const ids = new Set<string>();
    for (const r of this.reducers) {
      if (ids.has(r.id)) throw new Error(`two rules or collectors share the id ${r.id}`);
      ids.add(r.id);
    }
    this.states = this.reducers.map((r) => r.createState());
    this.reducers.forEach((reducer, index) => {
      for (const [kind, visit] of Object.entries(reducer.visitors) as [RecordKind, Visit][]) {
        const list = this.dispatch.get(kind) ?? [];
        list.push({ index, visit, bit: 0 });
        this.dispatch.set(kind, list);
      }
    });
    const proxyLogReaders = this.dispatch.get('proxy-log') ?? [];
    this.proxyLogInterest = new InterestMask(proxyLogReaders.map((t) => this.reducers[t.index]!.lineInterest?.['proxy-log'] ?? null));
    proxyLogReaders.forEach((t, i) => (t.bit = this.proxyLogInterest.bits[i]!));
  }

  static of(modules: EngineModules): RuleEngine {
    return new RuleEngine(modules.rules, modules.collectors);
  }

  /** The rules and collectors this engine runs, to build another engine of the same ones. */
  modules(): EngineModules {
    return { rules: this.rules, collectors: this.collectors };
  }

  /**
   * For each input kind, the substrings one of which a line must contain for any rule to read its
   * record; a kind is left out when a rule reading it declares no `lineInterest` (it sees everything).
   */
  lineInterest(): Partial<Record<InputKind, readonly string[]>> {
    const interest: Partial<Record<InputKind, readonly string[]>> = {};
    for (const kind of INPUT_KINDS) {
      const readers = this.reducers.filter((r) => r.inputs.includes(kind));
      if (readers.some((r) => !r.lineInterest?.[kind])) continue;
      interest[kind] = [...new Set(readers.flatMap((r) => r.lineInterest![kind]!))];
    }
    return interest;
  }

  /** Rules that threw, with their first error, to be carried over into another engine. */
  failedRules(): [string, string][] {
    return [...this.failures];
  }

  /** Records failures of another engine (parallel workers); the first message per rule is kept. */
  absorbFailures(failures: readonly [string, string][]): void {
    for (const [id, message] of failures) if (!this.failures.has(id)) this.failures.set(id, message);
  }

  emit(record: LdRecord): void {
    const targets = this.dispatch.get(record.kind);
    if (!targets) return;
    const mask = record.kind === 'proxy-log' ? this.proxyLogInterest.maskOf(record) : ALL_RULES;
    for (let i = 0; i < targets.length; i++) {
      const t = targets[i]!;
      // A rule reads only lines holding one of its lineInterest substrings: the others are not its.
      if ((t.bit & mask) === 0 && t.bit !== 0) continue;
      try {
        t.visit(this.states[t.index], record);
      } catch (err) {
        this.fail(t.index, err);
      }
    }
  }

  /** The rules' and collectors' state, to be merged into another engine of the same ones (parallel workers). */
  snapshot(): unknown[] {
    return this.states;
  }

  /**
   * Takes over the states of another engine of the same rules, built on this thread, while this
   * one holds nothing yet: they are what merging them into empty states would give, without the
   * copy (which for a storm's first half is a second rule state of 50-100 MB at once).
   */
  adopt(states: unknown[]): void {
    this.states = states;
  }

  /** Merges another engine's state into this one; call in input order. */
  absorb(states: readonly unknown[]): void {
    this.reducers.forEach((r, i) => {
      try {
        r.merge(this.states[i], states[i]);
      } catch (err) {
        this.fail(i, err);
      }
    });
  }

  finish(inputs: readonly InputStats[]): EngineResult {
    const presentKinds = new Set<InputKind>(inputs.map((i) => i.kind));
    // Records from an input of no known kind come from the last look (parsers/last-look.ts): they
    // are Kubernetes evidence, for the rules that read kubectl output.
    if (inputs.some((i) => i.kind === 'unknown' && i.records > 0)) presentKinds.add('kubectl');
    const findings: Finding[] = [];
    const skippedRules: SkippedRule[] = [];
    this.rules.forEach((configured, index) => {
      const { rule } = configured;
      const id = rule.meta.id;
      if (this.failures.has(id)) return;
      const needed = rule.meta.inputs as InputKind[];
      // A rule whose inputs are absent still finishes when evidence reached it (the last look's, from an input of no kind).
      if (!needed.some((k) => presentKinds.has(k)) && rule.heard?.(this.states[index]) !== true) {
        skippedRules.push({ ruleId: id, reason: `no ${needed.join(' or ')} input` });
        return;
      }
      try {
        for (const draft of rule.finish(this.states[index], { options: configured.options, inputs })) {
          // A key figure is a finite number wherever it goes (report, baseline, SARIF): a sum that
          // overflowed (metric values near 1.8e308 added up) would be written as null and break them.
          if (draft.keyFigure && !Number.isFinite(draft.keyFigure.value)) draft.keyFigure = { ...draft.keyFigure, value: finiteNumber(draft.keyFigure.value) };
          findings.push({
            ruleId: id,
            ...draft,
            severity: configured.severity ?? draft.severity ?? rule.meta.defaultSeverity,
            docsUrl: docsUrlFor(id),
            code: rule.meta.code,
          });
        }
      } catch (err) {
        this.fail(index, err);
      }
    });
    const ruleFailures = [...this.failures].map(([ruleId, message]) => ({ ruleId, message }));
    return { findings, skippedRules, ruleFailures };
  }

  /** What a collector given to this engine learned, looked up by its id (a collector that threw is in the failures, with what it learned before). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  collected<R>(collector: Collector<any, R>): R {
    const at = this.collectors.findIndex((c) => c.id === collector.id);
    if (at === -1) throw new Error(`collector ${collector.id} was not given to this engine`);
    return this.collectors[at]!.result(this.states[this.rules.length + at]) as R;
  }

  private fail(index: number, err: unknown): void {
    const id = this.reducers[index]!.id;
    if (!this.failures.has(id)) this.failures.set(id, err instanceof Error ? err.message : String(err));
  }
}

/** The nearest finite number: ±Number.MAX_VALUE for ±Infinity, 0 for NaN. */
export function finiteNumber(n: number): number {
  if (Number.isFinite(n)) return n;
  return Number.isNaN(n) ? 0 : n > 0 ? Number.MAX_VALUE : -Number.MAX_VALUE;
}
