// The OpenMetrics parser test suite (prometheus/OpenMetrics tests/testdata/parsers, 211 cases) and
// real linkerd2 dumps, copied under test/data with their LICENSE and SOURCE.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { distinctSeries, parseDump } from './helpers.js';

const DATA = fileURLToPath(new URL('../data/', import.meta.url));
const CASES = join(DATA, 'openmetrics/cases');

interface Case {
  name: string;
  shouldParse: boolean;
  metrics: Buffer;
}

const cases: Case[] = readdirSync(CASES)
  .sort()
  .map((name) => {
    const spec = JSON.parse(readFileSync(join(CASES, name, 'test.json'), 'utf8')) as { file: string; shouldParse: boolean };
    return { name, shouldParse: spec.shouldParse, metrics: readFileSync(join(CASES, name, spec.file)) };
  });

/**
 * How many of the 167 invalid cases `--strict` rejects. Pinned: a change here means the strict
 * grammar changed, which must be deliberate.
 */
const STRICT_REJECTED_BAD_CASES = 167;
/** Invalid cases that even the lenient reader cannot read (broken values, labels, names). */
const LENIENT_REJECTED_BAD_CASES = 40;

describe('OpenMetrics conformance suite', () => {
  it('has the 211 cases: 44 valid, 167 bad_*', () => {
    assert.equal(cases.length, 211);
    assert.equal(cases.filter((c) => c.shouldParse).length, 44);
    assert.ok(cases.every((c) => c.shouldParse === !c.name.startsWith('bad_')));
  });

  it('parses all 44 valid cases, in strict and in lenient mode, without a rejected line', async () => {
    for (const c of cases.filter((x) => x.shouldParse)) {
      for (const strict of [true, false]) {
        const { unparsed } = await parseDump(c.metrics, { strict, path: c.name });
        assert.deepEqual(unparsed, [], `${c.name} (${strict ? 'strict' : 'lenient'})`);
      }
    }
  });

  it(`rejects ${STRICT_REJECTED_BAD_CASES} of the 167 bad_* cases in strict mode`, async () => {
    const accepted: string[] = [];
    for (const c of cases.filter((x) => !x.shouldParse)) {
      const { unparsed } = await parseDump(c.metrics, { strict: true, path: c.name });
      if (unparsed.length === 0) accepted.push(c.name);
    }
    assert.equal(167 - accepted.length, STRICT_REJECTED_BAD_CASES, `accepted: ${accepted.join(', ')}`);
  });

  it(`lenient mode reads what scrapers tolerate and rejects only ${LENIENT_REJECTED_BAD_CASES} malformed bad_* cases`, async () => {
    let rejected = 0;
    for (const c of cases.filter((x) => !x.shouldParse)) {
      const { unparsed } = await parseDump(c.metrics, { path: c.name });
      if (unparsed.length > 0) rejected++;
    }
    assert.equal(rejected, LENIENT_REJECTED_BAD_CASES);
  });

  it('emits the samples of valid cases with OpenMetrics family names', async () => {
    const hist = cases.find((c) => c.name === 'simple_histogram')!;
    const { samples } = await parseDump(hist.metrics);
    assert.ok(samples.length > 0 && samples.every((s) => s.family === 'a' && s.type === 'histogram'));
    const counter = cases.find((c) => c.name === 'counter_exemplars')!;
    const parsed = await parseDump(counter.metrics);
    assert.equal(parsed.samples[0]!.family, 'a');
    assert.equal(parsed.samples[0]!.exemplar?.value, 0.5);
  });
});

// Expected counts computed outside the parser, with:
//   grep -vc '^#' FILE                                                  (samples)
//   grep -c '^# TYPE' FILE                                              (families, all samples typed)
//   grep -v '^#' FILE | sed 's/ [^ ]*$//' | sort -u | wc -l             (distinct series)
const LINKERD2_DUMPS = [
  { file: 'sampleMetrics.txt', families: 28, samples: 199, series: 199, sections: ['slow-cooker-opaque-pod-mjqsw'] },
  { file: 'obfuscate-diagnostics-proxy-metrics.input', families: 1, samples: 4, series: 4, sections: [null] },
  { file: 'obfuscate-diagnostics-proxy-metrics.golden', families: 1, samples: 4, series: 4, sections: [null] },
];

describe('real linkerd2 dumps', () => {
  for (const dump of LINKERD2_DUMPS) {
    it(`${dump.file}: ${dump.families} families, ${dump.samples} samples, ${dump.series} series`, async () => {
      const { samples, unparsed, kind } = await parseDump(readFileSync(join(DATA, 'linkerd2', dump.file)), { path: dump.file, forceKind: false });
      assert.equal(kind, 'prometheus');
      assert.deepEqual(unparsed, []);
      assert.equal(samples.length, dump.samples);
      assert.equal(new Set(samples.map((s) => s.family)).size, dump.families);
      assert.equal(distinctSeries(samples), dump.series);
      assert.equal(samples.filter((s) => s.duplicate).length, dump.samples - dump.series);
      assert.deepEqual([...new Set(samples.map((s) => s.section))], dump.sections);
      assert.ok(
        samples.every((s) => s.type !== 'untyped'),
        'every sample is typed by its # TYPE line',
      );
    });
  }

  it('sampleMetrics.txt: histograms keep 26 buckets per label set and the latency family carries its _count/_sum', async () => {
    const { samples } = await parseDump(readFileSync(join(DATA, 'linkerd2', 'sampleMetrics.txt')));
    const latency = samples.filter((s) => s.family === 'control_response_latency_ms');
    assert.equal(latency.filter((s) => s.name.endsWith('_bucket')).length, 78);
    assert.equal(latency.filter((s) => s.name.endsWith('_count')).length, 3);
    const obfuscated = await parseDump(readFileSync(join(DATA, 'linkerd2', 'obfuscate-diagnostics-proxy-metrics.golden')));
    assert.deepEqual([...new Set(obfuscated.samples.map((s) => s.labels.target_addr))], ['f21fd977', 'd5b2560e', '541ef355']);
  });
});
