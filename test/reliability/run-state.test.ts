// No rule state outlives its run (issue 16). The parse caches (the proxy-log body cache, whose
// frozen bodies carry the rules' per-body memo slots, the timestamp memo, the interest regexes)
// belong to a run's ParseContext, one per run and thread; what rules remember on cached bodies is
// forgotten when each task starts and ends, so a finished run's or task's state can be collected
// and the next task on the thread starts clean.

import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { defaultRules } from '../../src/cli/run-analyze.js';
import type { AnyRule } from '../../src/core/types.js';
import { analyzeInputs } from '../../src/analysis/analyze.js';
import type { ConfiguredRule } from '../../src/engine/engine.js';
import { runTask } from '../../src/engine/tasks.js';
import { ParseContext } from '../../src/parsers/context.js';
import { BodyCache } from '../../src/parsers/proxy-log-body.js';
import { RULES } from '../../src/rules/index.js';
import { perBody } from '../../src/util/body-memo.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const STORM = 'fixtures/storm';
const BODY = 'linkerd_reconnect: Failed to connect error=Connection refused (os error 111)';

/** Every default rule, each wrapped so that the states it creates are known by weak reference only. */
function watchedRules(): { rules: ConfiguredRule[]; states: WeakRef<object>[] } {
  const states: WeakRef<object>[] = [];
  const rules = defaultRules().map(({ rule, options }): ConfiguredRule => {
    const watched: AnyRule = {
      ...rule,
      createState(o: object) {
        const state = rule.createState(o) as object;
        states.push(new WeakRef(state));
        return state;
      },
    };
    return { rule: watched, options };
  });
  return { rules, states };
}

/**
 * Rule ids whose state is still reachable once nothing of the run is held. Streams let go of their
 * callbacks (and so of the engine) a few ticks after the last read, so this collects until every
 * state is gone or a second has passed: what a cache keeps stays however long one waits.
 */
async function survivors(states: readonly WeakRef<object>[], ids: readonly string[]): Promise<string[]> {
  const alive = () => states.flatMap((ref, i) => (ref.deref() === undefined ? [] : [ids[i % ids.length]!]));
  for (const deadline = Date.now() + 1000; ;) {
    // A WeakRef dereferenced in this job keeps its target until the job ends: collect in a new one.
    await new Promise((resolve) => setTimeout(resolve, 10));
    collectGarbage();
    if (alive().length === 0 || Date.now() > deadline) return alive();
  }
}

const findingsOf = async (args: string[]) => JSON.stringify((await analyzeInputs(args, defaultRules(), { jobs: 1 })).findings);

describe('rule state is owned by one run', () => {
  it('a finished analysis leaves no rule state reachable', async () => {
    const { rules, states } = watchedRules();
    const fired = (await analyzeInputs([STORM], rules, { jobs: 1 })).findings.map((f) => f.ruleId);
    assert.ok(fired.includes('reconnect-storm'), 'the storm fixture fires reconnect-storm, whose state its per-body memo points at');
    assert.equal(states.length, RULES.length);
    assert.deepEqual(
      await survivors(
        states,
        RULES.map((r) => r.meta.id),
      ),
      [],
    );
  });

  it("a task on a reused thread leaves no rule state for the thread's next task", async () => {
    const { rules, states } = watchedRules();
    const path = `${STORM}/ingress/traefik-mr9q65pc74-5kz6v/linkerd-proxy.log`;
    const task = { type: 'sources' as const, sources: [{ type: 'file' as const, path, origin: path, size: statSync(path).size }] };
    // The thread's parse caches outlive the task, as a worker's do; the task's result carries its
    // states to be merged, and only what it read is kept here.
    const context = new ParseContext();
    const records = (await runTask(task, { rules, collectors: [] }, { context }, () => {})).inputs[0]!.records;
    assert.ok(records > 0, 'the task read records');
    assert.deepEqual(
      await survivors(
        states,
        RULES.map((r) => r.meta.id),
      ),
      [],
    );
    assert.ok(context.bodies.body(`${BODY} `, 0) !== null, 'the context (and its cached bodies) is still alive');
  });

  it('two analyses in one process give the same findings, whatever ran before', async () => {
    const alone = await findingsOf([STORM]);
    await findingsOf(['fixtures/healthy']);
    assert.equal(await findingsOf([STORM]), alone);
    assert.equal(await findingsOf([STORM]), alone);
  });
});

describe('the parse caches across the tasks of one run', () => {
  const derived = perBody(() => ({}));
  const record = (body: NonNullable<ReturnType<BodyCache['body']>>) => ({ fields: body.fields }) as Parameters<typeof derived>[0];

  it('keeps parsed bodies for the next task but forgets what rules derived from them', () => {
    const context = new ParseContext();
    context.betweenTasks();
    context.bodies.body(BODY, 0);
    const body = context.bodies.body(BODY, 0)!;
    const derivation = derived(record(body));
    assert.equal(derived(record(body)), derivation, 'a derivation is remembered within the task');
    context.betweenTasks();
    const again = context.bodies.body(BODY, 0)!;
    assert.equal(again, body, 'the parsed body is reused');
    assert.notEqual(derived(record(again)), derivation, 'the derivation is worked out again');
  });

  it('caches a body from its second sighting, so bodies that never repeat take no slot', () => {
    const bodies = new BodyCache();
    const once = bodies.body(BODY, 0)!;
    assert.equal(Object.isFrozen(once), false, 'a body seen once is not shared');
    const twice = bodies.body(BODY, 0)!;
    assert.notEqual(twice, once);
    assert.equal(Object.isFrozen(twice), true);
    assert.equal(bodies.body(BODY, 0), twice, 'from then on the cached body is reused');
  });

  it('builds one interest regex per set of literals', () => {
    const context = new ParseContext();
    const regex = context.literalRegex(['linkerd_reconnect', 'fail-fast']);
    assert.equal(context.literalRegex(['linkerd_reconnect', 'fail-fast']), regex);
    assert.notEqual(context.literalRegex(['linkerd_reconnect']), regex);
    assert.equal(regex.test('WARN linkerd_reconnect: Failed'), true);
  });

  it('finds the regex for an interest array without rebuilding its literals, and by content for a new array', () => {
    const context = new ParseContext();
    const interest = ['linkerd_reconnect', 'fail-fast'];
    let made = 0;
    const make = (from: readonly string[]) => () => {
      made++;
      return [...from, 'release '];
    };
    const regex = context.literalRegexFor(interest, make(interest));
    assert.equal(context.literalRegexFor(interest, make(interest)), regex);
    assert.equal(made, 1, 'the same array: its literals are not made again');
    // Another array of the same literals: made once more, then found by content.
    assert.equal(context.literalRegexFor([...interest], make(interest)), regex);
    assert.equal(made, 2);
    assert.equal(regex.test('a release banner'), true);
    assert.notEqual(context.literalRegexFor(['failfast'], make(['failfast'])), regex);
  });
});
