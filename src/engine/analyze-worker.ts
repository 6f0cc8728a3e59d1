// A worker thread of a parallel analysis: runs tasks (tasks.ts) as the main thread posts them.

import { parentPort, workerData } from 'node:worker_threads';
import type { WorkerCatalogModule } from './collector.js';
import { modulesFromSpecs, packStates, transferOf, type WorkerMessage, type WorkerSetup, type WorkerTask } from './messages.js';
import { runTask } from './tasks.js';
import { joinDecompressionLedger } from '../input/open.js';
import { ParseContext } from '../parsers/context.js';
import { settleHeap } from '../util/gc.js';

const setup = workerData as WorkerSetup;
if (setup.decompressionLedger) joinDecompressionLedger(setup.decompressionLedger);
// The caller's catalog knows the registry; the engine does not.
const catalog = (await import(setup.catalog)) as WorkerCatalogModule;
const modules = modulesFromSpecs(setup.rules, setup.collectors, (id) => catalog.resolveModule(id));
// A worker lives for one run, so its parse caches are the run's on this thread.
const parserOptions = { ...setup.parser, context: new ParseContext() };
const port = parentPort!;
const post = (m: WorkerMessage) => port.postMessage(m);

port.on('message', (task: WorkerTask) => {
  runTask(task, modules, parserOptions, post).then(
    (result) => {
      // Packing is the worker's peak: the bytes are allocated on top of its heap, which is at its
      // fullest, garbage included. Collected first, 4,000 pod files peak 6 MB lower (with the
      // main thread's collection in pool.ts); where V8 can, the young generation is given back
      // too. The worker stops after this, so the compiled code that collection drops is not missed.
      settleHeap(true);
      // Packed and moved, not cloned: see PackedStates.
      const states = packStates(result.states as unknown[]);
      port.postMessage({ type: 'done', result: { ...result, states } } satisfies WorkerMessage, transferOf(states));
    },
    (err: unknown) => post({ type: 'failed', message: err instanceof Error ? err.message : String(err) }),
  );
});
