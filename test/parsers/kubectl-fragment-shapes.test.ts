// Fragment shapes of issue 45 point 1 not covered elsewhere, each asserting the records of the
// whole document: `kubectl get pods -o wide` and `-A` rows pasted without their header, event
// rows wrapped by a terminal, and a pod's `containerStatuses` value pasted alone as JSON.
// Rows: linkerd/linkerd2#2554 (get pods of an HA control plane) and #12803 (destination probe
// timeouts, events as the user pasted them); columns as kubectl prints them (kubernetes
// pkg/printers/internalversion/printers.go: NAMESPACE first with -A; IP, NODE, NOMINATED NODE,
// READINESS GATES after AGE with -o wide).

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { KubeEventRecord, LdRecord, PodStatusRecord } from '../../src/core/types.js';
import { readEntry } from '../../src/engine/pipeline.js';

async function parse(content: string, path = 'paste.txt') {
  const records: LdRecord[] = [];
  const { stats } = await readEntry({ path, stream: Readable.from([Buffer.from(content)]), size: null }, { record: (r) => records.push(r) });
  return { stats, records };
}
const pods = (records: LdRecord[]) =>
  records
    .filter((r): r is PodStatusRecord => r.kind === 'pod-status')
    .map((p) => [p.namespace, p.pod, p.state, p.ready, p.restartCount, p.lastRestartAgoSeconds]);
const events = (records: LdRecord[]) =>
  records.filter((r): r is KubeEventRecord => r.kind === 'kube-event').map((e) => [e.type, e.reason, e.object, e.message, e.lastSeenAgoSeconds]);

const ROWS = [
  ['linkerd-controller-695dcbdcf7-8ssrn', '4/4', 'Running', '18', '15h'],
  ['linkerd-controller-695dcbdcf7-9bsvp', '1/4', 'CrashLoopBackOff', '292 (4m12s ago)', '21h'],
  ['linkerd-prometheus-6f44484f65-29629', '0/2', 'Evicted', '0', '20h'],
];
const WIDE = [
  ['10.244.1.17', 'aks-nodepool1-31718369-vmss000001', '<none>', '<none>'],
  ['10.244.2.9', 'aks-nodepool1-31718369-vmss000002', '<none>', '<none>'],
  ['<none>', 'aks-nodepool1-31718369-vmss000000', '<none>', '<none>'],
];
/** Cells aligned as kubectl aligns them: each column as wide as its widest cell, three spaces apart. */
function table(header: string[] | null, rows: string[][]): string {
  const all = header ? [header, ...rows] : rows;
  const widths = all[0]!.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  return all.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]! + 3))).join('')).join('\n') + '\n';
}

describe('get pods rows without their header', () => {
  it('-o wide: the IP/NODE columns after AGE do not change the records', async () => {
    const header = ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES'];
    const rows = ROWS.map((r, i) => [...r, ...WIDE[i]!]);
    const whole = await parse(table(header, rows));
    const fragment = await parse(table(null, rows));
    assert.equal(fragment.stats.kind, 'kubectl');
    assert.equal(fragment.stats.unparsed, 0);
    assert.deepEqual(pods(fragment.records), pods(whole.records));
    assert.deepEqual(pods(fragment.records)[1], [undefined, 'linkerd-controller-695dcbdcf7-9bsvp', 'CrashLoopBackOff', false, 292, 252]);
  });

  it("-A: NAMESPACE first names each pod's namespace", async () => {
    const header = ['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE'];
    const rows = ROWS.map((r) => ['linkerd', ...r]);
    const whole = await parse(table(header, rows));
    const fragment = await parse(table(null, rows));
    assert.equal(fragment.stats.unparsed, 0);
    assert.deepEqual(pods(fragment.records), pods(whole.records));
    assert.ok(pods(fragment.records).every((p) => p[0] === 'linkerd'));
  });

  it('-A -o wide together', async () => {
    const header = ['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES'];
    const rows = ROWS.map((r, i) => ['linkerd', ...r, ...WIDE[i]!]);
    assert.deepEqual(pods((await parse(table(null, rows))).records), pods((await parse(table(header, rows))).records));
  });
});

