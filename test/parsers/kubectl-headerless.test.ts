// Issue 45: kubectl output pasted as a fragment reads like the whole document. Each test reads a
// fragment and the whole it was cut from (as kubectl prints it) and compares the records, field
// for field, on the facts the fragment holds. The lines are real-shaped, after the threads cited.

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { InputKind, KubeEventRecord, LdRecord, PodStatusRecord } from '../../src/core/types.js';
import { readEntry } from '../../src/engine/pipeline.js';

async function parse(lines: readonly string[], path = 'paste.txt', kind?: InputKind) {
  const records: LdRecord[] = [];
  const { stats } = await readEntry(
    { path, stream: Readable.from([Buffer.from(lines.join('\n') + '\n')]), size: null },
    { record: (r) => records.push(r) },
    {},
    kind,
  );
  return { stats, records };
}

/** The facts of a record, without where it sits in its input. */
function facts(r: LdRecord): Record<string, unknown> {
  const { line: _line, path: _path, ...rest } = r;
  return rest;
}

const eventFacts = (r: LdRecord) => {
  const e = r as KubeEventRecord;
  return { type: e.type, reason: e.reason, object: e.object, message: e.message, pod: e.pod, namespace: e.namespace };
};

describe('get events rows without their header', () => {
  // linkerd/linkerd2#12803: two rows of `kubectl get events`, the first cut before its LAST SEEN column.
  const header = 'LAST SEEN   TYPE      REASON      OBJECT                               MESSAGE';
  const liveness =
    'Warning   Unhealthy   pod/linkerd-destination-5d8f9c7b4-k2x9q   Liveness probe failed: Get "http://10.4.2.17:9996/ping": dial tcp 10.4.2.17:9996: i/o timeout (Client.Timeout exceeded while awaiting headers)';
  const readiness =
    'Warning   Unhealthy   pod/linkerd-destination-5d8f9c7b4-k2x9q   Readiness probe failed: Get "http://10.4.2.17:9990/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)';

  it('a row cut before LAST SEEN gives the event the whole table gives', async () => {
    const whole = await parse([header, `10m         ${liveness}`]);
    const cut = await parse([` ${liveness}`]);
    assert.equal(cut.stats.kind, 'kubectl');
    assert.equal(cut.stats.unparsed, 0);
    assert.deepEqual(cut.records.map(eventFacts), whole.records.map(eventFacts));
    assert.equal((cut.records[0] as KubeEventRecord).pod, 'linkerd-destination-5d8f9c7b4-k2x9q');
  });

  it('a row with its age, and one with NAMESPACE first (`-A`), without the header', async () => {
    const whole = await parse([header, `10m         ${readiness}`]);
    const cut = await parse([`10m         ${readiness}`]);
    assert.deepEqual(cut.records.map(facts), whole.records.map(facts));
    const all = await parse([`linkerd     10m         ${readiness}`]);
    assert.equal((all.records[0] as KubeEventRecord).namespace, 'linkerd');
    assert.equal((all.records[0] as KubeEventRecord).lastSeenAgoSeconds, 600);
  });

  it('a row cut before TYPE too: REASON first (linkerd/linkerd2#6530)', async () => {
    const row =
      'FailedCreate        replicaset/linkerd-controller-85469b9fbd       Error creating: Internal error occurred: failed calling webhook "linkerd-proxy-injector.linkerd.io": Post "https://linkerd-proxy-injector.linkerd.svc:443/?timeout=30s": dial tcp 10.0.41.7:443: connect: connection refused';
    const whole = await parse(['LAST SEEN   TYPE      REASON         OBJECT                                   MESSAGE', `3m          Warning   ${row}`]);
    const cut = await parse([` ${row}`]);
    assert.equal(cut.stats.kind, 'kubectl');
    assert.deepEqual(cut.records.map(eventFacts), whole.records.map(eventFacts));
  });
});

