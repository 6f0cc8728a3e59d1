// Reads a log text through the real input pipeline (sniff, then the parser it picks), as the CLI
// would read a file at `path`: the records, the unparsed line numbers and the input's stats.

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import type { ProxyLogRecord } from '../../src/core/types.js';
import { readEntry } from '../../src/engine/pipeline.js';

export async function parseLogText(content: string, path: string) {
  const records: ProxyLogRecord[] = [];
  const unparsed: number[] = [];
  const { stats, error } = await readEntry(
    { path, stream: Readable.from([Buffer.from(content)]), size: null },
    { record: (r) => records.push(r as ProxyLogRecord), unparsed: (_s, line) => unparsed.push(line) },
  );
  assert.equal(error, undefined);
  return { records, unparsed, stats };
}
