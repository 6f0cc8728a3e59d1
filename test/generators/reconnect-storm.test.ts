import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DESTINATION_STORM, stormBundle } from '../../scripts/fixtures/reconnect-storm.js';
import reconnectStorm from '../../src/rules/reconnect-storm/index.js';
import { runRule } from '../support/rule-tester.js';
import { ONE_STORM } from '../support/storm-bundle.js';

describe('reconnect-storm bundle generator', () => {
  it('is deterministic for a seed and varies with it', () => {
    assert.deepEqual(stormBundle(ONE_STORM), stormBundle(ONE_STORM));
    assert.notDeepEqual(stormBundle(ONE_STORM), stormBundle({ ...ONE_STORM, seed: ONE_STORM.seed + 1 }));
  });

  it('writes lines the real pipeline parses completely, with pod and namespace from the path', async () => {
    const run = await runRule(reconnectStorm, stormBundle(ONE_STORM));
    assert.equal(run.inputs.length, 24);
    for (const i of run.inputs) {
      assert.equal(i.kind, 'proxy-log');
      assert.equal(i.unparsed, 0, i.path);
      assert.equal(i.namespace, 'emojivoto');
      assert.match(i.pod!, /^(web|voting|emoji)-[a-z0-9]{10}-[a-z0-9]{5}$/);
    }
  });

  it('retries at 2 lines per second per loop for the whole duration, as the 500 ms backoff cap does', () => {
    const [log] = stormBundle({ ...ONE_STORM, workloads: ['web'], podsPerWorkload: 1, quietLines: 0, storms: [DESTINATION_STORM], durationSeconds: 60 });
    const stamps = log!.content
      .trim()
      .split('\n')
      .map((l) => Date.parse(l.slice(0, 23) + 'Z'));
    assert.ok(stamps.length >= 118 && stamps.length <= 120, `${stamps.length} lines in 60 s`);
    const gaps = stamps.slice(1).map((t, i) => t - stamps[i]!);
    assert.ok(
      gaps.every((g) => g >= 500 && g <= 503),
      'every gap is the 500 ms cap plus connect time',
    );
  });
});
