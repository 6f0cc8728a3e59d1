// Small summaries that rules keep instead of records.

import { addDistinct, distinctCount, distinctCounter, mergeDistinct, type DistinctCount, type DistinctCounter } from './distinct.js';

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Largest value, or `empty` for none; unlike Math.max(...xs) it cannot overflow the stack on big arrays. */
export function maxOf(values: Iterable<number>, empty = 0): number {
  let max = -Infinity;
  for (const v of values) if (v > max) max = v;
  return max === -Infinity ? empty : max;
}

export function minOf(values: Iterable<number>, empty = 0): number {
  let min = Infinity;
  for (const v of values) if (v < min) min = v;
  return min === Infinity ? empty : min;
}

/** The smaller of two values where null means "none seen yet" (first-seen times, say). */
export function earliest(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}

/** The larger of two values where null means "none seen yet". */
export function latest(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.max(a, b);
}

/** Adds `by` to the count of `key`. */
export function bump<K>(map: Map<K, number>, key: K, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

/**
 * Merges keyed summaries the way every rule's merge() needs: an entry only in `from` is adopted
 * (or, once `into` holds `cap` keys, handed to `overflow`), an entry in both is combined into the
 * existing one.
 */
export function mergeKeyed<K, V>(
  into: Map<K, V>,
  from: ReadonlyMap<K, V>,
  combine: (mine: V, theirs: V) => void,
  cap = Infinity,
  overflow?: (theirs: V) => void,
): void {
  for (const [key, theirs] of from) {
    const mine = into.get(key);
    if (mine !== undefined) combine(mine, theirs);
    else if (into.size < cap) into.set(key, theirs);
    else overflow?.(theirs);
  }
}

/**
 * Bounds a keyed summary by the rule's own measure: once `map` holds 2 × `cap` entries, only the
 * `cap` entries with the highest measure stay (ties keep the earlier entry). Returns how many were
 * dropped, for the rule to count and report. Called before each insert (and after a merge), it
 * sorts once per `cap` new keys, so the amortised cost per key is O(log cap) and memory never
 * passes 2 × `cap` entries, however many pods a bundle holds.
 */
export function keepTop<K, V>(map: Map<K, V>, cap: number, measure: (value: V) => number): number {
  if (map.size < 2 * cap) return 0;
  const ranked = [...map].map(([key, value], order) => ({ key, rank: measure(value), order }));
  ranked.sort((a, b) => b.rank - a.rank || a.order - b.order);
  for (let i = cap; i < ranked.length; i++) map.delete(ranked[i]!.key);
  return ranked.length - cap;
}

/** What keepWorst dropped: keys that held nothing against the verdict, and keys that did. */
export interface DroppedKeys {
  /** Keys whose rank was 0: nothing in them could raise the verdict; they are only counted. */
  healthy: number;
  /** Keys that held a signal (rank above 0): more of them than the cap, the weakest went. */
  signal: number;
}

export function droppedKeys(): DroppedKeys {
  return { healthy: 0, signal: 0 };
}

export function addDropped(into: DroppedKeys, from: DroppedKeys): void {
  into.healthy += from.healthy;
  into.signal += from.signal;
}

/**
 * Bounds a rule's per-key state without ever hiding a failure: once `map` holds 2 × `cap` keys, the
 * `cap` keys of highest `rank` stay (ties: the earlier key) and the others are counted in
 * `dropped`. `rank` is 0 for a key that cannot raise the verdict (a healthy container), higher for a
 * key that can (a failure, or part of one), highest for the worst: failures come first and healthy
 * keys are only counted, so a failure is dropped only when more than `cap` keys rank above it, and
 * the verdict does not depend on the order of the input. Call it before inserting a key (and after a
 * merge); like keepTop it sorts once per `cap` new keys.
 */
export function keepWorst<K, V>(map: Map<K, V>, cap: number, rank: (value: V) => number, dropped: DroppedKeys, onDrop?: (value: V) => void): void {
  if (map.size < 2 * cap) return;
  const ranked = [...map].map(([key, value], order) => ({ key, value, rank: rank(value), order }));
  ranked.sort((a, b) => b.rank - a.rank || a.order - b.order);
  for (let i = cap; i < ranked.length; i++) {
    map.delete(ranked[i]!.key);
    onDrop?.(ranked[i]!.value);
    if (ranked[i]!.rank > 0) dropped.signal++;
    else dropped.healthy++;
  }
}

/** The sentence a finding adds when its rule dropped keys to stay bounded; '' when none. */
export function droppedSentence(dropped: DroppedKeys, what: string): string {
  if (dropped.healthy + dropped.signal === 0) return '';
  const parts: string[] = [];
  if (dropped.healthy > 0) parts.push(`${dropped.healthy} that showed nothing wrong were only counted`);
  if (dropped.signal > 0) parts.push(`${dropped.signal} with a weaker signal than the ones reported were dropped`);
  return `The input held more ${what} than the rule keeps: ${parts.join(', and ')}.`;
}

/**
 * Counts per key for the keys with the highest counts, with keepTop's rule (once 2 × `cap` keys
 * are held, a new key first drops all but the `cap` highest, ties keeping the earlier key), in
 * two arrays instead of a Map. Rules keep one per service or target and pod, for the whole run:
 * a Map trimmed by keepTop leaves its deleted entries as holes and allocates a new hash table
 * each time the holes fill it, a table that lives long enough to be promoted and then dies in the
 * old generation (on 4,000 pod files, 60 MB of the run's old-space garbage). The arrays are
 * written in place; the keys of one input repeat, so the last key found is tried first.
 */
export interface TopCounts {
  /** Keys in the order they were first counted; slots from `size` on are unused. */
  keys: string[];
  counts: number[];
  size: number;
  /** Where the last key counted is. */
  last: number;
}

export function topCounts(): TopCounts {
  return { keys: [], counts: [], size: 0, last: 0 };
}

/**
 * Adds `by` to `key`'s count, keeping the `cap` keys with the highest counts (see TopCounts).
 * `absent`: the caller knows `key` was never counted here (a pod the owner's PodSet has no bit
 * for), so the keys are not searched. On 4,000 pod files every first line of a pod towards each
 * reconnect target searched 70 keys on average: 38 M string comparisons, a second of CPU.
 */
export function bumpTop(top: TopCounts, key: string, by: number, cap: number, absent = false): void {
  const { keys, counts } = top;
  let at = top.last;
  if (absent) at = -1;
  else if (at >= top.size || keys[at] !== key) {
    at = -1;
    for (let i = 0; i < top.size; i++) {
      if (keys[i] === key) {
        at = i;
        break;
      }
    }
  }
  if (at === -1) {
    if (top.size >= 2 * cap) keepTopCounts(top, cap);
    at = top.size++;
    keys[at] = key;
    counts[at] = by;
  } else {
    counts[at]! += by;
  }
  top.last = at;
}

/** Keeps the `cap` keys with the highest counts (ties: the earlier key), in their order. */
function keepTopCounts(top: TopCounts, cap: number): void {
  const { keys, counts, size } = top;
  // The cap-th highest count, by a native numeric sort: keys above it stay, and of the keys at
  // it, the earliest until `cap` are kept. One pass then compacts the arrays in order.
  const sorted = new Float64Array(size);
  for (let i = 0; i < size; i++) sorted[i] = counts[i]!;
  sorted.sort();
  const threshold = sorted[size - cap]!;
  let atThreshold = cap;
  for (let i = size - cap + 1; i < size; i++) if (sorted[i]! > threshold) atThreshold--;
  let kept = 0;
  for (let i = 0; i < size; i++) {
    const count = counts[i]!;
    if (count < threshold || (count === threshold && atThreshold-- <= 0)) continue;
    keys[kept] = keys[i]!;
    counts[kept++] = count;
  }
  // The slots past the kept keys stay allocated for the next keys; they must not pin old names.
  for (let i = kept; i < size; i++) keys[i] = '';
  top.size = kept;
  top.last = 0;
}

/** The keys and counts, in the order the keys were first counted. */
export function* topCountEntries(top: TopCounts): IterableIterator<[string, number]> {
  for (let i = 0; i < top.size; i++) yield [top.keys[i]!, top.counts[i]!];
}

/** Adds the counts of `from` into `into` (see bumpTop), each key first mapped by `keyOf` (a merge renames pods into its own table). */
export function mergeTopCounts(into: TopCounts, from: TopCounts, cap: number, keyOf: (key: string) => string): void {
  for (let i = 0; i < from.size; i++) bumpTop(into, keyOf(from.keys[i]!), from.counts[i]!, cap);
}

/** Adds every count of `from` into `into`. */
export function mergeCounts<K>(into: Map<K, number>, from: ReadonlyMap<K, number>): void {
  for (const [k, v] of from) bump(into, k, v);
}

/** The `n` largest entries by count, ties broken by key so output is deterministic. */
export function topEntries<K extends string | number>(counts: ReadonlyMap<K, number> | Iterable<[K, number]>, n: number): { key: K; count: number }[] {
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, n)
    .map(([key, count]) => ({ key, count }));
}