describe("a describe's Events rows without the table's header", () => {
  // linkerd/linkerd2#10037 and #4624: rows of the Events table of `kubectl describe pod`, alone.
  const rows = [
    '  Warning  Unhealthy  13m (x4 over 14m)    kubelet            Liveness probe failed: HTTP probe failed with statuscode: 502',
    '  Warning  Unhealthy  29s (x15 over 2m49s)  kubelet, aks-devpool-31415926-vmss000000  Readiness probe failed: HTTP probe failed with statuscode: 503',
  ];
  it('give the events, counts and ages of the whole table', async () => {
    const whole = await parse([
      'Events:',
      '  Type     Reason     Age                   From                                      Message',
      '  ----     ------     ----                  ----                                      -------',
      ...rows,
    ]);
    const cut = await parse(rows);
    assert.equal(cut.stats.kind, 'kubectl');
    assert.equal(cut.stats.unparsed, 0);
    const figures = (r: LdRecord) => {
      const e = r as KubeEventRecord;
      return [e.reason, e.count, e.lastSeenAgoSeconds, e.firstSeenAgoSeconds, e.reporter, e.message];
    };
    assert.deepEqual(cut.records.map(figures), whole.records.map(figures));
    assert.deepEqual(cut.records.map(figures)[0], ['Unhealthy', 4, 780, 840, 'kubelet', rows[0]!.slice(rows[0]!.indexOf('Liveness'))]);
  });
});

describe('get pods rows without their header', () => {
  // linkerd/linkerd2#4624: a control plane listing whose header was not copied.
  const rows = [
    'linkerd-controller-64cf8696f7-d79tx        1/2     Running   1          26m',
    'linkerd-destination-57847f975b-8sj7v       1/2     Running   0          26m',
  ];
  it('give the pod rows of the whole table', async () => {
    const whole = await parse(['NAME                                       READY   STATUS    RESTARTS   AGE', ...rows]);
    const cut = await parse(rows);
    assert.equal(cut.stats.kind, 'kubectl');
    assert.deepEqual(cut.records.map(facts), whole.records.map(facts));
    assert.deepEqual(
      cut.records.map((r) => [(r as PodStatusRecord).pod, (r as PodStatusRecord).ready, (r as PodStatusRecord).restartCount]),
      [
        ['linkerd-controller-64cf8696f7-d79tx', false, 1],
        ['linkerd-destination-57847f975b-8sj7v', false, 0],
      ],
    );
  });

  it('with NAMESPACE first (`-A`) and restarts with their age', async () => {
    const { records } = await parse(['linkerd   linkerd-identity-748c8f74f-gpzb8   0/2   Init:CrashLoopBackOff   5 (48s ago)   3m53s']);
    const r = records[0] as PodStatusRecord;
    assert.deepEqual(
      [r.namespace, r.pod, r.state, r.restartCount, r.lastRestartAgoSeconds],
      ['linkerd', 'linkerd-identity-748c8f74f-gpzb8', 'Init:CrashLoopBackOff', 5, 48],
    );
  });

  it('a `get svc` row is no pod row', async () => {
    const { records } = await parse(['linkerd       linkerd-dst                 ClusterIP   10.2.67.30     <none>        8086/TCP                 6m43s']);
    assert.equal(records.length, 0);
  });
});

