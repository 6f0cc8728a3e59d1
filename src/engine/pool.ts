// The threads of a parallel analysis: this one and size − 1 workers, started on first use.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { EngineModules } from './engine.js';
import type { TaskResult, WorkerMessage, WorkerSetup, WorkerTask } from './messages.js';
import { runTask } from './tasks.js';
import { settleHeap } from '../util/gc.js';
import type { ParseContext } from '../parsers/context.js';
import type { ParserOptions } from '../parsers/parser.js';

/**
 * A worker's records die young, so a small young generation costs little time and keeps each
 * thread's resident memory low (the default reserves far more per isolate).
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8 };

/** This thread, or a worker thread. */
type Slot = 'main' | Worker;

/**
 * Runs tasks on `size` threads: this one (which otherwise only waits and merges) and size − 1
 * workers, started on first use. Every isolate costs tens of megabytes, so not spawning one
 * for the main thread's share keeps peak memory down.
 */
export class TaskPool {
  private readonly idle: Slot[] = ['main'];
  private readonly workers: Worker[] = [];
  private readonly waiting: (() => void)[] = [];
  private draining = false;

  constructor(
    private readonly size: number,
    private readonly setup: WorkerSetup,
    private readonly modules: EngineModules,
    private readonly onMessage: (m: WorkerMessage) => void,
    /** This thread's parse caches for the run (each worker makes its own). */
    context: ParseContext,
  ) {
    this.mainParserOptions = { ...setup.parser, context };
  }

  private readonly mainParserOptions: ParserOptions;

  /** Runs `task` on a free thread; `onWorker` when this thread is busy with the rest of the same source. */
  async run(task: WorkerTask, onWorker = false): Promise<TaskResult> {
    const slot = await this.acquire(onWorker);
    let healthy = true;
    try {
      if (slot !== 'main') return await this.runOn(slot, task);
      const result = await runTask(task, this.modules, this.mainParserOptions, this.onMessage);
      // Once every task is queued, a task that ends here usually ends this thread's share: it then
      // waits while the workers pack their states, the run's peak, so its reading garbage is
      // collected first (util/gc.ts). A share of several tasks collects after each (10-30 ms).
      if (this.draining) settleHeap();
      return { ...result, builtHere: true };
    } catch (err) {
      // A worker that failed outside the task's own error handling is not reused.
      healthy = slot === 'main';
      throw err;
    } finally {
      // Once every task is queued, a worker with nothing left to do is stopped at once: its
      // heap would otherwise stay resident while the main thread finishes and merges.
      let stopping: Promise<unknown> | null = null;
      if (healthy && (slot === 'main' || !this.draining || this.waiting.length > 0)) this.idle.push(slot);
      else stopping = this.retire(slot as Worker);
      // Every waiter looks again: one that needs a worker cannot take this thread's slot.
      for (const wake of this.waiting.splice(0)) wake();
      // The caller unpacks the result's states only once the worker's heap is gone (PackedStates).
      if (stopping !== null) await stopping;
    }
  }

  /** No more tasks will be submitted. */
  drain(): void {
    this.draining = true;
    for (const slot of this.idle.splice(0)) {
      if (slot === 'main') this.idle.push(slot);
      else void this.retire(slot);
    }
  }

  /** Stops a worker; resolves once its thread and heap are gone. */
  private retire(worker: Worker): Promise<unknown> {
    const index = this.workers.indexOf(worker);
    if (index !== -1) this.workers.splice(index, 1);
    return worker.terminate().catch(() => undefined);
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

  private async acquire(onWorker: boolean): Promise<Slot> {
    while (true) {
      const at = this.idle.findIndex((s) => !onWorker || s !== 'main');
      if (at !== -1) return this.idle.splice(at, 1)[0]!;
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
 * Starts a worker on the module beside this one: the built .js, or under tsx (tests) the .ts
 * source, with tsx registered in the worker first (loader flags do not reach worker threads).
 * Named through its folder, not `./`: the release build (scripts/bundle.js) moves this code into
 * a chunk of its own folder, one level under dist/ as engine/ is.
 */
function startWorker(setup: WorkerSetup): Worker {
  const options = { workerData: setup, resourceLimits: WORKER_LIMITS };
  const here = fileURLToPath(import.meta.url);
  const url = new URL(`../engine/analyze-worker${path.extname(here)}`, import.meta.url);
  if (path.extname(here) !== '.ts') return new Worker(url, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); });`, { ...options, eval: true });
}
