// Parallel analysis must give exactly the sequential report: same findings, evidence, line
// numbers and input statistics. Inputs are small (a few MB) with the split thresholds lowered, so
// every code path of the parallel reader runs: byte ranges, the state check between ranges,
// re-reads, several sources, gzip.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execFileSync } from 'node:child_process';
import { gunzipSync, gzipSync } from 'node:zlib';
import { writeMetricsDump, writeProxyLog } from '../../scripts/bench/generate.js';
import { gzipEach, splitIntoPods, tarball } from '../../scripts/bench/shapes.js';
import { defaultRules } from '../../src/cli/run-analyze.js';
import { ANALYSIS_CATALOG, analyzeInputs, finishWithVersions, type AnalyzeOptions } from '../../src/analysis/analyze.js';
import { readInputs } from '../../src/engine/analyze.js';
import { RuleEngine } from '../../src/engine/engine.js';
import { versionCollector } from '../../src/incident/versions.js';
import { splitPoints } from '../../src/engine/parallel.js';
import { FORMATTERS } from '../../src/report/formats/index.js';
import { buildReport } from '../../src/report/report.js';

const MiB = 1 << 20;
let dir = '';

/**
 * The JSON report of the rules' own findings, unfolded: folding is a function of the findings, and
 * one finding per stale endpoint compares every endpoint's figures between the two runs.
 */
async function reportJson(args: string[], options: AnalyzeOptions): Promise<string> {
  const result = await analyzeInputs(args, defaultRules(), options);
  const report = buildReport(result, 'error', { fold: false });
  return FORMATTERS.json(report, { color: false, findings: report.findings, failOn: 'error' });
}

const parallel = (jobs: number, onRange?: AnalyzeOptions['onRange']): AnalyzeOptions => ({
  jobs,
  splitMinBytes: 1,
  parallelMinBytes: 1,
  ...(onRange ? { onRange } : {}),
});

function uptime(seconds: number): string {
  const whole = Math.floor(seconds);
  return `[${String(whole).padStart(6)}.${String(Math.round((seconds - whole) * 1e6)).padStart(6, '0')}s]`;
}

function reconnect(seconds: number, endpoint: string): string {
  return `${uptime(seconds)}  WARN ThreadId(01) outbound:proxy{addr=${endpoint}}:service{ns=shop name=cart port=8080}:endpoint{addr=${endpoint}}: linkerd_reconnect: Failed to connect error=Connection refused (os error 111)`;
}

function info(seconds: number): string {
  return `${uptime(seconds)}  INFO ThreadId(02) inbound:server{port=4143}: linkerd_app_inbound::detect: Handling connection as opaque client.addr=10.42.1.7:41234 server.addr=10.42.3.3:4143`;
}

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ld-parallel-'));
  writeProxyLog(path.join(dir, 'storm.log'), { bytes: 3 * MiB, pods: 60, linesPerSecond: 120 });
});

after(() => rmSync(dir, { recursive: true, force: true }));

