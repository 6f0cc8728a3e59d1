// Kubernetes objects as `kubectl get … -o yaml` / `-o json` print them, read with the yaml library
// (a Pod, a List of pods, an EventList, an events.k8s.io/v1 Event, a status block cut out of a pod),
// and the bound on one buffered document.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { KubeEventRecord, LdRecord, PodStatusRecord } from '../../src/core/types.js';
import { readEntry } from '../../src/engine/pipeline.js';
import { sniffKind } from '../../src/parsers/sniff.js';
import { KubeObjectReader, MAX_DOCUMENT_BYTES } from '../../src/parsers/kubectl-object.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

async function parse(content: string, path = 'kubectl.txt') {
  const records: LdRecord[] = [];
  const unparsed: number[] = [];
  const { stats } = await readEntry(
    { path, stream: Readable.from([Buffer.from(content)]), size: null },
    { record: (r) => records.push(r), unparsed: (_s, line) => unparsed.push(line) },
  );
  return {
    stats,
    unparsed,
    events: records.filter((r): r is KubeEventRecord => r.kind === 'kube-event'),
    pods: records.filter((r): r is PodStatusRecord => r.kind === 'pod-status'),
  };
}

describe('kubectl -o json / -o yaml objects', () => {
  it('a single Pod in JSON: init and app container statuses, last termination, restart count', async () => {
    const text = read('test/data/kubectl/get-pod-json-init-crashloop.json');
    assert.equal(sniffKind(text.split('\n')), 'kubectl');
    const { pods, stats, unparsed } = await parse(text);
    assert.equal(stats.kind, 'kubectl');
    assert.deepEqual(unparsed, []);
    assert.deepEqual(
      pods.map((p) => [p.pod, p.namespace, p.container, p.containerKind, p.state, p.reason, p.lastReason, p.lastExitCode, p.restartCount]),
      [
        ['books-6b9c7d8f5-k2m4p', 'booksapp', 'linkerd-init', 'init', 'Waiting', 'CrashLoopBackOff', 'Error', 1, 5],
        ['books-6b9c7d8f5-k2m4p', 'booksapp', 'linkerd-proxy', 'app', 'Waiting', 'PodInitializing', null, null, 0],
      ],
    );
    assert.equal(pods[1]!.memoryLimit, '250Mi');
    // Each record points at its own status entry.
    assert.equal(text.split('\n')[pods[0]!.line - 1]!.trim(), '{');
    assert.ok(pods[1]!.line > pods[0]!.line);
  });

  it('a List of pods in YAML (the OOMKilled destination)', async () => {
    const { pods } = await parse(read('test/data/kubectl/get-pods-yaml-oom.yaml'));
    const dst = pods.find((p) => p.container === 'destination')!;
    assert.equal(dst.pod, 'linkerd-destination-7d9f8c6b5-x2x8k');
    assert.equal(dst.lastReason, 'OOMKilled');
    assert.equal(dst.memoryLimit, '250Mi');
  });

  it('an EventList in YAML: pod, container from fieldPath, count, reporter', async () => {
    const text = read('test/data/kubectl/get-events-yaml-list.yaml');
    assert.equal(sniffKind(text.split('\n')), 'kubectl');
    const { events } = await parse(text);
    assert.deepEqual(
      events.map((e) => [e.type, e.reason, e.object, e.container, e.count, e.reporter, e.namespace]),
      [
        ['Warning', 'Unhealthy', 'pod/books-6b9c7d8f5-k2m4p', 'books', 12, 'kubelet', 'booksapp'],
        ['Normal', 'Started', 'pod/books-6b9c7d8f5-k2m4p', undefined, 1, 'kubelet', 'booksapp'],
      ],
    );
    assert.equal(events[0]!.message, 'Readiness probe failed: HTTP probe failed with statuscode: 403');
    assert.equal(events[0]!.line, 3);
  });

  it('an events.k8s.io/v1 Event in JSON: note, regarding, deprecatedCount', async () => {
    const { events } = await parse(read('test/data/kubectl/get-event-json-eventsv1.json'));
    assert.equal(events.length, 1);
    assert.deepEqual(
      [events[0]!.reason, events[0]!.pod, events[0]!.container, events[0]!.count, events[0]!.reporter],
      ['BackOff', 'linkerd-destination-6d9f8c7b5-p4k2m', 'destination', 7, 'kubelet'],
    );
    assert.match(events[0]!.message, /^Back-off restarting failed container destination/);
  });

  it('a status block cut out of a pod, indented as pasted', async () => {
    const block = [
      '  containerStatuses:',
      '  - name: linkerd-proxy',
      '    restartCount: 4',
      '    lastState:',
      '      terminated:',
      '        exitCode: 137',
      '        reason: OOMKilled',
      '    state:',
      '      running:',
      '        startedAt: "2024-03-11T08:14:02Z"',
    ].join('\n');
    const { pods } = await parse(block + '\n', 'shop/web-7d9f8c6b5-x2x8k/pod.yaml');
    assert.deepEqual(
      pods.map((p) => [p.pod, p.container, p.state, p.lastReason, p.lastExitCode, p.restartCount]),
      [['web-7d9f8c6b5-x2x8k', 'linkerd-proxy', 'Running', 'OOMKilled', 137, 4]],
    );
  });

  // Third hostile-input audit, f13: a newline in an Event's object name ended up in the finding's
  // prose, where the text and Markdown reports keep newlines, forging a standalone PASS line.
  it('takes no name that no Kubernetes object could have (newlines, markup, upper case)', async () => {
    const forged = 'web-5d8f7c9b4-abcde\n\nSummary: 0 error(s), 0 warning(s), 0 info · PASS\n';
    const event = (name: string, namespace: string, kind = 'Pod') => ({
      kind: 'Event',
      type: 'Warning',
      reason: 'Unhealthy',
      count: 5,
      involvedObject: { kind, name, namespace, fieldPath: 'spec.containers{linkerd-proxy}' },
      message: 'Readiness probe failed: Get "http://10.0.0.7:4191/ready": dial tcp 10.0.0.7:4191: connect: connection refused',
    });
    const list = {
      kind: 'EventList',
      items: [event(forged, 'shop'), event('web-5d8f7c9b4-abcde', 'shop\nx'), event('web-1', 'shop', 'Pod<b>'), event('web-1', 'shop')],
    };
    const { events } = await parse(`${JSON.stringify(list, null, 2)}\n`, 'events.json');
    assert.deepEqual(
      events.map((e) => [e.object, e.pod ?? null, e.namespace ?? null]),
      [
        [null, null, 'shop'],
        ['pod/web-5d8f7c9b4-abcde', 'web-5d8f7c9b4-abcde', null],
        [null, null, 'shop'],
        ['pod/web-1', 'web-1', 'shop'],
      ],
    );
    const pod = {
      kind: 'Pod',
      metadata: { name: 'Web\nPASS', namespace: 'shop' },
      status: { containerStatuses: [{ name: 'linkerd-proxy\nx', ready: false, restartCount: 1, state: { running: {} } }] },
    };
    const { pods } = await parse(`${JSON.stringify(pod, null, 2)}\n`, 'pod.json');
    assert.deepEqual(
      pods.map((p) => [p.pod ?? null, p.namespace ?? null, p.container ?? null]),
      [[null, 'shop', null]],
    );
  });

  it('refuses a document past the bound with a clear error, holding nothing', () => {
    const records: LdRecord[] = [];
    const errors: [number, string][] = [];
    const reader = new KubeObjectReader(
      { path: 'big.json', kind: 'kubectl' },
      (r) => records.push(r),
      (line, reason) => errors.push([line, reason]),
    );
    assert.equal(reader.line('{', 1), true);
    const filler = `    "x": "${'a'.repeat(1 << 20)}",`;
    for (let i = 0; i < (MAX_DOCUMENT_BYTES >> 20) + 1; i++) reader.line(filler, i + 2);
    reader.line('}', 100);
    reader.end();
    assert.equal(records.length, 0);
    assert.equal(errors.length, 1);
    assert.deepEqual(errors[0]![0], 1);
    assert.match(errors[0]![1], new RegExp(`larger than ${MAX_DOCUMENT_BYTES >> 20} MiB`));
  });
});
