// The knowledge base of causes (docs/knowledge.md), one entry per failure, looked up by the
// catalogue signature id. Curated entries (data-plane.ts, control-plane.ts) give causes with
// their sources and tells; for the rest, knowledgeOf() builds the entry from the signature's own
// catalogue text, citing the signature's references, so every failure has causes with a source.

import { CONTROL_PLANE_KNOWLEDGE } from './control-plane.js';
export { CHECK_KNOWLEDGE } from './checks.js';
export { CERTIFICATE_CONTEXTS, CERTIFICATE_KNOWLEDGE } from './certificates.js';
export { KUBERNETES_CONTEXTS, KUBERNETES_KNOWLEDGE } from './kubernetes.js';
import { DATA_PLANE_KNOWLEDGE } from './data-plane.js';
import { FAILURE_PHRASES } from './failures.js';
import { IDENTITY_KNOWLEDGE } from './identity.js';
import { MULTICLUSTER_KNOWLEDGE } from './multicluster.js';
import type { Cause, FailureKnowledge } from './types.js';

export type { Cause, CauseSource, CauseTell, FailureKnowledge } from './types.js';

export const CURATED_KNOWLEDGE: readonly FailureKnowledge[] = [
  ...DATA_PLANE_KNOWLEDGE,
  ...CONTROL_PLANE_KNOWLEDGE,
  ...IDENTITY_KNOWLEDGE,
  ...MULTICLUSTER_KNOWLEDGE,
];

const CURATED = new Map(CURATED_KNOWLEDGE.map((k) => [k.signature, k]));

/** What a catalogue signature says of itself, in the shape the base needs. */
export interface SignatureText {
  id: string;
  title: string;
  causes: readonly string[];
  fix: readonly { versions: string; action: string }[];
  references: readonly string[];
}

/**
 * The base's entry for a signature: the curated one, or one built from the catalogue (each
 * catalogue cause becomes a cause without tells, cited by the signature's references, with the
 * first fix as its action). Pure: the same signature always gives the same entry.
 */
export function knowledgeOf(signature: SignatureText): FailureKnowledge {
  const curated = CURATED.get(signature.id);
  if (curated) return curated;
  const action = signature.fix[0]?.action ?? `Read \`linkerd-doctor explain ${signature.id}\` for what to check.`;
  const causes: Cause[] = signature.causes.map((text, i) => ({
    id: `${signature.id}#${i + 1}`,
    title: text,
    why: text,
    action,
    tells: [],
    sources: signature.references.map((url) => ({ url, versions: signature.fix[0]?.versions ?? 'all' })),
  }));
  return { signature: signature.id, failure: FAILURE_PHRASES.get(signature.id) ?? signature.title, causes };
}