/**
 * A counter map that stops adding new keys past `cap`; counts for later keys go to `overflow`.
 * Keeps label or address bombs from growing memory without bound.
 */
export interface CappedCounts {
  counts: Map<string, number>;
  overflow: number;
  cap: number;
}

export function cappedCounts(cap: number): CappedCounts {
  return { counts: new Map(), overflow: 0, cap };
}

export function cappedBump(c: CappedCounts, key: string, by = 1): void {
  const current = c.counts.get(key);
  if (current !== undefined) c.counts.set(key, current + by);
  else if (c.counts.size < c.cap) c.counts.set(detach(key), by);
  else c.overflow += by;
}

/**
 * One detached copy and one small integer id per name (a pod's, a file's) for the keys of many
 * maps and the bits of many sets: a rule counting lines per service and pod otherwise stored a
 * copy of the pod's name for every service it failed on (559 services × 400 pods of the bench
 * bundle: 223,000 copies, each a JSON round trip), and a set of pods per service costs a bit per
 * pod by id (see PodBits) instead of a hash-table entry. Names past `cap` get no id (-1) and are
 * copied each time, as before, so the table stays bounded. Ids belong to one table: merging
 * states maps them through the names.
 */
export interface NameTable {
  ids: Map<string, number>;
  names: string[];
  cap: number;
  /** The last name asked for and its id: the records of one input repeat one pod. */
  lastName: string | null;
  lastId: number;
}

