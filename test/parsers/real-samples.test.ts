// The measurement issue 17 asks for: of the proxy lines real users pasted (test/data/real, copied
// from public threads), the share parsed with the right level and target, per format, against a
// hand-labelled ground truth. And every real artifact must be read as the kind it is.

import assert from 'node:assert/strict';
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { InputKind, InputStats, LdRecord, ProxyLogRecord } from '../../src/core/types.js';
import { readEntry } from '../../src/engine/pipeline.js';

const REAL = fileURLToPath(new URL('../data/real/', import.meta.url));

interface Truth {
  file: string;
  line: number;
  format: string;
  level?: string;
  target?: string;
}

interface Read {
  stats: InputStats;
  records: LdRecord[];
  unparsed: number[];
}

async function read(file: string): Promise<Read> {
  const records: LdRecord[] = [];
  const unparsed: number[] = [];
  const path = join(REAL, file);
  const result = await readEntry(
    { path: file, stream: createReadStream(path), size: null },
    { record: (r) => records.push(r), unparsed: (_s, line) => unparsed.push(line) },
  );
  if (result.error) throw result.error;
  return { stats: result.stats, records, unparsed };
}

function loadTruth(): Truth[] {
  const rows = readFileSync(join(REAL, 'ground-truth.tsv'), 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'));
  return rows.slice(1).map((row) => {
    const [file, line, format, level, target] = row.split('\t');
    const truth: Truth = { file: file!, line: Number(line), format: format! };
    if (level !== undefined) truth.level = level;
    if (target !== undefined) truth.target = target;
    return truth;
  });
}

/** Formats whose lines carry no record of their own. */
const NOT_RECORDS = new Set(['noise', 'describe', 'continuation', 'json-body']);

describe('real pasted proxy logs: parsed with the right level and target', () => {
  const truth = loadTruth();
  const files = [...new Set(truth.map((t) => t.file))];

  it('labels every non-blank line of every proxy and policy sample', () => {
    for (const file of files) {
      const lines = readFileSync(join(REAL, file), 'utf8').split('\n');
      const labelled = new Set(truth.filter((t) => t.file === file).map((t) => t.line));
      lines.forEach((text, i) => {
        if (text.trim() !== '') assert.ok(labelled.has(i + 1), `${file}:${i + 1} has no ground-truth row`);
      });
    }
  });

  it('parses at least 95 % of real proxy lines with the right level and target, overall and per format', async (t) => {
    const shares = new Map<string, { right: number; total: number }>();
    const wrong: string[] = [];
    for (const file of files) {
      const { records, unparsed } = await read(file);
      const byLine = new Map(records.filter((r): r is ProxyLogRecord => r.kind === 'proxy-log').map((r) => [r.line, r]));
      for (const row of truth.filter((r) => r.file === file)) {
        const record = byLine.get(row.line);
        if (NOT_RECORDS.has(row.format)) {
          assert.equal(record, undefined, `${file}:${row.line} (${row.format}) must not become a record`);
          if (row.format !== 'describe') assert.ok(!unparsed.includes(row.line), `${file}:${row.line} (${row.format}) must not count as unparsed`);
          continue;
        }
        const share = shares.get(row.format) ?? { right: 0, total: 0 };
        shares.set(row.format, share);
        share.total++;
        const levelRight =
          row.level === '-' ? record?.level === 'INFO' && record.levelAbsent === true : record?.level === row.level && record?.levelAbsent === undefined;
        const targetRight = record?.target === (row.target === '(none)' ? '' : row.target);
        if (levelRight && targetRight) share.right++;
        else wrong.push(`${file}:${row.line} ${row.format}: want ${row.level} ${row.target}, got ${record ? `${record.level} ${record.target}` : 'no record'}`);
      }
    }
    let right = 0;
    let total = 0;
    for (const [format, share] of [...shares].sort()) {
      right += share.right;
      total += share.total;
      t.diagnostic(`${format}: ${share.right}/${share.total} (${((100 * share.right) / share.total).toFixed(1)} %)`);
    }
    t.diagnostic(`overall: ${right}/${total} (${((100 * right) / total).toFixed(1)} %)`);
    for (const w of wrong) t.diagnostic(`wrong: ${w}`);
    assert.ok(total >= 130, `the ground truth covers ${total} lines`);
    assert.ok(right / total >= 0.95, `${right}/${total} real lines parsed right:\n${wrong.join('\n')}`);
    // The bar holds per format too: a rare format must not hide behind the common plain lines.
    for (const [format, share] of shares) assert.ok(share.right / share.total >= 0.95, `${format}: only ${share.right}/${share.total}`);
  });

  it('joins the rest of a terminal-wrapped line onto its record', async () => {
    const { records } = await read('proxy-log/l2-5662-accessdenied-wrapped.log');
    const wrapped = records.filter((r): r is ProxyLogRecord => r.kind === 'proxy-log' && r.line === 2)[0]!;
    assert.equal(wrapped.fields.error, 'unexpected error: no server certificate chain resolved');
  });

  it('reads a pretty-printed JSON record as one record on its first line', async () => {
    const { records, unparsed } = await read('proxy-log/l2-5591-json-pretty-os-error-107.log');
    assert.equal(records.length, 1);
    const r = records[0] as ProxyLogRecord;
    assert.deepEqual(
      [r.line, r.format, r.uptime, r.message, r.fields.error],
      [1, 'json', 96886.162669, 'Connection closed', 'connection error: Transport endpoint is not connected (os error 107)'],
    );
    assert.deepEqual(
      r.spans.map((s) => s.name),
      ['inbound', 'accept'],
    );
    assert.deepEqual(unparsed, []);
  });
});

describe('real artifacts: sniffed as the kind they are', () => {
  const expected = JSON.parse(readFileSync(join(REAL, 'expected.json'), 'utf8')) as { file: string; kind: InputKind; acceptableKinds: InputKind[] }[];

  it('reads every artifact as one of its acceptable kinds, and as its real kind rather than unknown', async () => {
    assert.ok(expected.length >= 50);
    for (const entry of expected) {
      const { stats } = await read(entry.file);
      assert.ok(entry.acceptableKinds.includes(stats.kind), `${entry.file}: sniffed ${stats.kind}, acceptable ${entry.acceptableKinds.join(', ')}`);
      assert.equal(stats.kind, entry.kind, `${entry.file}: sniffed ${stats.kind}, its real kind is ${entry.kind}`);
    }
  });
});
