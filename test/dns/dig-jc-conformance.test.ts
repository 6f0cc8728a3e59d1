// The 24 dig fixtures of kellyjonbrazil/jc (BIND 9.10–9.11 output from CentOS, macOS, Ubuntu)
// against jc's expected JSON: every record's name, TTL, type and data, in file order, and every
// response's status and question.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DATA, parseFile } from './helpers.js';

interface JcRecord {
  name: string;
  ttl: number;
  type: string;
  data: string;
}
type JcMessage = Record<string, unknown> & { flags?: string[]; status?: string; question?: { name: string; type: string } };

const JC = join(DATA, 'jc-dig');
const fixtures = readdirSync(JC, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) =>
    readdirSync(join(JC, d.name))
      .filter((f) => f.endsWith('.out'))
      .map((f) => join(d.name, f)),
  )
  .sort();

const RECORD_KEYS = new Set(['answer', 'authority', 'additional', 'axfr']);

/** jc drops the quotes around a single TXT string outside zone transfers; the parser keeps rdata as dig printed it. */
function comparableData(type: string, ours: string, theirs: string): string {
  if (type === 'TXT' && !theirs.startsWith('"') && /^".*"$/.test(ours)) return ours.slice(1, -1);
  return ours;
}

describe('dig parser: jc conformance fixtures', () => {
  it('has all 24 fixture pairs', () => {
    assert.equal(fixtures.length, 24);
  });

  for (const fixture of fixtures) {
    it(fixture, async () => {
      const expected = JSON.parse(readFileSync(join(JC, fixture.replace(/\.out$/, '.json')), 'utf8')) as JcMessage[];
      const parsed = await parseFile(join(JC, fixture));
      assert.equal(parsed.stats.kind, 'dig', 'sniffed as dig');
      assert.deepEqual(parsed.unparsed, []);

      const expectedRecords: (JcRecord & { section: string })[] = [];
      for (const message of expected) {
        for (const [key, value] of Object.entries(message)) {
          if (!RECORD_KEYS.has(key)) continue;
          for (const r of value as JcRecord[]) expectedRecords.push({ ...r, section: key === 'axfr' ? 'answer' : key });
        }
      }
      assert.equal(parsed.answers.length, expectedRecords.length, 'record count');
      parsed.answers.forEach((ours, i) => {
        const theirs = expectedRecords[i]!;
        assert.deepEqual(
          { section: ours.section, name: ours.name, ttl: ours.ttl, type: ours.type, data: comparableData(ours.type, ours.data, theirs.data) },
          { section: theirs.section, name: theirs.name, ttl: theirs.ttl, type: theirs.type, data: theirs.data },
          `record ${i} (line ${ours.line})`,
        );
      });

      // jc also lists the `;; Sending:` half of +qr; only responses become query records here.
      const responses = expected.filter((m) => m.status !== undefined && (m.flags === undefined || m.flags.includes('qr')));
      assert.equal(parsed.queries.length, Math.max(responses.length, expected.length === 1 && !expected[0]!.status ? 1 : 0));
      responses.forEach((m, i) => {
        const q = parsed.queries[i]!;
        assert.equal(q.status, m.status);
        assert.equal(q.name, m.question!.name);
        assert.equal(q.type, m.question!.type);
        assert.deepEqual(q.flags, m.flags);
      });
    });
  }
});
