// A signature's causes, from the knowledge base (src/knowledge/causes, docs/knowledge.md): the
// tells tested on its lines, and the cause the context points at when the finding is made.

import { knowledgeOf, type Cause, type CauseTell, type FailureKnowledge } from '../../knowledge/causes/index.js';
import type { KnownSignature } from './catalogue.js';

/**
 * A signature's causes (src/knowledge/causes) with their line tells compiled, in order: bit i of
 * a tally's `told` says line tell i was seen, so the finding names the tell that really matched.
 */
export interface SignatureKnowledge {
  knowledge: FailureKnowledge;
  lineTells: readonly { tell: CauseTell; pattern: RegExp }[];
}

/** At most 31 line tells per failure, so the tells a tally has seen fit one number's bits. */
const MAX_LINE_TELLS = 31;

export function compileKnowledge(entry: KnownSignature): SignatureKnowledge {
  const knowledge = knowledgeOf(entry);
  const lineTells = knowledge.causes
    .flatMap((c) => c.tells.filter((tell) => tell.line !== undefined))
    .slice(0, MAX_LINE_TELLS)
    // Tells are literal alternatives (test/knowledge/causes.test.ts holds them to that): linear.
    .map((tell) => ({ tell, pattern: new RegExp(tell.line!, 'i') }));
  return { knowledge, lineTells };
}

/** The cause the context points at, and the tell that points there: the first cause in order with a tell seen. */
export function likelyCause(k: SignatureKnowledge, told: number, seen: ReadonlySet<string>): { cause: Cause; tell: CauseTell } | null {
  for (const cause of k.knowledge.causes) {
    for (const tell of cause.tells) {
      const bit = k.lineTells.findIndex((l) => l.tell === tell);
      if (bit !== -1 && (told & (1 << bit)) !== 0) return { cause, tell };
      if (tell.withSignature !== undefined && seen.has(tell.withSignature)) return { cause, tell };
    }
  }
  return null;
}
