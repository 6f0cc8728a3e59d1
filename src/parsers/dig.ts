// dig (BIND 9.16–9.20) output as a line-driven state machine. One input may hold many dig runs
// back to back (`while true; do dig …; sleep 1; done > dns.txt`), each with any mix of +short,
// +noall +answer, +multiline, +yaml, +trace, +qr, +nocomments, +nostats, +ttlunits, +nottlid.
//
// A message's answers are held until its footer, because `;; WHEN:` (the only wall time dig
// prints) comes after the records; the buffer is bounded by MAX_BUFFERED_ANSWERS.

import type { DigFormat, DnsAnswerRecord, DnsQueryRecord, InputInfo } from '../core/types.js';
import { CollectorPrefixReader, parseRfc3339 } from './collector-prefix.js';
import type { LineParser, ParserFactory, ParserSink } from './parser.js';

/** Answers one message may buffer before its query record is sent ahead without the footer's time. */
const MAX_BUFFERED_ANSWERS = 5000;
/** Continuation lines one parenthesised record may take (long DNSKEY/RRSIG/TXT rdata stays far below). */
const MAX_MULTILINE_LINES = 200;

const RR_TYPES = new Set(
  (
    'A AAAA A6 AFSDB ANY APL ATMA AVC AXFR CAA CDNSKEY CDS CERT CNAME CSYNC DHCID DLV DNAME DNSKEY DOA DS EID EUI48 EUI64 GID GPOS HINFO HIP ' +
    'HTTPS IPSECKEY ISDN IXFR KEY KX L32 L64 LOC LP MAILA MAILB MB MD MF MG MINFO MR MX NAPTR NID NIMLOC NINFO NS NSAP NSAP-PTR NSEC NSEC3 ' +
    'NSEC3PARAM NULL NXT OPENPGPKEY OPT PTR PX RESINFO RKEY RP RRSIG RT SIG SINK SMIMEA SOA SPF SRV SSHFP SVCB TA TALINK TKEY TLSA TSIG TXT ' +
    'UID UINFO UNSPEC URI WALLET WKS X25 ZONEMD'
  ).split(' '),
);
const RR_CLASSES = new Set(['IN', 'CH', 'CHAOS', 'HS', 'HESIOD', 'NONE', 'ANY']);

export function isRrType(token: string): boolean {
  return RR_TYPES.has(token.toUpperCase()) || /^TYPE\d+$/i.test(token);
}

function isRrClass(token: string): boolean {
  return RR_CLASSES.has(token.toUpperCase()) || /^CLASS\d+$/i.test(token);
}

const TTL_UNIT_SECONDS: Record<string, number> = { w: 604800, d: 86400, h: 3600, m: 60, s: 1 };

/** A TTL as dig prints it: seconds (`30`) or `+ttlunits` (`1w2d3h4m5s`, `0s`); null if it is not one. */
export function parseTtl(token: string): number | null {
  if (/^\d+$/.test(token)) return Number(token);
  if (!/^(?:\d+[wdhms])+$/i.test(token)) return null;
  let total = 0;
  for (const part of token.toLowerCase().matchAll(/(\d+)([wdhms])/g)) total += Number(part[1]) * TTL_UNIT_SECONDS[part[2]!]!;
  return total;
}

export interface ParsedRr {
  name: string;
  ttl: number | null;
  class: string | null;
  type: string;
  data: string;
}

/** Removes `; comments` outside quoted strings (TXT may contain `;`). */
function stripComment(text: string): string {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '"') quoted = !quoted;
    else if (c === ';' && !quoted) return text.slice(0, i);
  }
  return text;
}

/** Open minus closed parentheses outside quotes: > 0 while +multiline rdata continues. */
function parenDepth(text: string): number {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '"') quoted = !quoted;
    else if (!quoted && c === '(') depth++;
    else if (!quoted && c === ')') depth--;
  }
  return depth;
}