describe('parallel analysis', () => {
  it('splits one large log into ranges and reports exactly what the sequential run reports', async () => {
    const file = path.join(dir, 'storm.log');
    const sequential = await reportJson([file], { jobs: 1 });
    assert.ok(JSON.parse(sequential).findings.length > 10, 'the storm fixture must produce findings, or the comparison proves little');
    for (const jobs of [2, 3]) {
      const ranges: boolean[] = [];
      const report = await reportJson(
        [file],
        parallel(jobs, (r) => ranges.push(r.reread)),
      );
      assert.equal(ranges.length, jobs, `the file is cut into ${jobs} ranges`);
      // The kubectl-timestamped head anchors the plain rest: each range must have found that anchor itself.
      assert.deepEqual(ranges, new Array(jobs).fill(false), 'no range needed a re-read');
      assert.equal(report, sequential, `jobs=${jobs}`);
    }
  });

  it('cuts a log unevenly and still reports exactly what the sequential run reports', async () => {
    // One range far longer than the other: the ranges must still join without gap or overlap.
    const file = path.join(dir, 'storm.log');
    const sequential = await reportJson([file], { jobs: 1 });
    for (const [jobs, fractions] of [
      [2, [0.9]],
      [3, [0.45, 0.9]],
    ] as const) {
      const ranges: { start: number; end: number; reread: boolean }[] = [];
      const report = await reportJson([file], { ...parallel(jobs, (r) => ranges.push(r)), splitFractions: [...fractions] });
      assert.equal(ranges.length, jobs);
      assert.equal(ranges[0]!.start, 0);
      for (let k = 1; k < ranges.length; k++) assert.equal(ranges[k]!.start, ranges[k - 1]!.end, 'the ranges join without a gap or an overlap');
      assert.equal(ranges.at(-1)!.end, readFileSync(file).length);
      assert.ok(!ranges.some((r) => r.reread), 'each range assumed the right start state');
      assert.equal(report, sequential, `jobs=${jobs}, cut at ${fractions.join(', ')}`);
    }
  });

  it('re-reads a range whose assumed start state was wrong (a restart before it) and still matches', async () => {
    // Timestamped lines anchor wall time; then the proxy restarts (banner, uptime back to 0) and
    // the rest is plain, so after the restart wall time is unknown. A range in the plain part
    // would find the old anchor by looking back, so its guess is wrong and must be caught.
    const lines: string[] = [];
    const wall = Date.UTC(2026, 10, 27, 3, 0, 0);
    for (let i = 0; i < 2000; i++) {
      const up = 100 + i * 0.05;
      const text = i % 3 === 0 ? reconnect(up, '10.42.9.9:8080') : info(up);
      lines.push(`${new Date(wall + i * 50).toISOString()} ${text}`);
    }
    lines.push(`${uptime(0.001)}  INFO ThreadId(01) linkerd2_proxy: release 2.280.0 (0b6ae0b) by linkerd on 2026-11-01T00:00:00Z`);
    for (let i = 0; i < 14000; i++) {
      const up = 0.5 + i * 0.05;
      lines.push(i % 3 === 0 ? reconnect(up, `10.42.8.${i % 7}:8080`) : info(up));
    }
    const file = path.join(dir, 'restart.log');
    writeFileSync(file, lines.join('\n') + '\n');
    const sequential = await reportJson([file], { jobs: 1 });
    const ranges: boolean[] = [];
    const report = await reportJson(
      [file],
      parallel(2, (r) => ranges.push(r.reread)),
    );
    assert.deepEqual(ranges, [false, true]);
    assert.equal(report, sequential);
  });

  it('reads several sources (plain and gzip) on workers and merges them in input order', async () => {
    const sub = path.join(dir, 'bundle');
    const storm = readFileSync(path.join(dir, 'storm.log'));
    const half = storm.indexOf(10, storm.length >> 1) + 1;
    // Two halves of one pod's log, so reconnect loops continue from one input into the next.
    mkdirSync(sub, { recursive: true });
    writeFileSync(path.join(sub, 'web-7d9f8c6b5-x2x8k.log'), storm.subarray(0, half));
    writeFileSync(path.join(sub, 'web-7d9f8c6b5-x2x8k.1.log.gz'), gzipSync(storm.subarray(half)));
    writeFileSync(path.join(sub, 'cart-5c7d8f9b4-qwert.log'), storm.subarray(0, 400_000));
    const sequential = await reportJson([sub], { jobs: 1 });
    assert.ok(JSON.parse(sequential).inputs.length === 3);
    for (const jobs of [2, 4]) assert.equal(await reportJson([sub], parallel(jobs)), sequential, `jobs=${jobs}`);
  });

  it('never starts a range right after a CRI partial line', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 4000; i++) {
      const line = reconnect(10 + i * 0.5, '10.42.1.1:8080');
      const ts = new Date(Date.UTC(2026, 0, 1) + i * 500).toISOString();
      lines.push(`${ts} stdout P ${line.slice(0, 60)}`, `${ts} stdout F ${line.slice(60)}`);
    }
    const file = path.join(dir, 'cri.log');
    writeFileSync(file, lines.join('\n') + '\n');
    const content = readFileSync(file, 'latin1');
    const split = await splitPoints(file, content.length, 40);
    assert.ok(split && split.bounds.length > 30);
    for (const b of split.bounds.slice(1, -1)) {
      const previous = content.slice(content.lastIndexOf('\n', b - 2) + 1, b - 1);
      assert.match(previous, / stdout F /, `bound ${b} follows a partial line`);
    }
    assert.equal(await reportJson([file], parallel(3)), await reportJson([file], { jobs: 1 }));
  });

  it('splits a multi-pod metrics dump at its POD headers and reports exactly what the sequential run reports', async () => {
    const file = path.join(dir, 'proxy-metrics.txt');
    // 11k series per pod: over metric-cardinality's 10k warning, so every section has a finding.
    writeMetricsDump(file, { series: 44_000, pods: 4 });
    const sequential = await reportJson([file], { jobs: 1 });
    assert.ok(JSON.parse(sequential).findings.length > 0, 'the dump must produce findings, or the comparison proves little');
    const content = readFileSync(file, 'latin1');
    const split = await splitPoints(file, content.length, 3, { dumps: true });
    assert.ok(split && split.bounds.length === 4, 'three ranges (the first header after each third of the file)');
    for (const b of split.bounds.slice(1, -1)) assert.ok(content.startsWith('# POD ', b), `bound ${b} starts a POD header`);
    for (const jobs of [2, 3]) {
      const ranges: [number, number][] = [];
      const report = await reportJson(
        [file],
        parallel(jobs, (r) => ranges.push([r.start, r.end])),
      );
      assert.equal(ranges.length, jobs, `the dump is cut into ${jobs} ranges`);
      assert.equal(report, sequential, `jobs=${jobs}`);
    }
    // Strict mode checks each section's framing as one stream: it reads the dump whole.
    assert.equal(await splitPoints(file, content.length, 2, { dumps: false }), null);
  });

  it('reads each bundle shape (pod files, one .gz per pod, one .tgz, many dumps) exactly as the sequential run does', async () => {
    // The shapes of the bench (scripts/bench/shapes.ts) at a small size: the batches of pod files
    // must merge across pods and across the seams between threads as one reader would have read them.
    const storm = path.join(dir, 'storm.log');
    const pods = splitIntoPods(storm, readFileSync(storm).length, path.join(dir, 'pods'), 40);
    const gz = gzipEach(pods, path.join(dir, 'pods-gz'));
    const tgz = tarball(pods, path.join(dir, 'pods.tgz'));
    const dumps = path.join(dir, 'dumps');
    mkdirSync(dumps, { recursive: true });
    for (let i = 0; i < 6; i++) writeMetricsDump(path.join(dumps, `pod-${i}.prom`), { series: 2000 + 1000 * i, pods: 1, seed: 1000 + i });
    const tar = path.join(dir, 'pods.tar');
    writeFileSync(tar, gunzipSync(readFileSync(tgz)));
    // Batches before and after a shared bundle: the bundle's two states merge between theirs, in input order.
    const mixed = [gz.root, tgz, pods.root];
    const sequentialMixed = await reportJson(mixed, { jobs: 1 });
    for (const jobs of [2, 3]) {
      let shared = 0;
      assert.equal(await reportJson(mixed, { ...parallel(jobs), onArchive: () => shared++ }), sequentialMixed, `pods as .gz, .tgz and files, jobs=${jobs}`);
      assert.equal(shared, 1);
    }
    for (const [shape, input] of [
      ['pod files', pods.root],
      ['.gz per pod', gz.root],
      ['one .tgz', tgz],
      ['one .tar', tar],
      ['dumps', dumps],
    ] as const) {
      const sequential = await reportJson([input], { jobs: 1 });
      assert.ok(JSON.parse(sequential).findings.length > 0, `${shape}: the input must produce findings, or the comparison proves little`);
      for (const jobs of [2, 3]) {
        const shared: { workerMembers: number; mainMembers: number }[] = [];
        assert.equal(await reportJson([input], { ...parallel(jobs), onArchive: (a) => shared.push(a) }), sequential, `${shape}, jobs=${jobs}`);
        if (shape.includes('.tar') || shape.includes('.tgz')) {
          assert.equal(shared.length, 1, `${shape}: the bundle is shared by two threads`);
          assert.ok(shared[0]!.workerMembers > 5 && shared[0]!.mainMembers > 5, `${shape}: each thread reads members (${JSON.stringify(shared[0])})`);
        }
      }
    }
  });

  it('gives a shared bundle the errors and limits of one reader', async () => {
    // A tar of .gz members: one corrupt member among the worker's, the bundle cut off among this
    // thread's (readSource joins the two into one error), cut among the worker's, and a
    // decompression limit crossed: each as the sequential run reports it.
    const storm = path.join(dir, 'storm.log');
    const pods = splitIntoPods(storm, readFileSync(storm).length, path.join(dir, 'pods-e'), 40);
    const gz = gzipEach(pods, path.join(dir, 'pods-e-gz'));
    const whole = path.join(dir, 'members-gz.tar');
    execFileSync('tar', ['-cf', whole, '--exclude=.complete', '-C', gz.root, '.']);
    const bytes = readFileSync(whole);
    const corrupt = Buffer.from(bytes);
    const member = corrupt.indexOf('.log.gz', Math.floor(bytes.length * 0.2));
    const body = corrupt.indexOf(Buffer.from([0x1f, 0x8b]), member);
    corrupt.fill(0x55, body + 200, body + 260);
    const cases: [string, Buffer, NodeJS.ProcessEnv?][] = [
      ['a corrupt member before the cut, the bundle cut off after it', corrupt.subarray(0, Math.floor(bytes.length * 0.8))],
      ['cut off before the middle', bytes.subarray(0, Math.floor(bytes.length * 0.3))],
      ['a decompression limit', bytes, { LINKERD_DOCTOR_MAX_DECOMPRESSED_BYTES: String(MiB), LINKERD_DOCTOR_MAX_DECOMPRESSION_RATIO: '2' }],
    ];
    for (const [name, data, env] of cases) {
      const file = path.join(dir, 'broken.tar');
      writeFileSync(file, data);
      // Set and removed key by key: a replaced process.env no longer reaches worker threads.
      for (const [k, v] of Object.entries(env ?? {})) process.env[k] = v;
      try {
        const seen = (r: Awaited<ReturnType<typeof analyzeInputs>>) => ({
          inputs: r.inputs,
          errors: r.errors.map((e) => `${e.path}: ${e.message} @${e.line ?? '-'}`),
          findings: r.findings,
        });
        const sequential = seen(await analyzeInputs([file], defaultRules(), { jobs: 1 }));
        assert.ok(sequential.errors.length > 0, `${name}: the bundle must fail, or the comparison proves little`);
        for (const jobs of [2, 3]) {
          let shared = 0;
          assert.deepEqual(
            seen(await analyzeInputs([file], defaultRules(), { ...parallel(jobs), onArchive: () => shared++ })),
            sequential,
            `${name}, jobs=${jobs}`,
          );
          assert.equal(shared, 1, `${name}: the bundle was shared`);
        }
        if (name.startsWith('a corrupt')) {
          // One error: at the corrupt member (read by the worker), naming what broke in it. A `.gz`
          // member is inflated as a gzip stream of its own, so the inflater's reason is the one given.
          assert.equal(sequential.errors.length, 1);
          assert.match(sequential.errors[0]!, /^\S+broken\.tar:\S+\.log\.gz: (?:broken tar archive|corrupt gzip data)\b/);
        }
      } finally {
        for (const k of Object.keys(env ?? {})) delete process.env[k];
      }
    }
  });

  it('reads on the main thread, with a notice, what a worker that cannot start was given', async () => {
    const file = path.join(dir, 'storm.log');
    const sequential = await reportJson([file], { jobs: 1 });
    // A worker that cannot load the catalog dies before its first task, as it would if the
    // build left the module it names out.
    const missing = { ...ANALYSIS_CATALOG, url: new URL('./no-such-catalog.js', import.meta.url).href };
    const result = await analyzeInputs([file], defaultRules(), { ...parallel(2), catalog: missing });
    const report = buildReport(result, 'error', { fold: false });
    assert.equal(FORMATTERS.json(report, { color: false, findings: report.findings, failOn: 'error' }), sequential);
    assert.deepEqual(
      result.notices.map((n) => n.toLine().replace(/\(.*\)/, '(…)')),
      [`${file}: a worker thread failed (…); read on the main thread instead`],
    );
  });

  it('does not split compressed or non-log files', async () => {
    const gz = path.join(dir, 'storm.log.gz');
    writeFileSync(gz, gzipSync(readFileSync(path.join(dir, 'storm.log'))));
    assert.equal(await splitPoints(gz, readFileSync(gz).length, 2), null);
    const prom = path.join(dir, 'dump.prom');
    writeFileSync(prom, Array.from({ length: 5000 }, (_, i) => `request_total{target_addr="10.0.0.${i % 250}:80"} ${i}`).join('\n') + '\n');
    assert.equal(await splitPoints(prom, readFileSync(prom).length, 2, { dumps: true }), null, 'a dump without POD sections has nowhere to cut');
  });
});

describe('analyze skips records no rule reads', () => {
  it('gives the report of a run that builds every record', async () => {
    const file = path.join(dir, 'storm.log');
    const rules = defaultRules();
    const engine = new RuleEngine(rules, [versionCollector]);
    const read = await readInputs([file], (r) => engine.emit(r));
    const full = { ...read, ...finishWithVersions(engine, read.inputs) };
    const fullReport = buildReport(full, 'error', { fold: false });
    const fullJson = FORMATTERS.json(fullReport, { color: false, findings: fullReport.findings, failOn: 'error' });
    assert.equal(await reportJson([file], { jobs: 1 }), fullJson);
  });
});
