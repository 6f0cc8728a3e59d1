// Memory stays bounded while a large dump streams through the parser and every rule. The probe
// runs in a child process with --expose-gc, so heap figures are what is retained after collection.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const PROBE = fileURLToPath(new URL('./memory-probe.ts', import.meta.url));

interface Probe {
  records: number;
  series: number;
  peakHeapMb: number;
  retainedHeapMb: number;
  maxRssMb: number;
  rules: string[];
}

function probe(series: number): Probe {
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', PROBE, String(series)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out) as Probe;
}

describe('memory on a 200,000-series dump', () => {
  it('keeps summaries, not samples: 10× the samples adds only a few MB of retained memory', () => {
    const small = probe(20_000);
    const large = probe(200_000);
    assert.equal(large.records, 200_000);
    assert.equal(large.series, 200_000, 'metric-cardinality saw every series');
    assert.deepEqual(large.rules, ['ingress-pod-ip-bypass', 'metric-cardinality', 'stale-endpoint-metrics']);
    // The dump is ~80 MB of text and 200,000 records; keeping either would cost hundreds of MB.
    // What grows is the duplicate-series table (8 bytes per slot, capped at 500,000 series) and
    // label-value sets until they reach their caps.
    assert.ok(large.peakHeapMb - small.peakHeapMb < 16, `heap grew from ${small.peakHeapMb} MB to ${large.peakHeapMb} MB`);
    assert.ok(large.peakHeapMb < 64, `peak heap ${large.peakHeapMb} MB`);
    assert.ok(large.maxRssMb < 300, `peak RSS ${large.maxRssMb} MB`);
  });
});
