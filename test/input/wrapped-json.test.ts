// The joiner of JSON log lines a terminal wrapped (src/input/wrapped-json.ts), on the shape of
// linkerd/linkerd2#14605: a destination controller's logrus JSON line broken at the screen width.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WrappedJsonJoiner } from '../../src/input/wrapped-json.js';

function run(lines: readonly string[]): [string, number][] {
  const out: [string, number][] = [];
  const joiner = new WrappedJsonJoiner((text, line) => out.push([text, line]));
  lines.forEach((text, i) => joiner.feed(text, i + 1));
  joiner.end();
  return out;
}

const WHOLE =
  '{"level":"warning","msg":"failed to retrieve resource from direct API call apps/v1, Kind=StatefulSet/qa2-dev/nats-qa2-dev: statefulsets.apps \\"nats-qa2-dev\\" is forbidden: User \\"system:serviceaccount:linkerd:linkerd-destination\\" cannot get resource \\"statefulsets\\" in API group \\"apps\\" in the namespace \\"qa2-dev\\"","time":"2025-10-10T15:24:40Z"}';

describe('wrapped JSON lines', () => {
  it('joins a line broken at the terminal width back into the record, numbered by its first line', () => {
    const cut = WHOLE.indexOf('linkerd-destination') + 3;
    const out = run([WHOLE.slice(0, cut), WHOLE.slice(cut)]);
    assert.deepEqual(out, [[WHOLE, 1]]);
    assert.doesNotThrow(() => JSON.parse(out[0]![0]));
  });

  it('joins a record wrapped over three lines between two whole ones', () => {
    const out = run(['{"level":"info","msg":"a"}', WHOLE.slice(0, 80), WHOLE.slice(80, 200), WHOLE.slice(200), '{"level":"info","msg":"b"}']);
    assert.deepEqual(
      out.map(([, line]) => line),
      [1, 2, 5],
    );
    assert.equal(out[1]![0], WHOLE);
  });

  it('hands a cut record on unchanged when the next line starts a record of its own, or the input ends', () => {
    const cut = WHOLE.slice(0, 100);
    assert.deepEqual(run([cut, '{"level":"info","msg":"next"}']), [
      [cut, 1],
      ['{"level":"info","msg":"next"}', 2],
    ]);
    assert.deepEqual(run([cut, '[     0.002s]  INFO ThreadId(01) linkerd2_proxy: release 2.200.0']), [
      [cut, 1],
      ['[     0.002s]  INFO ThreadId(01) linkerd2_proxy: release 2.200.0', 2],
    ]);
    assert.deepEqual(run([cut, '2024/10/15 13:59:04 http: TLS handshake error']), [
      [cut, 1],
      ['2024/10/15 13:59:04 http: TLS handshake error', 2],
    ]);
    assert.deepEqual(run([cut]), [[cut, 1]]);
  });

  it('gives up after eight parts without a closing brace, losing no line', () => {
    const lines = ['{"msg":"never closed', ...Array.from({ length: 10 }, (_, i) => `part ${i}`)];
    assert.deepEqual(
      run(lines).map(([text]) => text),
      lines,
    );
  });

  it('leaves whole JSON lines, pretty-printed JSON and other text alone', () => {
    const lines = ['{"a":1}', '{', '  "kind": "Pod"', '}', 'plain text }', '{"a":1}  '];
    assert.deepEqual(
      run(lines).map(([text]) => text),
      lines,
    );
  });
});
