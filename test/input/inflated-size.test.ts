// The planner weighs a gzip file by the inflated size in its trailer. The estimate must be exact
// for a whole gzip file, fall back to the size on disk whenever the trailer cannot be the whole
// file's, and never fail a run: the reader still reports a broken file in its one line.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { defaultRules } from '../../src/cli/run-analyze.js';
import { ANALYSIS_CATALOG, analyzeInputs, type AnalyzeOptions } from '../../src/analysis/analyze.js';
import { parallelPlanFor } from '../../src/engine/plan.js';
import { discoverInputs } from '../../src/input/discover.js';
import { bytesWhenRead, holdsTar, inflatedSize, plausibleInflatedSize } from '../../src/input/inflated-size.js';

let dir = '';
const MiB = 1 << 20;

/** Log-like text that compresses about as well as real proxy logs (neither 1:1 nor 1000:1). */
function logText(lines: number, seed = 1): Buffer {
  let x = seed;
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(
      `[${(i / 10).toFixed(6)}s]  WARN ThreadId(01) outbound:proxy{addr=10.42.${x % 250}.${(x >> 8) % 250}:8080}: linkerd_reconnect: Failed to connect error=Connection refused (os error 111)`,
    );
  }
  return Buffer.from(out.join('\n') + '\n');
}

const file = (name: string, data: Buffer | string) => {
  const p = path.join(dir, name);
  writeFileSync(p, data);
  return p;
};
const sizeOf = (p: string) => statSync(p).size;

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ld-isize-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('inflatedSize', () => {
  it('reads a whole gzip file’s inflated size from its trailer, and a plain file’s size from disk', async () => {
    const text = logText(20_000);
    const gz = file('pod.log.gz', gzipSync(text));
    assert.ok(sizeOf(gz) * 4 < text.length, 'the fixture must compress, or the estimate equals the size on disk by chance');
    assert.equal(await inflatedSize(gz, sizeOf(gz)), text.length);
    const plain = file('pod.log', text);
    assert.equal(await inflatedSize(plain, sizeOf(plain)), text.length);
  });

  it('falls back to the size on disk for a truncated gzip file, a non-gzip file named .gz, a tiny file and a missing one', async () => {
    const whole = gzipSync(logText(20_000, 7));
    const truncated = file('cut.log.gz', whole.subarray(0, whole.length >> 1));
    assert.notEqual(truncated.length, 0);
    // The last four bytes of a cut stream are compressed data: read as ISIZE they are not a size this file can inflate to.
    assert.ok(!plausibleInflatedSize(Buffer.from(whole.subarray(0, whole.length >> 1)).readUInt32LE((whole.length >> 1) - 4), whole.length >> 1));
    assert.equal(await inflatedSize(truncated, sizeOf(truncated)), sizeOf(truncated));
    const fake = file('fake.log.gz', logText(100));
    assert.equal(await inflatedSize(fake, sizeOf(fake)), sizeOf(fake));
    const tiny = file('tiny.gz', Buffer.from([0x1f, 0x8b, 8, 0]));
    assert.equal(await inflatedSize(tiny, 4), 4);
    assert.equal(await inflatedSize(path.join(dir, 'missing.gz'), 1234), 1234);
  });

  it('takes an ISIZE only where deflate can produce it', () => {
    assert.ok(plausibleInflatedSize(100 * MiB, 10 * MiB));
    assert.ok(plausibleInflatedSize(0, 20), 'gzip of an empty file: 20 bytes that inflate to none');
    assert.ok(!plausibleInflatedSize(2000 * 10 * MiB, 10 * MiB), 'past deflate’s 1032:1');
    // 5 GiB inflated from 50 MiB: ISIZE holds 1 GiB (mod 2^32), the data is 50 MiB, fine; 4 GiB + 1 MiB holds 1 MiB: too little.
    assert.ok(!plausibleInflatedSize((4096 + 1) * MiB - 4096 * MiB, 50 * MiB), 'an ISIZE that wrapped past 4 GiB');
  });

  it('counts the last member of a multi-member gzip file: an underestimate, never more than the data', async () => {
    const a = logText(20_000, 3);
    const b = logText(15_000, 4);
    const both = file('two.log.gz', Buffer.concat([gzipSync(a), gzipSync(b)]));
    assert.equal(await inflatedSize(both, sizeOf(both)), b.length);
  });

  it('weighs every file source by the bytes it gives', async () => {
    const text = logText(5000, 9);
    const gz = file('w.log.gz', gzipSync(text));
    const plain = file('w.log', text);
    const sizes = await bytesWhenRead([
      { type: 'file', path: gz, size: sizeOf(gz), origin: dir },
      { type: 'stdin', path: '-', origin: '-' },
      { type: 'file', path: plain, size: sizeOf(plain), origin: dir },
    ]);
    assert.deepEqual(
      [...sizes],
      [
        [gz, text.length],
        [plain, text.length],
      ],
    );
  });
});

