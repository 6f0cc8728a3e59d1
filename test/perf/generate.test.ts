// The benchmark inputs are cached by name, so their generators must be deterministic: the same
// size and seed give the same bytes, and the shape is what the benchmark claims.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, it } from 'node:test';
import { writeMetricsDump, writeProxyLog } from '../../scripts/bench/generate.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ld-bench-gen-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

it('writes the same storm log for the same size and seed, and a different one for another seed', () => {
  const a = path.join(dir, 'a.log');
  const b = path.join(dir, 'b.log');
  const c = path.join(dir, 'c.log');
  writeProxyLog(a, { bytes: 300_000 });
  writeProxyLog(b, { bytes: 300_000 });
  writeProxyLog(c, { bytes: 300_000, seed: 7 });
  assert.equal(digest(a), digest(b));
  assert.notEqual(digest(a), digest(c));
  const lines = readFileSync(a, 'utf8').trimEnd().split('\n');
  const reconnect = lines.filter((l) => l.includes('linkerd_reconnect: Failed to connect')).length / lines.length;
  assert.ok(reconnect > 0.25 && reconnect < 0.35, `about 30 % reconnect warnings, got ${reconnect}`);
  assert.match(lines[0]!, /^\d{4}-\d\d-\d\dT[\d:.]+Z \[ *\d+\.\d{6}s\] {2}(INFO|WARN) /, 'the head carries kubectl --timestamps prefixes');
  assert.match(lines[lines.length - 1]!, /^\[ *\d+\.\d{6}s\] /, 'the tail is plain');
});

it('writes a dump with the requested series count, one # POD section per pod, each ending in # EOF', () => {
  const file = path.join(dir, 'dump.prom');
  const { series } = writeMetricsDump(file, { series: 5000, pods: 4 });
  const text = readFileSync(file, 'utf8');
  const samples = text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  assert.equal(samples.length, series);
  assert.ok(series >= 5000 && series < 5100);
  assert.equal(text.match(/^# POD .* \(\d of 4\)$/gm)?.length, 4);
  assert.equal(text.match(/^# EOF$/gm)?.length, 4);
  assert.ok(samples.filter((l) => l.startsWith('response_latency_ms_bucket{')).length / series > 0.8, 'dominated by latency buckets');
  writeMetricsDump(path.join(dir, 'again.prom'), { series: 5000, pods: 4 });
  assert.equal(digest(file), digest(path.join(dir, 'again.prom')));
});
