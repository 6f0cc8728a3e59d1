// The tables the Linkerd CLI prints besides `linkerd check`, told by their header (linkerd2
// viz/cmd/stat.go, routes.go, top.go, edges.go; cli/cmd/endpoints.go; multicluster/cmd/gateways.go,
// their golden test outputs under testdata/), and the events `linkerd viz tap` prints one per line
// (`req id=0:1 proxy=out src=… dst=… tls=true :method=GET …`, `rsp … :status=503 latency=…`, `end …`).
// Cells are separated by runs of spaces (tabwriter); only one column may hold spaces: the route of
// `viz routes` (`GET /books`, first) or else the last (edges' SECURED says why in words).

import type { CliTable } from '../core/types.js';
import { dict } from '../util/dict.js';

export interface TableHeader {
  table: CliTable;
  columns: string[];
  /** The column whose cells may hold spaces: the route names of `viz routes` (`GET /books`), else the last. */
  spaced: 'first' | 'last';
}

/** `Success Rate`, top's only header of two words. */
const TWO_WORD = /Success Rate/g;

/** The table a header line opens, or null. */
export function cliTableHeader(line: string): TableHeader | null {
  const text = line.trim();
  if (text === '' || !/^[A-Z]/.test(text)) return null;
  const columns = text.replace(TWO_WORD, 'Success_Rate').split(/\s+/);
  const has = (...names: string[]) => names.every((n) => columns.includes(n));
  if (has('NAME', 'MESHED', 'SUCCESS', 'RPS')) return { table: 'stat', columns, spaced: 'last' };
  if (has('ROUTE', 'SERVICE', 'SUCCESS', 'RPS')) return { table: 'routes', columns, spaced: 'first' };
  if (has('SRC', 'DST', 'SECURED')) return { table: 'edges', columns, spaced: 'last' };
  if (has('NAMESPACE', 'IP', 'PORT', 'POD', 'SERVICE') && columns.length === 5) return { table: 'endpoints', columns, spaced: 'last' };
  if (has('CLUSTER', 'ALIVE')) return { table: 'gateways', columns, spaced: 'last' };
  if (has('Source', 'Destination', 'Method', 'Path', 'Count'))
    return { table: 'top', columns: columns.map((c) => c.replace('Success_Rate', 'Success Rate')), spaced: 'last' };
  return null;
}

/** A row under `header`, cells by column; null when the line is not one (too few cells). */
export function cliTableRow(header: TableHeader, line: string): Record<string, string> | null {
  const cells = line.trim().split(/\s+/);
  const n = header.columns.length;
  if (cells.length < n) return null;
  const row: Record<string, string> = dict<string>();
  if (header.spaced === 'first') {
    const extra = cells.length - n;
    header.columns.forEach((c, i) => (row[c] = i === 0 ? cells.slice(0, extra + 1).join(' ') : cells[i + extra]!));
  } else header.columns.forEach((c, i) => (row[c] = i === n - 1 ? cells.slice(i).join(' ') : cells[i]!));
  return row;
}

/** `req`, `rsp` or `end` with its `key=value` pairs (`:status=503`), as tap prints an event; null for any other line. */
export function tapEvent(line: string): Record<string, string> | null {
  const text = line.trim();
  const kind = text.slice(0, 4);
  if (kind !== 'req ' && kind !== 'rsp ' && kind !== 'end ') return null;
  const cells: Record<string, string> = Object.assign(dict<string>(), { event: kind.trim() });
  let pairs = 0;
  for (const token of text.slice(4).split(/\s+/)) {
    const eq = token.indexOf('=');
    if (eq <= 0) continue;
    cells[token.slice(0, eq)] = token.slice(eq + 1);
    pairs++;
  }
  return pairs >= 2 && cells.id !== undefined ? cells : null;
}
