// Parallel analysis: independent inputs are read by worker threads, and one large plain proxy log
// is cut into byte ranges at line boundaries, one per worker. Each worker runs the parser and the
// rules; the main thread merges the rule states in input order (RuleModule.merge), so the result
// equals the sequential run's.
//
// A range's parser starts from a state it cannot know for sure (restart count, last uptime, the
// wall-time anchor learned from earlier lines), so each worker assumes one from the lines just
// before its range and reports it. The main thread checks that assumption against the state the
// previous range really ended with; a range that assumed wrong is read again from the right
// state. Line numbers are exact: a range's worker counts the newlines before it.

import { open } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { InputError, UsageError } from '../core/errors.js';
import type { AnyRule, InputKind, InputStats } from '../core/types.js';
import type { Discovery, InputSource } from '../input/discover.js';
import { isGzip, isTar } from '../input/open.js';
import { SNIFF_LINES, sniffKind } from '../input/sniff.js';
import { PARSERS } from '../parsers/index.js';
import type { ParserOptions, ParserState } from '../parsers/parser.js';
import { findRule } from '../rules/index.js';
import { RuleEngine, type ConfiguredRule } from './engine.js';
import { knownTotalBytes, readSource, reportUnrecognised, type ReadOptions, type ReadResult } from './read.js';
import { deserializeError, serializeError, type RuleSpec, type TaskResult, type WorkerMessage, type WorkerSetup, type WorkerTask } from './messages.js';
import { fileRange } from '../input/file-range.js';
import { readEntry, type EntryCallbacks } from './pipeline.js';
import { countLines, runTask } from './tasks.js';
import { SharedRangeEnd, type RangeProgress } from './range-end.js';
import { versionCollector } from '../incident/versions.js';

export interface ParallelOptions {
  /** Worker threads; 1 reads everything on the main thread. Default: LINKERD_DOCTOR_JOBS, else the cores (at most 4). */
  jobs?: number;
  /** Below this many bytes of input in total, workers cost more than they save. */
  parallelMinBytes?: number;
  /** A plain proxy log at least this large is split into byte ranges. */
  splitMinBytes?: number;
  /** Told how each byte range of a split file was taken: as read by its worker, or re-read because its assumed start state was wrong; `stolen` when this thread took it from another's range. */
  onRange?: (info: { path: string; start: number; end: number; reread: boolean; stolen: boolean }) => void;
  /** This thread, once its own range is done, takes half of what another thread has left of its range while that is at least this many bytes. */
  stealMinBytes?: number;
  /** Resident bytes that a steal must not risk passing (see stealRanges); default 200 MiB. */
  stealMemoryBudget?: number;
  /** Where to cut a split file, as fractions of its size (tests); default: equal parts. */
  splitFractions?: number[];
}

const MiB = 1 << 20;
/**
 * A worker's records die young, so a small young generation costs little time and keeps each
 * thread's resident memory low (the default reserves far more per isolate).
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8 };
/**
 * Stealing costs a few tens of milliseconds (finding a line start, counting the lines in between,
 * learning the parser state there, one more rule state to merge): below 16 MiB, about 0.1 s of
 * reading, it does not pay.
 */
const DEFAULTS = { parallelMinBytes: 32 * MiB, splitMinBytes: 64 * MiB, stealMinBytes: 16 * MiB, stealMemoryBudget: 200 * MiB };
/** Bytes read from the head of a file to sniff its kind (the sniffer needs its first SNIFF_LINES lines). */
const HEAD_BYTES = 256 * 1024;

