// The kubectl reader on the layouts kubectl has printed: describe pod (with its Events table),
// get events (1.19+ default, -A, -o wide, the pre-1.19 layout, --watch rows), get pods, get pod
// -o yaml, and describe lines inside a proxy-log input.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { KubeEventRecord, LdRecord, PodStatusRecord } from '../../src/core/types.js';
import { readEntry } from '../../src/engine/pipeline.js';
import { sniffKind } from '../../src/parsers/sniff.js';
import { parseHumanDuration } from '../../src/parsers/kubectl.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

async function parse(content: string, path = 'kubectl.txt') {
  const records: LdRecord[] = [];
  const { stats } = await readEntry({ path, stream: Readable.from([Buffer.from(content)]), size: null }, { record: (r) => records.push(r) });
  return {
    stats,
    records,
    events: records.filter((r): r is KubeEventRecord => r.kind === 'kube-event'),
    pods: records.filter((r): r is PodStatusRecord => r.kind === 'pod-status'),
  };
}

describe('kubectl input', () => {
  it('sniffs describe, events and pods output as kubectl, and a describe with a proxy log tail as proxy-log', () => {
    for (const f of ['describe-linkerd-destination.txt', 'describe-web.txt', 'events.txt', 'get-pods.txt'])
      assert.equal(sniffKind(read(`fixtures/pod-restarts/${f}`).split('\n')), 'kubectl', f);
    for (const f of ['describe-emoji.txt', 'events-wide.txt', 'get-pods.txt'])
      assert.equal(sniffKind(read(`fixtures/healthy-kubectl/${f}`).split('\n')), 'kubectl', f);
    for (const f of ['l2-4899-describe-oom-2.8.1.log', 'l2-10643-describe-crashloop-policy.log'])
      assert.equal(sniffKind(read(`test/data/kubectl/${f}`).split('\n')), 'proxy-log', f);
    assert.equal(sniffKind(['[     0.002035s]  INFO ThreadId(01) linkerd2_proxy: release 2.210.4 (5a5e8f1) by linkerd on 2024-01-11T22:25:29Z']), 'proxy-log');
  });

  it('reads every container of a describe, its last termination and memory limit', async () => {
    const { pods, events, stats } = await parse(read('fixtures/pod-restarts/describe-linkerd-destination.txt'));
    assert.equal(stats.kind, 'kubectl');
    assert.deepEqual(
      pods.map((p) => [p.container, p.containerKind, p.state, p.restartCount]),
      [
        ['linkerd-init', 'init', 'Terminated', 0],
        ['linkerd-proxy', 'app', 'Running', 0],
        ['destination', 'app', 'Running', 6],
        ['sp-validator', 'app', 'Running', 0],
        ['policy', 'app', 'Running', 0],
      ],
    );
    const dst = pods[2]!;
    assert.deepEqual(
      [dst.pod, dst.namespace, dst.lastState, dst.lastReason, dst.lastExitCode, dst.memoryLimit],
      ['linkerd-destination-7c9d5b8f6-q2wzl', 'linkerd', 'Terminated', 'OOMKilled', 137, '250Mi'],
    );
    assert.equal(dst.lastFinished, Date.parse('2024-10-14T11:46:52+02:00'));
    assert.equal(pods[0]!.reason, 'Completed');
    const backOff = events.find((e) => e.reason === 'BackOff')!;
    assert.deepEqual(
      [backOff.count, backOff.lastSeenAgoSeconds, backOff.firstSeenAgoSeconds, backOff.object, backOff.reporter],
      [9, 17 * 60, 3600, 'pod/linkerd-destination-7c9d5b8f6-q2wzl', 'kubelet'],
    );
  });

  it('reads a describe pasted from the container line on, inside a proxy log (linkerd2#4899)', async () => {
    const { stats, pods, records } = await parse(read('test/data/kubectl/l2-4899-describe-oom-2.8.1.log'), 'l2-4899.log');
    assert.equal(stats.kind, 'proxy-log');
    assert.equal(stats.unparsed, 0);
    assert.deepEqual(
      pods.map((p) => [p.container, p.state, p.lastReason, p.image]),
      [['linkerd-proxy', 'Running', 'OOMKilled', 'gcr.io/linkerd-io/proxy:stable-2.8.1']],
    );
    // The last state's `Message:` is the proxy's last log line: read as a record too.
    assert.equal(records.filter((r) => r.kind === 'proxy-log').length, 2);
  });

  it('reads get events in the 1.19+, -A, -o wide and pre-1.19 layouts', async () => {
    const modern = await parse(read('fixtures/pod-restarts/events.txt'));
    assert.deepEqual(modern.events.map((e) => [e.type, e.reason, e.object, e.lastSeenAgoSeconds]).slice(0, 2), [
      ['Warning', 'OOMKilling', 'node/ip-10-0-12-34.eu-west-1.compute.internal', 52 * 60],
      ['Warning', 'BackOff', 'pod/linkerd-destination-7c9d5b8f6-q2wzl', 17 * 60],
    ]);
    const wide = await parse(read('fixtures/healthy-kubectl/events-wide.txt'));
    assert.deepEqual(
      wide.events.map((e) => [e.reason, e.reporter, e.count]),
      [
        ['Scheduled', 'default-scheduler', 1],
        ['Started', 'kubelet, ip-10-0-31-7.eu-west-1.compute.internal', 1],
        ['SuccessfulCreate', 'replicaset-controller', 1],
        ['Completed', 'job-controller', 1],
      ],
    );
    const allNamespaces = [
      'NAMESPACE   LAST SEEN   TYPE      REASON    OBJECT                                    MESSAGE',
      'linkerd     2m          Warning   BackOff   pod/linkerd-identity-6b5f8c9d7-h8r2n      Back-off restarting failed container identity in pod linkerd-identity-6b5f8c9d7-h8r2n_linkerd(0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d)',
    ].join('\n');
    const a = (await parse(allNamespaces)).events[0]!;
    assert.deepEqual([a.namespace, a.pod, a.reason], ['linkerd', 'linkerd-identity-6b5f8c9d7-h8r2n', 'BackOff']);
    const legacy = [
      'LAST SEEN   FIRST SEEN   COUNT     NAME                                                 KIND      SUBOBJECT                        TYPE      REASON      SOURCE                 MESSAGE',
      '1m          1h           24        linkerd-controller-6c9c7b8f5-2zq4x.15c2b6e3d1a0f7c4   Pod       spec.containers{destination}     Warning   BackOff     kubelet, gke-node-1    Back-off restarting failed container',
      '3m          1h           12        linkerd-controller-6c9c7b8f5-2zq4x.15c2b6e3c9a8d6b2   Pod                                        Normal    Pulled      kubelet, gke-node-1    Container image "gcr.io/linkerd-io/controller:stable-2.6.0" already present on machine',
    ].join('\n');
    const old = (await parse(legacy)).events;
    assert.deepEqual(
      old.map((e) => [e.object, e.count, e.firstSeenAgoSeconds, e.type, e.reason, e.reporter]),
      [
        ['pod/linkerd-controller-6c9c7b8f5-2zq4x', 24, 3600, 'Warning', 'BackOff', 'kubelet, gke-node-1'],
        ['pod/linkerd-controller-6c9c7b8f5-2zq4x', 12, 3600, 'Normal', 'Pulled', 'kubelet, gke-node-1'],
      ],
    );
  });

  it('reads --watch rows that are not aligned to the header', async () => {
    const watch = [
      'LAST SEEN   TYPE      REASON    OBJECT                                  MESSAGE',
      '0s   Warning   BackOff   pod/web-6d9c7f8b5-2lqzk   Back-off restarting failed container linkerd-proxy in pod web-6d9c7f8b5-2lqzk_shop(9f8e7d6c-5b4a-3f2e-1d0c-9b8a7f6e5d4c)',
      '0s   Normal   Killing   pod/web-6d9c7f8b5-2lqzk   Container linkerd-proxy failed liveness probe, will be restarted',
    ].join('\n');
    const { events } = await parse(watch);
    assert.deepEqual(
      events.map((e) => [e.type, e.reason, e.object, e.message.slice(0, 24)]),
      [
        ['Warning', 'BackOff', 'pod/web-6d9c7f8b5-2lqzk', 'Back-off restarting fail'],
        ['Normal', 'Killing', 'pod/web-6d9c7f8b5-2lqzk', 'Container linkerd-proxy '],
      ],
    );
  });

  it('reads get pods, with and without -A / -o wide, and the RESTARTS "(… ago)" form', async () => {
    const { pods } = await parse(read('fixtures/pod-restarts/get-pods.txt'));
    assert.deepEqual(
      pods.map((p) => [p.pod, p.state, p.restartCount, p.lastRestartAgoSeconds, p.ready]),
      [
        ['linkerd-destination-7c9d5b8f6-q2wzl', 'Running', 6, 960, true],
        ['linkerd-destination-7c9d5b8f6-xk4pd', 'CrashLoopBackOff', 5, 131, false],
        ['linkerd-identity-6b5f8c9d7-h8r2n', 'Running', 0, null, true],
        ['linkerd-proxy-injector-5d8f7b6c9-vw7tz', 'Running', 1, 9 * 86_400, true],
      ],
    );
    const wide = (await parse(read('fixtures/healthy-kubectl/get-pods.txt'))).pods;
    assert.deepEqual(
      wide.map((p) => [p.namespace, p.state]),
      [
        ['linkerd', 'Running'],
        ['linkerd', 'Running'],
        ['linkerd', 'Running'],
        ['shop', 'Running'],
        ['shop', 'Completed'],
      ],
    );
  });

  it('reads kubectl ages', () => {
    assert.deepEqual(['45s', '3m2s', '10h', '5d', '2y45d', '<unknown>', ''].map(parseHumanDuration), [
      45,
      182,
      36_000,
      432_000,
      2 * 365 * 86_400 + 45 * 86_400,
      null,
      null,
    ]);
  });
});

