// Count, then judge. A storm is a few thousand distinct bodies (what follows a proxy line's level
// and thread id) repeated millions of times. What rules want of a line is decided from the rules'
// substrings: some rule reads such lines one by one (each is built as a record), only rules that
// judge counts read them (they are counted per body, input, level, restart and minute, and one
// record per count reaches those rules), or no rule reads them (they are counted by the reader and
// never decoded). A counted body is remembered once for the run, parsed once, and counted by
// identity.
//
// The decision needs the line only: the parts of a line before its body (collector timestamp,
// uptime, level, thread id) hold none of the rules' substrings, and one scan of the line with a
// prefix-factored regex costs less than hashing its body to look a remembered decision up would.

import { forgetDerivations } from '../util/body-memo.js';
import { literalRegex } from '../util/literal-regex.js';
import { ownedByRun, ownedByTask } from '../util/run-caches.js';
import { detach } from '../util/stats.js';
import { parsedBody } from './proxy-log-body.js';

/** What the rules want of a line. */
export type LineUse = 'built' | 'counted' | 'skipped';

/**
 * Counted bodies are remembered from their second sighting: a per-connection body (a refused
 * request names its client's ephemeral port) never repeats, and remembering it on sight would push
 * a storm's repeating bodies out. Seen-once bodies are kept as a 32-bit hash, not as a string that
 * pins its line. Two generations of remembered bodies bound the memory.
 */
const REMEMBERED_BODIES = 4096;
const SEEN_ONCE_BODIES = 16_384;
/** Longer bodies are never counted: real proxy bodies are shorter, and a key this long costs more to keep than the line to build. */
const MAX_REMEMBERED_LENGTH = 1024;

/**
 * Counting pays only when lines repeat within an input and minute; otherwise each candidate line is
 * read twice (the counting check, then the full reader). So the share of candidate lines that end
 * up counted is checked every COUNT_WINDOW candidates; below a quarter, candidates are built
 * without the check for a while (doubling with each failed check, as parsers/proxy-log-body.ts
 * does for its cache). What rules find is the same either way.
 */
const COUNT_WINDOW = 4096;
const FIRST_PAUSE = 4096;
const LONGEST_PAUSE = 262_144;

/** A counted body that repeats: its identity for the reader's counts (a Map key hashed by identity), parsed as the full reader parses it. */
export class RememberedBody {
  /**
   * Which input (times 8, plus the level), minute, uptime stage, restart and stream its last
   * built line had: a parser counts the body's next line of the same (see parsers/proxy-log.ts).
   * Numbers rather than the parser, so a mark pins nothing.
   */
  mark = -1;
  markMinute = 0;
  markStage = 0;
  markRestart = 0;
  markStream: 'stdout' | 'stderr' | undefined = undefined;

  constructor(readonly parsed: NonNullable<ReturnType<typeof parsedBody>>) {}
}

export class BodyTable {
  private current = new Map<string, RememberedBody>();
  private previous = new Map<string, RememberedBody>();
  private seenOnce = new Set<number>();
  /** Any rule's substring (or one of ALWAYS_BUILT); null when no rule counts (every line holding one is built). */
  private readonly anyScan: RegExp | null;
  private readonly builtScan: RegExp;
  private inputs = 0;
  private candidates = 0;
  private countedCandidates = 0;
  private pauseLeft = 0;
  private nextPause = FIRST_PAUSE;

  constructor(
    /** Lines holding one of these are built (rules reading lines one by one, release banners, ANSI codes). */
    built: readonly string[],
    /** Lines holding one of these (and none of `built`) are counted. */
    counted: readonly string[],
  ) {
    this.builtScan = literalRegex(built);
    this.anyScan = counted.length === 0 ? null : literalRegex([...new Set([...built, ...counted])]);
  }

  /**
   * What rules want of `line`. A line holding no rule's substring (most of a busy proxy's lines)
   * costs one failing scan, as before counting; one holding a substring is scanned again for the
   * substrings of rules reading lines one by one.
   */
  useOf(line: string): LineUse {
    if (this.anyScan === null) return this.builtScan.test(line) ? 'built' : 'skipped';
    if (!this.anyScan.test(line)) return 'skipped';
    return this.builtScan.test(line) ? 'built' : 'counted';
  }

  /** The remembered counted body that is the line from `from` on, or null while it has been seen once (or cannot be counted). */
  remember(line: string, from: number): RememberedBody | null {
    if (line.length - from > MAX_REMEMBERED_LENGTH) return null;
    const body = line.slice(from);
    const known = this.current.get(body);
    if (known !== undefined) return known;
    let remembered = this.previous.get(body);
    if (remembered === undefined) {
      const hash = bodyHash(line, from);
      if (!this.seenOnce.delete(hash)) {
        if (this.seenOnce.size >= SEEN_ONCE_BODIES) this.seenOnce = new Set();
        this.seenOnce.add(hash);
        return null;
      }
      // A body the full reader cannot parse (it would read the line another way) is never counted.
      const parsed = parsedBody(line, from);
      if (parsed === null) return null;
      remembered = new RememberedBody(parsed);
    }
    if (this.current.size >= REMEMBERED_BODIES) {
      this.previous = this.current;
      this.current = new Map();
    }
    // A copy, so the key does not pin the whole line it was cut from.
    this.current.set(detach(body), remembered);
    return remembered;
  }

  /** Whether lines only counting rules read are counted now, or built (see COUNT_WINDOW). */
  counting(): boolean {
    if (this.pauseLeft === 0) return true;
    this.pauseLeft--;
    return false;
  }

  /** Notes whether a candidate line was counted. */
  counted(yes: boolean): void {
    if (yes) this.countedCandidates++;
    if (++this.candidates < COUNT_WINDOW) return;
    if (this.countedCandidates * 4 < COUNT_WINDOW) {
      this.pauseLeft = this.nextPause;
      this.nextPause = Math.min(this.nextPause * 2, LONGEST_PAUSE);
    } else {
      this.nextPause = FIRST_PAUSE;
    }
    this.candidates = 0;
    this.countedCandidates = 0;
  }

  /** A number for a new input of the run (marks on remembered bodies tell inputs apart by it). */
  nextInputId(): number {
    return ++this.inputs;
  }

  /** Drops what rules derived from the remembered bodies (see util/run-caches.ts: it may point into a task's rule state). */
  forgetDerivations(): void {
    for (const generation of [this.current, this.previous]) for (const body of generation.values()) forgetDerivations(body.parsed.fields);
  }
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
ownedByTask(() => {
  for (const table of tables.values()) table.forgetDerivations();
});

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