export interface ParallelPlan {
  jobs: number;
  rules: RuleSpec[];
  splitMinBytes: number;
  stealMinBytes: number;
  stealMemoryBudget: number;
  splitFractions?: number[];
  /** Multi-pod metric dumps may be cut at `# POD` headers (not in strict mode, which checks each section's framing across the cut). */
  splitDumps: boolean;
  /** The run's gzip totals (input/open.ts), shared with every worker. */
  decompressionLedger?: SharedArrayBuffer;
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
export function cappedJobs(requested: number | undefined, env: NodeJS.ProcessEnv = process.env, cores = availableParallelism()): { jobs: number; notice?: string } {
  const jobs = resolveJobs(requested, env);
  if (jobs <= cores) return { jobs };
  const asked = requested !== undefined ? `--jobs ${requested}` : `LINKERD_DOCTOR_JOBS=${env.LINKERD_DOCTOR_JOBS}`;
  return { jobs: cores, notice: `${asked} capped at ${cores}, the number of CPU cores` };
}

/** Whether (and how) to read in parallel; null means the sequential path. */
export function parallelPlanFor(discovery: Discovery, rules: readonly ConfiguredRule[], options: ReadOptions & ParallelOptions, decompressionLedger?: SharedArrayBuffer): ParallelPlan | null {
  const jobs = resolveJobs(options.jobs);
  if (jobs <= 1 || options.onUnparsed) return null;
  const specs: RuleSpec[] = [];
  for (const r of rules) {
    // Workers rebuild rules from the registry; a rule object from elsewhere stays on this thread.
    if (resolveRule(r.rule.meta.id) !== r.rule) return null;
    specs.push(r.severity ? { id: r.rule.meta.id, options: r.options, severity: r.severity } : { id: r.rule.meta.id, options: r.options });
  }
  const fileBytes = discovery.sources.reduce((n, s) => n + (s.type === 'file' ? s.size : 0), 0);
  if (fileBytes < (options.parallelMinBytes ?? DEFAULTS.parallelMinBytes)) return null;
  const plan: ParallelPlan = {
    jobs,
    rules: specs,
    splitMinBytes: options.splitMinBytes ?? DEFAULTS.splitMinBytes,
    stealMinBytes: options.stealMinBytes ?? DEFAULTS.stealMinBytes,
    stealMemoryBudget: options.stealMemoryBudget ?? DEFAULTS.stealMemoryBudget,
    splitDumps: !options.strict,
  };
  if (decompressionLedger) plan.decompressionLedger = decompressionLedger;
  if (options.splitFractions) plan.splitFractions = options.splitFractions;
  return plan;
}

/**
 * Rule modules the engine runs besides the RULES registry (collectors riding along as rules):
 * list them here so workers can rebuild them too; a configured rule found in neither keeps the
 * whole analysis on the main thread.
 */
const BUILT_IN_MODULES: readonly AnyRule[] = [versionCollector];

function resolveRule(id: string): AnyRule | undefined {
  return findRule(id) ?? BUILT_IN_MODULES.find((r) => r.meta.id === id);
}

export function configuredRules(specs: readonly RuleSpec[]): ConfiguredRule[] {
  return specs.map((s) => {
    const rule = resolveRule(s.id);
    if (!rule) throw new Error(`unknown rule ${s.id}`);
    return s.severity ? { rule, options: s.options, severity: s.severity } : { rule, options: s.options };
  });
}

// ---------------------------------------------------------------- planning

type Unit =
  | { type: 'source'; source: InputSource & { type: 'file' } }
  | { type: 'main'; source: InputSource }
  | { type: 'ranges'; source: InputSource & { type: 'file' }; kind: InputKind; bounds: number[] };

async function planUnit(source: InputSource, plan: ParallelPlan): Promise<Unit> {
  if (source.type !== 'file') return { type: 'main', source };
  if (source.size < plan.splitMinBytes || plan.jobs < 2) return { type: 'source', source };
  const split = await splitPoints(source.path, source.size, plan.jobs, { dumps: plan.splitDumps, ...(plan.splitFractions ? { fractions: plan.splitFractions } : {}) }).catch(() => null);
  return split ? { type: 'ranges', source, kind: split.kind, bounds: split.bounds } : { type: 'source', source };
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
export async function splitPoints(file: string, size: number, parts: number, options: { dumps?: boolean; fractions?: number[] } = {}): Promise<{ kind: InputKind; bounds: number[] } | null> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(Math.min(HEAD_BYTES, size));
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const bytes = head.subarray(0, bytesRead);
    if (isGzip(bytes) || isTar(bytes)) return null;
    const lines = bytes.toString('utf8').split('\n');
    if (lines.length <= SNIFF_LINES) return null;
    // Every complete line of the head: the sniffer skips kubectl chatter and stops on its own.
    const first = lines.slice(0, -1).map((l, i) => {
      const text = l.endsWith('\r') ? l.slice(0, -1) : l;
      return i === 0 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    });
    const kind = sniffKind(first);
    if (!PARSERS[kind]) return null;
    // The proxy-log parser saves and restores its state between ranges; a dump section needs none.
    let boundaryAfter: (target: number) => Promise<number | null>;
    if (kind === 'proxy-log') boundaryAfter = (target) => lineStartAfter(handle, target, size);
    else if (kind === 'prometheus' && options.dumps) boundaryAfter = async (target) => (await podHeaderBefore(handle, target, bounds[bounds.length - 1]!)) ?? podHeaderAfter(handle, target, size);
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
async function podHeaderBefore(handle: import('node:fs/promises').FileHandle, target: number, floor: number): Promise<number | null> {
  const buf = Buffer.allocUnsafe(MiB);
  for (let end = target; end > floor; ) {
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
async function podHeaderAfter(handle: import('node:fs/promises').FileHandle, target: number, size: number): Promise<number | null> {
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
async function lineStartAfter(handle: import('node:fs/promises').FileHandle, target: number, size: number): Promise<number | null> {
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

// ---------------------------------------------------------------- the pool

/** This thread, or a worker thread. */
type Slot = 'main' | Worker;

/**
 * Runs tasks on `size` threads: this one (which otherwise only waits and merges) and size − 1
 * workers, started on first use. Every isolate costs tens of megabytes, so not spawning one
 * for the main thread's share keeps peak memory down.
 */
class TaskPool {
  private readonly idle: Slot[] = ['main'];
  private readonly workers: Worker[] = [];
  private readonly waiting: (() => void)[] = [];
  private draining = false;

  constructor(
    private readonly size: number,
    private readonly setup: WorkerSetup,
    private readonly rules: readonly ConfiguredRule[],
    private readonly onMessage: (m: WorkerMessage) => void,
  ) {}

  /**
   * Runs `task` on a free thread. When that is this thread and no other task waits for one,
   * `thenOnMain` runs next, before the thread counts as free again (it steals work).
   */
  async run(task: WorkerTask, thenOnMain?: () => Promise<void>): Promise<TaskResult> {
    const slot = await this.acquire();
    let healthy = true;
    try {
      if (slot !== 'main') return await this.runOn(slot, task);
      const result = await runTask(task, this.rules, this.setup.parser, this.onMessage);
      if (thenOnMain && this.waiting.length === 0) await thenOnMain();
      return result;
    } catch (err) {
      // A worker that failed outside the task's own error handling is not reused.
      healthy = slot === 'main';
      throw err;
    } finally {
      // Once every task is queued, a worker with nothing left to do is stopped at once: its
      // heap would otherwise stay resident while the main thread finishes and merges.
      if (healthy && (slot === 'main' || !this.draining || this.waiting.length > 0)) this.idle.push(slot);
      else this.retire(slot as Worker);
      this.waiting.shift()?.();
    }
  }

  /** No more tasks will be submitted. */
  drain(): void {
    this.draining = true;
    for (const slot of this.idle.splice(0)) {
      if (slot === 'main') this.idle.push(slot);
      else this.retire(slot);
    }
  }

  private retire(worker: Worker): void {
    const index = this.workers.indexOf(worker);
    if (index !== -1) this.workers.splice(index, 1);
    void worker.terminate();
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private runOn(worker: Worker, task: WorkerTask): Promise<TaskResult> {
    return new Promise<TaskResult>((resolve, reject) => {
      const onMessage = (m: WorkerMessage) => {
        if (m.type === 'done') finish(() => resolve(m.result));
        else if (m.type === 'failed') finish(() => reject(new Error(m.message)));
        else this.onMessage(m);
      };
      const onError = (err: Error) => finish(() => reject(err));
      const onExit = (code: number) => finish(() => reject(new Error(`worker exited with code ${code}`)));
      const finish = (settle: () => void) => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        settle();
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage(task);
    });
  }

  private async acquire(): Promise<Slot> {
    while (true) {
      const slot = this.idle.shift();
      if (slot) return slot;
      if (this.workers.length + 1 < this.size) {
        const created = startWorker(this.setup);
        this.workers.push(created);
        return created;
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }
}

/**
 * Starts a worker on the module next to this one: the built .js, or under tsx (tests) the .ts
 * source, with tsx registered in the worker first (loader flags do not reach worker threads).
 */
function startWorker(setup: WorkerSetup): Worker {
  const options = { workerData: setup, resourceLimits: WORKER_LIMITS };
  const here = fileURLToPath(import.meta.url);
  const url = new URL(`./analyze-worker${path.extname(here)}`, import.meta.url);
  if (path.extname(here) !== '.ts') return new Worker(url, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); });`, { ...options, eval: true });
}

// ---------------------------------------------------------------- running and merging

export async function analyzeInParallel(discovery: Discovery, plan: ParallelPlan, engine: RuleEngine, options: ReadOptions & ParallelOptions): Promise<ReadResult> {
  const inputs: InputStats[] = [];
  const errors = [...discovery.errors];
  const progress = options.progress;
  progress?.start(knownTotalBytes(discovery));
  const parserOptions: ParserOptions = {};
  if (options.strict) parserOptions.strict = options.strict;
  if (options.interest) parserOptions.interest = options.interest;
  const rules = configuredRules(plan.rules);
  const post = (m: WorkerMessage) => {
    if (m.type === 'progress') progress?.bytes(m.bytes, m.lines);
    else if (m.type === 'file') progress?.file(m.path);
  };
  const setup: WorkerSetup = { rules: plan.rules, parser: parserOptions };
  if (plan.decompressionLedger) setup.decompressionLedger = plan.decompressionLedger;
  const pool = new TaskPool(plan.jobs, setup, rules, post);
  const thief: Thief = { rules, parserOptions, post, minBytes: plan.stealMinBytes, memoryBudget: plan.stealMemoryBudget, heapAtStart: process.memoryUsage().heapUsed };
  try {
    const units = await Promise.all(discovery.sources.map((s) => planUnit(s, plan)));
    // Start every worker task now (the pool queues them); merge strictly in input order below.
    // A failed task yields null at once, so a later unit's failure is never an unhandled rejection.
    const started: (Promise<RangePart[] | null> | null)[] = units.map((unit) => startUnit(unit, pool, thief)?.catch(() => null) ?? null);
    pool.drain();
    for (let i = 0; i < units.length; i++) {
      const unit = units[i]!;
      if (unit.type === 'main') {
        mergeInto(engine, await readOnMainThread(unit.source, rules, options), inputs, errors);
        continue;
      }
      const parts = await started[i]!;
      // Once merged, a task's rule states are garbage: holding every one of them until the end cost hundreds of MiB on 400-file bundles.
      started[i] = null;
      if (parts === null) {
        // A worker died (not an input problem): read this source here instead.
        mergeInto(engine, await readOnMainThread(unit.source, rules, options, false), inputs, errors);
      } else if (unit.type === 'source') {
        mergeInto(engine, parts[0]!.result!, inputs, errors);
      } else {
        await mergeRanges(engine, unit, parts, rules, options, inputs, errors);
      }
    }
  } finally {
    await pool.close();
    progress?.stop();
  }
  reportUnrecognised(discovery, inputs, errors);
  return { inputs, errors, notices: discovery.notices };
}

/** One byte range of a split file as it was finally read. */
interface RangePart {
  start: number;
  /** Moves in when this thread steals the rest of the range. */
  end: number;
  stolen: boolean;
  /** Shared with the worker reading the range, so that its end can move in. */
  shared?: SharedRangeEnd;
  result?: TaskResult;
}

/** What this thread needs to read stolen ranges itself. */
interface Thief {
  rules: readonly ConfiguredRule[];
  parserOptions: ParserOptions;
  post: (m: WorkerMessage) => void;
  minBytes: number;
  memoryBudget: number;
  /** This thread's heap before any rule state existed. */
  heapAtStart: number;
}

function startUnit(unit: Unit, pool: TaskPool, thief: Thief): Promise<RangePart[]> | null {
  if (unit.type === 'main') return null;
  if (unit.type === 'source') return pool.run({ type: 'source', source: unit.source }).then((result) => [{ start: 0, end: unit.source.size, stolen: false, result }]);
  const last = unit.bounds.length - 2;
  const parts: RangePart[] = [];
  for (let k = 0; k <= last; k++) {
    const part: RangePart = { start: unit.bounds[k]!, end: unit.bounds[k + 1]!, stolen: false };
    // The last range goes to this thread (below), which steals from the others; none steals from it.
    if (k < last) part.shared = SharedRangeEnd.create(part.start, part.end, k === 0 ? 0 : null);
    parts.push(part);
  }
  const tasks: Promise<void>[] = [];
  // Submitted last range first, so that this thread, which is free at once, takes the last range:
  // before reading it must count the lines in front of it and learn the parser state there, which
  // takes about as long as a new worker needs to start and take the first range, which needs neither.
  for (let k = last; k >= 0; k--) {
    const part = parts[k]!;
    const task: WorkerTask = { type: 'range', path: unit.source.path, start: part.start, end: part.end, kind: unit.kind };
    if (k === 0) task.linesBefore = 0;
    if (part.shared) task.sharedEnd = part.shared.buffer;
    tasks.push(
      pool.run(task, () => stealRanges(unit, parts, thief)).then((result) => {
        part.result = result;
      }),
    );
  }
  // Stolen parts were added while the tasks ran; order them by offset for the merge.
  return Promise.all(tasks).then(() => parts.sort((a, b) => a.start - b.start));
}

/**
 * This thread has finished its own range: while another thread has at least minBytes of its range
 * left, cut that range at a line start halfway through its rest and read the second half here. The
 * lines in front of the cut are the victim's published count plus the newlines between its
 * boundary and the cut; the parser state there is assumed and later checked like any range's.
 *
 * A stolen range gets rule states of its own, which live until the merge, and under a label or
 * address bomb they fill up to the rules' caps. So a steal must fit in the memory budget even if
 * its states grow as large as the ones this thread already holds (its heap growth since the start).
 */
async function stealRanges(unit: Unit & { type: 'ranges' }, parts: RangePart[], thief: Thief): Promise<void> {
  const file = unit.source.path;
  while (true) {
    const { rss, heapUsed } = process.memoryUsage();
    if (rss + Math.max(0, heapUsed - thief.heapAtStart) > thief.memoryBudget) return;
    let victim: RangePart | null = null;
    let seen: RangeProgress | null = null;
    for (const part of parts) {
      if (!part.shared || part.result) continue;
      const progress = part.shared.progress();
      if (Number.isNaN(progress.lines)) continue;
      if (seen === null || progress.end - progress.boundary > seen.end - seen.boundary) {
        victim = part;
        seen = progress;
      }
    }
    if (victim === null || seen === null) return;
    const left = seen.end - seen.boundary;
    if (left < thief.minBytes) return;
    // Halfway through what is left, and never before what the victim has already claimed.
    const cut = await cutNear(file, unit.kind, Math.max(seen.claimed, seen.boundary + Math.floor(left / 2)), seen.end);
    if (cut === null) return;
    // The victim may have claimed past the cut meanwhile: look again.
    if (!victim.shared!.cut(cut)) continue;
    const stolen: RangePart = { start: cut, end: seen.end, stolen: true };
    victim.end = cut;
    parts.push(stolen);
    const linesBefore = seen.lines + (await countLines(file, seen.boundary, cut));
    const task: WorkerTask = { type: 'range', path: file, start: cut, end: seen.end, kind: unit.kind, linesBefore, bootTimeHint: seen.bootTime };
    stolen.result = await runTask(task, thief.rules, thief.parserOptions, thief.post);
  }
}

/** The first offset at or after `target` (and before `end`) where a range of this kind may begin, as splitPoints cuts; or null. */
async function cutNear(file: string, kind: InputKind, target: number, end: number): Promise<number | null> {
  const handle = await open(file, 'r');
  try {
    const at = kind === 'proxy-log' ? await lineStartAfter(handle, target, end) : await podHeaderAfter(handle, target, end);
    return at !== null && at < end ? at : null;
  } finally {
    await handle.close();
  }
}

function mergeInto(engine: RuleEngine, result: TaskResult, inputs: InputStats[], errors: InputError[]): void {
  engine.absorb(result.states);
  engine.absorbFailures(result.failures);
  inputs.push(...result.inputs);
  errors.push(...result.errors.map(deserializeError));
}

/** Whether a range's assumed start state is the state its predecessor really ended with. */
export function sameParserState(a: ParserState | undefined, b: ParserState | undefined): boolean {
  if (!a || !b) return a === b;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) if (a[k] !== b[k]) return false;
  return true;
}

async function mergeRanges(
  engine: RuleEngine,
  unit: Unit & { type: 'ranges' },
  parts: RangePart[],
  rules: ConfiguredRule[],
  options: ReadOptions & ParallelOptions,
  inputs: InputStats[],
  errors: InputError[],
): Promise<void> {
  const verified: TaskResult[] = [];
  for (let k = 0; k < parts.length; k++) {
    const part = parts[k]!;
    let result = part.result!;
    const previous = verified[k - 1];
    if (previous && (previous.errors.length > 0 || previous.endState?.partialLine === true)) {
      // The ranges do not join cleanly (a read error, a CRI partial line across the cut): read the whole file here.
      mergeInto(engine, await readOnMainThread(unit.source, rules, options, false), inputs, errors);
      return;
    }
    const reread = previous !== undefined && !sameParserState(result.assumedState, previous.endState);
    if (reread) result = await readRangeOnMainThread(unit, part, result.linesBefore!, previous.endState!, rules, options);
    options.onRange?.({ path: unit.source.path, start: part.start, end: part.end, reread, stolen: part.stolen });
    verified.push(result);
  }
  const stats: InputStats = { ...verified[0]!.inputs[0]!, bytes: 0, records: 0, unparsed: 0, lines: 0 };
  for (const r of verified) {
    engine.absorb(r.states);
    engine.absorbFailures(r.failures);
    const part = r.inputs[0]!;
    stats.bytes += part.bytes;
    stats.records += part.records;
    stats.unparsed += part.unparsed;
    stats.lines += part.lines;
    errors.push(...r.errors.map(deserializeError));
  }
  inputs.push(stats);
}

/** Re-reads one range from the state its predecessor ended with (the assumed start state was wrong). */
async function readRangeOnMainThread(
  unit: Unit & { type: 'ranges' },
  part: RangePart,
  linesBefore: number,
  parserState: ParserState,
  rules: ConfiguredRule[],
  options: ReadOptions,
): Promise<TaskResult> {
  const local = new RuleEngine(rules);
  const entry = { path: unit.source.path, stream: fileRange(unit.source.path, part.start, part.end), size: part.end - part.start };
  const result = await readEntry(entry, { record: (r) => local.emit(r) }, options, unit.kind, { linesBefore, kind: unit.kind, parserState });
  const out: TaskResult = { states: local.snapshot(), failures: local.failedRules(), inputs: [result.stats], errors: result.error ? [serializeError(result.error)] : [], linesBefore };
  if (result.endState) out.endState = result.endState;
  return out;
}

async function readOnMainThread(source: InputSource, rules: ConfiguredRule[], options: ReadOptions, withProgress = true): Promise<TaskResult> {
  const local = new RuleEngine(rules);
  const inputs: InputStats[] = [];
  const errors: InputError[] = [];
  const callbacks: EntryCallbacks = { record: (r) => local.emit(r) };
  if (withProgress && options.progress) callbacks.bytes = (n, lines) => options.progress!.bytes(n, lines);
  await readSource(source, callbacks, options, inputs, errors);
  return { states: local.snapshot(), failures: local.failedRules(), inputs, errors: errors.map(serializeError) };
}
