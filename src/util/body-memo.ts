// Rules often derive the same facts from a log line's body (its spans, target, message and
// fields) for every record. The proxy-log parser hands records with the same body one shared,
// frozen fields object (see its body cache), and a storm repeats a few hundred bodies millions of
// times, so a derivation that depends on the body alone can be worked out once per body.

import type { ProxyLogRecord } from '../core/types.js';

/**
 * The parser puts an array under this key on each shared fields object before freezing it; the
 * array holds one slot per perBody() derivation. A symbol keeps it out of Object.keys, for…in and
 * JSON, and a property read costs far less than a WeakMap lookup.
 */
export const BODY_MEMO: unique symbol = Symbol('linkerd-doctor.bodyMemo');

/** Marks `fields` as shared by every record with one body, so perBody() may remember derivations on it. */
export function shareFields(fields: Record<string, string>): void {
  Object.defineProperty(fields, BODY_MEMO, { value: [], enumerable: false });
}

let derivations = 0;

/**
 * Drops every derivation remembered on shared `fields`. A derivation may point into the rule
 * state of the task that made it (reconnect-storm's loop target does), so the body cache forgets
 * them when a task ends, while keeping the parsed bodies for the run's next task.
 */
export function forgetDerivations(fields: Readonly<Record<string, string>>): void {
  const memo = (fields as { [BODY_MEMO]?: unknown[] })[BODY_MEMO];
  if (memo !== undefined) memo.length = 0;
}

/**
 * Wraps `derive` so that it runs once per shared body. `derive` must read only the record's
 * spans, target, message and fields (never its pod, path, time or line): its result is reused for
 * every record with that body. Records whose body is not shared are derived every time.
 */
export function perBody<T>(derive: (record: ProxyLogRecord) => T): (record: ProxyLogRecord) => T {
  const slot = derivations++;
  return (record) => {
    const memo = (record.fields as { [BODY_MEMO]?: unknown[] })[BODY_MEMO];
    if (memo === undefined) return derive(record);
    let value = memo[slot] as T | undefined;
    if (value === undefined) memo[slot] = value = derive(record);
    return value;
  };
}
