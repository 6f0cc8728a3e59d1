// Planning a parallel analysis: how many threads, whether the input is worth them, and where a
// large plain proxy log (or a multi-pod metrics dump) is cut into byte ranges, one per thread.

import { open, type FileHandle } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { UsageError } from '../core/errors.js';
import type { InputKind } from '../core/types.js';
import type { Discovery, InputSource } from '../input/discover.js';
import { bytesWhenRead, holdsTar } from '../input/inflated-size.js';
import { isGzip, isTar } from '../input/open.js';
import { SNIFF_LINES, sniffKind } from '../parsers/sniff.js';
import { PARSERS } from '../parsers/index.js';
import type { WorkerCatalog } from './collector.js';
import type { EngineModules } from './engine.js';
import type { RuleSpec } from './messages.js';
import type { ReadOptions } from './read.js';

export interface ParallelOptions {
  /** How workers rebuild the rules and collectors; without it everything is read on this thread. */
  catalog?: WorkerCatalog;
  /** Worker threads; 1 reads everything on the main thread. Default: LINKERD_DOCTOR_JOBS, else the cores (at most 4). */
  jobs?: number;
  /** Below this many bytes of input in total, workers cost more than they save. */
  parallelMinBytes?: number;
  /** A plain proxy log at least this large is split into byte ranges. */
  splitMinBytes?: number;
  /** Told how each byte range of a split file was taken: as read by its thread, or re-read because its assumed start state was wrong. */
  onRange?: (info: { path: string; start: number; end: number; reread: boolean }) => void;
  /** Told how a tar bundle was shared: members read by the worker, then by this thread. */
  onArchive?: (info: { path: string; workerMembers: number; mainMembers: number }) => void;
  /** Where to cut a split file, as fractions of its size (tests); default: equal parts. */
  splitFractions?: number[];
}

const MiB = 1 << 20;
const DEFAULTS = { parallelMinBytes: 32 * MiB, splitMinBytes: 64 * MiB };
/**
 * Metrics dumps read two to three times faster a byte than logs, so a second thread pays later:
 * its start (loading and warming every module again, ~0.4 CPU s) equals what it saves on a 115 MB
 * dump (1.15-1.24 s wall with one thread, 1.23-1.27 s and 0.5 CPU s more with two; 40 dumps of the
 * same size alike), while at 230 MB two threads take 1.46 s against 1.62-1.70.
 */
const DUMP_DEFAULTS = { parallelMinBytes: 160 * MiB, splitMinBytes: 160 * MiB };
/** Files sniffed to tell whether an input set is metrics dumps only (the largest ones). */
const KIND_SAMPLE_FILES = 8;
/** Bytes read from the head of a file to sniff its kind (the sniffer needs its first SNIFF_LINES lines). */
const HEAD_BYTES = 256 * 1024;

export interface ParallelPlan {
  jobs: number;
  rules: RuleSpec[];
  collectors: string[];
  catalog: string;
  splitMinBytes: number;
  splitFractions?: number[];
  /** Multi-pod metric dumps may be cut at `# POD` headers (not in strict mode, which checks each section's framing across the cut). */
  splitDumps: boolean;
  /** The run's gzip totals (input/open.ts), shared with every worker. */
  decompressionLedger?: SharedArrayBuffer;
  /** Bytes each file gives when read (a gzip file's inflated size), by path: what batches are balanced by. */
  readBytes: ReadonlyMap<string, number>;
}

export function resolveJobs(requested: number | undefined, env: NodeJS.ProcessEnv = process.env): number {
  if (requested !== undefined) {
    if (!Number.isInteger(requested) || requested < 1) throw new UsageError(`--jobs must be a whole number of at least 1, not ${requested}`);
    return requested;
  }
  const fromEnv = env.LINKERD_DOCTOR_JOBS;
  if (fromEnv !== undefined && fromEnv !== '') {
    const n = Number(fromEnv);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`LINKERD_DOCTOR_JOBS must be a whole number of at least 1, not "${fromEnv}"`);
    return n;
  }
  return Math.min(availableParallelism(), 4);
}

/**
 * The jobs a command-line run uses: as asked (flag, else LINKERD_DOCTOR_JOBS, else the default),
 * but never more than the cores. Each worker holds its own heap and rule states, so `--jobs 1000`
 * would cost gigabytes and gain nothing; the notice says so rather than capping silently.
 */
