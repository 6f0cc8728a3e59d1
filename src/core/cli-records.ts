// The records the Linkerd CLI's answers are read into (parsers/linkerd-cli.ts); types.ts lists
// them in LdRecord. Kept here so the contracts file stays one screenful per family.

import type { RecordBase } from './record-base.js';

/** √ / [ok], ‼ / [warn], × / [fail] (JSON: success, warning, error); `unknown` when the paste starts below the check's line. */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'unknown';

/** One check of a `linkerd check` run in any layout (table, ASCII, `-o short`, `-o json`), or a `×` step of another command (`linkerd upgrade`). */
export interface LinkerdCheckRecord extends RecordBase {
  kind: 'linkerd-check';
  /** The run of the input it belongs to, from 1: a pasted command line or a new JSON document starts the next. */
  run: number;
  /** The command pasted above it, prompt removed (`linkerd check --proxy`); null when none was. */
  command: string | null;
  /** The category heading above it (`linkerd-identity`, 2.2's `[prometheus]`); null when not pasted. */
  category: string | null;
  description: string;
  status: CheckStatus;
  /** The lines printed under it, hint line excluded, at most 40. */
  details: string[];
  /** The hint anchor (`l5d-identity-trustAnchors-are-time-valid`), maybe cut short; and the URL's docs version (`2.10`). */
  hint: string | null;
  hintVersion: string | null;
}

/** The `Error: …` a Linkerd CLI command ends with, continuation lines joined. */
export interface LinkerdCliMessageRecord extends RecordBase {
  kind: 'linkerd-cli-message';
  run: number;
  command: string | null;
  message: string;
}

/** Which table of the CLI a row comes from. */
export type CliTable = 'stat' | 'routes' | 'top' | 'edges' | 'endpoints' | 'gateways' | 'tap';

/**
 * One row of a table the Linkerd CLI prints (`viz stat`, `viz routes`, `viz top`, `viz edges`,
 * `diagnostics endpoints`, `multicluster gateways`), cells keyed by the header (`SUCCESS`, `ALIVE`),
 * or one event of `viz tap` (`req`, `rsp`, `end`), its `key=value` pairs as cells.
 */
export interface LinkerdCliRowRecord extends RecordBase {
  kind: 'linkerd-cli-row';
  run: number;
  command: string | null;
  table: CliTable;
  cells: Record<string, string>;
}
