// `kubectl describe pod` pasted in fragments, as users quote it in threads: from `Last State:` of
// one container, or only the `Events:` table, and a `get pods` table with init-container statuses.

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { KubeEventRecord, LdRecord, PodStatusRecord } from '../../src/core/types.js';
import { readEntry } from '../../src/engine/pipeline.js';

async function parse(content: string, path: string) {
  const records: LdRecord[] = [];
  const { stats } = await readEntry({ path, stream: Readable.from([Buffer.from(content)]), size: null }, { record: (r) => records.push(r) });
  return {
    stats,
    events: records.filter((r): r is KubeEventRecord => r.kind === 'kube-event'),
    pods: records.filter((r): r is PodStatusRecord => r.kind === 'pod-status'),
  };
}

describe('kubectl describe fragments', () => {
  it('a paste that starts at Last State: the container is the one the path names', async () => {
    const fragment = [
      '    Last State:     Terminated',
      '      Reason:       OOMKilled',
      '      Exit Code:    137',
      '      Started:      Mon, 11 Mar 2024 08:01:12 +0000',
      '      Finished:     Mon, 11 Mar 2024 08:14:02 +0000',
      '    Ready:          True',
      '    Restart Count:  7',
    ].join('\n');
    const { pods, stats } = await parse(fragment + '\n', 'shop/web-7d9f8c6b5-x2x8k/linkerd-proxy.txt');
    assert.equal(stats.kind, 'kubectl');
    assert.deepEqual(
      pods.map((p) => [p.pod, p.container, p.lastState, p.lastReason, p.lastExitCode, p.restartCount]),
      [['web-7d9f8c6b5-x2x8k', 'linkerd-proxy', 'Terminated', 'OOMKilled', 137, 7]],
    );
  });

  it('a paste of the Events: table alone, with probe failures and their count', async () => {
    const fragment = [
      'Events:',
      '  Type     Reason     Age                  From     Message',
      '  ----     ------     ----                 ----     -------',
      '  Normal   Started    12m                  kubelet  Started container linkerd-proxy',
      '  Warning  Unhealthy  2m (x31 over 11m)    kubelet  Readiness probe failed: HTTP probe failed with statuscode: 403',
      '  Warning  BackOff    90s (x12 over 9m)    kubelet  Back-off restarting failed container linkerd-init in pod books-6b9c7d8f5-k2m4p_booksapp(0b4d)',
    ].join('\n');
    const { events } = await parse(fragment + '\n', 'booksapp/books-6b9c7d8f5-k2m4p/describe.txt');
    assert.deepEqual(
      events.map((e) => [e.reason, e.count, e.lastSeenAgoSeconds, e.firstSeenAgoSeconds]),
      [
        ['Started', 1, 720, 720],
        ['Unhealthy', 31, 120, 660],
        ['BackOff', 12, 90, 540],
      ],
    );
    assert.equal(events[1]!.message, 'Readiness probe failed: HTTP probe failed with statuscode: 403');
  });

  it('get pods with init statuses, READY 0/2 and restarts with their age', async () => {
    const table = [
      'NAME                        READY   STATUS                  RESTARTS      AGE',
      'books-6b9c7d8f5-k2m4p       0/2     Init:CrashLoopBackOff   5 (82s ago)   4m10s',
      'authors-5d8f7b6c9-vw7tz     0/2     Init:Error              2 (5m ago)    6m',
    ].join('\n');
    const { pods } = await parse(table + '\n', 'pods.txt');
    assert.deepEqual(
      pods.map((p) => [p.pod, p.state, p.ready, p.restartCount, p.lastRestartAgoSeconds]),
      [
        ['books-6b9c7d8f5-k2m4p', 'Init:CrashLoopBackOff', false, 5, 82],
        ['authors-5d8f7b6c9-vw7tz', 'Init:Error', false, 2, 300],
      ],
    );
  });
});