describe('event rows wrapped by a terminal', () => {
  const header = ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'];
  const rows = [
    [
      '10m',
      'Warning',
      'Unhealthy',
      'pod/linkerd-destination-7d9f8c6b5-x2x8k',
      'Readiness probe failed: Get "http://10.244.1.17:9990/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
    ],
    [
      '3m',
      'Warning',
      'Unhealthy',
      'pod/linkerd-destination-7d9f8c6b5-x2x8k',
      'Liveness probe failed: Get "http://10.244.1.17:9996/ping": dial tcp 10.244.1.17:9996: i/o timeout (Client.Timeout exceeded while awaiting headers)',
    ],
  ];
  const whole = table(header, rows);

  it('cut at the terminal width (120 columns): the halves join into the message of the whole', async () => {
    const wrapped = whole
      .split('\n')
      .flatMap((line) => (line.length > 120 ? [line.slice(0, 120), line.slice(120)] : [line]))
      .join('\n');
    const a = await parse(whole);
    const b = await parse(wrapped);
    assert.equal(b.stats.unparsed, 0);
    assert.deepEqual(events(b.records), events(a.records));
  });

  it('wrapped by a log UI at a space, without the header: the message goes on after one', async () => {
    const lines = table(null, rows).split('\n');
    const cut = lines[0]!.lastIndexOf(' ', 150);
    const wrapped = [lines[0]!.slice(0, cut), lines[0]!.slice(cut + 1), lines[1]!, ''].join('\n');
    const b = await parse(wrapped);
    assert.deepEqual(events(b.records), events((await parse(whole)).records));
  });

  it('a line that is not the rest of a message is left alone: a next row, a shell prompt, a short row', async () => {
    const lines = table(null, rows).split('\n');
    const b = await parse([lines[0]!, '$ kubectl -n linkerd get pods', lines[1]!, ''].join('\n'));
    assert.equal(events(b.records).length, 2);
    assert.equal(b.stats.unparsed, 0);
    const short = await parse('5m   Warning   BackOff   pod/web-0   Back-off restarting\nsee above\n');
    assert.deepEqual(
      events(short.records).map((e) => e[3]),
      ['Back-off restarting'],
    );
  });
});

describe("a pod's containerStatuses pasted alone as JSON", () => {
  const status = {
    containerID: 'containerd://5f1d2b8c9e0a',
    image: 'cr.l5d.io/linkerd/proxy:stable-2.14.10',
    lastState: { terminated: { exitCode: 137, finishedAt: '2024-03-11T08:14:02Z', reason: 'OOMKilled', startedAt: '2024-03-11T08:01:12Z' } },
    name: 'linkerd-proxy',
    ready: true,
    restartCount: 7,
    state: { running: { startedAt: '2024-03-11T08:14:03Z' } },
  };
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-7d9f8c6b5-x2x8k', namespace: 'shop' }, status: { containerStatuses: [status] } };
  const fields = (records: LdRecord[]) =>
    records
      .filter((r): r is PodStatusRecord => r.kind === 'pod-status')
      .map((p) => [p.container, p.state, p.lastState, p.lastReason, p.lastExitCode, p.restartCount, p.lastFinished]);

  it('the array (`kubectl get pod -o jsonpath={.status.containerStatuses}` | jq) gives the records of the whole Pod', async () => {
    const whole = await parse(JSON.stringify(pod, null, 2) + '\n', 'pod.json');
    const array = await parse(JSON.stringify([status], null, 2) + '\n', 'statuses.json');
    assert.equal(array.stats.kind, 'kubectl');
    assert.equal(array.stats.unparsed, 0);
    assert.deepEqual(fields(array.records), fields(whole.records));
    assert.equal(fields(array.records).length, 1);
  });

  it('one entry of it, as an object', async () => {
    const one = await parse(JSON.stringify(status, null, 2) + '\n', 'status.json');
    assert.deepEqual(fields(one.records), fields((await parse(JSON.stringify(pod, null, 2) + '\n', 'pod.json')).records));
  });
});
