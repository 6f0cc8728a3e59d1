// Issue 44, item 3 (audit round 3, f4-table-dos.sh): a kubectl table costs time in proportion to its
// rows' length, not to its header's width. A header of 200,000 columns (800 KB, 24 KB gzipped) made
// each of 2,000 short rows cost 200,000 cells: 7 s, and 83 s for 20,000 rows. kubectl's widest
// table read here has 11 columns (`get events -A -o wide`): a line of more than MAX_COLUMNS words
// is not a header. The rows are `get events` rows as kubectl prints them.

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { KubeEventRecord, LdRecord } from '../../src/core/types.js';
import { readEntry } from '../../src/engine/pipeline.js';
import { MAX_COLUMNS, tableHeader } from '../../src/parsers/kubectl-table.js';

async function read(content: string) {
  const records: LdRecord[] = [];
  const started = process.hrtime.bigint();
  const { stats } = await readEntry(
    { path: 'events.txt', stream: Readable.from([Buffer.from(content)]), size: null },
    { record: (r) => records.push(r) },
    {},
    'kubectl',
  );
  return { stats, records, ms: Number(process.hrtime.bigint() - started) / 1e6 };
}

/** `kubectl get events -A -o wide`: the widest events table, 11 columns. */
const WIDE_HEADER =
  'NAMESPACE   LAST SEEN   TYPE      REASON      OBJECT                        SUBOBJECT                        SOURCE                MESSAGE                                                   FIRST SEEN   COUNT   NAME';
const wideRow = (i: number) =>
  `shop        5m          Warning   Unhealthy   pod/web-6d4cf56db6-${String(i).padStart(5, '0')}   spec.containers{linkerd-proxy}   kubelet, worker-1     Readiness probe failed: HTTP probe failed with statuscode: 503   1h           3       web-6d4cf56db6-x.17d8a1b2c3d4e5f6`;

describe('kubectl tables cost their rows, not their header (issue 44, item 3)', () => {
  it(`a line of more than ${MAX_COLUMNS} words is not a header; kubectl's widest is one`, () => {
    assert.equal(tableHeader('TYPE     REASON   MESSAGE' + '   A'.repeat(200_000)), null);
    assert.equal(tableHeader('TYPE     REASON   MESSAGE' + '   A'.repeat(MAX_COLUMNS)), null);
    assert.equal(tableHeader(WIDE_HEADER)?.kind, 'events');
    assert.equal(tableHeader(WIDE_HEADER)?.columns.length, 11);
  });

  it('the widest real table is still read, row by row', async () => {
    const { records } = await read([WIDE_HEADER, wideRow(1), wideRow(2), ''].join('\n'));
    const events = records.filter((r): r is KubeEventRecord => r.kind === 'kube-event');
    assert.equal(events.length, 2);
    assert.equal(events[0]!.count, 3);
    assert.equal(events[0]!.container, 'linkerd-proxy');
  });

  it('20,000 rows under a 200,000-column header take well under a second of the 83 it took', async () => {
    const header = 'TYPE     REASON   MESSAGE' + '   A'.repeat(200_000);
    const { ms, stats } = await read([header, ...Array.from({ length: 20_000 }, () => 'Normal   Pulled   msg'), ''].join('\n'));
    assert.equal(stats.lines, 20_001);
    assert.ok(ms < 5_000, `${ms.toFixed(0)} ms`);
  });
});
