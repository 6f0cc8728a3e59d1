// No rule state outlives its run (issue 16). Module-level caches sit on the hottest paths (the
// proxy-log body cache, whose frozen bodies carry the rules' per-body memo slots, and one-entry
// memos in parsers and rules); the engine empties them when a run starts and ends, and what may
// hold rule state also when each task starts and ends, so a finished run's or task's state can be
// collected and the next run or task starts clean.

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
import { parsedBody } from '../../src/parsers/proxy-log-body.js';
import { RULES } from '../../src/rules/index.js';
import { perBody } from '../../src/util/body-memo.js';
import { withRunCaches, withTaskCaches } from '../../src/util/run-caches.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const STORM = 'fixtures/storm';

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
    // The task's result carries its states to be merged; only what it read is kept here.
    const records = (await runTask(task, { rules, collectors: [] }, {}, () => {})).inputs[0]!.records;
    assert.ok(records > 0, 'the task read records');
    assert.deepEqual(
      await survivors(
        states,
        RULES.map((r) => r.meta.id),
      ),
      [],
    );
  });

  it('two analyses in one process give the same findings, whatever ran before', async () => {
    const alone = await findingsOf([STORM]);
    await findingsOf(['fixtures/healthy']);
    assert.equal(await findingsOf([STORM]), alone);
    assert.equal(await findingsOf([STORM]), alone);
  });
});

describe('the body cache across the tasks of one run', () => {
  const BODY = 'linkerd_reconnect: Failed to connect error=Connection refused (os error 111)';
  const derived = perBody(() => ({}));
  const record = (body: NonNullable<ReturnType<typeof parsedBody>>) => ({ fields: body.fields }) as Parameters<typeof derived>[0];

  it('keeps parsed bodies for the next task but forgets what rules derived from them', async () => {
    await withRunCaches(async () => {
      const first = await withTaskCaches(async () => {
        parsedBody(BODY, 0);
        const body = parsedBody(BODY, 0)!;
        return { body, derivation: derived(record(body)) };
      });
      await withTaskCaches(async () => {
        const body = parsedBody(BODY, 0)!;
        assert.equal(body, first.body, 'the parsed body is reused');
        assert.notEqual(derived(record(body)), first.derivation, 'the derivation is worked out again');
      });
    });
  });

  it('starts each run with no body parsed', async () => {
    const first = await withRunCaches(async () => (parsedBody(BODY, 0), parsedBody(BODY, 0)));
    const second = await withRunCaches(async () => (parsedBody(BODY, 0), parsedBody(BODY, 0)));
    assert.notEqual(second, first);
    assert.deepEqual(second, first);
  });

  it('caches a body from its second sighting, so bodies that never repeat take no slot', async () => {
    await withRunCaches(async () => {
      const once = parsedBody(BODY, 0)!;
      assert.equal(Object.isFrozen(once), false, 'a body seen once is not shared');
      const twice = parsedBody(BODY, 0)!;
      assert.notEqual(twice, once);
      assert.equal(Object.isFrozen(twice), true);
      assert.equal(parsedBody(BODY, 0), twice, 'from then on the cached body is reused');
    });
  });
});
