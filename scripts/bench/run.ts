// `npm run bench`: times `linkerd-doctor analyze` (the built CLI) on a generated storm-shaped proxy
// log and a 250k-series metrics dump, and in the same run the shell pipelines an SRE would use on
// the same files, then prints MB/s, lines/s, peak RSS and the ratios. Inputs are generated once
// (seeded, deterministic) and cached under bench/.data/.
//
// Environment: BENCH_LOG_MB (default 1024), BENCH_SERIES (250000), BENCH_RUNS (rounds: every
// command, analyze and pipelines alike, runs once per round; default 3; the best and the median are reported), BENCH_FLAT_MB (a second log size to check that RSS stays
// flat, default 256; 0 skips), BENCH_PIPELINES=0 skips the shell pipelines, BENCH_JOBS sets
// --jobs (default: the CLI's own default), BENCH_PODS (default 400) cuts the log into that many pod
// files for the bundle shapes (plain, one .gz each, one .tgz), BENCH_DUMPS (default 40) writes a
// bundle of that many single-pod dumps; BENCH_SHAPES=0 skips both.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATOR_VERSION, writeMetricsDump, writeProxyLog } from './generate.js';
import { gzipEach, splitIntoPods, tarball } from './shapes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = path.join(root, 'bench/.data');
const MiB = 1 << 20;

const env = (name: string, fallback: number) => (process.env[name] !== undefined && process.env[name] !== '' ? Number(process.env[name]) : fallback);
const logMb = env('BENCH_LOG_MB', 1024);
const series = env('BENCH_SERIES', 250_000);
const runs = Math.max(1, env('BENCH_RUNS', 3));
const flatMb = env('BENCH_FLAT_MB', 256);
const withPipelines = process.env.BENCH_PIPELINES !== '0';
const jobs = process.env.BENCH_JOBS;
const withShapes = process.env.BENCH_SHAPES !== '0';
const podCount = env('BENCH_PODS', 400);
const dumpCount = env('BENCH_DUMPS', 40);

interface InputFile {
  file: string;
  bytes: number;
  lines: number;
}

interface Measurement {
  name: string;
  /** Fastest run: the machine is shared, and the fastest run is the one least slowed by others. */
  seconds: number;
  median: number;
  /** All runs, for the spread. */
  samples: number[];
  /** CPU seconds (user + system, all threads) of the fastest run. */
  cpuSeconds: number | null;
  bytes: number;
  lines: number;
  peakRss: number | null;
}

function cached(name: string, make: (file: string) => { bytes: number; lines: number }): InputFile {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, name);
  const meta = `${file}.json`;
  if (existsSync(file) && existsSync(meta)) return { file, ...(JSON.parse(readFileSync(meta, 'utf8')) as { bytes: number; lines: number }) };
  process.stderr.write(`generating ${path.relative(root, file)} …\n`);
  const made = make(file);
  writeFileSync(meta, JSON.stringify({ bytes: made.bytes, lines: made.lines }));
  return { file, bytes: made.bytes, lines: made.lines };
}

const logInput = (mb: number) => cached(`storm-${mb}MiB-v${GENERATOR_VERSION}.log`, (f) => writeProxyLog(f, { bytes: mb * MiB }));
const dumpInput = () => cached(`dump-${series}-v${GENERATOR_VERSION}.prom`, (f) => writeMetricsDump(f, { series }));

/** `dumps` single-pod dumps sharing `series` between them, as a support script saves one per pod. */
function dumpBundle(dumps: number): { dir: string; bytes: number; lines: number } {
  const dir = path.join(dataDir, `dumps-${dumps}x${Math.round(series / dumps)}-v${GENERATOR_VERSION}`);
  let bytes = 0;
  let lines = 0;
  for (let i = 0; i < dumps; i++) {
    const made = cached(path.relative(dataDir, path.join(dir, `pod-${String(i).padStart(3, '0')}.prom`)), (f) => {
      mkdirSync(path.dirname(f), { recursive: true });
      return writeMetricsDump(f, { series: Math.round(series / dumps), pods: 1, seed: 1000 + i });
    });
    bytes += made.bytes;
    lines += made.lines;
  }
  return { dir, bytes, lines };
}