describe('kubectl get pods -o yaml', () => {
  // The layout kubectl prints (keys sorted, list items at their key's column), cut to the fields
  // that matter: a List of a destination pod whose controller was OOMKilled and a healthy pod.
  const yaml = read('test/data/kubectl/get-pods-yaml-oom.yaml');

  it('is sniffed as kubectl and gives one record per container status, with the pod, limits and states', async () => {
    assert.equal(sniffKind(yaml.split('\n')), 'kubectl');
    const { pods, stats } = await parse(yaml, 'pods.yaml');
    assert.equal(stats.kind, 'kubectl');
    assert.deepEqual(
      pods.map((p) => [
        p.namespace,
        p.pod,
        p.container,
        p.containerKind,
        p.state,
        p.reason,
        p.lastState,
        p.lastReason,
        p.lastExitCode,
        p.restartCount,
        p.memoryLimit,
      ]),
      [
        ['linkerd', 'linkerd-destination-7d9f8c6b5-x2x8k', 'destination', 'app', 'Waiting', 'CrashLoopBackOff', 'Terminated', 'OOMKilled', 137, 6, '250Mi'],
        ['linkerd', 'linkerd-destination-7d9f8c6b5-x2x8k', 'linkerd-proxy', 'app', 'Running', null, null, null, null, 0, '250Mi'],
        ['linkerd', 'linkerd-destination-7d9f8c6b5-x2x8k', 'linkerd-init', 'init', 'Terminated', 'Completed', null, null, null, 0, null],
        ['shop', 'web-5d8f7c9b4-abcde', 'web', 'app', 'Running', null, null, null, null, 0, null],
      ],
    );
    assert.equal(pods[0]!.lastFinished, Date.parse('2024-06-07T09:04:10Z'));
    assert.ok(pods.every((p) => p.source === 'pod-yaml'));
  });

  it('reads a status block cut out of a pod', async () => {
    const cut = yaml
      .split('\n')
      .slice(27, 45)
      .map((l) => l.slice(2))
      .join('\n');
    const { pods } = await parse(cut, 'status.yaml');
    assert.deepEqual(
      pods.map((p) => [p.container, p.lastReason, p.restartCount]),
      [['destination', 'OOMKilled', 6]],
    );
  });
});