export function cappedJobs(
  requested: number | undefined,
  env: NodeJS.ProcessEnv = process.env,
  cores = availableParallelism(),
): { jobs: number; notice?: string } {
  const jobs = resolveJobs(requested, env);
  if (jobs <= cores) return { jobs };
  const asked = requested !== undefined ? `--jobs ${requested}` : `LINKERD_DOCTOR_JOBS=${env.LINKERD_DOCTOR_JOBS}`;
  return { jobs: cores, notice: `${asked} capped at ${cores}, the number of CPU cores` };
}

/** Whether (and how) to read in parallel; null means the sequential path. */
export async function parallelPlanFor(
  discovery: Discovery,
  modules: EngineModules,
  options: ReadOptions & ParallelOptions,
  decompressionLedger?: SharedArrayBuffer,
): Promise<ParallelPlan | null> {
  const jobs = resolveJobs(options.jobs);
  const catalog = options.catalog;
  if (jobs <= 1 || options.onUnparsed || !catalog) return null;
  const specs: RuleSpec[] = [];
  for (const r of modules.rules) {
    // Workers rebuild rules through the catalog; a rule object from elsewhere stays on this thread.
    if (catalog.resolve(r.rule.meta.id) !== r.rule) return null;
    specs.push(r.severity ? { id: r.rule.meta.id, options: r.options, severity: r.severity } : { id: r.rule.meta.id, options: r.options });
  }
  if (modules.collectors.some((c) => catalog.resolve(c.id) !== c)) return null;
  // 22 MB of .gz that inflate to 256 MiB are 256 MiB of work: weighed by their size on disk they
  // stayed on one thread.
  const readBytes = await bytesWhenRead(discovery.sources);
  const fileBytes = [...readBytes.values()].reduce((n, b) => n + b, 0);
  // Below the logs' threshold nothing is worth a worker, so only a larger input set is sniffed.
  const defaults = fileBytes >= DEFAULTS.parallelMinBytes && (await onlyDumps(discovery.sources)) ? DUMP_DEFAULTS : DEFAULTS;
  if (fileBytes < (options.parallelMinBytes ?? defaults.parallelMinBytes)) return null;
  const plan: ParallelPlan = {
    jobs,
    rules: specs,
    collectors: modules.collectors.map((c) => c.id),
    catalog: catalog.url,
    splitMinBytes: options.splitMinBytes ?? defaults.splitMinBytes,
    splitDumps: !options.strict,
    readBytes,
  };
  if (decompressionLedger) plan.decompressionLedger = decompressionLedger;
  if (options.splitFractions) plan.splitFractions = options.splitFractions;
  return plan;
}

/**
 * Whether every input is a plain metrics dump, judged by the heads of the largest files (any other
 * source, a compressed file or another kind among them says no).
 */
async function onlyDumps(sources: readonly InputSource[]): Promise<boolean> {
  if (sources.length === 0 || sources.some((s) => s.type !== 'file' || s.raw)) return false;
  const largest = [...(sources as FileSource[])].sort((a, b) => b.size - a.size).slice(0, KIND_SAMPLE_FILES);
  for (const source of largest) if ((await headKind(source.path, source.size)) !== 'prometheus') return false;
  return true;
}