export function nameTable(cap: number): NameTable {
  return { ids: new Map(), names: [], cap, lastName: null, lastId: -1 };
}

/** The name's id in the table, added when there is room; -1 past the cap. */
export function nameId(table: NameTable, name: string): number {
  if (name === table.lastName) return table.lastId;
  let id = table.ids.get(name);
  if (id === undefined) {
    if (table.names.length >= table.cap) id = -1;
    else {
      const owned = detach(name);
      id = table.names.length;
      table.names.push(owned);
      table.ids.set(owned, id);
    }
  }
  table.lastName = name;
  table.lastId = id;
  return id;
}

export function ownedName(table: NameTable, name: string): string {
  const id = nameId(table, name);
  return id >= 0 ? table.names[id]! : detach(name);
}

/**
 * A set of names by their NameTable ids, one bit each: exact counts and subset tests for
 * thousands of pods per service or target in a few hundred bytes, where a Set held an entry per
 * pod. Plain data (the words array is replaced as it grows), so states stay structured-clonable.
 */
export interface PodBits {
  words: Uint32Array;
}

export function podBits(): PodBits {
  return { words: new Uint32Array(4) };
}

export function addBit(bits: PodBits, id: number): void {
  const word = id >>> 5;
  if (word >= bits.words.length) {
    const grown = new Uint32Array(Math.max(word + 1, bits.words.length * 2));
    grown.set(bits.words);
    bits.words = grown;
  }
  bits.words[word]! |= 1 << (id & 31);
}

