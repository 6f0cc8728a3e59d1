// Issue 44, item 6 (audit round 3, f8-gojson-deep.sh and f9-yaml-memory.sh): parsers are bounded in
// depth and size, and a bound exceeded is that record's error, not the file's. A Go JSON log line
// with a field nested 5,000 deep overflowed the stack in JSON.stringify and lost the rest of its
// file; one 8 MiB YAML document took 760 MB to parse. The lines are generated in the layouts the
// components print: logrus's JSON formatter (`{"level":…,"msg":…,"time":…}`, linkerd2's
// controllers with -log-format=json) and a Pod as `kubectl get pod -o yaml` prints it.

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import type { LdRecord, PodStatusRecord, ProxyLogRecord } from '../../src/core/types.js';
import { readEntry } from '../../src/engine/pipeline.js';
import { MAX_DOCUMENT_BYTES } from '../../src/parsers/kubectl-object.js';
import { podObject } from '../support/kube-shapes.js';

async function read(content: string, path: string) {
  const records: LdRecord[] = [];
  const reasons: string[] = [];
  const result = await readEntry(
    { path, stream: Readable.from([Buffer.from(content)]), size: null },
    { record: (r) => records.push(r), unparsed: (_s, _l, why) => reasons.push(why) },
  );
  return { ...result, records, reasons };
}

const RBAC =
  '{"level":"error","msg":"Failed to watch *v1.EndpointSlice: failed to list *v1.EndpointSlice: endpointslices.discovery.k8s.io is forbidden: User \\"system:serviceaccount:linkerd:linkerd-destination\\" cannot list resource \\"endpointslices\\" in API group \\"discovery.k8s.io\\" at the cluster scope","time":"2024-06-05T11:01:11Z"}';

describe('bounded parsers (issue 44, item 6)', () => {
  it('a Go JSON line with a field nested 5,000 deep is read, rendered to a bounded depth, and the lines after it too', async () => {
    const deep = `{"level":"info","msg":"x","f":${'['.repeat(5000)}${']'.repeat(5000)},"time":"2024-06-05T11:01:10Z"}`;
    const { error, records } = await read([deep, RBAC, RBAC, RBAC, ''].join('\n'), 'linkerd/linkerd-destination-5d8f7c9b4-abcde/destination.log');
    assert.equal(error, undefined);
    const logs = records as ProxyLogRecord[];
    assert.equal(logs.length, 4);
    assert.equal(logs[0]!.format, 'go-json');
    assert.ok(logs[0]!.fields.f!.length < 100, logs[0]!.fields.f);
    assert.match(logs[0]!.fields.f!, /…/);
    assert.deepEqual(
      logs.slice(1).map((r) => r.level),
      ['ERROR', 'ERROR', 'ERROR'],
    );
  });

  it(`a YAML document past ${MAX_DOCUMENT_BYTES >> 20} MiB is not parsed: its lines are counted and named, and the next document is read`, async () => {
    const big = [
      'apiVersion: v1',
      'kind: Pod',
      'metadata:',
      '  name: web-1',
      '  namespace: shop',
      'status:',
      '  containerStatuses:',
      '  - name: linkerd-proxy',
      '    restartCount: 0',
    ];
    for (let i = 0, size = 0; size <= MAX_DOCUMENT_BYTES; i++) {
      big.push(`  k${i}: v${i}`);
      size += big[big.length - 1]!.length + 1;
    }
    const after = stringify(podObject('web-6d4cf56db6-abcde', 'shop', true), { indentSeq: false, lineWidth: 0 });
    const { error, records, reasons, stats } = await read([...big, '---', after].join('\n'), 'pods.yaml');
    assert.equal(error, undefined);
    assert.equal(stats.unparsed, big.length);
    assert.match(reasons[0]!, new RegExp(`^the Kubernetes object at lines 1-${big.length} is larger than 1 MiB; it was not read`));
    const oom = (records as PodStatusRecord[]).filter((r) => r.lastReason === 'OOMKilled').map((r) => r.pod);
    assert.deepEqual(oom, ['web-6d4cf56db6-abcde']);
  });

  it('a YAML object nested 20,000 deep costs that object, not the input', async () => {
    const deep = ['apiVersion: v1', 'kind: Pod', 'metadata:', '  name: deep-1', `  labels: ${'['.repeat(20_000)}${']'.repeat(20_000)}`].join('\n');
    const after = stringify(podObject('web-6d4cf56db6-abcde', 'shop', true), { indentSeq: false, lineWidth: 0 });
    const { error, records, stats } = await read([deep, '---', after].join('\n'), 'pods.yaml');
    assert.equal(error, undefined);
    assert.ok(stats.unparsed <= 5);
    assert.ok((records as PodStatusRecord[]).some((r) => r.lastReason === 'OOMKilled'));
  });
});
