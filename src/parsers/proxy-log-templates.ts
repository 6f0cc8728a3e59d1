// Count, then judge. A storm is a few thousand distinct bodies (what follows a proxy line's level
// and thread id) repeated millions of times, so what rules want of a line is decided once per body,
// not per line: whether some rule reads such lines one by one (they are built as records), whether
// only rules that judge counts read them (they are counted per body, pod, level, restart and
// second, and one record per count reaches those rules), or whether no rule reads them at all
// (they are counted by the reader and never decoded).
//
// The decision is the body's alone: the parts of a line before its body (collector timestamp,
// uptime, level, thread id) hold none of the rules' substrings.

import { ownedByRun } from '../util/run-caches.js';
import { literalRegex } from '../util/literal-regex.js';
import { detach } from '../util/stats.js';

/** What the rules want of the lines of one body. */
export interface BodyUse {
  /** A rule reads these lines one by one: each is built as a record. */
  readonly built: boolean;
  /** Otherwise, rules that judge counts read them: they are counted, and one record per count is built. */
  readonly counted: boolean;
}

const SKIPPED: BodyUse = Object.freeze({ built: false, counted: false });
const BUILT: BodyUse = Object.freeze({ built: true, counted: false });
const COUNTED: BodyUse = Object.freeze({ built: false, counted: true });

/**
 * Bodies are remembered from their second sighting: a per-connection body (a refused request
 * names its client's ephemeral port) never repeats, and remembering it on sight would push a
 * storm's repeating bodies out. Seen-once bodies are kept as a 32-bit hash, not as a string that
 * pins its line. Two generations of remembered bodies bound the memory.
 */
const REMEMBERED_BODIES = 4096;
const SEEN_ONCE_BODIES = 16_384;
/** Longer bodies are judged every time: real proxy bodies are shorter, and a key this long costs more to keep than to scan. */
const MAX_REMEMBERED_LENGTH = 1024;

/**
 * One remembered body: the object is the body's identity for the reader's counts (a Map key
 * hashed by identity), and what rules want of it.
 */
export interface RememberedBody {
  readonly use: BodyUse;
}

export class BodyTable {
  private current = new Map<string, RememberedBody>();
  private previous = new Map<string, RememberedBody>();
  private seenOnce = new Set<number>();
  private readonly builtScan: RegExp;
  private readonly countedScan: RegExp | null;

  constructor(
    /** Lines holding one of these are built (rules reading lines one by one, release banners, ANSI codes). */
    built: readonly string[],
    /** Lines holding one of these (and none of `built`) are counted. */
    counted: readonly string[],
  ) {
    // Sticky-free scans from the body's start: `y` would anchor; `g` lets lastIndex say where to begin.
    this.builtScan = literalRegex(built, { flags: 'g' });
    this.countedScan = counted.length === 0 ? null : literalRegex(counted, { flags: 'g' });
  }

  /**
   * What rules want of the body (the line from `from` on), and, for a counted body that repeats,
   * the remembered body. Judging is one scan of the line, as cheap as looking the body up (which
   * hashes it), so only counted bodies are looked up: they need an identity to be counted by.
   */
  lookUp(line: string, from: number): RememberedBody | BodyUse {
    const use = this.judge(line, from);
    if (!use.counted || line.length - from > MAX_REMEMBERED_LENGTH) return use;
    const body = line.slice(from);
    const known = this.current.get(body);
    if (known !== undefined) return known;
    let remembered = this.previous.get(body);
    if (remembered === undefined) {
      const hash = bodyHash(line, from);
      if (!this.seenOnce.delete(hash)) {
        if (this.seenOnce.size >= SEEN_ONCE_BODIES) this.seenOnce = new Set();
        this.seenOnce.add(hash);
        return use;
      }
      remembered = { use };
    }
    if (this.current.size >= REMEMBERED_BODIES) {
      this.previous = this.current;
      this.current = new Map();
    }
    // A copy, so the key does not pin the whole line it was cut from.
    this.current.set(detach(body), remembered);
    return remembered;
  }

  /** Built when the body holds a substring of a rule reading lines one by one; else counted when it holds one of a counting rule's. */
  private judge(line: string, from: number): BodyUse {
    this.builtScan.lastIndex = from;
    if (this.builtScan.test(line)) return BUILT;
    if (this.countedScan === null) return SKIPPED;
    this.countedScan.lastIndex = from;
    return this.countedScan.test(line) ? COUNTED : SKIPPED;
  }
}

export function useOf(found: RememberedBody | BodyUse): BodyUse {
  return 'use' in found ? found.use : found;
}

function bodyHash(s: string, from: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

/**
 * One table per run and set of substrings, shared by every parser of the run: a bundle's pod logs
 * repeat each other's bodies, and building and compiling a prefix-factored regex takes ~260 µs
 * (a second of CPU for 4,000 pod files when each parser built its own).
 */
let tables = new Map<string, BodyTable>();
ownedByRun(() => (tables = new Map()));

/** What a line that is always built holds: a release banner (a restart), ANSI codes (the full reader strips them). */
export const ALWAYS_BUILT = ['linkerd2_proxy: release ', '\x1b['];

export function bodyTableFor(built: readonly string[], counted: readonly string[] | null): BodyTable {
  const builtLiterals = [...new Set([...built, ...ALWAYS_BUILT])];
  const countedLiterals = [...new Set(counted ?? [])];
  const key = `${builtLiterals.join('\u0000')}\u0001${countedLiterals.join('\u0000')}`;
  let table = tables.get(key);
  if (table === undefined) tables.set(key, (table = new BodyTable(builtLiterals, countedLiterals)));
  return table;
}
