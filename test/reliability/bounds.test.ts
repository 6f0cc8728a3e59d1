// Label and address bombs against the reconnect-storm rule: its per-loop and per-target maps stay
// capped, distinct counts past the cap become estimates, and the finding says so.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProxyLogRecord } from '../../src/core/types.js';
import reconnectStorm from '../../src/rules/reconnect-storm/index.js';
import { parseBytes } from '../support/fuzz.js';
import { runRule } from '../support/rule-tester.js';

const CONTROLLER = 'linkerd-dst-headless.linkerd.svc.cluster.local:8086';
const ip = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const failure = (uptime: number, endpoint: string, controller: string | null) =>
  `[${uptime.toFixed(6).padStart(13)}s]  WARN ThreadId(01) ${controller ? `dst:controller{addr=${controller}}:` : 'outbound:'}endpoint{addr=${endpoint}}: linkerd_reconnect: Failed to connect error=Connection refused (os error 111)`;

async function records(lines: string[]): Promise<ProxyLogRecord[]> {
  const outcome = await parseBytes('default/web-7d9f8c6b5-x2x8k/linkerd-proxy.log', Buffer.from(lines.join('\n') + '\n'), { kind: 'proxy-log' });
  return outcome.records as ProxyLogRecord[];
}

function stateAfter(list: ProxyLogRecord[], options: Partial<typeof reconnectStorm.meta.defaultOptions>) {
  const state = reconnectStorm.createState({ ...reconnectStorm.meta.defaultOptions, ...options });
  for (const r of list) reconnectStorm.visitors['proxy-log']!(state, r);
  return state;
}

