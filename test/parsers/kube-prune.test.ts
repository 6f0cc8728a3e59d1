// Issue 44, round three, item 2: a 1 MiB Kubernetes object cost ~3 s of CPU and ~160 MB in the YAML
// library, over the stress budget of 2 s per MiB. The reader now blanks, before parsing, what it
// never looks at (the bulk of a large Pod: managedFields, annotations, labels, env lists, ports,
// args), as kubectl prints it in YAML (go-yaml's layout) and in JSON (four-space indent). What it
// reads must come out the same: the metadata's name and namespace, each container's name, image and
// limits, the whole status, with every line number kept. The objects are generated from
// test/support/kube-shapes.ts, grown the way real pods grow.

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { parse as parseYaml, stringify } from 'yaml';
import type { LdRecord, PodStatusRecord } from '../../src/core/types.js';
import { readEntry } from '../../src/engine/pipeline.js';
import { pruneObject } from '../../src/parsers/kube-prune.js';
import { podObject } from '../support/kube-shapes.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A pod grown to about `bytes` the way real ones are: managedFields entries, annotations, env. */
function bigPod(bytes: number): Json {
  const pod = podObject('web-6d4cf56db6-abcde', 'shop', true) as Json;
  const managed: Json[] = [];
  pod.metadata.managedFields = managed;
  pod.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'] = JSON.stringify({ spec: { note: 'x'.repeat(20_000) } });
  const env = pod.spec.containers[0].env as Json[];
  for (let i = 0; JSON.stringify(pod).length < bytes; i++) {
    managed.push({
      apiVersion: 'v1',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { [`f:app-${i}`]: {} } } },
      manager: 'kubectl',
      operation: 'Update',
    });
    env.push({ name: `FEATURE_FLAG_${i}`, value: `enabled-for-tenant-${i}` });
  }
  return pod;
}

const yamlOf = (o: object) => stringify(o, { indentSeq: false, lineWidth: 0, aliasDuplicateObjects: false });
const jsonOf = (o: object) => JSON.stringify(o, null, 4) + '\n';

/** What the reader uses of a pod. */
function used(o: Json) {
  const containers = (list: Json[] | undefined) => (list ?? []).map((c) => ({ name: c.name, image: c.image, resources: c.resources }));
  return {
    name: o.metadata.name,
    namespace: o.metadata.namespace,
    containers: containers(o.spec.containers),
    initContainers: containers(o.spec.initContainers),
    status: o.status,
  };
}

async function records(content: string, path: string) {
  const out: LdRecord[] = [];
  const reasons: string[] = [];
  await readEntry(
    { path, stream: Readable.from([Buffer.from(content)]), size: null },
    { record: (r) => out.push(r), unparsed: (_s, _l, reason) => reasons.push(reason) },
  );
  return { pods: out.filter((r): r is PodStatusRecord => r.kind === 'pod-status'), reasons };
}

describe('what the reader never looks at is cut before parsing (issue 44, item 2)', () => {
  const pod = bigPod(900 << 10);
  for (const [format, text, json] of [
    ['YAML', yamlOf(pod), false],
    ['JSON', jsonOf(pod), true],
  ] as const) {
    it(`${format}: keeps what the reader uses, line for line, and blanks the rest`, () => {
      const lines = text.replace(/\n$/, '').split('\n');
      const blanked = pruneObject(lines, json);
      assert.equal(lines.length, text.replace(/\n$/, '').split('\n').length);
      assert.ok(blanked > lines.length * 0.9, `${blanked} of ${lines.length} blanked`);
      const pruned = parseYaml(lines.join('\n')) as Json;
      assert.deepEqual(used(pruned), used(pod));
      assert.equal(pruned.metadata.managedFields, null);
      assert.equal(pruned.spec.containers[0].env, null);
      // Every line that stays is where it was.
      const original = text.split('\n');
      lines.forEach((line, i) => line !== '' && !line.endsWith('null') && !line.endsWith('null,') && assert.equal(line, original[i]));
    });
  }

  it('the reader gives the same records from a pod of close to 1 MiB as from its small self, at the lines the big one has them', async () => {
    // Four-space JSON is about twice the compact size: both prints stay under the 1 MiB an object may have.
    const pod = bigPod(360 << 10);
    const small = podObject('web-6d4cf56db6-abcde', 'shop', true);
    for (const [of, path] of [
      [yamlOf, 'pod.yaml'],
      [jsonOf, 'pod.json'],
    ] as const) {
      assert.ok(of(pod).length > 400 << 10 && of(pod).length < 1 << 20, `${of(pod).length} bytes`);
      const big = await records(of(pod), path);
      const alone = await records(of(small), path);
      assert.deepEqual(big.reasons, []);
      assert.deepEqual(
        big.pods.map(({ line: _line, ...r }) => r),
        alone.pods.map(({ line: _line, ...r }) => r),
      );
      assert.ok(big.pods.some((p) => p.lastReason === 'OOMKilled' && p.memoryLimit === '250Mi'));
      // Each record's line is where its status entry starts in the big file.
      const lines = of(pod).split('\n');
      for (const p of big.pods)
        assert.match(lines[p.line - 1]!, new RegExp(`^ *(?:- )?(?:\\{|"?name"?: "?${p.container}|"?image"?:|"?containerID"?:)|^ *\\{$`));
    }
  });

  it('leaves block scalars and quoted text under kept keys alone, and objects without metadata or spec', () => {
    const yaml = [
      'apiVersion: v1',
      'kind: Pod',
      'metadata:',
      '  name: web-1',
      '  namespace: shop',
      'status:',
      '  containerStatuses:',
      '  - lastState:',
      '      terminated:',
      '        message: |',
      '          spec:',
      '            labels: not a key',
      '        reason: Error',
      '    name: app',
    ];
    const lines = [...yaml];
    assert.equal(pruneObject(lines, false), 0);
    assert.deepEqual(lines, yaml);
    const event = [
      'apiVersion: v1',
      'count: 3',
      'involvedObject:',
      '  kind: Pod',
      '  name: web-1',
      'kind: Event',
      'message: "Back-off restarting',
      '  failed container"',
      'reason: BackOff',
    ];
    const copy = [...event];
    assert.equal(pruneObject(copy, false), 0);
    assert.deepEqual(copy, event);
  });

  it('moves the comma of a dropped JSON member to its key line, so the object stays well-formed', () => {
    const lines = ['{', '    "metadata": {', '        "labels": {', '            "app": "web"', '        },', '        "name": "web-1"', '    }', '}'];
    pruneObject(lines, true);
    assert.deepEqual(JSON.parse(lines.join('\n')), { metadata: { labels: null, name: 'web-1' } });
  });
});