/**
 * One resource record in presentation format: `owner [TTL] [class] type rdata`. The separators
 * are any mix of tabs and spaces (dig pads to columns), so the first fields are split on runs of
 * whitespace and the rdata is kept as the rest of the line.
 */
export function parseRrText(text: string): ParsedRr | null {
  const fields: { token: string; end: number }[] = [];
  const re = /\S+/g;
  let m: RegExpExecArray | null;
  while (fields.length < 4 && (m = re.exec(text))) fields.push({ token: m[0], end: m.index + m[0].length });
  if (fields.length < 2) return null;
  const name = fields[0]!.token;
  if (!/^[^;"()]+$/.test(name)) return null;
  let i = 1;
  let ttl: number | null = null;
  let cls: string | null = null;
  const maybeTtl = parseTtl(fields[i]!.token);
  if (maybeTtl !== null) {
    ttl = maybeTtl;
    i++;
  }
  if (i < fields.length && isRrClass(fields[i]!.token) && i + 1 < fields.length && isRrType(fields[i + 1]!.token)) {
    cls = fields[i]!.token.toUpperCase();
    i++;
  }
  if (i >= fields.length || !isRrType(fields[i]!.token)) return null;
  // Without a TTL or a class the line is too easily prose; dig always prints one of them.
  if (ttl === null && cls === null) return null;
  const type = fields[i]!.token.toUpperCase();
  const data = text.slice(fields[i]!.end).trim();
  return { name, ttl, class: cls, type, data };
}

const IPV4 = /^(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
const IPV6 = /^(?=.*:)[0-9a-f:.]+$/i;

/** Typed views of the rdata the rules read: SRV, A, AAAA, CNAME. */
export function rdataFields(type: string, data: string): Pick<DnsAnswerRecord, 'srv' | 'address' | 'cname'> {
  switch (type) {
    case 'SRV': {
      const srv = /^(\d+)\s+(\d+)\s+(\d+)\s+(\S+)$/.exec(data);
      return srv ? { srv: { priority: Number(srv[1]), weight: Number(srv[2]), port: Number(srv[3]), target: srv[4]! } } : {};
    }
    case 'A':
      return IPV4.test(data) ? { address: data } : {};
    case 'AAAA':
      return IPV6.test(data) ? { address: data.toLowerCase() } : {};
    case 'CNAME':
      return /^\S+$/.test(data) ? { cname: data } : {};
    default:
      return {};
  }
}

/** `+short` prints only rdata; guess the type where the shape allows no other reading. */
function shortAnswerType(data: string): string {
  if (IPV4.test(data)) return 'A';
  if (IPV6.test(data) && data.includes(':')) return 'AAAA';
  if (/^\d+ \d+ \d+ \S+$/.test(data)) return 'SRV';
  if (/^\d+ \S+\.$/.test(data)) return 'MX';
  if (/^"/.test(data)) return 'TXT';
  return 'UNKNOWN';
}

const SHORT_RDATA = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}|(?=[0-9a-f]*:)[0-9a-f:.]+|\d+ \d+ \d+ [^\s;]+\.|\d+ [^\s;]+\.|[a-z0-9_*][-a-z0-9_.*\\]*\.|"(?:[^"\\]|\\.)*"(?: "(?:[^"\\]|\\.)*")*)$/i;
const SHORT_IDENTIFY = /^(.*) from server (\S+) in \d+ ms\.$/;

// --------------------------------------------------------------------- time

const MONTHS: Record<string, number> = { Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 };
/** Offsets (minutes) of zone abbreviations `date`/dig print; ambiguous ones (IST, CST in Asia…) take their most common meaning. */
const ZONES: Record<string, number> = {
  UTC: 0, GMT: 0, Z: 0, UT: 0, WET: 0, WEST: 60, BST: 60, CET: 60, CEST: 120, MET: 60, MEST: 120, EET: 120, EEST: 180, MSK: 180,
  IST: 330, PKT: 300, ICT: 420, WIB: 420, HKT: 480, SGT: 480, AWST: 480, CST: -360, CDT: -300, EST: -300, EDT: -240,
  MST: -420, MDT: -360, PST: -480, PDT: -420, AKST: -540, AKDT: -480, HST: -600, JST: 540, KST: 540, ACST: 570, ACDT: 630,
  AEST: 600, AEDT: 660, NZST: 720, NZDT: 780, BRT: -180, ART: -180,
};

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
function parseDateLine(text: string): number | null {
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(text)) return parseRfc3339(text.trim());
  if (!/^[A-Z][a-z]{2},? /.test(text)) return null;
  return parseDigWhen(text);
}

