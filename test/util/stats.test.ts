import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addBit,
  bitCount,
  bitIds,
  bumpTop,
  earliest,
  hasPod,
  keepTop,
  latest,
  mergeBits,
  mergePodSets,
  mergeTopCounts,
  mergeKeyed,
  nameId,
  nameTable,
  ownedName,
  podBits,
  podSet,
  podSetCount,
  addPodTo,
  sharedBitCount,
  topCountEntries,
  topCounts,
} from '../../src/util/stats.js';

describe('mergeKeyed', () => {
  it('adopts new entries, combines shared ones, and hands entries past the cap to overflow', () => {
    const into = new Map([['a', { n: 1 }]]);
    const from = new Map([
      ['a', { n: 2 }],
      ['b', { n: 3 }],
      ['c', { n: 4 }],
    ]);
    const overflowed: number[] = [];
    mergeKeyed(
      into,
      from,
      (mine, theirs) => (mine.n += theirs.n),
      2,
      (theirs) => overflowed.push(theirs.n),
    );
    assert.deepEqual(
      [...into],
      [
        ['a', { n: 3 }],
        ['b', { n: 3 }],
      ],
    );
    assert.deepEqual(overflowed, [4]);
  });
});

describe('earliest and latest', () => {
  it('treat null as "none seen yet" and otherwise take the min or max', () => {
    assert.equal(earliest(null, null), null);
    assert.equal(earliest(null, 5), 5);
    assert.equal(earliest(7, null), 7);
    assert.equal(earliest(7, 5), 5);
    assert.equal(latest(null, 5), 5);
    assert.equal(latest(7, null), 7);
    assert.equal(latest(7, 5), 7);
    assert.equal(latest(-3, -8), -3);
  });
});

