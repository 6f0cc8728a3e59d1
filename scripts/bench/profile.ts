// `npm run bench:profile`: where the time goes on each bench shape. Runs the built CLI once per
// shape with `--jobs 1 --cpu-prof` (one thread, so the profile is the whole analysis) on the inputs
// `npm run bench` generated, and prints the self time of each area of the code (the parser, each
// rule, regex scans, GC, waiting for I/O…) and the hottest functions. Shares are steadier than
// seconds on a shared machine: the profiler samples wall time, which load stretches for all alike.
//
// Environment: BENCH_LOG_MB (default 1024) and BENCH_SERIES (250000) pick the inputs, as in
// `npm run bench`; PROFILE_SHAPES (comma-separated: log,pods,gz,tgz,dump) limits the shapes;
// PROFILE_TOP (default 12) is the number of functions listed.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATOR_VERSION } from './generate.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = path.join(root, 'bench/.data');
const logMb = Number(process.env.BENCH_LOG_MB || 1024);
const series = Number(process.env.BENCH_SERIES || 250_000);
const top = Number(process.env.PROFILE_TOP || 12);
const wanted = new Set((process.env.PROFILE_SHAPES || 'log,pods,gz,tgz,dump').split(','));

const SHAPES: { id: string; name: string; input: string }[] = [
  { id: 'log', name: `one ${logMb} MiB log`, input: `storm-${logMb}MiB-v${GENERATOR_VERSION}.log` },
  { id: 'pods', name: '400 pod files', input: `pods-400-${logMb}MiB-v${GENERATOR_VERSION}` },
  { id: 'gz', name: '400 .gz', input: `pods-400-${logMb}MiB-v${GENERATOR_VERSION}-gz` },
  { id: 'tgz', name: 'one .tgz', input: `pods-400-${logMb}MiB-v${GENERATOR_VERSION}.tgz` },
  { id: 'dump', name: `dump of ${series} series`, input: `dump-${series}-v${GENERATOR_VERSION}.prom` },
];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The area a function belongs to: a rule's folder, the parsers, the engine, V8 and Node internals. */
function areaOf(frame: ProfileNode['callFrame']): string {
  const { functionName, url } = frame;
  if (!url) {
    if (functionName.startsWith('RegExp: ')) return 'regex scans';
    if (functionName === '(garbage collector)') return 'garbage collection';
    if (functionName === '(idle)') return 'idle (waiting for I/O or threads)';
    return `native: ${functionName || '(anonymous)'}`;
  }
  const own = /\/dist\/(rules\/[^/]+|[^/]+)\//.exec(url);
  if (own) return own[1]!;
  if (url.startsWith('node:')) return url.includes('zlib') ? 'node: zlib' : 'node: internals';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  return pkg ? `package ${pkg[1]}` : 'other';
}

/** `parsers/proxy-log.js` for the CLI's own files, the URL as is for Node's (`node:zlib`). */
function locationOf(url: string): string {
  const file = url.startsWith('file:') ? fileURLToPath(url) : url;
  return path.isAbsolute(file) ? path.relative(path.join(root, 'dist'), file) : file;
}

function summarise(profile: CpuProfile): { total: number; areas: [string, number][]; functions: [string, number][] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    const ms = profile.timeDeltas[i]! / 1000;
    total += ms;
    const area = areaOf(frame);
    areas.set(area, (areas.get(area) ?? 0) + ms);
    const where = frame.url ? ` ${locationOf(frame.url)}:${frame.lineNumber + 1}` : '';
    const name = `${(frame.functionName || '(anonymous)').slice(0, 70)}${where}`;
    functions.set(name, (functions.get(name) ?? 0) + ms);
  });
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return { total, areas: sorted(areas), functions: sorted(functions).slice(0, top) };
}

const cli = path.join(root, 'bin/run.js');
if (!existsSync(path.join(root, 'dist'))) throw new Error('build first: npm run build');
for (const shape of SHAPES.filter((s) => wanted.has(s.id))) {
  const input = path.join(dataDir, shape.input);
  if (!existsSync(input)) {
    process.stdout.write(`\n${shape.name}: ${path.relative(root, input)} missing (run npm run bench with the same BENCH_LOG_MB first)\n`);
    continue;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'ld-profile-'));
  try {
    const run = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, cli, 'analyze', input, '--jobs', '1', '--format', 'json', '--quiet'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (run.status !== 0 && run.status !== 1) throw new Error(`analyze exited ${run.status} on ${input}`);
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('no profile written');
    const { total, areas, functions } = summarise(JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CpuProfile);
    process.stdout.write(`\n${shape.name} (${path.relative(root, input)}), --jobs 1: ${(total / 1000).toFixed(2)} s sampled\n  areas (self time):\n`);
    for (const [area, ms] of areas.filter(([, ms]) => ms / total >= 0.005))
      process.stdout.write(`    ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${area}\n`);
    process.stdout.write('  functions (self time):\n');
    for (const [name, ms] of functions) process.stdout.write(`    ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${name}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
