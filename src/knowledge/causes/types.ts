// The shape of the knowledge base of causes (docs/knowledge.md): for each failure the tool can see,
// what failed in the user's words and the causes Linkerd's docs and maintainers give for it, each
// with where it was established, the context that tells it apart, and the first action.

/** Where a cause was established: a linkerd.io docs page, or an issue or PR where a maintainer explained it. */
export interface CauseSource {
  url: string;
  /** The releases the explanation holds for ("all", "≤ stable-2.9", "≥ 2.14"). */
  versions: string;
}

/**
 * Context that points at one cause rather than the others. A tell is checked against the lines
 * the finding matched (`line`) or against the other signatures seen in the same run
 * (`withSignature`); either one present is enough.
 */
export interface CauseTell {
  /** What the tell is, in words, for the report: "the same line names a header over the size limit". */
  says: string;
  /** Regex source (linear: literal alternatives and bounded classes) tested on each matched line. */
  line?: string;
  /** Another catalogue signature seen in the same run. */
  withSignature?: string;
  /** A fact the rule derives from the run rather than from one line (certificates.ts CERTIFICATE_CONTEXTS). */
  context?: string;
}

export interface Cause {
  /** kebab-case, unique across the base. */
  id: string;
  /** The finding's title when this cause is the likely one: what is wrong, in the user's words. */
  title: string;
  /** The mechanism, one sentence. */
  why: string;
  /** The first thing to do when this is the cause: a command or a change, not an explanation. */
  action: string;
  /** What tells this cause apart; empty when only its rank among the causes speaks for it. */
  tells: readonly CauseTell[];
  sources: readonly CauseSource[];
}

/** What the base knows of one failure: a catalogue signature, by id. */
export interface FailureKnowledge {
  signature: string;
  /** What failed, in the user's words (not the log line): the title when no cause is decided. */
  failure: string;
  /** Most likely first, as the sources rank them when nothing else is known. */
  causes: readonly Cause[];
}

export const L2_ISSUE = 'https://github.com/linkerd/linkerd2/issues/';
export const L2_PR = 'https://github.com/linkerd/linkerd2/pull/';
export const DOCS = 'https://linkerd.io/2-edge/';
