// Memory is capped, for every rule in the registry: each rule's smallest firing case is replayed
// over many distinct pods (the same lines, each copy under another pod and file name), and the
// rule's state must stop growing. A map keyed by pod, proxy or file without a cap grows with every
// copy and fails here, whatever rule it is in, without that rule being added to a list.
//
// At the real caps (thousands to tens of thousands of keys) that proof would need tens of thousands
// of copies per rule. This file shrinks every cap instead: rules take their caps from stateCap()
// (src/core/state-cap.ts), which reads LINKERD_DOCTOR_STATE_CAP_SCALE once at load, and options
// named max* are caps too and are scaled here. The modules are imported after the variable is set,
// so the scale stays inside this test process.

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { AnyRule, LdRecord } from '../../src/core/types.js';
import type { FiringCase } from '../support/rule-cases.js';

const SCALE = 0.002;
process.env.LINKERD_DOCTOR_STATE_CAP_SCALE = String(SCALE);
const { RuleEngine } = await import('../../src/engine/engine.js');
const { readEntry } = await import('../../src/engine/pipeline.js');
const { RULES } = await import('../../src/rules/index.js');
const { loadRuleCases } = await import('../support/rule-case-files.js');

/** Copies of the case: the state is measured after half of them and after all. */
const COPIES = 400;
/**
 * Records of the case replayed per copy: the head of a large case (a metric dump) is enough to
 * give every copy its own pod, and keeps the test in seconds. The rule need not fire on a copy.
 */
const RECORDS_PER_COPY = 300;

async function recordsOf(c: FiringCase): Promise<LdRecord[]> {
  const records: LdRecord[] = [];
  for (const input of c.inputs) {
    const stream = Readable.from([typeof input.content === 'string' ? Buffer.from(input.content) : input.content]);
    const result = await readEntry({ path: input.path, stream, size: null }, { record: (r) => records.push(r) }, {}, input.kind);
    if (result.error) throw result.error;
  }
  return records;
}

/** Entries a state holds: Map and Set sizes and array lengths, through nested objects. */
export function entriesOf(value: unknown, seen = new Set<object>()): number {
  if (value === null || typeof value !== 'object' || seen.has(value)) return 0;
  seen.add(value);
  let n = 0;
  if (value instanceof Map) {
    n += value.size;
    for (const [k, v] of value) n += entriesOf(k, seen) + entriesOf(v, seen);
  } else if (value instanceof Set) {
    n += value.size;
    for (const v of value) n += entriesOf(v, seen);
  } else if (ArrayBuffer.isView(value)) {
    // A fixed-size typed array (a histogram) is not a growing collection.
  } else if (Array.isArray(value)) {
    n += value.length;
    for (const v of value) n += entriesOf(v, seen);
  } else {
    for (const v of Object.values(value)) n += entriesOf(v, seen);
  }
  return n;
}

/** `web-5d8f7c9b4-abcde` → `web-5d8f7c9b4-<copy in base 36>`: another pod of the same workload. */
function podCopy(pod: string, copy: number): string {
  const suffix = copy.toString(36).padStart(5, '0');
  const dash = pod.lastIndexOf('-');
  return dash > 0 ? `${pod.slice(0, dash)}-${suffix}` : `${pod}-${suffix}`;
}

/** The records as JSON, and a function giving copy `n` of them: every pod name and input path renamed. */
function copier(records: readonly LdRecord[]): (copy: number) => LdRecord[] {
  const json = JSON.stringify(records);
  const pods = [...new Set(records.flatMap((r) => (r.pod ? [r.pod] : [])))].sort((a, b) => b.length - a.length);
  const paths = [...new Set(records.map((r) => r.path))].sort((a, b) => b.length - a.length);
  return (copy) => {
    let text = json;
    // Paths first: they usually hold the pod name, and renaming the pod inside them would leave
    // two copies sharing a path when a path holds no pod.
    for (const p of paths) text = text.split(JSON.stringify(p).slice(1, -1)).join(`copy-${copy}/${JSON.stringify(p).slice(1, -1)}`);
    for (const pod of pods) text = text.split(pod).join(podCopy(pod, copy));
    return JSON.parse(text) as LdRecord[];
  };
}

/** The rule's options with every `max*` integer option (a cap) scaled like stateCap() scales constants. */
function scaledOptions(rule: AnyRule, options: object | undefined): object {
  const merged: Record<string, unknown> = { ...rule.meta.defaultOptions, ...options };
  for (const [name, value] of Object.entries(merged)) {
    if (/^max[A-Z]/.test(name) && Number.isInteger(value)) merged[name] = Math.max(4, Math.ceil((value as number) * SCALE));
  }
  return merged;
}

/** Replays `records` COPIES times under new pod names; returns the state's entries at half and at all copies. */
function entriesOverCopies(rule: AnyRule, options: object, records: readonly LdRecord[]): [number, number] {
  const copyOf = copier(records);
  const engine = new RuleEngine([{ rule, options }]);
  const sizes: number[] = [];
  for (let copy = 0; copy < COPIES; copy++) {
    for (const r of copyOf(copy)) engine.emit(r);
    if (copy + 1 === COPIES / 2 || copy + 1 === COPIES) sizes.push(entriesOf(engine.snapshot()[0]));
  }
  return sizes as [number, number];
}

/** Bounded: after half the copies, the other half may add only a little (a few counters' worth, not one entry per copy). */
function assertBounded(id: string, [half, full]: [number, number]): void {
  assert.ok(
    full <= half * 1.05 + 8,
    `${id}: state grew from ${half} to ${full} entries between ${COPIES / 2} and ${COPIES} distinct pods: a map or list without a stateCap()?`,
  );
}

const cases = await Promise.all(RULES.map(async (rule) => ({ rule, cases: await loadRuleCases(rule.meta.id) })));

describe('state bounds: a rule replayed over many distinct pods keeps a bounded state', () => {
  for (const { rule, cases: ruleCases } of cases) {
    it(`${rule.meta.id}: its smallest firing case, ${COPIES.toLocaleString('en')} times under other pod names`, async () => {
      const parsed = await Promise.all(ruleCases.fires.map(async (c) => ({ c, records: await recordsOf(c) })));
      const { c, records } = parsed.sort((a, b) => a.records.length - b.records.length)[0]!;
      assertBounded(rule.meta.id, entriesOverCopies(rule, scaledOptions(rule, c.options), records.slice(0, RECORDS_PER_COPY)));
    });
  }

  it('catches a rule that keeps one entry per pod without a cap', async () => {
    const { cases: storm } = cases.find((x) => x.rule.meta.id === 'reconnect-storm')!;
    const records = (await recordsOf(storm.fires[0]!)).slice(0, RECORDS_PER_COPY);
    const uncapped: AnyRule = {
      meta: { ...RULES[0]!.meta, id: 'uncapped-toy', lineInterest: undefined },
      createState: () => ({ pods: new Set<string>() }),
      visitors: {
        'proxy-log': (state: { pods: Set<string> }, record: LdRecord) => {
          if (record.pod) state.pods.add(record.pod);
        },
      },
      merge: (into: { pods: Set<string> }, from: { pods: Set<string> }) => {
        for (const p of from.pods) into.pods.add(p);
      },
      finish: () => [],
    };
    const [half, full] = entriesOverCopies(uncapped, {}, records);
    assert.ok(full > half * 1.5, `the toy rule's state should grow with the pods (${half} → ${full})`);
    assert.throws(() => assertBounded('uncapped-toy', [half, full]), /state grew/);
  });
});