describe('reconnect-storm under an address bomb', () => {
  it('caps the targets it analyses and counts the lines towards the rest', async () => {
    const list = await records(Array.from({ length: 5_000 }, (_, i) => failure(10 + i * 0.01, `${ip(i)}:80`, null)));
    const state = stateAfter(list, { maxTargets: 50 });
    assert.equal(state.groups.size, 50);
    assert.equal(state.droppedTargetLines, 4_950);
    assert.doesNotThrow(() => reconnectStorm.finish(state, { options: state.options, inputs: [] }));
  });

  it('caps the loops it tracks individually', async () => {
    const list = await records(Array.from({ length: 5_000 }, (_, i) => failure(10 + i * 0.01, `${ip(i)}:8086`, CONTROLLER)));
    const state = stateAfter(list, { maxLoops: 100 });
    assert.equal(state.loops.size, 100);
    assert.equal(state.droppedLoops, 4_900);
  });

  it('keeps a sustained loop that comes after the cap of one-line loops, and counts the lines of those let go', async () => {
    // Issue 44: a loop past maxLoops used to be left untracked for good, so a storm after 100
    // loops of one line each was never timed. The loops with the shortest runs are let go now.
    const filler = Array.from({ length: 100 }, (_, i) => failure(10 + i * 0.01, `${ip(i)}:8086`, CONTROLLER));
    const late = Array.from({ length: 50 }, (_, i) => failure(20 + i * 0.5, '10.200.0.1:8086', CONTROLLER));
    const list = await records([...filler, ...late]);
    const state = stateAfter(list, { maxLoops: 100 });
    assert.ok(state.loops.size <= 100);
    const late1 = [...state.loops.values()].find((l) => l.endpoint === '10.200.0.1:8086');
    assert.equal(late1?.count, 50);
    // Every line of a loop let go is counted towards its endpoint, as untracked.
    assert.equal(state.droppedLoops, 100 - (state.loops.size - 1));
    assert.equal(state.dropped.healthy, 100 - (state.loops.size - 1));
    const fresh = stateAfter(list.slice(100), { maxLoops: 100 });
    assert.equal(fresh.loops.size, 1);
    assert.equal(fresh.droppedLoops, 0);
  });

  it('keeps caps when states are merged', async () => {
    const first = stateAfter(await records(Array.from({ length: 40 }, (_, i) => failure(10 + i, `${ip(i)}:80`, null))), { maxTargets: 50, maxLoops: 60 });
    const second = stateAfter(await records(Array.from({ length: 40 }, (_, i) => failure(10 + i, `${ip(1000 + i)}:80`, null))), {
      maxTargets: 50,
      maxLoops: 60,
    });
    reconnectStorm.merge(first, second);
    assert.ok(first.groups.size <= 50);
    assert.ok(first.loops.size <= 60);
    assert.equal(first.droppedTargetLines, 80 - first.groups.size);
  });

  it('estimates distinct endpoints past the cap and says it is an estimate', async () => {
    const endpoints = 15_000;
    const bomb = Array.from({ length: endpoints }, (_, i) => failure(100 + i * 0.004, `${ip(i)}:8086`, CONTROLLER));
    // One loop that really is sustained, so the rule fires and reports the bomb's figures.
    const sustained = Array.from({ length: 40 }, (_, i) => failure(10 + i * 2, '10.200.0.1:8086', CONTROLLER));
    const run = await runRule(reconnectStorm, [{ path: 'default/web-7d9f8c6b5-x2x8k/linkerd-proxy.log', content: [...sustained, ...bomb].join('\n') + '\n' }]);
    assert.equal(run.findings.length, 1);
    const evidence = run.findings[0]!.evidence as Record<string, unknown>;
    assert.equal(evidence.distinctEndpointsEstimated, true);
    const estimate = evidence.distinctEndpoints as number;
    assert.ok(Math.abs(estimate - (endpoints + 1)) / (endpoints + 1) < 0.03, `estimate ${estimate}`);
    assert.equal(evidence.podsAffected, 1);
    assert.equal(evidence.podsAffectedEstimated, undefined);
    assert.ok((evidence.topTargets as unknown[]).length <= 10);
    assert.equal(evidence.loopsNotTracked, undefined);
  });

  it('says how many loops went untracked past maxLoops, in any order', async () => {
    const bomb = Array.from({ length: 500 }, (_, i) => failure(100 + i * 0.01, `${ip(i)}:8086`, CONTROLLER));
    const sustained = Array.from({ length: 40 }, (_, i) => failure(10 + i * 2, '10.200.0.1:8086', CONTROLLER));
    for (const lines of [
      [...sustained, ...bomb],
      [...bomb, ...sustained.map((l, i) => l.replace(/^\[ *[\d.]+s\]/, `[${(200 + i * 2).toFixed(6).padStart(13)}s]`))],
    ]) {
      const run = await runRule(reconnectStorm, [{ path: 'default/web-7d9f8c6b5-x2x8k/linkerd-proxy.log', content: lines.join('\n') + '\n' }], {
        maxLoops: 100,
      });
      assert.equal(run.findings.length, 1);
      const evidence = run.findings[0]!.evidence as Record<string, number>;
      assert.ok(evidence.loops! <= 100);
      // The sustained loop's 40 lines are tracked; every one-line loop let go is counted.
      assert.equal(evidence.loopsNotTracked, 500 - (evidence.loops! - 1));
      assert.match(run.findings[0]!.message, /more reconnect loops and targets than the rule keeps: \d+ that showed nothing wrong were only counted/);
    }
  });

  it('keeps a storm towards a target that comes after the cap of targets, in any order', async () => {
    // Issue 44: targets were taken first come, so 50 one-line targets before a control-plane storm hid it.
    const bomb = Array.from({ length: 500 }, (_, i) => failure(100 + i * 0.01, `${ip(i)}:80`, null));
    const storm = (from: number) => Array.from({ length: 40 }, (_, i) => failure(from + i * 2, '10.200.0.1:8086', CONTROLLER));
    for (const lines of [
      [...bomb, ...storm(200)],
      [...storm(10), ...bomb],
    ]) {
      const run = await runRule(reconnectStorm, [{ path: 'default/web-7d9f8c6b5-x2x8k/linkerd-proxy.log', content: lines.join('\n') + '\n' }], {
        maxTargets: 50,
      });
      assert.equal(run.findings.length, 1);
      assert.match(run.findings[0]!.message, /that showed nothing wrong were only counted/);
    }
  });
});

describe('reconnect-storm under hostile timestamps', () => {
  it('survives one line with a bogus wall clock decades away from the storm', async () => {
    const cri = (iso: string, uptime: number) => `${iso} stdout F ${failure(uptime, '10.42.0.12:8086', CONTROLLER)}`;
    const storm = Array.from({ length: 60 }, (_, i) => cri(new Date(Date.UTC(2024, 5, 6, 11, 0, i * 2)).toISOString(), 100 + i * 2));
    const content = [cri('1971-01-01T00:00:00Z', 1), ...storm].join('\n') + '\n';
    const run = await runRule(reconnectStorm, [{ path: 'default/web-7d9f8c6b5-x2x8k/linkerd-proxy.log', content }]);
    assert.equal(run.findings.length, 1);
    const rate = (run.findings[0]!.evidence as { rate: { medianLinesPerSecondCluster: number } }).rate;
    assert.equal(rate.medianLinesPerSecondCluster, 0);
  });
});
