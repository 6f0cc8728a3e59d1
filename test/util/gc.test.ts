// The scavenge engine/archive.ts runs while it inflates the half of a bundle another thread reads,
// and the full collection a run makes between its phases.

import assert from 'node:assert/strict';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { getHeapSpaceStatistics } from 'node:v8';
import { collectEvery, LAST_RESORT_COLLECTION, settleHeap, worthSettling, youngCollector } from '../../src/util/gc.js';

const MB = 1e6;

/** Allocates `count` 32 KiB buffers (inflated chunks, say) and drops them at once. */
function dropBuffers(count: number): void {
  for (let i = 0; i < count; i++) Buffer.allocUnsafe(32 * 1024);
}

describe('youngCollector', () => {
  it('frees the memory of buffers nothing refers to any more', async () => {
    const collect = youngCollector();
    const baseline = process.memoryUsage().arrayBuffers;
    dropBuffers(1_000);
    await nextTurn();
    // Node 20 and 22 still hold the 32 MB here; Node 24's V8 may have collected them already.
    collect();
    // Their memory is released by V8's sweeper, off this thread, shortly after the collection.
    let after = process.memoryUsage().arrayBuffers;
    for (let wait = 0; wait < 20 && after > baseline + 5 * MB; wait++) {
      await sleep(10);
      after = process.memoryUsage().arrayBuffers;
    }
    assert.ok(after <= baseline + 5 * MB, `array buffers ${(baseline / MB).toFixed(1)} -> ${(after / MB).toFixed(1)} MB after dropping 33 MB`);
  });
});

describe('settleHeap', () => {
  it('frees what outlived the young generation and then died', () => {
    const oldSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;
    // Held through an object read again below, so no liveness analysis can drop them early.
    const holder: { kept: object[] | null } = { kept: [] };
    // ~40 MB: above what settleHeap leaves alone (worthSettling) whatever the runner itself holds.
    for (let i = 0; i < 600_000; i++) holder.kept!.push({ i, text: `line ${i}` });
    // Objects that survive two scavenges are promoted to the old generation, where only a full
    // collection frees them; dropped, they stay counted there until one runs.
    const scavenge = youngCollector();
    scavenge();
    scavenge();
    const held = oldSpace();
    holder.kept = null;
    settleHeap();
    const after = oldSpace();
    assert.equal(holder.kept, null);
    assert.ok(after < held - 15 * MB, `old space ${(held / MB).toFixed(1)} -> ${(after / MB).toFixed(1)} MB after dropping ~40 MB of promoted objects`);
  });
});

describe('settleHeap(true)', () => {
  it('gives the young generation back where V8 has a last-resort collection (Node 22 and later)', (t) => {
    if (!LAST_RESORT_COLLECTION) {
      t.skip(`V8 ${process.versions.v8} has no last-resort collection; settleHeap(true) runs a full one`);
      return;
    }
    const newSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_size;
    // Above what settleHeap leaves alone, and a young generation grown by many short-lived
    // objects of which some survive, as reading leaves it.
    const holder: { kept: object[] | null } = { kept: [] };
    for (let i = 0; i < 600_000; i++) holder.kept!.push({ i, text: `line ${i}` });
    for (let round = 0; round < 40; round++) {
      const batch: object[] = [];
      for (let i = 0; i < 200_000; i++) batch.push({ round, i, text: `x${i}` });
      if (round % 4 === 0) holder.kept!.push(batch.slice(0, 20_000));
    }
    const grown = newSpace();
    settleHeap(true);
    const after = newSpace();
    assert.ok(holder.kept!.length > 0);
    assert.ok(after < grown / 2, `young generation ${(grown / MB).toFixed(1)} -> ${(after / MB).toFixed(1)} MB`);
  });
});

describe('worthSettling', () => {
  it('leaves a heap of little more than the CLI itself alone, and collects one a read has filled', () => {
    // A small run ends with ~12 MB used: two full collections of it were 5 % of its time.
    assert.equal(worthSettling(12 * MB), false);
    // 100 pod files of the bench log end their read with well over 32 MB.
    assert.equal(worthSettling(60 * MB), true);
  });
});

describe('collectEvery', () => {
  it('collects once per `every` bytes, however the bytes are cut', () => {
    let collections = 0;
    const note = collectEvery(100, () => collections++);
    for (let i = 0; i < 30; i++) note(9); // 270 bytes in pieces that never add up to 100 exactly
    assert.equal(collections, 2);
    note(1_000);
    assert.equal(collections, 3);
  });
});
