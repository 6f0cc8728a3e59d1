// A worker's rule states travel packed (engine/messages.ts PackedStates) and are unpacked on this
// thread only when merged, after the worker has stopped. These tests hold the two halves of that
// contract: unpacking gives back what was packed, owning every typed array (a view into the
// message would keep all of it alive), and the pool resolves a worker's last result only once
// the worker's thread is gone.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MessageChannel, Worker } from 'node:worker_threads';
import { packStates, transferOf, unpackStates, type TaskResult } from '../../src/engine/messages.js';
import { TaskPool } from '../../src/engine/pool.js';
import { ParseContext } from '../../src/parsers/context.js';

/** A state shaped like the rules' own: maps of objects, sets, bits, sketches, counts per second. */
function ruleLikeState() {
  return {
    services: new Map([
      ['10.42.0.7:8080', { pods: { words: Uint32Array.of(1, 0x80000000, 7) }, lines: 12, last: null }],
      ['web.shop.svc:80', { pods: { words: new Uint32Array(4) }, lines: 0, last: 1_733_400_000_000 }],
    ]),
    namespaces: new Set(['shop', 'payments']),
    sketch: Uint8Array.from({ length: 64 }, (_, i) => i),
    perSecond: new Map([[1_733_400_000, new Float64Array([0.5, Number.NaN, -0])]]),
    raw: Buffer.from('linkerd_reconnect'),
    untracked: 3,
  };
}

describe('packed rule states', () => {
  it('unpack to what was packed, in the same types', () => {
    const states = [ruleLikeState(), null, { empty: new Map() }];
    const back = unpackStates(packStates(states)) as [ReturnType<typeof ruleLikeState>, null, { empty: Map<string, number> }];
    assert.deepEqual(back, states);
    assert.ok(back[0].services.get('10.42.0.7:8080')!.pods.words instanceof Uint32Array);
    assert.ok(back[0].perSecond.get(1_733_400_000) instanceof Float64Array);
    assert.ok(Buffer.isBuffer(back[0].raw));
    assert.ok(Object.is(back[0].perSecond.get(1_733_400_000)![2], -0));
  });

  it('own every typed array instead of viewing the packed bytes', () => {
    const packed = packStates([ruleLikeState()]);
    const [state] = unpackStates(packed) as [ReturnType<typeof ruleLikeState>];
    const views = [state.services.get('10.42.0.7:8080')!.pods.words, state.sketch, state.perSecond.get(1_733_400_000)!, state.raw];
    for (const view of views) {
      assert.notEqual(view.buffer, packed.packed.buffer);
      assert.equal(view.buffer.byteLength, view.byteLength, `${view.constructor.name} holds only its own bytes`);
    }
    // Writing to an unpacked array leaves the packed bytes (and any other unpacking) as they were.
    state.sketch[0] = 99;
    assert.equal((unpackStates(packed) as [ReturnType<typeof ruleLikeState>])[0].sketch[0], 0);
  });

  it('move between threads instead of being copied', async () => {
    const packed = packStates([ruleLikeState()]);
    const size = packed.packed.byteLength;
    const transfer = transferOf(packed);
    assert.equal(transfer.length, 1);
    const { port1, port2 } = new MessageChannel();
    const received = new Promise<TaskResult>((resolve) => port2.once('message', resolve));
    const result: TaskResult = { states: packed, failures: [], inputs: [], errors: [] };
    port1.postMessage(result, transfer);
    assert.equal(packed.packed.byteLength, 0, 'the sender no longer holds the bytes');
    const arrived = await received;
    port1.close();
    assert.equal((arrived.states as { packed: Uint8Array }).packed.byteLength, size);
    assert.deepEqual(unpackStates(arrived.states), [ruleLikeState()]);
  });

  it('pass live states built on this thread through as they are', () => {
    const states = [ruleLikeState()];
    assert.equal(unpackStates(states), states);
  });
});

describe('a worker stopped after its last task', () => {
  it('is gone before the pool hands its result over', async () => {
    const exited: Promise<number>[] = [];
    const terminate = Worker.prototype.terminate;
    let stopped = false;
    Worker.prototype.terminate = function (this: Worker) {
      const done = terminate.call(this).then((code) => {
        stopped = true;
        return code;
      });
      exited.push(done);
      return done;
    };
    try {
      const setup = { rules: [], collectors: [], catalog: new URL('../../src/analysis/catalog.ts', import.meta.url).href, parser: {} };
      const pool = new TaskPool(2, setup, { rules: [], collectors: [] }, () => {}, new ParseContext());
      const running = pool.run({ type: 'sources', sources: [] }, true);
      pool.drain();
      const result = await running;
      assert.equal(stopped, true, 'the worker had exited when its result was handed over');
      assert.deepEqual(unpackStates(result.states), []);
      await pool.close();
    } finally {
      Worker.prototype.terminate = terminate;
      await Promise.all(exited);
    }
  });
});
