// The tables kubectl prints (`get events`, `get pods`, the Events of `describe`): their header,
// the columns it defines, and rows cut into cells whether aligned to it or printed one at a time.
import { dict } from '../util/dict.js';

export interface Column {
  name: string;
  start: number;
}

export type TableKind = 'describe-events' | 'events' | 'pods';

export interface Table {
  kind: TableKind;
  columns: Column[];
}

/** The header of an events or pods table, with where each column starts; null for other lines. */
export function tableHeader(text: string): Table | null {
  const first = text.charCodeAt(0);
  // Headers start with an upper-case letter (get) or spaces (describe's Events table).
  if (first !== 32 && !(first >= 65 && first <= 90)) return null;
  // Cheap test before splitting: every header this reads has one of these words.
  if (!text.includes('REASON') && !text.includes('Reason') && !text.includes('RESTARTS')) return null;
  const columns = columnsOf(text);
  if (columns.length < 4) return null;
  const names = new Set(columns.map((c) => c.name));
  if (names.has('TYPE') && names.has('REASON') && names.has('MESSAGE')) {
    const describe = text.charCodeAt(0) === 32 && text.includes('Reason') && (names.has('AGE') || names.has('LASTSEEN'));
    return { kind: describe ? 'describe-events' : 'events', columns };
  }
  if (names.has('NAME') && names.has('READY') && names.has('STATUS') && names.has('RESTARTS')) return { kind: 'pods', columns };
  return null;
}

/**
 * The most columns a header may have. kubectl's widest table here, `get events -o wide` with -A,
 * has 11 (`get pods -o wide` 10). A row costs time in proportion to its header's columns, so a
 * line of 200,000 words is no header: with it, 2,000 short rows took 7 s (issue 44).
 */
export const MAX_COLUMNS = 32;

/** Header words separated by two or more spaces (or a tab); `LAST SEEN` is one column. Names are upper-cased without spaces. */
function columnsOf(text: string): Column[] {
  const columns: Column[] = [];
  const runs = runsOf(text, MAX_COLUMNS + 1);
  if (runs.length > MAX_COLUMNS) return [];
  for (const run of runs) {
    const name = run.text.replace(/ /g, '').toUpperCase();
    if (!/^[A-Z]+$/.test(name)) return [];
    columns.push({ name, start: run.start });
  }
  return columns;
}

/** Runs of text separated by two or more spaces or a tab; the first `limit` only, when given. */
function runsOf(text: string, limit = Infinity): { text: string; start: number }[] {
  const runs: { text: string; start: number }[] = [];
  let i = 0;
  while (i < text.length && runs.length < limit) {
    while (i < text.length && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
    if (i >= text.length) break;
    const start = i;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 9) break;
      if (c === 32 && (text.charCodeAt(i + 1) === 32 || text.charCodeAt(i + 1) === 9 || i + 1 >= text.length)) break;
      i++;
    }
    runs.push({ text: text.slice(start, i), start });
  }
  return runs;
}

/**
 * A row's cells by column name. A table printed at once is aligned to its header, so cells are
 * cut at the header's offsets (empty cells such as SUBOBJECT included). Rows printed one by one
 * (`--watch`) are not aligned; they are split at runs of spaces instead, the MESSAGE cell taking
 * what is left between the columns before and after it. `valid` tells a real row from a cut that
 * landed inside words.
 */
export function splitRow(text: string, columns: readonly Column[], valid: (cells: Record<string, string>) => boolean): Record<string, string> | null {
  const aligned = alignedCells(text, columns);
  if (aligned && valid(aligned)) return aligned;
  const tokens = tokenCells(text, columns);
  return tokens && valid(tokens) ? tokens : null;
}

function alignedCells(text: string, columns: readonly Column[]): Record<string, string> | null {
  if (text.slice(0, columns[0]!.start).trim() !== '') return null;
  const cells: Record<string, string> = dict();
  for (let i = 0; i < columns.length; i++) {
    const start = columns[i]!.start;
    if (i > 0 && start < text.length && text.charCodeAt(start - 1) !== 32) return null;
    const end = i + 1 < columns.length ? columns[i + 1]!.start : text.length;
    cells[columns[i]!.name] = start < text.length ? text.slice(start, end).trim() : '';
  }
  return cells;
}

/** Columns that kubectl leaves empty, so an unaligned row may lack their cell. */
const OPTIONAL_COLUMNS = ['SUBOBJECT', 'NOMINATEDNODE', 'READINESSGATES'];

function tokenCells(text: string, columns: readonly Column[]): Record<string, string> | null {
  const runs = runsOf(text);
  let names = columns.map((c) => c.name);
  for (const optional of OPTIONAL_COLUMNS) if (runs.length < names.length && names.includes(optional)) names = names.filter((n) => n !== optional);
  if (runs.length < names.length) return null;
  let free = names.indexOf('MESSAGE');
  if (free === -1) free = names.length - 1;
  const cells: Record<string, string> = dict();
  const after = names.length - free - 1;
  for (let i = 0; i < free; i++) cells[names[i]!] = runs[i]!.text;
  for (let i = 0; i < after; i++) cells[names[names.length - 1 - i]!] = runs[runs.length - 1 - i]!.text;
  const middle = runs.slice(free, runs.length - after);
  const last = middle[middle.length - 1];
  cells[names[free]!] = last === undefined ? '' : text.slice(middle[0]!.start, last.start + last.text.length);
  return cells;
}