/** The ids in the set, in increasing order. */
export function* bitIds(bits: PodBits): Generator<number> {
  const words = bits.words;
  for (let w = 0; w < words.length; w++) {
    let word = words[w]!;
    while (word !== 0) {
      const low = word & -word;
      yield w * 32 + 31 - Math.clz32(low);
      word ^= low;
    }
  }
}

export function bitCount(bits: PodBits): number {
  let n = 0;
  for (const word of bits.words) n += ones(word);
  return n;
}

/** How many ids of `a` are also in `b`. */
export function sharedBitCount(a: PodBits, b: PodBits): number {
  let n = 0;
  const words = Math.min(a.words.length, b.words.length);
  for (let w = 0; w < words; w++) n += ones(a.words[w]! & b.words[w]!);
  return n;
}

/** The 1 bits of a 32-bit word. */
function ones(word: number): number {
  let n = 0;
  for (let w = word; w !== 0; w &= w - 1) n++;
  return n;
}

/** Adds the names of `from` (ids of `fromTable`) to `into` (ids of `intoTable`); names past its cap go to `overflow`. */
export function mergeBits(into: PodBits, intoTable: NameTable, from: PodBits, fromTable: NameTable, overflow: (name: string) => void): void {
  for (const id of bitIds(from)) {
    const name = fromTable.names[id]!;
    const mine = nameId(intoTable, name);
    if (mine >= 0) addBit(into, mine);
    else overflow(name);
  }
}

/**
 * The pods seen, by a state's pod-name table: a bit for each pod with an id (exact), and a sketch
 * for the pods of a bundle larger than the table (`unnamed`, null until there is one).
 */
export interface PodSet {
  bits: PodBits;
  unnamed: DistinctCounter | null;
}

export function podSet(): PodSet {
  return { bits: podBits(), unnamed: null };
}

/** Adds the pod `name`, whose id in the state's table is `id` (-1: past the table). */
export function addPodTo(set: PodSet, id: number, name: string): void {
  if (id >= 0) addBit(set.bits, id);
  else addDistinct((set.unnamed ??= distinctCounter(0)), name);
}

/** Whether the pod whose id is `id` is in the set for sure: false when it is not, or when it has no id (-1). */
export function hasPod(set: PodSet, id: number): boolean {
  if (id < 0) return false;
  const word = id >>> 5;
  return word < set.bits.words.length && (set.bits.words[word]! & (1 << (id & 31))) !== 0;
}

/** Adds the pods of `from` (named by `fromTable`) to `into` (named by `intoTable`). */
export function mergePodSets(into: PodSet, intoTable: NameTable, from: PodSet, fromTable: NameTable): void {
  mergeBits(into.bits, intoTable, from.bits, fromTable, (name) => addDistinct((into.unnamed ??= distinctCounter(0)), name));
  if (from.unnamed) mergeDistinct((into.unnamed ??= distinctCounter(0)), from.unnamed);
}

/** How many pods: exact unless some were past the table. */
export function podSetCount(set: PodSet): DistinctCount {
  const named = bitCount(set.bits);
  return set.unnamed ? { value: named + distinctCount(set.unnamed).value, estimated: true } : { value: named, estimated: false };
}

/**
 * A copy of `s` that does not share memory with the line it was cut from. V8 keeps a substring as a
 * view of its parent, so one stored label value or loop address would otherwise pin its whole
 * input line: that is what turns an address bomb into hundreds of megabytes. V8 copies substrings
 * shorter than 13 characters anyway. The JSON round trip is lossless, lone surrogates included.
 */
export function detach(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}

export function mergeCapped(into: CappedCounts, from: CappedCounts): void {
  for (const [k, v] of from.counts) cappedBump(into, k, v);
  into.overflow += from.overflow;
}

/** Formats 1234567 as `1.2 M`, for human-facing messages. */
export function compact(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e7 ? 0 : 1)} M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(0)} k`;
  return n.toLocaleString('en-US');
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  if (m < 60) return s ? `${m} min ${s} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return `${h} h ${m % 60} min`;
}
