// Rows of kubectl's tables pasted without their header, as users quote them: `get events` rows
// with or without LAST SEEN and NAMESPACE, with REASON first when TYPE was cut off too, a row of a
// describe's Events table on its own, and `get pods` rows. Each is cut into the cells its table
// would have given, so the reader (kubectl.ts) builds the same record as from the whole table.

import type { TableKind } from './kubectl-table.js';
import { dict } from '../util/dict.js';

/**
 * A headerless `get events` row: optional NAMESPACE, LAST SEEN (an age, checked after the match),
 * TYPE, REASON, OBJECT (`kind/name`), MESSAGE. Each cell is a run without spaces, so no two
 * quantifiers compete for the same characters.
 */
const HEADERLESS_EVENT = /^ *(?:([a-z0-9][-a-z0-9]*) +)?(?:(\d[\dydhms]*|<unknown>) +)?(Normal|Warning) +([A-Z][A-Za-z]+) +([a-z][a-z.]*\/[^\s/]+) +(\S.*)$/;
/**
 * A `get events` row cut further: TYPE gone as well, REASON first (`FailedCreate  replicaset/x
 * Error creating: …`). Cells are two or more spaces apart, as kubectl aligns them.
 */
const REASON_FIRST_EVENT = /^ *([A-Z][A-Za-z]+) {2,}([a-z][a-z.]*\/[^\s/]+) {2,}(\S.*)$/;
/** Reasons the kubelet and the controllers report as Warning, for a row whose TYPE was cut off. */
const WARNING_REASON = /^(?:Failed|BackOff|Unhealthy|Evicted|OOMKill|Error|Invalid|NetworkNotReady|Preempt)/;
/**
 * A row of a describe's Events table without its header: TYPE, REASON, AGE (`13m (x4 over 14m)`),
 * FROM (`kubelet`, `kubelet, node-1`), MESSAGE.
 */
const DESCRIBE_EVENT_ROW = /^ +(Normal|Warning) +([A-Z][A-Za-z]+) +(\S+(?: \(x\d+ over [^\s)]+\))?) +([^\s,]+(?:, [^\s,]+)?) +(\S.*)$/;
/**
 * A `get pods` row without its header: [NAMESPACE] NAME READY STATUS RESTARTS AGE, then the
 * `-o wide` columns if any. READY (`1/2`) anchors it.
 */
const HEADERLESS_POD = /^(?:([a-z0-9][-a-z0-9]*) +)?([a-z0-9][-a-z0-9.]*) +(\d+\/\d+) +([A-Za-z][\w:]*) +(\d+(?: \(\S+ ago\))?) +(\d[\dydhms]*)(?: +\S.*)?$/;
/** `3m (x105 over 28m)` in a describe Events table. */
export const DESCRIBE_AGE = /^(\S+)(?: \(x(\d+) over (\S+)\))?$/;

/** The cells of a headerless event row and the table they belong to; null for any other line. */
export function headerlessEventRow(text: string): { table: TableKind; cells: Record<string, string> } | null {
  const m = HEADERLESS_EVENT.exec(text);
  if (m) {
    let namespace = m[1];
    let age = m[2];
    // A row cut before its LAST SEEN has no age; one whose only leading cell is an age took it for a namespace.
    if (namespace !== undefined && age === undefined && parseHumanDuration(namespace) !== null) [namespace, age] = [undefined, namespace];
    if (age !== undefined && age !== '<unknown>' && parseHumanDuration(age) === null) return null;
    const cells: Record<string, string> = Object.assign(dict<string>(), { TYPE: m[3]!, REASON: m[4]!, OBJECT: m[5]!, MESSAGE: m[6]! });
    if (age !== undefined) cells.LASTSEEN = age;
    if (namespace !== undefined) cells.NAMESPACE = namespace;
    return { table: 'events', cells };
  }
  const d = DESCRIBE_EVENT_ROW.exec(text);
  const age = d ? DESCRIBE_AGE.exec(d[3]!) : null;
  if (d && age && parseHumanDuration(age[1]!) !== null)
    return { table: 'describe-events', cells: { TYPE: d[1]!, REASON: d[2]!, AGE: d[3]!, FROM: d[4]!, MESSAGE: d[5]! } };
  const r = REASON_FIRST_EVENT.exec(text);
  if (r) return { table: 'events', cells: { TYPE: WARNING_REASON.test(r[1]!) ? 'Warning' : 'Normal', REASON: r[1]!, OBJECT: r[2]!, MESSAGE: r[3]! } };
  return null;
}

/** The cells of a headerless `get pods` row; null for any other line. */
export function headerlessPodRow(text: string): Record<string, string> | null {
  const m = HEADERLESS_POD.exec(text);
  if (!m || parseHumanDuration(m[6]!) === null) return null;
  const cells: Record<string, string> = Object.assign(dict<string>(), { NAME: m[2]!, READY: m[3]!, STATUS: m[4]!, RESTARTS: m[5]!, AGE: m[6]! });
  if (m[1] !== undefined) cells.NAMESPACE = m[1];
  return cells;
}

const HUMAN_DURATION = /^(?:(\d+)y)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/** kubectl's short ages: `45s`, `3m2s`, `10h`, `5d`, `2y45d`; null for `<unknown>`, `<invalid>` and anything else. */
export function parseHumanDuration(text: string): number | null {
  if (text === '') return null;
  const m = HUMAN_DURATION.exec(text);
  if (!m || m[0] === '') return null;
  const [, y, d, h, min, s] = m.map((v) => (v === undefined ? 0 : Number(v))) as number[];
  return y! * 365 * 86_400 + d! * 86_400 + h! * 3600 + min! * 60 + s!;
}
