// Which rules a plain proxy-log line is for, from the substrings each declared in lineInterest.
//
// The parser builds a record when any rule's substring is in the line, and the engine used to hand
// it to every rule reading proxy logs; each then ran its own first test to turn it away. For a
// storm's repeated bodies those tests are cheap (memoised per body), but a line that never repeats
// (a refused request names its client's ephemeral port) paid them all, one regex or string build
// per rule. One scan for all rules' substrings, remembered per body, decides instead.

import type { ProxyLogRecord } from '../core/types.js';
import { perBody } from '../util/body-memo.js';
import { literalRegex } from '../util/literal-regex.js';
import { RELEASE_BANNER } from '../parsers/proxy-log.js';

/** Every rule: the mask of a record no scan can judge. */
export const ALL_RULES = -1;

/** Rules past this many (one bit each) are handed every record. */
const MAX_MASKED_RULES = 31;

interface RememberedMask {
  by: InterestMask | null;
  mask: number;
}

const rememberedMask = perBody((): RememberedMask => ({ by: null, mask: 0 }));

export class InterestMask {
  /** Per rule: its bit, or 0 for a rule that reads every line (no substrings declared, or too many rules). */
  readonly bits: number[];
  /** Built for the first proxy-log record: the regex costs ~8 ms to build, which a run without logs need not pay. */
  private scanning: { scanner: RegExp; bitsOf: Map<string, number> } | null | undefined;

  /** `interests[i]`: the substrings rule i declared, or null when it reads every line. */
  constructor(private readonly interests: readonly (readonly string[] | null)[]) {
    let next = 0;
    this.bits = interests.map((words) => (words !== null && words.length > 0 && next < MAX_MASKED_RULES ? 1 << next++ : 0));
  }

  /** One scan for every substring, and per substring the bits of the rules any of whose substrings it contains; null when no rule declared any. */
  private scanningFor(): { scanner: RegExp; bitsOf: Map<string, number> } | null {
    if (this.scanning !== undefined) return this.scanning;
    const interests = this.interests;
    const literals = [...new Set(interests.flatMap((words, i) => (this.bits[i] !== 0 ? words! : [])))];
    if (literals.length === 0) return (this.scanning = null);
    // What the parser always builds, whatever the interest (lineInterest's contract), goes to every
    // rule: a release banner (ANSI codes are gone from `raw`, so colored lines are judged as others).
    const everyRule = [RELEASE_BANNER];
    const scanner = literalRegex([...literals, ...everyRule], { longest: true, flags: 'g' });
    const bitsOf = new Map<string, number>();
    for (const literal of [...literals, ...everyRule]) {
      let bits = 0;
      interests.forEach((words, i) => {
        if (this.bits[i] !== 0 && words!.some((w) => literal.includes(w))) bits |= this.bits[i]!;
      });
      bitsOf.set(literal, everyRule.some((w) => literal.includes(w)) ? ALL_RULES : bits);
    }
    return (this.scanning = { scanner, bitsOf });
  }

  /**
   * The rules a record is for. Only plain tracing lines are judged, since only there do the
   * substrings (span syntax such as `service{`) appear as printed; the rest, and the first record
   * of a restarted proxy, go to every rule. The
   * mask depends on the body alone: what differs between the lines of one body, the uptime, level
   * and thread id, holds none of the substrings.
   */
  maskOf(record: ProxyLogRecord): number {
    // A record without its text (built by hand, not read) cannot be judged either.
    const scanning = this.scanningFor();
    if (scanning === null || record.format !== 'plain' || record.levelAbsent || record.restartStart || record.raw.length === 0) return ALL_RULES;
    const remembered = rememberedMask(record);
    if (remembered.by !== this) {
      remembered.by = this;
      remembered.mask = scan(record.raw, scanning.scanner, scanning.bitsOf);
    }
    return remembered.mask;
  }
}

function scan(text: string, scanner: RegExp, bitsOf: Map<string, number>): number {
  let mask = 0;
  scanner.lastIndex = 0;
  for (let m = scanner.exec(text); m !== null; m = scanner.exec(text)) {
    mask |= bitsOf.get(m[0])!;
    // Substrings may overlap: look again from the next position, not after this match.
    scanner.lastIndex = m.index + 1;
  }
  return mask;
}
