// Shared helpers for the DNS tests: run an input through the real pipeline (sniffing included)
// and collect what the parsers emitted.

import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { CorednsQueryRecord, DnsAnswerRecord, DnsQueryRecord, InputStats, LdRecord } from '../../src/core/types.js';
import { readEntry } from '../../src/engine/pipeline.js';

export const DATA = fileURLToPath(new URL('./data/', import.meta.url));

export interface Parsed {
  stats: InputStats;
  queries: DnsQueryRecord[];
  answers: DnsAnswerRecord[];
  coredns: CorednsQueryRecord[];
  /** Every record, in order. */
  records: LdRecord[];
  unparsed: { line: number; reason: string }[];
}

export async function parseText(path: string, content: string): Promise<Parsed> {
  const records: LdRecord[] = [];
  const unparsed: Parsed['unparsed'] = [];
  const result = await readEntry(
    { path, stream: Readable.from([Buffer.from(content)]), size: null },
    { record: (r) => records.push(r), unparsed: (_s, line, reason) => unparsed.push({ line, reason }) },
  );
  if (result.error) throw result.error;
  return {
    stats: result.stats,
    queries: records.filter((r): r is DnsQueryRecord => r.kind === 'dns-query'),
    answers: records.filter((r): r is DnsAnswerRecord => r.kind === 'dns-answer'),
    coredns: records.filter((r): r is CorednsQueryRecord => r.kind === 'coredns-query'),
    records,
    unparsed,
  };
}

export function parseFile(file: string): Promise<Parsed> {
  return parseText(file, readFileSync(file, 'utf8'));
}