describe('name table and pod bits', () => {
  it('gives each name one id and one copy up to the cap, and -1 past it', () => {
    const table = nameTable(2);
    assert.equal(nameId(table, 'web-1'), 0);
    assert.equal(nameId(table, 'web-2'), 1);
    assert.equal(nameId(table, 'web-1'), 0, 'a name asked for again keeps its id');
    assert.equal(nameId(table, 'web-3'), -1, 'past the cap');
    assert.equal(table.names.length, 2);
    const line = 'ingress/traefik-7d9f8c6b5d-x2x8k/linkerd-proxy.log';
    const pod = line.slice(8, 32);
    const owned = ownedName(nameTable(4), pod);
    assert.equal(owned, pod);
    assert.equal(ownedName(table, 'web-9'), 'web-9', 'past the cap a name is still handed back');
  });

  it('counts, lists and intersects sets of ids across words, the top bit included', () => {
    const a = podBits();
    const b = podBits();
    for (const id of [0, 31, 32, 200]) addBit(a, id);
    for (const id of [31, 200, 1000]) addBit(b, id);
    addBit(a, 31);
    assert.equal(bitCount(a), 4);
    assert.deepEqual([...bitIds(a)], [0, 31, 32, 200]);
    assert.equal(sharedBitCount(a, b), 2);
    assert.equal(sharedBitCount(b, a), 2, 'whichever set has more words');
  });

  it('merges by name, not by id, and hands names past the cap to overflow', () => {
    const theirs = nameTable(10);
    const from = podBits();
    for (const pod of ['web-3', 'web-1', 'web-2']) addBit(from, nameId(theirs, pod));
    const mine = nameTable(2);
    const into = podBits();
    addBit(into, nameId(mine, 'web-1'));
    const overflow: string[] = [];
    mergeBits(into, mine, from, theirs, (name) => overflow.push(name));
    assert.deepEqual(
      [...bitIds(into)].map((id) => mine.names[id]),
      ['web-1', 'web-3'],
    );
    assert.deepEqual(overflow, ['web-2']);
  });

  it('keeps a pod set exact within the table and estimated past it, across a merge', () => {
    const theirs = nameTable(10);
    const from = podSet();
    for (const pod of ['web-1', 'web-2', 'web-3']) addPodTo(from, nameId(theirs, pod), pod);
    assert.deepEqual(podSetCount(from), { value: 3, estimated: false });
    const mine = nameTable(2);
    const into = podSet();
    addPodTo(into, nameId(mine, 'web-1'), 'web-1');
    addPodTo(into, nameId(mine, 'web-9'), 'web-9');
    assert.equal(into.unnamed, null, 'web-9 takes the last id');
    mergePodSets(into, mine, from, theirs);
    // web-1 is in both; web-2 and web-3 find no id left and go to the sketch.
    assert.deepEqual(podSetCount(into), { value: 4, estimated: true });
    assert.equal(bitCount(into.bits), 2);
  });

  it('bumpTop keeps the keys with the highest counts once it holds twice the cap', () => {
    const top = topCounts();
    for (let i = 0; i < 4; i++) bumpTop(top, `low-${i}`, 1, 2);
    bumpTop(top, 'low-0', 5, 2);
    bumpTop(top, 'high', 9, 2);
    // low-0 (6) and, of the three at 1, the earliest (low-1) stay, in the order first counted.
    assert.deepEqual(
      [...topCountEntries(top)],
      [
        ['low-0', 6],
        ['low-1', 1],
        ['high', 9],
      ],
    );
  });

  it('bumpTop keeps what a Map trimmed by keepTop keeps, in the same order', () => {
    // The rule before TopCounts, as the reference: a Map, trimmed by keepTop before each new key.
    const reference = new Map<string, number>();
    const top = topCounts();
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 5_000; i++) {
      // Runs of one key (one pod's file), a skewed choice of keys, and counts of 1-3.
      const key = `pod-${Math.floor(random() ** 2 * 300)}`;
      const by = 1 + Math.floor(random() * 3);
      for (let run = Math.floor(random() * 4); run >= 0; run--) {
        const current = reference.get(key);
        if (current === undefined) keepTop(reference, 10, (n) => n);
        reference.set(key, (current ?? 0) + by);
        bumpTop(top, key, by, 10);
      }
      assert.deepEqual([...topCountEntries(top)], [...reference], `after ${i + 1} keys`);
    }
  });

  it('bumpTop writes its arrays in place and drops trimmed names', () => {
    const top = topCounts();
    for (let i = 0; i < 4; i++) bumpTop(top, `pod-${i}`, 4 - i, 2);
    const { keys, counts } = top;
    bumpTop(top, 'pod-9', 1, 2);
    assert.equal(top.keys, keys);
    assert.equal(top.counts, counts);
    assert.equal(top.size, 3);
    assert.deepEqual(top.keys.slice(0, 3), ['pod-0', 'pod-1', 'pod-9']);
    assert.ok(!top.keys.includes('pod-2') && !top.keys.includes('pod-3'));
  });

  it('bumpTop told a key is absent counts it as a new key, as the search would have', () => {
    const searched = topCounts();
    const told = topCounts();
    const table = nameTable(3);
    const pods = podSet();
    // Pods 0-4 in turns, each a run of lines; pods 3 and 4 are past the table (no id: always searched).
    for (let line = 0; line < 60; line++) {
      const pod = `pod-${Math.floor(line / 3) % 5}`;
      const id = nameId(table, pod);
      bumpTop(searched, pod, 1 + (line % 2), 2);
      bumpTop(told, pod, 1 + (line % 2), 2, id >= 0 && !hasPod(pods, id));
      addPodTo(pods, id, pod);
    }
    assert.deepEqual([...topCountEntries(told)], [...topCountEntries(searched)]);
    assert.equal(told.size, searched.size);
  });

  it('hasPod is sure only of pods with an id', () => {
    const table = nameTable(1);
    const pods = podSet();
    const a = nameId(table, 'a');
    const b = nameId(table, 'b');
    assert.equal(hasPod(pods, a), false);
    addPodTo(pods, a, 'a');
    addPodTo(pods, b, 'b');
    assert.equal(hasPod(pods, a), true);
    assert.equal(b, -1);
    assert.equal(hasPod(pods, b), false);
    // An id past the words the set has grown to.
    assert.equal(hasPod(pods, 1000), false);
  });

  it('mergeTopCounts adds each renamed key as bumpTop would, in order', () => {
    const from = topCounts();
    for (const [key, by] of [
      ['a', 3],
      ['b', 1],
      ['c', 7],
      ['a', 2],
    ] as const)
      bumpTop(from, key, by, 2);
    const merged = topCounts();
    bumpTop(merged, 'B', 4, 2);
    const bumped = topCounts();
    bumpTop(bumped, 'B', 4, 2);
    mergeTopCounts(merged, from, 2, (key) => key.toUpperCase());
    for (const [key, count] of topCountEntries(from)) bumpTop(bumped, key.toUpperCase(), count, 2);
    assert.deepEqual([...topCountEntries(merged)], [...topCountEntries(bumped)]);
    assert.deepEqual(
      [...topCountEntries(merged)],
      [
        ['B', 5],
        ['A', 5],
        ['C', 7],
      ],
    );
  });
});
