// dig (BIND 9.16–9.20) output as a line-driven state machine. One input may hold many dig runs
// back to back (`while true; do dig …; sleep 1; done > dns.txt`), each with any mix of +short,
// +noall +answer, +multiline, +yaml, +trace, +qr, +nocomments, +nostats, +ttlunits, +nottlid.
//
// This file reads the lines; dig-message.ts assembles them into query and answer records.

import { CollectorPrefixReader, parseRfc3339 } from './collector-prefix.js';
import { parseDateLine, parseDigWhen, plannedQueries } from './dig-banner.js';
import { DigMessageBuilder, type Section } from './dig-message.js';
import { SHORT_IDENTIFY, SHORT_RDATA, isRrType, parenDepth, parseRrText, stripComment } from './dig-rr.js';
import type { FormatSniff, LineParser, ParserFactory } from './parser.js';
import { lookupTable } from '../util/dict.js';

/** Continuation lines one parenthesised record may take (long DNSKEY/RRSIG/TXT rdata stays far below). */
const MAX_MULTILINE_LINES = 200;

/** The two lines dig 9.16+ prints for every `.local` question, cluster.local included: no information. */
const MDNS_WARNING = /^(?:WARNING: \.local is reserved for Multicast DNS|You are currently testing what happens when an mDNS query is leaked to DNS)$/;

const SECTION_TITLES: Record<string, Section> = lookupTable({
  QUESTION: 'question',
  ANSWER: 'answer',
  AUTHORITY: 'authority',
  ADDITIONAL: 'additional',
  ZONE: 'question',
  PREREQUISITE: 'answer',
  UPDATE: 'authority',
});

class DigParser extends DigMessageBuilder implements LineParser {
  private readonly prefixes = new CollectorPrefixReader();
  private multiline: { line: number; text: string; depth: number; lines: number } | null = null;
  private yaml: { inError: boolean; errorText: string[]; errorLine: number; section: Section } | null = null;

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
    if (parenDepth(rrText) > 0 && parseRrText(rrText.slice(0, rrText.indexOf('(') + 1)) !== null) {
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
    if ((m = /^SERVER: ([^\s(]+)\(([^)]*)\)(?: \((\S+)\))?$/.exec(body))) {
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
    if ((m = /^Received \d+ bytes from ([^\s(]+)\(([^)]*)\) in \d+ ms$/.exec(body))) {
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
      const error =
        reasons.length > 0
          ? `${reasons.join(', ')}; no servers could be reached`
          : timedOut
            ? 'connection timed out; no servers could be reached'
            : 'no servers could be reached';
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
    const kv = /^\s+([A-Za-z_]+):(?:\s+(\S.*)|\s*)$/.exec(text);
    if (!kv) return true;
    const [, key, rawValue = ''] = kv as unknown as [string, string, string | undefined];
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

  private finishMultiline(): void {
    const ml = this.multiline!;
    this.multiline = null;
    const joined = ml.text.replace(/[()]/g, ' ').replace(/\s+/g, ' ').trim();
    const rr = parseRrText(joined);
    if (rr) this.addRecord(rr, ml.line, 'text');
    else this.sink.unparsed(ml.line, 'unreadable +multiline record');
  }
}

export const createDigParser: ParserFactory = (input, sink) => new DigParser(input, sink);

const SNIFF_MARKER =
  /^(?:; <<>> DiG |;; ->>HEADER<<-|;; (?:QUESTION|ANSWER|AUTHORITY|ADDITIONAL) SECTION:|;; global options:|;; connection timed out|;; communications error|;; Got answer:|;; Query time:|;; WHEN:|;; Received \d+ bytes)/;
const SNIFF_YAML = /^-?\s*type: (?:MESSAGE|DIG_ERROR)\s*$/;
// Patterns are written so no two quantifiers can split the same run of characters: lines of up to
// 1 MiB reach the sniffer, and an ambiguous `\d+[\d…]*` backtracks quadratically (minutes per line).
const SNIFF_RR_LINE = /^\S+\s+(?:\d[\dwdhms]*\s+)?(?:IN|CH|HS)\s+[A-Z0-9]+\s/;
const SNIFF_SHORT_SRV = /^\d+ \d+ \d+ \S+\.$/;
const SNIFF_SHORT_IP = /^(?:\d{1,3}(?:\.\d{1,3}){3}|(?=[^:]*:)[0-9a-f:]+)$/i;
/** `+short` CNAME/PTR/NS targets are a bare absolute name. */
const SNIFF_SHORT_NAME = /^[a-z0-9_][-a-z0-9_]*(?:\.[-a-z0-9_]+)*\.$/i;
/** `+short +identify` appends where the answer came from. */
const SNIFF_SHORT_IDENTIFY_SUFFIX = / from server \S+ in \d+ ms\.$/;

function isShortAnswer(line: string): boolean {
  return SNIFF_SHORT_SRV.test(line) || SNIFF_SHORT_IP.test(line) || SNIFF_SHORT_NAME.test(line);
}

/**
 * How the sniffer (parsers/sniff.ts) tells dig output: its `;;` banners and sections are sure, a
 * bare resource record is loose, and `dig +short` prints nothing but rdata, so such lines name
 * dig only when every line of the head is one.
 */
export const digSniff: FormatSniff = {
  kind: 'dig',
  tests: [
    { order: 30, on: 'line', claim: (line) => (SNIFF_MARKER.test(line) || SNIFF_YAML.test(line) ? { kind: 'dig', score: 3 } : null) },
    { order: 60, on: 'line', claim: (line) => (SNIFF_RR_LINE.test(line) ? { kind: 'dig', score: 1 } : null) },
    {
      order: 70,
      on: 'line',
      claim: (line) => (isShortAnswer(line.replace(SNIFF_SHORT_IDENTIFY_SUFFIX, '')) ? { kind: 'dig', score: 0, onlyIfAll: true } : null),
    },
  ],
};