// ------------------------------------------------------------------- banner

interface PlannedQuery {
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
    if (current.name !== null || current.type !== null) queries.push({ name: absolute(current.name ?? '.'), type: current.type ?? (current.name === null ? 'NS' : 'A'), class: current.class });
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

// ------------------------------------------------------------------ parser

type Section = 'question' | 'answer' | 'authority' | 'additional' | 'opt' | null;

type RecordSection = DnsAnswerRecord['section'];

interface PendingAnswer {
  line: number;
  rr: ParsedRr;
  section: RecordSection;
}

interface Message {
  line: number;
  format: DigFormat;
  sending: boolean;
  /** Built from bare records with no `;; Got answer:` (`+noall +answer`, `+nocomments`, `+trace`). */
  implicit: boolean;
  name: string | null;
  type: string | null;
  class: string | null;
  status: string | null;
  flags: string[];
  server: string | null;
  protocol: string | null;
  time: number | null;
  queryTimeMs: number | null;
  ede: string[];
  notes: string[];
  error: string | null;
  section: Section;
  answers: PendingAnswer[];
  /** owner/type/rdata keys already seen, to split back-to-back runs that print no separator. */
  seen: Set<string>;
  queryEmitted: DnsQueryRecord | null;
  /** Owners answering the question (its CNAME chain), for output without section titles. */
  chain?: Set<string>;
  untitled?: 'authority' | 'additional';
}

/** The two lines dig 9.16+ prints for every `.local` question, cluster.local included: no information. */
const MDNS_WARNING = /^(?:WARNING: \.local is reserved for Multicast DNS|You are currently testing what happens when an mDNS query is leaked to DNS)$/;

const SECTION_TITLES: Record<string, Section> = {
  QUESTION: 'question', ANSWER: 'answer', AUTHORITY: 'authority', ADDITIONAL: 'additional',
  ZONE: 'question', PREREQUISITE: 'answer', UPDATE: 'authority',
};

class DigParser implements LineParser {
  private readonly prefixes = new CollectorPrefixReader();
  private queryIndex = 0;
  private msg: Message | null = null;
  private planned: PlannedQuery[] = [];
  private plannedServer: string | null = null;
  private nextPlanned = 0;
  private tracing = false;
  /** dig prints retries and communication errors before the banner of the run they belong to. */
  private pendingNotes: string[] = [];
  private pendingErrors: string[] = [];
  private captureTime: number | null = null;
  private lastSent: Message | null = null;
  private multiline: { line: number; text: string; depth: number; lines: number } | null = null;
  private yaml: { inError: boolean; errorText: string[]; errorLine: number; section: Section } | null = null;

  constructor(
    private readonly input: InputInfo,
    private readonly sink: ParserSink,
  ) {}

  line(raw: string, lineNo: number): void {
    const collected = this.prefixes.feed(raw, lineNo);
    if (!collected) return;
    if (collected.time !== null) this.captureTime = collected.time;
    this.handle(collected.content.trimEnd(), collected.line);
  }

  end(): void {
    const pending = this.prefixes.flush();
    if (pending) this.handle(pending.content.trimEnd(), pending.line);
    if (this.multiline) this.finishMultiline();
    this.closeYamlError();
    this.finishMessage();
  }