describe('holdsTar', () => {
  it('tells a tar bundle, plain or gzipped, from other files', async () => {
    const header = Buffer.alloc(1024);
    header.write('pod.log', 0);
    header.write('ustar', 257, 'latin1');
    const tar = file('b.tar', header);
    assert.equal(await holdsTar(tar), true);
    assert.equal(await holdsTar(file('b.tgz', gzipSync(header))), true);
    assert.equal(await holdsTar(file('p.log.gz', gzipSync(logText(100)))), false);
    assert.equal(await holdsTar(file('broken.tgz', Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3]))), false);
  });
});

describe('the planner with gzip inputs', () => {
  const jobs2: AnalyzeOptions = { jobs: 2, parallelMinBytes: 2 * MiB };

  it('reads gzip that inflates past the parallel threshold on workers, with the sequential report', async () => {
    const sub = path.join(dir, 'gz-bundle');
    mkdirSync(sub);
    for (let i = 0; i < 4; i++) writeFileSync(path.join(sub, `web-7d9f8c6b5-x2x8${i}.log.gz`), gzipSync(logText(6000, 20 + i)));
    const files = Array.from({ length: 4 }, (_, i) => path.join(sub, `web-7d9f8c6b5-x2x8${i}.log.gz`));
    const onDisk = files.reduce((n, f) => n + sizeOf(f), 0);
    const inflated = [...(await bytesWhenRead(files.map((f) => ({ type: 'file' as const, path: f, size: sizeOf(f), origin: sub })))).values()].reduce(
      (n, b) => n + b,
      0,
    );
    assert.ok(onDisk < 2 * MiB && inflated >= 2 * MiB, `the fixture sits between the thresholds (${onDisk} on disk, ${inflated} inflated)`);
    const plan = await parallelPlanFor(await discoverInputs([sub]), { rules: defaultRules(), collectors: [] }, { ...jobs2, catalog: ANALYSIS_CATALOG });
    assert.ok(plan, 'weighed by their inflated bytes, the files are worth the workers');
    assert.deepEqual(
      [...plan.readBytes.values()],
      files.map((_, i) => logText(6000, 20 + i).length),
    );
    const totals: (number | null)[] = [];
    const progress = { start: (t: number | null) => totals.push(t), file() {}, bytes() {}, stop() {} };
    const sequential = await analyzeInputs([sub], defaultRules(), { jobs: 1, progress });
    const parallel = await analyzeInputs([sub], defaultRules(), { ...jobs2, progress });
    assert.deepEqual(totals, [inflated, inflated], 'the progress total is the inflated bytes, as the bar counts them');
    assert.deepEqual(parallel.inputs, sequential.inputs);
    assert.deepEqual(parallel.findings, sequential.findings);
  });

  it('still reports a truncated .gz and a non-gzip .gz in the reader’s one line', async () => {
    const sub = path.join(dir, 'broken-bundle');
    mkdirSync(sub);
    const whole = gzipSync(logText(20_000, 11));
    writeFileSync(path.join(sub, 'a-cut.log.gz'), whole.subarray(0, whole.length >> 1));
    writeFileSync(path.join(sub, 'b-fake.log.gz'), logText(3000, 12));
    writeFileSync(path.join(sub, 'c-whole.log.gz'), gzipSync(logText(20_000, 13)));
    const sequential = await analyzeInputs([sub], defaultRules(), { jobs: 1 });
    const parallel = await analyzeInputs([sub], defaultRules(), { jobs: 2, parallelMinBytes: 1 });
    const describe = (r: typeof sequential) => r.errors.map((e) => `${path.basename(e.path)}: ${e.message} @${e.line ?? '-'}`);
    assert.deepEqual(describe(sequential), [`a-cut.log.gz: truncated gzip data (unexpected end of file) @-`]);
    assert.deepEqual(describe(parallel), describe(sequential));
    assert.deepEqual(parallel.inputs, sequential.inputs);
  });
});
