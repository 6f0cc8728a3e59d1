// A signature's causes, from the knowledge base (src/knowledge/causes, docs/knowledge.md): the
// tells tested on its lines, and the cause the context points at when the finding is made.

import { knowledgeOf, type Cause, type CauseTell, type FailureKnowledge } from '../../knowledge/causes/index.js';
import type { KnownSignature } from './catalogue.js';

/** A signature's causes (src/knowledge/causes) with their line tells compiled: cause index → regexes. */
export interface SignatureKnowledge {
  knowledge: FailureKnowledge;
  lineTells: readonly { cause: number; tell: CauseTell; pattern: RegExp }[];
}

/** Causes are at most 31 per failure, so the tells a tally has seen fit one number's bits. */
const MAX_CAUSES = 31;

export function compileKnowledge(entry: KnownSignature): SignatureKnowledge {
  const knowledge = knowledgeOf(entry);
  const causes = knowledge.causes.slice(0, MAX_CAUSES);
  const lineTells = causes.flatMap((c, cause) =>
    // Tells are literal alternatives (test/knowledge/causes.test.ts holds them to that): linear.
    c.tells.flatMap((tell) => (tell.line !== undefined ? [{ cause, tell, pattern: new RegExp(tell.line, 'i') }] : [])),
  );
  return { knowledge: { ...knowledge, causes }, lineTells };
}

/** The cause the context points at, and the tell that points there: the first cause in order with a tell seen. */
export function likelyCause(knowledge: FailureKnowledge, told: number, seen: ReadonlySet<string>): { cause: Cause; tell: CauseTell } | null {
  for (const [i, cause] of knowledge.causes.entries()) {
    for (const tell of cause.tells) {
      if (tell.line !== undefined && (told & (1 << i)) !== 0) return { cause, tell };
      if (tell.withSignature !== undefined && seen.has(tell.withSignature)) return { cause, tell };
    }
  }
  return null;
}
