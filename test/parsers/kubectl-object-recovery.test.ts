// Issue 44, item 2 (audit round 3, f2-dropped-documents.sh and f3-real-pod-yaml.sh): a Kubernetes
// object that does not parse costs that object, with its lines named and counted as unread, never
// the rest of the input; a List is read item by item (one bad item, or a listing past the bound, loses
// nothing else); a stray `{` no longer swallows the describe after it; and a real pod YAML or
// JSON, whose `status` starts after its spec, far past the lines the sniffer reads, is recognised
// by its apiVersion and kind. The objects are generated (test/support/kube-shapes.ts) and printed
// as kubectl prints them: go-yaml's layout (a list's `- ` at its parent's indent) and JSON indented
// by four spaces.

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import type { LdRecord, PodStatusRecord } from '../../src/core/types.js';
import { readEntry } from '../../src/engine/pipeline.js';
import { MAX_DOCUMENT_BYTES } from '../../src/parsers/kubectl-object.js';
import { sniffKind, SNIFF_LINES } from '../../src/parsers/sniff.js';
import { describePod, podObject } from '../support/kube-shapes.js';

async function parse(content: string) {
  const records: LdRecord[] = [];
  const reasons: string[] = [];
  const { stats } = await readEntry(
    { path: 'pods.yaml', stream: Readable.from([Buffer.from(content)]), size: null },
    { record: (r) => records.push(r), unparsed: (_s, _line, reason) => reasons.push(reason) },
  );
  const pods = records.filter((r): r is PodStatusRecord => r.kind === 'pod-status');
  const oom = pods.filter((p) => p.lastReason === 'OOMKilled').map((p) => `${p.pod}/${p.container}`);
  return { stats, pods, oom, reasons };
}

/** `kubectl get pods -o yaml`: a v1 List, items at the margin as go-yaml writes them. */
const yamlList = (items: object[]) =>
  stringify({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } }, { indentSeq: false, lineWidth: 0, aliasDuplicateObjects: false });
const jsonList = (items: object[]) => JSON.stringify({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } }, null, 4) + '\n';
const pods = (n: number, oomAt: number) => Array.from({ length: n }, (_, i) => podObject(`web-6d4cf56db6-${String(i).padStart(5, '0')}`, 'shop', i === oomAt));

