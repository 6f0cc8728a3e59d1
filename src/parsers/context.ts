// What the parsers of one run share on one thread: the proxy-log body cache, the collector
// timestamp memo and the compiled interest regexes. All three are worth keeping across the inputs
// of a run (a bundle's pods repeat each other's bodies and seconds, and a regex takes ~260 µs to
// build), and all three come from that run's input or rules, so they belong to the run, not to a
// module: the engine makes one per run and thread and hands it to every parser it creates. A
// parser made without one gets its own; parse helpers called without one (the sniffer, tests)
// parse every line afresh.

import { literalRegex } from '../util/literal-regex.js';
import { TimestampMemo } from './collector-prefix.js';
import { BodyCache } from './proxy-log-body.js';

export class ParseContext {
  readonly bodies = new BodyCache();
  readonly times = new TimestampMemo();
  private readonly literalRegexes = new Map<string, RegExp>();

  /**
   * The regex for the literals `make` returns, looked up by `owner`, an array the run keeps (a
   * parser kind's interest): a parser per input of a 4,000-file bundle otherwise joined and hashed
   * the 80 literals again for each file, 0.17 s of the run.
   */
  literalRegexFor(owner: readonly string[], make: () => readonly string[]): RegExp {
    if (this.lastOwner !== owner) {
      this.lastOwnerRegex = this.literalRegex(make());
      this.lastOwner = owner;
    }
    return this.lastOwnerRegex!;
  }

  // One entry, not a map by owner: a run hands every parser the same interest array, and a caller
  // that made a new array per input must not grow this by one entry per input.
  private lastOwner: readonly string[] | null = null;
  private lastOwnerRegex: RegExp | null = null;

  /** One regex matching any of `literals`, built once per run and set of literals. */
  literalRegex(literals: readonly string[]): RegExp {
    const key = literals.join('\u0000');
    let regex = this.literalRegexes.get(key);
    if (regex === undefined) this.literalRegexes.set(key, (regex = literalRegex(literals)));
    return regex;
  }

  /**
   * Called as a task of the run starts and as it ends on this thread: what rules remembered on
   * cached bodies (perBody()) may point into that task's rule state, so it is forgotten; the
   * bodies stay for the next task.
   */
  betweenTasks(): void {
    this.bodies.forgetDerivations();
  }
}
