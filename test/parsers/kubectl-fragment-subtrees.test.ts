// YAML subtrees of a PodList, an EventList, an Event and a Pod's status cut out without their
// parents (issue 45 point 1), each read into the records the whole document gives. Shapes as
// `kubectl get pods -o yaml` / `kubectl get events -o yaml` print them (keys sorted, list items
// at their parent's indentation); facts from linkerd/linkerd2#10386 (an OOMKilled controller),
// #12803 (destination liveness timeouts on 9996, 27 times) and #7767 (linkerd-init in
// CrashLoopBackOff, iptables refused without NET_ADMIN), whose users pasted exactly such pieces.

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
const statuses = (records: LdRecord[]) =>
  records
    .filter((r): r is PodStatusRecord => r.kind === 'pod-status')
    .map((p) => [p.namespace, p.pod, p.container, p.containerKind, p.state, p.reason, p.lastReason, p.lastExitCode, p.restartCount, p.memoryLimit]);
const events = (records: LdRecord[]) =>
  records
    .filter((r): r is KubeEventRecord => r.kind === 'kube-event')
    .map((e) => [e.namespace, e.pod, e.container, e.type, e.reason, e.object, e.message, e.count, e.reporter]);
const indent = (text: string, by: number) =>
  text
    .split('\n')
    .map((l) => (l === '' ? l : ' '.repeat(by) + l))
    .join('\n');

const POD_ITEMS = [
  '- apiVersion: v1',
  '  kind: Pod',
  '  metadata:',
  '    name: linkerd-proxy-injector-5f6d7c8b9-m3n4p',
  '    namespace: linkerd',
  '  spec:',
  '    containers:',
  '    - name: proxy-injector',
  '      resources:',
  '        limits:',
  '          memory: 250Mi',
  '  status:',
  '    containerStatuses:',
  '    - name: proxy-injector',
  '      ready: false',
  '      restartCount: 9',
  '      lastState:',
  '        terminated:',
  '          exitCode: 137',
  '          reason: OOMKilled',
  '          startedAt: "2023-03-01T10:02:11Z"',
  '          finishedAt: "2023-03-01T10:04:40Z"',
  '      state:',
  '        waiting:',
  '          reason: CrashLoopBackOff',
  '- apiVersion: v1',
  '  kind: Pod',
  '  metadata:',
  '    name: linkerd-destination-7c5d8f9b4-kq2wz',
  '    namespace: linkerd',
  '  status:',
  '    containerStatuses:',
  '    - name: destination',
  '      ready: true',
  '      restartCount: 0',
  '      state:',
  '        running:',
  '          startedAt: "2023-03-01T09:00:00Z"',
].join('\n');
const POD_LIST = `apiVersion: v1\nitems:\n${POD_ITEMS}\nkind: List\nmetadata:\n  resourceVersion: ""\n`;

const EVENT_ITEM = [
  '- apiVersion: v1',
  '  count: 27',
  '  firstTimestamp: "2023-08-14T09:12:03Z"',
  '  involvedObject:',
  '    apiVersion: v1',
  '    fieldPath: spec.containers{destination}',
  '    kind: Pod',
  '    name: linkerd-destination-7c5d8f9b4-kq2wz',
  '    namespace: linkerd',
  '  kind: Event',
  '  lastTimestamp: "2023-08-14T09:26:41Z"',
  `  message: 'Liveness probe failed: Get "http://10.244.1.17:9996/ping": context deadline exceeded (Client.Timeout exceeded while awaiting headers)'`,
  '  metadata:',
  '    name: linkerd-destination-7c5d8f9b4-kq2wz.177b4c1e2f3a4b5c',
  '    namespace: linkerd',
  '  reason: Unhealthy',
  '  source:',
  '    component: kubelet',
  '  type: Warning',
].join('\n');
const EVENT_LIST = `apiVersion: v1\nitems:\n${EVENT_ITEM}\nkind: List\nmetadata:\n  resourceVersion: ""\n`;