  private handle(text: string, lineNo: number): void {
    if (this.multiline) {
      // dig never puts a blank or `;;` line inside parentheses: a pasted fragment must not swallow the rest.
      if (text === '' || text.startsWith(';;') || ++this.multiline.lines > MAX_MULTILINE_LINES) {
        this.sink.unparsed(this.multiline.line, 'unterminated ( in a +multiline record');
        this.multiline = null;
      } else {
        this.multiline.text += ' ' + stripComment(text).trim();
        this.multiline.depth += parenDepth(stripComment(text));
        if (this.multiline.depth <= 0) this.finishMultiline();
        return;
      }
    }
    if (this.yaml) {
      if (this.yamlLine(text, lineNo)) return;
      this.closeYamlError();
      this.yaml = null;
      this.finishMessage();
    }
    if (text === '') return;
    if (text.startsWith(';')) {
      this.commentLine(text, lineNo);
      return;
    }
    if (/^- type: (?:MESSAGE|DIG_ERROR|\w+)$/.test(text)) {
      this.finishMessage();
      this.yaml = { inError: false, errorText: [], errorLine: lineNo, section: null };
      this.yamlLine(text, lineNo);
      return;
    }
    const rrText = stripComment(text);
    if (parenDepth(rrText) > 0 && parseRrText(rrText.replace(/\(.*$/, '(')) !== null) {
      this.multiline = { line: lineNo, text: rrText.trim(), depth: parenDepth(rrText), lines: 1 };
      return;
    }
    const rr = parseRrText(rrText);
    if (rr) {
      this.addRecord(rr, lineNo, 'text');
      return;
    }
    const identified = SHORT_IDENTIFY.exec(text);
    const shortText = (identified ? identified[1]! : text).trim();
    if (SHORT_RDATA.test(shortText)) {
      this.addShortAnswer(shortText, identified ? identified[2]! : null, lineNo);
      return;
    }
    const date = parseDateLine(text);
    if (date !== null) {
      this.finishMessage();
      this.captureTime = date;
      return;
    }
    this.sink.unparsed(lineNo, 'not dig output');
  }

  private commentLine(text: string, lineNo: number): void {
    if (text.startsWith('; <<>> DiG ')) {
      this.finishMessage();
      const args = /<<>> DiG \S+ <<>>(.*)$/.exec(text)?.[1]?.trim().split(/\s+/).filter(Boolean) ?? [];
      const plan = plannedQueries(args);
      this.planned = plan.queries;
      this.tracing = args.includes('+trace');
      this.plannedServer = plan.server;
      this.nextPlanned = 0;
      this.lastSent = null;
      return;
    }
    if (!text.startsWith(';;')) {
      // `;name. IN SRV` question lines, or `; EDNS:` / `; COOKIE:` / `; EDE:` OPT lines.
      const opt = /^; ([A-Z][A-Z0-9-]*): ?(.*)$/.exec(text);
      if (opt) {
        if (opt[1] === 'EDE' && this.msg) this.msg.ede.push(opt[2]!.trim());
        return;
      }
      if (/^; \(\d+ servers? found\)$/.test(text)) return;
      const question = /^;(\S+)\s+(?:(\S+)\s+)?(\S+)$/.exec(text);
      if (question && isRrType(question[3]!)) {
        const msg = this.current(lineNo);
        if (msg.name !== null && msg.implicit && msg.answers.length > 0) {
          this.finishMessage();
          this.current(lineNo);
        }
        const m = this.msg!;
        m.name = question[1]!;
        m.type = question[3]!.toUpperCase();
        m.class = question[2]?.toUpperCase() ?? null;
        if (m.section === null) m.section = 'question';
        return;
      }
      this.sink.unparsed(lineNo, 'unrecognised dig comment line');
      return;
    }
    const body = text.slice(2).trim();
    let m: RegExpExecArray | null;
    if (body === 'Got answer:' || body === 'Sending:') {
      this.finishMessage();
      const msg = this.newMessage(lineNo, 'text', false);
      msg.sending = body === 'Sending:';
      return;
    }
    if ((m = /^->>HEADER<<- opcode: (\S+), status: ([A-Z0-9]+), id: (\d+)/.exec(body))) {
      const msg = this.current(lineNo);
      if (msg.status !== null || msg.answers.length > 0) {
        this.finishMessage();
        this.newMessage(lineNo, 'text', false);
      }
      this.msg!.status = m[2]!;
      return;
    }
    if ((m = /^flags:([a-z ]*)(?:;|$)/.exec(body))) {
      this.current(lineNo).flags = m[1]!.trim().split(/\s+/).filter(Boolean);
      return;
    }
    if ((m = /^([A-Z]+) SECTION:$/.exec(body))) {
      this.current(lineNo).section = SECTION_TITLES[m[1]!] ?? null;
      return;
    }
    if (body === 'OPT PSEUDOSECTION:') {
      this.current(lineNo).section = 'opt';
      return;
    }
    if ((m = /^Query time: (\d+) (msec|usec)$/.exec(body))) {
      this.current(lineNo).queryTimeMs = m[2] === 'usec' ? Number(m[1]) / 1000 : Number(m[1]);
      return;
    }
    if ((m = /^SERVER: (\S+?)\((.*?)\)(?: \((\S+)\))?$/.exec(body))) {
      const msg = this.current(lineNo);
      msg.server = m[1]!;
      msg.protocol = m[3] ?? null;
      return;
    }
    if (body.startsWith('WHEN: ')) {
      this.current(lineNo).time = parseDigWhen(body.slice(6));
      return;
    }
    if (/^MSG SIZE +rcvd: \d+$/.test(body) || body.startsWith('XFR size:')) {
      this.finishMessage();
      return;
    }
    if (/^QUERY SIZE: \d+$/.test(body)) {
      this.finishMessage();
      return;
    }
    if ((m = /^Received \d+ bytes from (\S+?)\((.*?)\) in \d+ ms$/.exec(body))) {
      const msg = this.current(lineNo);
      // `+identify` prints the same line after a plain answer; only +trace makes it a referral step.
      if (this.tracing) msg.format = 'trace';
      msg.server = m[1]!;
      this.finishMessage();
      return;
    }
    if (body.startsWith('Truncated, retrying in TCP mode')) {
      this.finishMessage();
      this.pendingNotes.push(body);
      return;
    }
    if ((m = /^communications error to (\S+): (.*)$/.exec(body))) {
      this.finishMessage();
      this.pendingErrors.push(m[2]!);
      this.pendingNotes.push(body);
      return;
    }
    if (/no servers could be reached$/.test(body)) {
      this.finishMessage();
      const timedOut = /connection timed out/.test(body);
      const reasons = [...new Set(this.pendingErrors)];
      const error = reasons.length > 0 ? `${reasons.join(', ')}; no servers could be reached` : timedOut ? 'connection timed out; no servers could be reached' : 'no servers could be reached';
      this.emitFailure(lineNo, error, 'text');
      return;
    }
    if (body === 'global options: +cmd' || body.startsWith('global options:')) return;
    // Warnings and retry notices (`.local is reserved`, `recursion requested but not available`,
    // BADCOOKIE, `Got SERVFAIL reply from …, trying next server`, ID mismatch…) are dig's own words.
    if (MDNS_WARNING.test(body)) return;
    if (this.msg && !this.msg.implicit) this.msg.notes.push(body);
    else this.pendingNotes.push(body);
  }

  // -------------------------------------------------------------- yaml

  /** Handles one `+yaml` line; false when the line is not YAML (the stream ended). */
  private yamlLine(text: string, lineNo: number): boolean {
    const y = this.yaml!;
    if (text === '') return true;
    const top = /^- type: (\w+)$/.exec(text);
    if (top) {
      this.closeYamlError();
      this.finishMessage();
      if (top[1] === 'DIG_ERROR') {
        y.inError = true;
        y.errorText = [];
        y.errorLine = lineNo;
      } else {
        y.inError = false;
        this.newMessage(lineNo, 'yaml', false);
      }
      y.section = null;
      return true;
    }
    if (!text.startsWith(' ')) return false;
    if (y.inError) {
      const msgLine = /^ {2}message: ?(.*)$/.exec(text);
      if (msgLine) {
        if (msgLine[1] && msgLine[1] !== '|' && msgLine[1] !== '>') y.errorText.push(msgLine[1].replace(/^"|"$/g, ''));
      } else y.errorText.push(text.trim());
      return true;
    }
    const msg = this.msg;
    if (!msg) return true;
    const item = /^\s+- (['"])(.*)\1$/.exec(text);
    if (item) {
      const value = item[1] === "'" ? item[2]!.replace(/''/g, "'") : item[2]!.replace(/\\"/g, '"').replace(/\\\\/g, '\\');
      if (y.section === 'question') {
        const q = /^(\S+)\s+(?:(\S+)\s+)?(\S+)$/.exec(value);
        if (q) {
          msg.name = q[1]!;
          msg.class = q[2]?.toUpperCase() ?? null;
          msg.type = q[3]!.toUpperCase();
        }
      } else if (y.section === 'answer' || y.section === 'authority' || y.section === 'additional') {
        const rr = parseRrText(stripComment(value)) ?? parseRrText(value);
        if (rr) this.pushAnswer(msg, rr, lineNo, y.section);
        else this.sink.unparsed(lineNo, 'unreadable record in +yaml section');
      }
      return true;
    }
    const kv = /^\s+([A-Za-z_]+):\s*(.*)$/.exec(text);
    if (!kv) return true;
    const [, key, rawValue] = kv as unknown as [string, string, string];
    const value = rawValue.replace(/^"(.*)"$/, '$1');
    switch (key) {
      case 'type':
        if (/_QUERY$/.test(value)) msg.sending = true;
        break;
      case 'query_time':
      case 'response_time': {
        const ts = parseRfc3339(value.replace(/^!!timestamp\s+/, ''));
        if (ts !== null && (key === 'response_time' || msg.time === null)) msg.time = ts;
        break;
      }
      case 'socket_protocol':
        msg.protocol = value;
        break;
      case 'response_address':
        msg.server = value;
        break;
      case 'response_port':
        if (msg.server !== null) msg.server = `${msg.server}#${value}`;
        break;
      case 'status':
        msg.status = value;
        break;
      case 'flags':
        // `flags:` under EDNS is the EDNS flag set; the header's comes first with qr/rd/aa.
        if (y.section !== 'opt') msg.flags = value.split(/\s+/).filter(Boolean);
        break;
      case 'OPT_PSEUDOSECTION':
        y.section = 'opt';
        break;
      case 'EDE':
        msg.ede.push(value);
        break;
      case 'QUESTION_SECTION':
      case 'ANSWER_SECTION':
      case 'AUTHORITY_SECTION':
      case 'ADDITIONAL_SECTION':
        y.section = SECTION_TITLES[key.replace('_SECTION', '')] ?? null;
        break;
      default:
        break;
    }
    return true;
  }

  private closeYamlError(): void {
    const y = this.yaml;
    if (!y || !y.inError) return;
    y.inError = false;
    this.emitFailure(y.errorLine, y.errorText.join(' ').trim() || 'dig error', 'yaml');
  }

  // ----------------------------------------------------------- records

  private finishMultiline(): void {
    const ml = this.multiline!;
    this.multiline = null;
    const joined = ml.text.replace(/[()]/g, ' ').replace(/\s+/g, ' ').trim();
    const rr = parseRrText(joined);
    if (rr) this.addRecord(rr, ml.line, 'text');
    else this.sink.unparsed(ml.line, 'unreadable +multiline record');
  }

  private addRecord(rr: ParsedRr, lineNo: number, format: DigFormat): void {
    let msg = this.msg;
    if (msg && (msg.format === 'short' || msg.sending)) {
      this.finishMessage();
      msg = null;
    }
    if (msg && msg.implicit && !this.transferPlanned() && msg.seen.has(answerKey(rr))) {
      // The same record twice in one bare listing: the next run of a capture loop began.
      this.finishMessage();
      msg = null;
    }
    if (!msg) msg = this.newMessage(lineNo, format, true);
    this.pushAnswer(msg, rr, lineNo, this.sectionOf(msg, rr));
  }

  /**
   * The section titles say where a record belongs; `+nocomments` drops them but keeps the question
   * line and dig's section order, so records outside the question's CNAME chain are the authority
   * (NS/SOA) and additional sections.
   */
  private sectionOf(msg: Message, rr: ParsedRr): RecordSection {
    if (msg.section === 'answer' || msg.section === 'authority' || msg.section === 'additional') return msg.section;
    if (msg.name === null) return 'answer';
    msg.chain ??= new Set([msg.name.toLowerCase()]);
    if (msg.untitled === undefined && msg.chain.has(rr.name.toLowerCase())) {
      if (rr.type === 'CNAME') msg.chain.add(rr.data.toLowerCase());
      return 'answer';
    }
    if (msg.untitled !== 'additional' && (rr.type === 'NS' || rr.type === 'SOA')) msg.untitled = 'authority';
    else msg.untitled = 'additional';
    return msg.untitled;
  }

  /** A zone transfer lists its SOA first and last: a repeated record does not start a new run there. */
  private transferPlanned(): boolean {
    const type = this.planned[this.nextPlanned]?.type;
    return type === 'AXFR' || type === 'IXFR';
  }

  private addShortAnswer(data: string, server: string | null, lineNo: number): void {
    let msg = this.msg;
    const rr: ParsedRr = { name: '', ttl: null, class: null, type: shortAnswerType(data), data };
    if (msg && (msg.format !== 'short' || msg.seen.has(answerKey(rr)))) {
      this.finishMessage();
      msg = null;
    }
    if (!msg) msg = this.newMessage(lineNo, 'short', true);
    if (server !== null) msg.server = server;
    this.pushAnswer(msg, rr, lineNo, 'answer');
  }

  private pushAnswer(msg: Message, rr: ParsedRr, lineNo: number, section: RecordSection): void {
    // Run splitting only needs the records of one RRset-sized listing; a zone transfer must not grow it without bound.
    if (msg.seen.size < MAX_BUFFERED_ANSWERS) msg.seen.add(answerKey(rr));
    if (msg.queryEmitted) {
      this.sink.emit(this.answerRecord(msg, msg.queryEmitted, rr, lineNo, section));
      return;
    }
    msg.answers.push({ line: lineNo, rr, section });
    if (msg.answers.length >= MAX_BUFFERED_ANSWERS) this.flushAnswers(msg);
  }

  private newMessage(lineNo: number, format: DigFormat, implicit: boolean): Message {
    this.msg = {
      line: lineNo, format, sending: false, implicit, name: null, type: null, class: null, status: null, flags: [], server: null, protocol: null,
      time: null, queryTimeMs: null, ede: [], notes: [], error: null, section: null, answers: [], seen: new Set(), queryEmitted: null,
    };
    return this.msg;
  }

  private current(lineNo: number): Message {
    return this.msg ?? this.newMessage(lineNo, 'text', false);
  }

  private emitFailure(lineNo: number, error: string, format: DigFormat): void {
    const msg = this.newMessage(lineNo, format, false);
    msg.error = error;
    if (this.lastSent) {
      msg.name = this.lastSent.name;
      msg.type = this.lastSent.type;
      msg.class = this.lastSent.class;
    }
    this.finishMessage();
  }

  /** Emits the query record now, then every buffered answer. */
  private flushAnswers(msg: Message): void {
    const query = msg.queryEmitted ?? this.emitQuery(msg);
    for (const a of msg.answers) this.sink.emit(this.answerRecord(msg, query, a.rr, a.line, a.section));
    msg.answers = [];
  }

  private finishMessage(): void {
    const msg = this.msg;
    if (!msg) return;
    this.msg = null;
    if (msg.sending) {
      this.lastSent = msg;
      return;
    }
    const empty = msg.status === null && msg.error === null && msg.answers.length === 0 && msg.queryEmitted === null && msg.name === null;
    if (empty) return;
    this.flushAnswers(msg);
    // A `;; Sending:` question names only the failure that directly follows it.
    this.lastSent = null;
  }

  private emitQuery(msg: Message): DnsQueryRecord {
    const planned = msg.format === 'short' ? undefined : this.planned[this.nextPlanned];
    // Only messages dig sends a question for consume a planned query; +trace steps share one.
    if (planned && !this.tracing) this.nextPlanned++;
    const time = msg.time ?? this.captureTime;
    const firstOwner = msg.answers[0]?.rr.name;
    const record: DnsQueryRecord = {
      kind: 'dns-query',
      path: this.input.path,
      line: msg.line,
      ...podMeta(this.input),
      name: msg.name ?? planned?.name ?? (msg.format === 'short' ? '' : firstOwner ?? ''),
      type: msg.type ?? planned?.type ?? (msg.format === 'short' ? sharedType(msg) : msg.answers[0]?.rr.type ?? ''),
      server: msg.server ?? this.plannedServer,
      time,
      status: msg.status,
      flags: msg.flags,
      queryIndex: this.queryIndex++,
      error: msg.error,
      format: msg.format,
      class: msg.class ?? planned?.class ?? null,
      protocol: msg.protocol,
      queryTimeMs: msg.queryTimeMs,
      ede: msg.ede,
      notes: [...this.pendingNotes, ...msg.notes],
    };
    this.pendingNotes = [];
    this.pendingErrors = [];
    msg.queryEmitted = record;
    this.sink.emit(record);
    return record;
  }

  private answerRecord(msg: Message, query: DnsQueryRecord, rr: ParsedRr, lineNo: number, section: RecordSection): DnsAnswerRecord {
    return {
      kind: 'dns-answer',
      path: this.input.path,
      line: lineNo,
      ...podMeta(this.input),
      queryIndex: query.queryIndex,
      section,
      name: rr.name,
      ttl: rr.ttl,
      class: rr.class,
      type: rr.type,
      data: rr.data,
      ...rdataFields(rr.type, rr.data),
      time: query.time,
      format: msg.format,
    };
  }
}

function answerKey(rr: ParsedRr): string {
  return `${rr.name.toLowerCase()} ${rr.type} ${rr.data}`;
}

function sharedType(msg: Message): string {
  const types = new Set(msg.answers.map((a) => a.rr.type));
  return types.size === 1 ? [...types][0]! : '';
}

function podMeta(input: InputInfo): Pick<DnsQueryRecord, 'pod' | 'namespace' | 'container'> {
  const meta: Pick<DnsQueryRecord, 'pod' | 'namespace' | 'container'> = {};
  if (input.pod) meta.pod = input.pod;
  if (input.namespace) meta.namespace = input.namespace;
  if (input.container) meta.container = input.container;
  return meta;
}

export const createDigParser: ParserFactory = (input, sink) => new DigParser(input, sink);

/** dig qualifies command-line names as absolute (no +search by default), as its question line shows. */
function absolute(name: string): string {
  return name.endsWith('.') ? name : `${name}.`;
}