/** Runs a command with stdout discarded; returns wall seconds, and the peak RSS and CPU time it reports. */
function timeOnce(
  command: string,
  args: string[],
  extraEnv: Record<string, string> = {},
  rssFrom: 'probe' | 'time' = 'probe',
): Promise<{ seconds: number; peakRss: number | null; cpuSeconds: number | null }> {
  const rssFile = path.join(dataDir, `.rss-${process.pid}`);
  rmSync(rssFile, { force: true });
  const hasTime = existsSync('/usr/bin/time');
  const [cmd, argv] = rssFrom === 'time' && hasTime ? ['/usr/bin/time', ['-f', '%M %U %S', '-o', rssFile, command, ...args]] : [command, args];
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(cmd, argv as string[], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...extraEnv, BENCH_RSS_FILE: rssFile },
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (code !== 0 && code !== 1) return reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr.trim().slice(0, 400)}`));
      let peakRss: number | null = null;
      let cpuSeconds: number | null = null;
      if (existsSync(rssFile)) {
        const fields = readFileSync(rssFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
        // GNU time prints kilobytes, user and system seconds; the probe prints bytes and CPU seconds.
        peakRss = rssFrom === 'time' ? fields[0]! * 1024 : fields[0]!;
        cpuSeconds = rssFrom === 'time' ? fields[1]! + fields[2]! : fields[1]!;
        rmSync(rssFile, { force: true });
      }
      resolve({ seconds, peakRss, cpuSeconds });
    });
  });
}

interface Job {
  name: string;
  input: { bytes: number; lines: number };
  command: string;
  args: string[];
  env?: Record<string, string>;
  rssFrom?: 'probe' | 'time';
}

/**
 * A fixed CPU-bound workload (string building and Map updates, like the parser's), timed in
 * milliseconds. Development VMs here change speed by half from one minute to the next; the probe
 * taken before each round shows how fast the machine was while that round ran.
 */
function speedProbe(): number {
  const started = process.hrtime.bigint();
  const counts = new Map<string, number>();
  let h = 0;
  for (let i = 0; i < 3_000_000; i++) {
    const key = `key${i % 5000}`;
    h = (h + (counts.get(key) ?? 0) + key.length) | 0;
    counts.set(key, i);
  }
  if (h === 42) process.stderr.write('');
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const probes: number[] = [];

/**
 * Runs every job `times` times, interleaved (round after round), so that a burst of load from
 * whoever else uses the machine slows all of them alike rather than one configuration.
 */
async function measureAll(jobs: Job[], times: number): Promise<Measurement[]> {
  const runsOf = jobs.map(() => [] as { seconds: number; peakRss: number | null; cpuSeconds: number | null }[]);
  for (let round = 0; round < times; round++) {
    const probe = speedProbe();
    probes.push(probe);
    process.stderr.write(`round ${round + 1} of ${times}, speed probe ${probe.toFixed(0)} ms\n`);
    for (const [i, job] of jobs.entries()) {
      const r = await timeOnce(job.command, job.args, job.env, job.rssFrom);
      runsOf[i]!.push(r);
      process.stderr.write(`  ${job.name}: ${r.seconds.toFixed(2)} s, ${r.cpuSeconds?.toFixed(2) ?? '?'} s CPU\n`);
    }
  }
  return jobs.map((job, i) => {
    const results = runsOf[i]!;
    const best = results.reduce((a, b) => (b.seconds < a.seconds ? b : a));
    const samples = results.map((r) => r.seconds);
    const sorted = [...samples].sort((a, b) => a - b);
    const rss = results.map((r) => r.peakRss).filter((v): v is number => v !== null);
    return {
      name: job.name,
      seconds: best.seconds,
      median: sorted[sorted.length >> 1]!,
      samples,
      cpuSeconds: best.cpuSeconds,
      bytes: job.input.bytes,
      lines: job.input.lines,
      peakRss: rss.length ? Math.max(...rss) : null,
    };
  });
}

function analyzeArgs(files: string[], jobCount?: string): string[] {
  const args = [
    '--import',
    path.join(root, 'scripts/bench/rss-probe.js'),
    path.join(root, 'bin/run.js'),
    'analyze',
    ...files,
    '--format',
    'json',
    '--fail-on',
    'none',
    '--quiet',
  ];
  if (jobCount) args.push('--jobs', jobCount);
  return args;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const filesOf = (root: string) => `find ${shellQuote(root)} -type f ! -name '.*' -print0 | sort -z | xargs -0`;
const grepCount = `grep -c 'Failed to connect' > /dev/null`;
const logPipeline = (file: string) =>
  `grep 'Failed to connect' ${shellQuote(file)} | sed -E 's/.*endpoint\\{addr=([^}]*)\\}.*/\\1/' | sort | uniq -c > /dev/null`;
const dumpPipeline = (file: string) => `grep -v '^#' ${shellQuote(file)} | cut -d'{' -f1 | sort | uniq -c > /dev/null`;

function machine(): Record<string, string | number> {
  const cpuModel = existsSync('/proc/cpuinfo')
    ? (/^model name\s*:\s*(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown')
    : (cpus()[0]?.model ?? 'unknown');
  return {
    nproc: Number(spawnSync('nproc').stdout?.toString().trim() || cpus().length),
    cpu: cpuModel,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    freeGiB: Math.round((freemem() / 2 ** 30) * 10) / 10,
    node: process.version,
  };
}

const mb = (bytes: number) => bytes / 1e6;
const fmt = (n: number, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const relative = (speedup: number, name: string) => (speedup >= 1 ? `${fmt(speedup, 1)}× faster than ${name}` : `${fmt(1 / speedup, 1)}× slower than ${name}`);

function table(rows: Measurement[], reference: Map<string, string>): string {
  const byName = new Map(rows.map((r) => [r.name, r]));
  const header = ['what', 'best s', 'median s', 'runs', 'CPU s', 'MB/s', 'lines/s', 'peak RSS MB', 'vs'];
  const body = rows.map((r) => {
    const ref = reference.get(r.name);
    const refRow = ref ? byName.get(ref) : undefined;
    return [
      r.name,
      fmt(r.seconds, 2),
      fmt(r.median, 2),
      r.samples.map((s) => s.toFixed(2)).join(' '),
      r.cpuSeconds === null ? 'n/a' : fmt(r.cpuSeconds, 2),
      fmt(mb(r.bytes) / r.seconds, 0),
      fmt(r.lines / r.seconds / 1e6, 2) + ' M',
      r.peakRss === null ? 'n/a' : fmt(r.peakRss / 1e6, 0),
      refRow ? relative(refRow.seconds / r.seconds, refRow.name) : '',
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

async function main(): Promise<void> {
  process.stderr.write('building the CLI …\n');
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error('npm run build failed');

  const log = logInput(logMb);
  const dump = dumpInput();
  const flat = flatMb > 0 && flatMb !== logMb ? logInput(flatMb) : null;
  const loadBefore = loadavg();
  const started = new Date();
  const rows: Measurement[] = [];
  const reference = new Map<string, string>();
  const logName = `analyze log ${logMb} MiB`;

  const both = { bytes: log.bytes + dump.bytes, lines: log.lines + dump.lines };
  const dumpName = `analyze dump ${series / 1000}k series`;
  const analyzeJobs: Job[] = [
    { name: logName, input: log, command: process.execPath, args: analyzeArgs([log.file], jobs) },
    { name: `${logName} --jobs 1`, input: log, command: process.execPath, args: analyzeArgs([log.file], '1') },
    { name: dumpName, input: dump, command: process.execPath, args: analyzeArgs([dump.file], jobs) },
    { name: 'analyze log + dump', input: both, command: process.execPath, args: analyzeArgs([log.file, dump.file], jobs) },
  ];
  if (flat) analyzeJobs.push({ name: `analyze log ${flatMb} MiB`, input: flat, command: process.execPath, args: analyzeArgs([flat.file], jobs) });
  reference.set(logName, `${logName} --jobs 1`);
  const pipelineJobs: Job[] = [];
  // Bundle shapes: the same lines as the one file, as users capture them.
  const shapeNames: { analyze: string; peer: string; single: string }[] = [];
  if (withShapes) {
    const plain = splitIntoPods(log.file, log.bytes, path.join(dataDir, `pods-${podCount}-${logMb}MiB-v${GENERATOR_VERSION}`), podCount);
    const gz = gzipEach(plain, `${plain.root}-gz`);
    const tgz = tarball(plain, `${plain.root}.tgz`);
    const shapes = [
      {
        analyze: `analyze ${podCount} pod files`,
        input: plain.root,
        peer: `cat ${podCount} files | grep -c`,
        command: `${filesOf(plain.root)} cat | ${grepCount}`,
      },
      { analyze: `analyze ${podCount} .gz`, input: gz.root, peer: `zcat ${podCount} .gz | grep -c`, command: `${filesOf(gz.root)} zcat | ${grepCount}` },
      { analyze: 'analyze one .tgz', input: tgz, peer: 'tar -xzOf .tgz | grep -c', command: `tar -xzOf ${shellQuote(tgz)} | ${grepCount}` },
    ];
    for (const shape of shapes) {
      analyzeJobs.push({ name: shape.analyze, input: log, command: process.execPath, args: analyzeArgs([shape.input], jobs) });
      if (withPipelines) {
        pipelineJobs.push({ name: shape.peer, input: log, command: 'bash', args: ['-c', shape.command], env: { LC_ALL: 'C' }, rssFrom: 'time' });
        reference.set(shape.analyze, shape.peer);
      }
      shapeNames.push({ ...shape, single: logName });
    }
    const dumps = dumpBundle(dumpCount);
    analyzeJobs.push({ name: `analyze ${dumpCount} dumps`, input: dumps, command: process.execPath, args: analyzeArgs([dumps.dir], jobs) });
    // promtool cannot read the multi-pod dump (each POD section repeats its HELP lines), so its
    // peer is the bundle of single-pod dumps, one `promtool check metrics` per file, as an SRE would.
    const withPromtool = withPipelines && spawnSync('promtool', ['--version']).status === 0;
    if (withPromtool) {
      const promtoolPeer = `promtool check metrics, ${dumpCount} dumps`;
      pipelineJobs.push({
        name: promtoolPeer,
        input: dumps,
        command: 'bash',
        args: ['-c', `for f in ${shellQuote(dumps.dir)}/*.prom; do promtool check metrics < "$f" > /dev/null 2>&1; done; true`],
        rssFrom: 'time',
      });
      reference.set(`analyze ${dumpCount} dumps`, promtoolPeer);
    }
    shapeNames.push({ analyze: `analyze ${dumpCount} dumps`, peer: withPromtool ? `promtool check metrics, ${dumpCount} dumps` : '', single: dumpName });
  }
  if (withPipelines) {
    const locale = process.env.LC_ALL || process.env.LANG || 'C.UTF-8';
    const utf8 = locale === 'C' ? 'C.UTF-8' : locale;
    pipelineJobs.push(
      { name: 'grep|sed|sort|uniq LC_ALL=C', input: log, command: 'bash', args: ['-c', logPipeline(log.file)], env: { LC_ALL: 'C' }, rssFrom: 'time' },
      { name: `grep|sed|sort|uniq ${utf8}`, input: log, command: 'bash', args: ['-c', logPipeline(log.file)], env: { LC_ALL: utf8 }, rssFrom: 'time' },
      { name: 'dump grep|cut|sort|uniq LC_ALL=C', input: dump, command: 'bash', args: ['-c', dumpPipeline(dump.file)], env: { LC_ALL: 'C' }, rssFrom: 'time' },
    );
    reference.set(logName, 'grep|sed|sort|uniq LC_ALL=C');
    reference.set(`${logName} --jobs 1`, 'grep|sed|sort|uniq LC_ALL=C');
    reference.set(dumpName, 'dump grep|cut|sort|uniq LC_ALL=C');
  }
  // The pipelines run in the same rounds as analyze, so each ratio compares runs made at the same machine speed.
  rows.push(...(await measureAll([...analyzeJobs, ...pipelineJobs], runs)));
  const loadAfter = loadavg();

  const result = {
    date: started.toISOString(),
    machine: machine(),
    loadAverage: { before: loadBefore.map((l) => Math.round(l * 100) / 100), after: loadAfter.map((l) => Math.round(l * 100) / 100) },
    speedProbeMs: probes.map((p) => Math.round(p)),
    command: `BENCH_LOG_MB=${logMb} BENCH_SERIES=${series} BENCH_RUNS=${runs} BENCH_FLAT_MB=${flatMb}${jobs ? ` BENCH_JOBS=${jobs}` : ''} npm run bench`,
    inputs: { log: { ...log, file: path.relative(root, log.file) }, dump: { ...dump, file: path.relative(root, dump.file) } },
    rows,
  };
  const out = path.join(dataDir, `results-${started.toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(out, JSON.stringify(result, null, 2));

  const m = result.machine;
  console.log(`linkerd-doctor benchmark, ${result.date}`);
  console.log(
    `machine: ${m.nproc} cores (${m.cpu}), ${m.memoryGiB} GiB RAM, node ${m.node}; load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(2)).join(' ')} after`,
  );
  console.log(`speed probe per round (ms, lower is faster; a steady machine repeats itself within a few %): ${result.speedProbeMs.join(' ')}`);
  console.log(
    `inputs: log ${fmt(mb(log.bytes), 0)} MB / ${fmt(log.lines / 1e6, 2)} M lines; dump ${fmt(mb(dump.bytes), 0)} MB / ${fmt(dump.lines / 1e6, 2)} M lines (${series} series)`,
  );
  console.log('');
  console.log('MB/s, lines/s and ratios use the best run (the machine may be shared: see the load average).');
  console.log(table(rows, reference));
  const seqRow = rows.find((r) => r.name === `${logName} --jobs 1`)!;
  const parRow = rows.find((r) => r.name === logName)!;
  console.log('');
  console.log(`parallel speed-up on the log: ${fmt(seqRow.seconds / parRow.seconds, 2)}×`);
  console.log('');
  console.log('shapes (the same lines as the one file):');
  for (const shape of shapeNames) {
    const a = rows.find((r) => r.name === shape.analyze)!;
    const peer = rows.find((r) => r.name === shape.peer);
    const single = rows.find((r) => r.name === shape.single)!;
    const vsPeer = peer ? `, ${fmt(a.seconds / peer.seconds, 2)}× the time of \`${shape.peer}\`` : '';
    console.log(
      `  ${shape.analyze}: ${fmt(mb(a.bytes) / a.seconds, 0)} MB/s, ${fmt(a.seconds / single.seconds, 2)}× the time of one file of the same lines${vsPeer}, peak RSS ${a.peakRss === null ? 'n/a' : fmt(a.peakRss / 1e6, 0)} MB`,
    );
  }
  if (flat) {
    const flatRow = rows.find((r) => r.name === `analyze log ${flatMb} MiB`)!;
    if (flatRow.peakRss && parRow.peakRss)
      console.log(`peak RSS ${flatMb} MiB → ${logMb} MiB: ${fmt(flatRow.peakRss / 1e6, 0)} → ${fmt(parRow.peakRss / 1e6, 0)} MB`);
  }
  console.log(`figures saved to ${path.relative(root, out)}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