describe("a PodList's items cut out without `items:`", () => {
  it('at the margin: each item is read as the whole list reads it, pod, limits and all', async () => {
    const whole = await parse(POD_LIST, 'pods.yaml');
    const cut = await parse(`${POD_ITEMS}\n`, 'pods.yaml');
    assert.equal(cut.stats.kind, 'kubectl');
    assert.equal(cut.stats.unparsed, 0);
    assert.equal(statuses(whole.records).length, 2);
    assert.deepEqual(statuses(cut.records), statuses(whole.records));
  });

  it('indented as they were under `items:` (a chat or a ticket keeps the indentation)', async () => {
    const whole = await parse(POD_LIST, 'pods.yaml');
    const cut = await parse(`${indent(POD_ITEMS, 2)}\n`, 'pods.yaml');
    assert.equal(cut.stats.unparsed, 0);
    assert.deepEqual(statuses(cut.records), statuses(whole.records));
  });
});

describe('an Event cut out of an EventList or without its own head', () => {
  it('one item of `kubectl get events -o yaml`, indented, gives the event of the whole list', async () => {
    const whole = await parse(EVENT_LIST, 'events.yaml');
    const cut = await parse(`${indent(EVENT_ITEM, 2)}\n`, 'events.yaml');
    assert.equal(events(whole.records).length, 1);
    assert.equal(cut.stats.unparsed, 0);
    assert.deepEqual(events(cut.records), events(whole.records));
  });

  it('from `involvedObject:` on (no apiVersion, no kind): the same pod, container and message', async () => {
    const whole = await parse(EVENT_LIST, 'events.yaml');
    const from = EVENT_ITEM.split('\n');
    const cut = from.slice(from.findIndex((l) => l.includes('involvedObject:'))).join('\n');
    const fragment = await parse(`${indent(cut, 2)}\n`, 'event.txt');
    assert.equal(fragment.stats.unparsed, 0);
    // `count:` sorts before `involvedObject:`, so the cut lost it: the event counts once, the rest is the same.
    const withoutCount = (rows: unknown[][]) => rows.map((r) => r.filter((_, i) => i !== 7));
    assert.deepEqual(withoutCount(events(fragment.records)), withoutCount(events(whole.records)));
    assert.equal(events(fragment.records)[0]![7], 1);
  });
});

describe("a pod's `initContainerStatuses:` cut out at its indentation", () => {
  const INIT = [
    '    initContainerStatuses:',
    '    - containerID: containerd://5f1c0e6a2b7d',
    '      image: cr.l5d.io/linkerd/proxy-init:v2.2.1',
    '      lastState:',
    '        terminated:',
    '          exitCode: 1',
    '          finishedAt: "2023-05-02T10:14:09Z"',
    '          reason: Error',
    '          startedAt: "2023-05-02T10:14:09Z"',
    '      name: linkerd-init',
    '      ready: false',
    '      restartCount: 6',
    '      state:',
    '        waiting:',
    '          message: back-off 5m0s restarting failed container=linkerd-init pod=web-7d9f8c6b5-x2x8k_shop(0c1d2e3f-4a5b-6c7d-8e9f-0a1b2c3d4e5f)',
    '          reason: CrashLoopBackOff',
  ].join('\n');
  const POD = `apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-7d9f8c6b5-x2x8k\n  namespace: shop\nspec:\n  containers:\n  - name: web\nstatus:\n${INIT.split(
    '\n',
  )
    .map((l) => l.slice(2))
    .join('\n')}\n`;

  it("names the pod and namespace from the kubelet's back-off message, as the whole Pod's metadata does", async () => {
    const whole = await parse(POD, 'pod.yaml');
    const cut = await parse(`${INIT}\n`, 'paste.txt');
    assert.equal(cut.stats.unparsed, 0);
    assert.deepEqual(statuses(cut.records), statuses(whole.records));
    assert.deepEqual(statuses(cut.records)[0]!.slice(0, 4), ['shop', 'web-7d9f8c6b5-x2x8k', 'linkerd-init', 'init']);
  });

  it('without that message the pod stays unnamed rather than guessed', async () => {
    const cut = await parse(
      `${INIT.split('\n')
        .filter((l) => !l.includes('message:'))
        .join('\n')}\n`,
      'paste.txt',
    );
    assert.deepEqual(statuses(cut.records)[0]!.slice(0, 3), [undefined, undefined, 'linkerd-init']);
  });
});
