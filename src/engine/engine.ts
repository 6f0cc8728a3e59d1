// Dispatches each record to the rules that declared a visitor for its kind, and turns rule state
// into findings at the end. Rules are isolated: one that throws is reported, the others go on.

import { docsUrlFor } from '../core/docs.js';
import { INPUT_KINDS, type AnyRule, type Finding, type InputKind, type InputStats, type LdRecord, type RecordKind, type Severity } from '../core/types.js';
import { ALL_RULES, InterestMask } from './interest-mask.js';

export interface ConfiguredRule {
  rule: AnyRule;
  options: object;
  severity?: Severity;
}

export interface SkippedRule {
  ruleId: string;
  reason: string;
}

export interface RuleFailure {
  ruleId: string;
  message: string;
}

export interface EngineResult {
  findings: Finding[];
  skippedRules: SkippedRule[];
  ruleFailures: RuleFailure[];
}

type Visit = (state: unknown, record: LdRecord) => void;

export class RuleEngine {
  private states: unknown[];
  /** Per record kind, the rules' visitors; `bit` is the rule's bit in a proxy-log record's interest mask (0: every record). */
  private readonly dispatch = new Map<RecordKind, { index: number; visit: Visit; bit: number }[]>();
  private readonly failures = new Map<string, string>();
  private readonly proxyLogInterest: InterestMask;

  constructor(private readonly rules: readonly ConfiguredRule[]) {
    this.states = rules.map((r) => r.rule.createState(r.options));
    rules.forEach((configured, index) => {
      for (const [kind, visit] of Object.entries(configured.rule.visitors) as [RecordKind, Visit][]) {
        const list = this.dispatch.get(kind) ?? [];
        list.push({ index, visit, bit: 0 });
        this.dispatch.set(kind, list);
      }
    });
    const proxyLogReaders = this.dispatch.get('proxy-log') ?? [];
    this.proxyLogInterest = new InterestMask(proxyLogReaders.map((t) => rules[t.index]!.rule.meta.lineInterest?.['proxy-log'] ?? null));
    proxyLogReaders.forEach((t, i) => (t.bit = this.proxyLogInterest.bits[i]!));
  }

  /**
   * For each input kind, the substrings one of which a line must contain for any rule to read its
   * record; a kind is left out when a rule reading it declares no `lineInterest` (it sees everything).
   */
  lineInterest(): Partial<Record<InputKind, readonly string[]>> {
    const interest: Partial<Record<InputKind, readonly string[]>> = {};
    for (const kind of INPUT_KINDS) {
      const readers = this.rules.filter((r) => (r.rule.meta.inputs as InputKind[]).includes(kind));
      if (readers.some((r) => !r.rule.meta.lineInterest?.[kind])) continue;
      interest[kind] = [...new Set(readers.flatMap((r) => r.rule.meta.lineInterest![kind]!))];
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

  /** The rules' state, to be merged into another engine (parallel workers). */
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
    this.rules.forEach((r, i) => {
      try {
        r.rule.merge(this.states[i], states[i]);
      } catch (err) {
        this.fail(i, err);
      }
    });
  }

  finish(inputs: readonly InputStats[]): EngineResult {
    const presentKinds = new Set<InputKind>(inputs.map((i) => i.kind));
    const findings: Finding[] = [];
    const skippedRules: SkippedRule[] = [];
    this.rules.forEach((configured, index) => {
      const { rule } = configured;
      const id = rule.meta.id;
      if (this.failures.has(id)) return;
      const needed = rule.meta.inputs as InputKind[];
      if (!needed.some((k) => presentKinds.has(k))) {
        skippedRules.push({ ruleId: id, reason: `no ${needed.join(' or ')} input` });
        return;
      }
      try {
        for (const draft of rule.finish(this.states[index], { options: configured.options, inputs })) {
          findings.push({
            ruleId: id,
            ...draft,
            severity: configured.severity ?? draft.severity ?? rule.meta.defaultSeverity,
            docsUrl: docsUrlFor(id),
          });
        }
      } catch (err) {
        this.fail(index, err);
      }
    });
    const ruleFailures = [...this.failures].map(([ruleId, message]) => ({ ruleId, message }));
    return { findings: foldCoveredFindings(findings), skippedRules, ruleFailures };
  }

  private fail(index: number, err: unknown): void {
    const id = this.rules[index]!.rule.meta.id;
    if (!this.failures.has(id)) this.failures.set(id, err instanceof Error ? err.message : String(err));
  }
}

/**
 * Drops each finding whose `foldsInto` names a rule that also reported in this run, and lists it
 * under `alsoMatched` in that rule's findings: a signature line and the threshold rule that judged
 * its sustained form are one cause.
 */
export function foldCoveredFindings(findings: Finding[]): Finding[] {
  const reporting = new Set(findings.map((f) => f.ruleId));
  const kept: Finding[] = [];
  const folded = new Map<string, { ruleId: string; title: string }[]>();
  for (const finding of findings) {
    const { foldsInto, ...rest } = finding;
    const into = foldsInto?.filter((id) => id !== finding.ruleId && reporting.has(id)) ?? [];
    if (into.length === 0) {
      kept.push(foldsInto ? rest : finding);
      continue;
    }
    for (const id of into) {
      const list = folded.get(id) ?? [];
      list.push({ ruleId: finding.ruleId, title: finding.title });
      folded.set(id, list);
    }
  }
  if (folded.size === 0) return kept;
  return kept.map((f) => {
    const also = folded.get(f.ruleId);
    return also ? { ...f, evidence: { ...f.evidence, alsoMatched: also } } : f;
  });
}