describe('a Kubernetes object that does not parse costs only itself (issue 44, item 2)', () => {
  it('one tab-indented line costs its List item: the other items are read, its lines counted and named', async () => {
    const text = yamlList(pods(3, 2));
    const lines = text.split('\n');
    // A tab where go-yaml indents: the second item's `restartCount` line (as pasted through an editor).
    const secondItem = lines.findIndex((l, i) => i > 0 && l === '- apiVersion: v1' && lines.slice(0, i).filter((x) => x === '- apiVersion: v1').length === 1);
    const tabbed = lines.findIndex((l, i) => i > secondItem && /^ +restartCount: 0$/.test(l));
    lines[tabbed] = lines[tabbed]!.replace(/^ +/, '\t\t');
    const { oom, stats, reasons, pods: read } = await parse(lines.join('\n'));
    assert.deepEqual(oom, ['web-6d4cf56db6-00002/linkerd-proxy']);
    assert.ok(read.some((p) => p.pod === 'web-6d4cf56db6-00000'));
    assert.ok(!read.some((p) => p.pod === 'web-6d4cf56db6-00001'));
    const thirdItem = lines.findIndex((l, i) => i > secondItem && l === '- apiVersion: v1');
    // Every line of the broken item is unread, none of the others.
    assert.equal(stats.unparsed, thirdItem - secondItem);
    assert.equal(reasons.length, 1);
    assert.match(
      reasons[0]!,
      new RegExp(`^the Kubernetes object at lines ${secondItem + 1}-${thirdItem} does not parse \\(line ${tabbed + 1}: [^)]+\\); it was not read$`),
    );
    assert.equal(stats.firstUnreadObject?.line, secondItem + 1);
  });

  it(`a YAML List past ${MAX_DOCUMENT_BYTES >> 20} MiB is read item by item: an OOMKill in its first item is found`, async () => {
    const items = pods(1, 0);
    const filler = pods(1, -1)[0]!;
    const text = yamlList([
      ...items,
      ...Array.from({ length: 100 }, (_, i) => ({ ...filler, metadata: { name: `web-${i}`, namespace: 'shop', annotations: { note: 'x'.repeat(90_000) } } })),
    ]);
    assert.ok(text.length > MAX_DOCUMENT_BYTES);
    const { oom, stats } = await parse(text);
    assert.deepEqual(oom, ['web-6d4cf56db6-00000/linkerd-proxy']);
    assert.equal(stats.unparsed, 0);
  });

  it(`a JSON List past ${MAX_DOCUMENT_BYTES >> 20} MiB is read item by item too, the OOMKill last`, async () => {
    const filler = pods(1, -1)[0]!;
    const text = jsonList([
      ...Array.from({ length: 100 }, (_, i) => ({ ...filler, metadata: { name: `web-${i}`, namespace: 'shop', annotations: { note: 'x'.repeat(90_000) } } })),
      ...pods(1, 0),
    ]);
    assert.ok(text.length > MAX_DOCUMENT_BYTES);
    const { oom, stats, pods: read } = await parse(text);
    assert.deepEqual(oom, ['web-6d4cf56db6-00000/linkerd-proxy']);
    assert.equal(read.filter((p) => p.container === 'linkerd-proxy').length, 101);
    assert.equal(stats.unparsed, 0);
  });

  it('one List item past the bound costs that item alone, counted line by line', async () => {
    // Lines under the 1 MiB a line may have, many of them (a pod whose annotations hold large documents).
    const annotations = Object.fromEntries(
      Array.from({ length: Math.ceil(MAX_DOCUMENT_BYTES / 1_000) + 100 }, (_, i) => [`example.com/note-${i}`, 'x'.repeat(1_000)]),
    );
    const huge = { ...pods(1, -1)[0]!, metadata: { name: 'huge', namespace: 'shop', annotations } };
    const text = yamlList([huge, ...pods(2, 1)]);
    const { oom, stats, reasons } = await parse(text);
    assert.deepEqual(oom, ['web-6d4cf56db6-00001/linkerd-proxy']);
    assert.ok(stats.unparsed > MAX_DOCUMENT_BYTES / 1_000);
    assert.match(reasons[0]!, /^the Kubernetes object at lines 3-\d+ is larger than 1 MiB; it was not read/);
  });

  it('a stray `{` before a describe costs the `{` and what followed it as JSON, not the describe', async () => {
    const text = ['from the ticket:', '{', '  "note": "truncated"', describePod({ name: 'web-6d4cf56db6-abcde', namespace: 'shop', oomRestarts: 3 })].join(
      '\n',
    );
    const { oom, stats, reasons } = await parse(text);
    assert.equal(stats.kind, 'kubectl');
    assert.deepEqual(oom, ['web-6d4cf56db6-abcde/linkerd-proxy']);
    assert.deepEqual(reasons.slice(-1), ['the Kubernetes object at lines 2-3 is cut off: line 4 is not JSON; it was not read']);
    // `from the ticket:` and the two lines of the cut JSON.
    assert.equal(stats.unparsed, 3);
  });

  it('a JSON object the input ends inside is counted as unread, with where it started', async () => {
    const text = JSON.stringify(podObject('web-6d4cf56db6-abcde', 'shop', true), null, 4).split('\n');
    const cut = text.slice(0, text.length - 20).join('\n');
    const { oom, stats, reasons } = await parse(cut);
    assert.deepEqual(oom, []);
    assert.equal(stats.unparsed, text.length - 20);
    assert.match(reasons[0]!, /^the Kubernetes object at lines 1-\d+ is cut off: the input ends inside it/);
  });

  for (const [format, print] of [
    ['YAML', (o: object) => stringify(o, { indentSeq: false, lineWidth: 0, aliasDuplicateObjects: false })],
    ['JSON', (o: object) => JSON.stringify(o, null, 4) + '\n'],
  ] as const) {
    it(`a whole pod ${format} whose status starts after line ${SNIFF_LINES} is recognised and read`, async () => {
      const text = print(podObject('web-6d4cf56db6-abcde', 'shop', true));
      const statusLine = text.split('\n').findIndex((l) => /^(?:status:| {4}"status": \{)$/.test(l));
      assert.ok(statusLine > SNIFF_LINES, `status at line ${statusLine + 1}`);
      assert.equal(sniffKind(text.split('\n').slice(0, SNIFF_LINES)), 'kubectl');
      const { oom, stats } = await parse(text);
      assert.equal(stats.unparsed, 0);
      assert.deepEqual(oom, ['web-6d4cf56db6-abcde/linkerd-proxy']);
    });
  }
});
