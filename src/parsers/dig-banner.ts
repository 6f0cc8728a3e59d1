// What dig says about a run besides its records: the wall time (`;; WHEN:`, a shell `date`
// between runs) and the queries its command line (`; <<>> DiG … <<>> args`) asks for.

import { parseRfc3339 } from './collector-prefix.js';
import { IPV4, isRrClass, isRrType } from './dig-rr.js';
import { lookupTable } from '../util/dict.js';

// --------------------------------------------------------------------- time

const MONTHS: Record<string, number> = lookupTable({ Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 });
/** Offsets (minutes) of zone abbreviations `date`/dig print; ambiguous ones (IST, CST in Asia…) take their most common meaning. */
const ZONES: Record<string, number> = lookupTable({
  UTC: 0,
  GMT: 0,
  Z: 0,
  UT: 0,
  WET: 0,
  WEST: 60,
  BST: 60,
  CET: 60,
  CEST: 120,
  MET: 60,
  MEST: 120,
  EET: 120,
  EEST: 180,
  MSK: 180,
  IST: 330,
  PKT: 300,
  ICT: 420,
  WIB: 420,
  HKT: 480,
  SGT: 480,
  AWST: 480,
  CST: -360,
  CDT: -300,
  EST: -300,
  EDT: -240,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
  AKST: -540,
  AKDT: -480,
  HST: -600,
  JST: 540,
  KST: 540,
  ACST: 570,
  ACDT: 630,
  AEST: 600,
  AEDT: 660,
  NZST: 720,
  NZDT: 780,
  BRT: -180,
  ART: -180,
});

/**
 * `Wed Dec 02 12:13:20 UTC 2026` (dig's `;; WHEN:` and `date`). The zone is the machine's local
 * abbreviation; an unknown one gives null rather than a guessed instant.
 */
export function parseDigWhen(text: string): number | null {
  const m = /^(?:[A-Z][a-z]{2},? +)?([A-Z][a-z]{2}) +(\d{1,2}) +(\d\d):(\d\d):(\d\d) +(\S+) +(\d{4})$/.exec(text.trim());
  if (!m) return null;
  const month = MONTHS[m[1]!];
  if (month === undefined) return null;
  const zone = m[6]!;
  let offset: number | undefined = ZONES[zone.toUpperCase()];
  const numeric = /^(?:UTC|GMT)?([+-])(\d\d):?(\d\d)$/.exec(zone);
  if (numeric) offset = (numeric[1] === '-' ? -1 : 1) * (Number(numeric[2]) * 60 + Number(numeric[3]));
  if (offset === undefined) return null;
  return Date.UTC(Number(m[7]), month, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])) - offset * 60_000;
}

/** A shell `date` line between dig runs (`date`, `date -u`, `date -Iseconds`): the capture time for runs that print none. */
export function parseDateLine(text: string): number | null {
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(text)) return parseRfc3339(text.trim());
  if (!/^[A-Z][a-z]{2},? /.test(text)) return null;
  return parseDigWhen(text);
}

// ------------------------------------------------------------------- banner

export interface PlannedQuery {
  name: string;
  type: string;
  class: string | null;
}

function reverseName(address: string): string {
  if (IPV4.test(address)) return address.split('.').reverse().join('.') + '.in-addr.arpa.';
  return address + '.ip6.arpa.';
}

const OPTION_WITH_ARGUMENT = new Set(['-b', '-c', '-f', '-k', '-p', '-q', '-t', '-x', '-y']);

/** The queries a dig command line asks for, in order, so timeouts and +trace can be named. */
export function plannedQueries(args: readonly string[]): { queries: PlannedQuery[]; server: string | null } {
  const queries: PlannedQuery[] = [];
  let server: string | null = null;
  let current: { name: string | null; type: string | null; class: string | null } = { name: null, type: null, class: null };
  const push = () => {
    if (current.name !== null || current.type !== null)
      queries.push({ name: absolute(current.name ?? '.'), type: current.type ?? (current.name === null ? 'NS' : 'A'), class: current.class });
    current = { name: null, type: null, class: null };
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith('+')) continue;
    if (arg.startsWith('@')) {
      server = arg.slice(1);
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      const flag = arg.slice(0, 2);
      const value = arg.length > 2 ? arg.slice(2) : OPTION_WITH_ARGUMENT.has(flag) ? args[++i] : undefined;
      if (value === undefined) continue;
      if (flag === '-x') {
        if (current.name !== null) push();
        current.name = reverseName(value);
        current.type = 'PTR';
      } else if (flag === '-t') current.type = value.toUpperCase();
      else if (flag === '-c') current.class = value.toUpperCase();
      else if (flag === '-q') {
        if (current.name !== null) push();
        current.name = value;
      }
      continue;
    }
    if (isRrType(arg) && !arg.includes('.')) {
      if (current.type !== null && current.name !== null) push();
      current.type = arg.toUpperCase();
    } else if (isRrClass(arg) && !arg.includes('.')) current.class = arg.toUpperCase();
    else {
      if (current.name !== null) push();
      current.name = arg;
    }
  }
  push();
  if (queries.length === 0) queries.push({ name: '.', type: 'NS', class: null });
  return { queries, server };
}

/** dig qualifies command-line names as absolute (no +search by default), as its question line shows. */
function absolute(name: string): string {
  return name.endsWith('.') ? name : `${name}.`;
}