/** The kind the sniffer gives a plain file's head; null for a compressed or tar file, or one it cannot read. */
async function headKind(file: string, size: number): Promise<InputKind | null> {
  const handle = await open(file, 'r').catch(() => null);
  if (handle === null) return null;
  try {
    const lines = await plainHeadLines(handle, size);
    return lines === null ? null : sniffKind(lines);
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

/** The complete lines of a plain file's first HEAD_BYTES; null for a gzip or tar file. */
async function plainHeadLines(handle: FileHandle, size: number): Promise<string[] | null> {
  const head = Buffer.alloc(Math.min(HEAD_BYTES, size));
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  const bytes = head.subarray(0, bytesRead);
  return isGzip(bytes) || isTar(bytes) ? null : headLines(bytes);
}

/** The complete lines of a file's head, as the sniffer reads them (a BOM and CRs removed). */
function headLines(bytes: Buffer): string[] {
  const lines = bytes.toString('utf8').split('\n');
  return lines.slice(0, -1).map((l, i) => {
    const text = l.endsWith('\r') ? l.slice(0, -1) : l;
    return i === 0 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  });
}

type FileSource = InputSource & { type: 'file' };

export type Unit =
  | { type: 'batch'; sources: FileSource[] }
  | { type: 'main'; source: InputSource }
  | { type: 'ranges'; source: FileSource; kind: InputKind; bounds: number[] }
  /** A tar bundle: its first `headBytes` of members read by a worker as this thread walks it (archive.ts). */
  | { type: 'archive'; source: FileSource; headBytes: number };

/**
 * The units of work, in input order: a large plain log or multi-pod dump cut into byte ranges,
 * a large tar bundle shared by this thread and a worker, stdin on this thread, and every run of
 * other files as consecutive batches of about equal bytes, one per thread, each read into one
 * rule state. A task per file gave a 400-pod bundle 400 rule states to copy between threads and
 * merge (857 MiB peak RSS, twice the time of one file); with a batch per thread their number no
 * longer depends on the file count.
 */
export async function planUnits(sources: readonly InputSource[], plan: ParallelPlan): Promise<Unit[]> {
  const units: Unit[] = [];
  let run: FileSource[] = [];
  const flush = () => {
    units.push(...batches(run, plan.jobs, plan.readBytes));
    run = [];
  };
  for (const source of sources) {
    // A file named by raw bytes (not UTF-8) is read whole by one thread: range tasks name files by text.
    const big = source.type === 'file' && !source.raw && plan.jobs >= 2 && Math.max(source.size, plan.readBytes.get(source.path) ?? 0) >= plan.splitMinBytes;
    const split = big
      ? await splitPoints(source.path, source.size, plan.jobs, {
          dumps: plan.splitDumps,
          ...(plan.splitFractions ? { fractions: plan.splitFractions } : {}),
        }).catch(() => null)
      : null;
    const archive = big && !split && (await holdsTar(source.path));
    if (source.type === 'file' && !split && !archive) {
      run.push(source);
      continue;
    }
    flush();
    if (split) units.push({ type: 'ranges', source: source as FileSource, kind: split.kind, bounds: split.bounds });
    // Half the members: this thread also walks the tar and copies the worker's members to it.
    else if (archive)
      units.push({
        type: 'archive',
        source: source as FileSource,
        headBytes: Math.floor((plan.readBytes.get(source.path) ?? (source as FileSource).size) / 2),
      });
    else units.push({ type: 'main', source });
  }
  flush();
  return units;
}

function batches(files: readonly FileSource[], jobs: number, readBytes: ReadonlyMap<string, number>): Unit[] {
  const out: Unit[] = [];
  const weight = (f: FileSource) => readBytes.get(f.path) ?? f.size;
  const total = files.reduce((n, f) => n + weight(f), 0);
  let batch: FileSource[] = [];
  let bytes = 0;
  for (const file of files) {
    batch.push(file);
    bytes += weight(file);
    if (bytes >= (total * (out.length + 1)) / jobs && out.length < jobs - 1) {
      out.push({ type: 'batch', sources: batch });
      batch = [];
    }
  }
  if (batch.length > 0) out.push({ type: 'batch', sources: batch });
  return out;
}

/** `<rfc3339> stdout P …`: a CRI partial line continues on the next line, so no range may start after one. */
const CRI_PARTIAL = /^\d{4}-\d\d-\d\dT\S+ (?:stdout|stderr) P/;

/**
 * Byte offsets [0, b1, …, size] cutting a plain (uncompressed, non-tar) file into `parts` ranges.
 * A proxy log is cut at the beginning of a line that does not continue a CRI partial line. With
 * `dumps`, a `linkerd diagnostics proxy-metrics` dump is cut at `# POD` headers: each section
 * is a separate proxy's exposition, which the parser reads from a clean state. Null when the file
 * cannot be cut (another kind, a dump with a single section).
 */
export async function splitPoints(
  file: string,
  size: number,
  parts: number,
  options: { dumps?: boolean; fractions?: number[] } = {},
): Promise<{ kind: InputKind; bounds: number[] } | null> {
  const handle = await open(file, 'r');
  try {
    // Every complete line of the head: the sniffer skips kubectl chatter and stops on its own.
    const first = await plainHeadLines(handle, size);
    if (first === null || first.length < SNIFF_LINES) return null;
    const kind = sniffKind(first);
    if (!PARSERS[kind]) return null;
    // The proxy-log parser saves and restores its state between ranges; a dump section needs none.
    let boundaryAfter: (target: number) => Promise<number | null>;
    if (kind === 'proxy-log') boundaryAfter = (target) => lineStartAfter(handle, target, size);
    else if (kind === 'prometheus' && options.dumps)
      boundaryAfter = async (target) => (await podHeaderBefore(handle, target, bounds[bounds.length - 1]!)) ?? podHeaderAfter(handle, target, size);
    else return null;
    const bounds = [0];
    for (let k = 1; k < parts; k++) {
      const fraction = options.fractions?.[k - 1] ?? k / parts;
      const target = Math.max(Math.floor(size * fraction), bounds[bounds.length - 1]! + 1);
      const at = await boundaryAfter(target);
      if (at === null || at >= size) break;
      if (at > bounds[bounds.length - 1]!) bounds.push(at);
    }
    bounds.push(size);
    return bounds.length > 2 ? { kind, bounds } : null;
  } finally {
    await handle.close();
  }
}

const POD_HEADER_LINE = Buffer.from('\n# POD ');

/**
 * The start of the last `# POD …` line at or before `target` and after `floor`, scanning back
 * block by block; null when there is none. Dumps are cut before the middle rather than after it:
 * earlier ranges go to worker threads, which start reading ~0.1–0.2 s after this thread, so the
 * section on the cut is better left to the last range, which this thread reads.
 */
async function podHeaderBefore(handle: FileHandle, target: number, floor: number): Promise<number | null> {
  const buf = Buffer.allocUnsafe(MiB);
  for (let end = target; end > floor;) {
    const start = Math.max(floor, end - buf.length);
    // Read a needle's length past `end` so a header straddling blocks is seen whole.
    const { bytesRead } = await handle.read(buf, 0, Math.min(buf.length, end - start + POD_HEADER_LINE.length - 1), start);
    const block = buf.subarray(0, bytesRead);
    for (let at = block.lastIndexOf(POD_HEADER_LINE); at !== -1; at = at > 0 ? block.lastIndexOf(POD_HEADER_LINE, at - 1) : -1) {
      const lineStart = start + at + 1;
      if (lineStart <= target && lineStart > floor) return lineStart;
    }
    end = start + (start > floor ? POD_HEADER_LINE.length - 1 : 0);
    if (start === floor) break;
  }
  return null;
}

/** The start of the first `# POD …` line at or after `target`, scanning forward block by block. */
async function podHeaderAfter(handle: FileHandle, target: number, size: number): Promise<number | null> {
  const buf = Buffer.allocUnsafe(MiB);
  // Blocks overlap by the needle's length, and start one byte early so a header right at `target` counts.
  for (let at = Math.max(0, target - 1); at < size; at += buf.length - POD_HEADER_LINE.length) {
    const { bytesRead } = await handle.read(buf, 0, Math.min(buf.length, size - at), at);
    if (bytesRead === 0) return null;
    const found = buf.subarray(0, bytesRead).indexOf(POD_HEADER_LINE);
    if (found !== -1) return at + found + 1;
    if (bytesRead < buf.length) return null;
  }
  return null;
}

/** The first line start at or after `target` whose previous line is not a CRI partial line. */
async function lineStartAfter(handle: FileHandle, target: number, size: number): Promise<number | null> {
  const windowStart = Math.max(0, target - 64 * 1024);
  const buf = Buffer.alloc(Math.min(size - windowStart, 1 * MiB));
  const { bytesRead } = await handle.read(buf, 0, buf.length, windowStart);
  const bytes = buf.subarray(0, bytesRead);
  let nl = bytes.indexOf(10, target - windowStart === 0 ? 0 : target - windowStart - 1);
  while (nl !== -1) {
    const lineStart = bytes.lastIndexOf(10, nl - 1) + 1;
    const previous = bytes.toString('latin1', lineStart, nl);
    if (lineStart > 0 || windowStart === 0) {
      if (!CRI_PARTIAL.test(previous)) return windowStart + nl + 1;
    }
    nl = bytes.indexOf(10, nl + 1);
  }
  return null;
}