describe('a container status cut out of a pod YAML', () => {
  // linkerd/linkerd2#10386: the proxy-injector's status, selected from `- containerID:` so the first
  // line lost its indentation, the last cut mid-word.
  const status = [
    '  - containerID: containerd://db5b6ce9e1c710d89a1ba12398ad12c4d0084c36970adefe8168901a509081b9',
    '    image: cr.l5d.io/linkerd/controller:stable-2.12.2',
    '    imageID: cr.l5d.io/linkerd/controller@sha256:c2c7324027cad22602197dbaa8d5ce3bd90b350f82b9969cd313f09877d917f3',
    '    lastState:',
    '      terminated:',
    '        containerID: containerd://db5b6ce9e1c710d89a1ba12398ad12c4d0084c36970adefe8168901a509081b9',
    '        exitCode: 137',
    '        finishedAt: "2023-01-04T13:30:27Z"',
    '        reason: OOMKilled',
    '        startedAt: "2023-01-04T13:30:20Z"',
    '    name: proxy-injector',
    '    ready: false',
    '    restartCount: 4',
  ];
  const facts = (r: LdRecord) => {
    const p = r as PodStatusRecord;
    return [p.container, p.image, p.lastState, p.lastReason, p.lastExitCode, p.lastFinished, p.ready, p.restartCount];
  };

  it('gives the record the whole status block gives', async () => {
    const whole = await parse(['status:', '  containerStatuses:', ...status]);
    const cut = await parse([status[0]!.trimStart(), ...status.slice(1)]);
    assert.equal(cut.stats.kind, 'kubectl');
    assert.equal(cut.stats.unparsed, 0);
    assert.deepEqual(cut.records.map(facts), whole.records.map(facts));
    assert.deepEqual(facts(cut.records[0]!).slice(0, 5), ['proxy-injector', 'cr.l5d.io/linkerd/controller:stable-2.12.2', 'Terminated', 'OOMKilled', 137]);
  });

  it('`lastState:` alone, at its indentation, names the termination', async () => {
    const cut = await parse(status.slice(3, 10), 'linkerd/linkerd-proxy-injector-6d4b9c8f7-q2w8e/proxy-injector.txt');
    const p = cut.records[0] as PodStatusRecord;
    assert.deepEqual([p.pod, p.container, p.lastReason, p.lastExitCode], ['linkerd-proxy-injector-6d4b9c8f7-q2w8e', 'proxy-injector', 'OOMKilled', 137]);
  });

  it('a pod spec fragment with a container list is no status', async () => {
    const { records } = await parse(['  - name: linkerd-init', '    image: cr.l5d.io/linkerd/proxy-init:v2.2.1', '    imagePullPolicy: IfNotPresent']);
    assert.equal(records.length, 0);
  });
});

describe('a JSON member cut out of a pod (`kubectl get pod -o json`)', () => {
  // The same proxy-injector status as linkerd/linkerd2#10386, as `-o json` prints it, cut at its
  // `"containerStatuses": [` or `"lastState": {` line with the indentation it had.
  const statuses = [
    '        "containerStatuses": [',
    '            {',
    '                "containerID": "containerd://db5b6ce9e1c710d89a1ba12398ad12c4d0084c36970adefe8168901a509081b9",',
    '                "image": "cr.l5d.io/linkerd/controller:stable-2.12.2",',
    '                "lastState": {',
    '                    "terminated": {',
    '                        "exitCode": 137,',
    '                        "finishedAt": "2023-01-04T13:30:27Z",',
    '                        "reason": "OOMKilled",',
    '                        "startedAt": "2023-01-04T13:30:20Z"',
    '                    }',
    '                },',
    '                "name": "proxy-injector",',
    '                "ready": false,',
    '                "restartCount": 4',
    '            }',
    '        ],',
  ];
  const facts = (r: LdRecord) => {
    const p = r as PodStatusRecord;
    return [p.container, p.lastState, p.lastReason, p.lastExitCode, p.lastFinished, p.restartCount];
  };

  it('the status list gives the records of the whole pod', async () => {
    const whole = await parse(['{', '    "kind": "Pod",', '    "status": {', ...statuses.slice(0, -1), '        ]', '    }', '}']);
    // Read as kubectl output: alone, its closing brackets weigh as source code in the sniffer's
    // head (parsers/sniff.ts), which is left as it is here.
    const cut = await parse(statuses, 'paste.txt', 'kubectl');
    assert.equal(cut.stats.unparsed, 0);
    assert.deepEqual(cut.records.map(facts), whole.records.map(facts));
    assert.deepEqual(facts(cut.records[0]!).slice(0, 4), ['proxy-injector', 'Terminated', 'OOMKilled', 137]);
  });

  it('`"lastState": {` alone names the termination', async () => {
    const cut = await parse(statuses.slice(4, 12), 'linkerd/linkerd-proxy-injector-6d4b9c8f7-q2w8e/proxy-injector.txt');
    const p = cut.records[0] as PodStatusRecord;
    assert.equal(p.source, 'pod-yaml');
    assert.deepEqual([p.container, p.lastReason, p.lastExitCode], ['proxy-injector', 'OOMKilled', 137]);
  });
});
