// Issue 44, item 9 (audit round 3, f15-count-overflow.sh): numbers stay finite. Two events with
// `count: 1.7e308` summed to Infinity, `--write-baseline` stored it as null, and the next
// `--baseline` run rejected the file it had just written. Kubernetes counts are int32 in the API
// (Event.count, ContainerStatus.restartCount) and are clamped where they enter; a key figure that
// still overflows (metric values near Number.MAX_VALUE added up) is made finite by the engine.

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { defineRule, type KubeEventRecord, type LdRecord } from '../../src/core/types.js';
import { RuleEngine } from '../../src/engine/engine.js';
import { readEntry } from '../../src/engine/pipeline.js';
import { runAnalyze } from '../../src/cli/run-analyze.js';
import { MAX_KUBE_COUNT } from '../../src/parsers/pod-status.js';
import probeFailure from '../../src/rules/probe-failure/index.js';
import { runRule } from '../support/rule-tester.js';

/** An events.k8s.io-era core/v1 Event as `kubectl get events -o json` prints it, with a hostile count. */
const event = (count: number) => ({
  apiVersion: 'v1',
  kind: 'Event',
  type: 'Warning',
  reason: 'Unhealthy',
  count,
  involvedObject: { kind: 'Pod', name: 'web-5d8f7c9b4-abcde', namespace: 'shop', fieldPath: 'spec.containers{linkerd-proxy}' },
  message: 'Readiness probe failed: Get "http://10.0.0.7:4191/ready": dial tcp 10.0.0.7:4191: connect: connection refused',
  metadata: { name: 'web-5d8f7c9b4-abcde.17d8a1b2c3d4e5f6', namespace: 'shop' },
  source: { component: 'kubelet', host: 'worker-1' },
});
const eventList = (...counts: number[]) => JSON.stringify({ apiVersion: 'v1', kind: 'EventList', items: counts.map(event) }, null, 2) + '\n';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ld-finite-'));
});
after(() => rm(dir, { recursive: true, force: true }));

describe('numbers stay finite (issue 44, item 9)', () => {
  it('event counts past int32 are clamped where they enter, so their sum is finite', async () => {
    const { findings } = await runRule(probeFailure, [{ path: 'events.json', content: eventList(1.7e308, 1.7e308) }]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.keyFigure?.value, 2 * MAX_KUBE_COUNT);
    assert.equal(findings[0]!.evidence.failures, 2 * MAX_KUBE_COUNT);
  });

  it('a COUNT cell of 400 digits in a `get events` table is clamped too', async () => {
    const records: LdRecord[] = [];
    const table = [
      'LAST SEEN   FIRST SEEN   COUNT   NAME                                      KIND   SUBOBJECT                        TYPE      REASON      SOURCE    MESSAGE',
      `2m          1h           ${'9'.repeat(400)}   web-5d8f7c9b4-abcde.17d8a1b2c3d4e5f6   Pod    spec.containers{linkerd-proxy}   Warning   Unhealthy   kubelet   Readiness probe failed: HTTP probe failed with statuscode: 503`,
      '',
    ].join('\n');
    await readEntry({ path: 'events.txt', stream: Readable.from([Buffer.from(table)]), size: null }, { record: (r) => records.push(r) });
    const events = records.filter((r): r is KubeEventRecord => r.kind === 'kube-event');
    assert.equal(events.length, 1);
    assert.equal(events[0]!.count, MAX_KUBE_COUNT);
  });

  it('a key figure that overflows anyway is made finite by the engine', () => {
    const overflowing = defineRule<object, { n: number }>({
      meta: {
        id: 'overflowing',
        code: 'LD9999',
        title: 'test rule',
        description: 'sums two values near Number.MAX_VALUE',
        defaultSeverity: 'warning',
        inputs: ['kubectl'],
        defaultOptions: {},
        optionSchema: {},
      },
      createState: () => ({ n: 0 }),
      visitors: {},
      merge: () => {},
      finish: () => [
        {
          kind: 'sum',
          title: 't',
          message: 'm',
          subject: { target: 'x' },
          evidence: {},
          locations: [],
          remediation: 'r',
          keyFigure: { name: 'sum', value: 1.7e308 + 1.7e308 },
        },
      ],
    });
    const result = new RuleEngine([{ rule: overflowing, options: {} }]).finish([{ path: 'x', kind: 'kubectl', bytes: 0, records: 0, unparsed: 0, lines: 0 }]);
    assert.equal(result.findings[0]!.keyFigure?.value, Number.MAX_VALUE);
  });

  it('--write-baseline then --baseline: the baseline written from the counts is read back', async () => {
    const input = path.join(dir, 'events.json');
    await writeFile(input, eventList(1.7e308, 1.7e308));
    await writeFile(path.join(dir, 'empty.yaml'), '');
    const baseline = path.join(dir, 'baseline.json');
    const flags = { progress: false, quiet: true, config: path.join(dir, 'empty.yaml'), format: ['json'] };
    assert.equal(await runAnalyze([input], { ...flags, output: [path.join(dir, 'first.json')], 'write-baseline': baseline }), 0);
    const written = JSON.parse(await readFile(baseline, 'utf8')) as { findings: { keyFigure?: { value: unknown } }[] };
    assert.equal(written.findings[0]!.keyFigure?.value, 2 * MAX_KUBE_COUNT);
    assert.equal(await runAnalyze([input], { ...flags, output: [path.join(dir, 'second.json')], baseline }), 0);
    const report = JSON.parse(await readFile(path.join(dir, 'second.json'), 'utf8')) as { baseline?: { unchanged: number } };
    assert.equal(report.baseline?.unchanged, 1);
  });
});
