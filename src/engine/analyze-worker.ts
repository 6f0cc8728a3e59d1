// A worker thread of a parallel analysis: runs tasks (tasks.ts) as the main thread posts them.

import { parentPort, workerData } from 'node:worker_threads';
import { configuredRules, type WorkerMessage, type WorkerSetup, type WorkerTask } from './messages.js';
import { runTask } from './tasks.js';
import { joinDecompressionLedger } from '../input/open.js';

const setup = workerData as WorkerSetup;
if (setup.decompressionLedger) joinDecompressionLedger(setup.decompressionLedger);
const rules = configuredRules(setup.rules);
const port = parentPort!;
const post = (m: WorkerMessage) => port.postMessage(m);

port.on('message', (task: WorkerTask) => {
  runTask(task, rules, setup.parser, post).then(
    (result) => post({ type: 'done', result }),
    (err: unknown) => post({ type: 'failed', message: err instanceof Error ? err.message : String(err) }),
  );
});
