// One dig message being assembled from the lines the reader recognises, and the query and answer
// records it becomes. Answers are held until the footer, because `;; WHEN:` (the only wall time
// dig prints) comes after the records; the buffer is bounded by MAX_BUFFERED_ANSWERS.

import type { DigFormat, DnsAnswerRecord, DnsQueryRecord, InputInfo } from '../core/types.js';
import type { PlannedQuery } from './dig-banner.js';
import { rdataFields, shortAnswerType, type ParsedRr } from './dig-rr.js';
import type { ParserSink } from './parser.js';

/** Answers one message may buffer before its query record is sent ahead without the footer's time. */
const MAX_BUFFERED_ANSWERS = 5000;

export type Section = 'question' | 'answer' | 'authority' | 'additional' | 'opt' | null;

export type RecordSection = DnsAnswerRecord['section'];

interface PendingAnswer {
  line: number;
  rr: ParsedRr;
  section: RecordSection;
}

export interface Message {
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

/** Message state and record emission shared by the dig line reader (see dig.ts). */
export abstract class DigMessageBuilder {
  protected queryIndex = 0;
  protected msg: Message | null = null;
  protected planned: PlannedQuery[] = [];
  protected plannedServer: string | null = null;
  protected nextPlanned = 0;
  protected tracing = false;
  /** dig prints retries and communication errors before the banner of the run they belong to. */
  protected pendingNotes: string[] = [];
  protected pendingErrors: string[] = [];
  protected captureTime: number | null = null;
  protected lastSent: Message | null = null;

  constructor(
    protected readonly input: InputInfo,
    protected readonly sink: ParserSink,
  ) {}

  protected addRecord(rr: ParsedRr, lineNo: number, format: DigFormat): void {
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
  protected sectionOf(msg: Message, rr: ParsedRr): RecordSection {
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
  protected transferPlanned(): boolean {
    const type = this.planned[this.nextPlanned]?.type;
    return type === 'AXFR' || type === 'IXFR';
  }

  protected addShortAnswer(data: string, server: string | null, lineNo: number): void {
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

  protected pushAnswer(msg: Message, rr: ParsedRr, lineNo: number, section: RecordSection): void {
    // Run splitting only needs the records of one RRset-sized listing; a zone transfer must not grow it without bound.
    if (msg.seen.size < MAX_BUFFERED_ANSWERS) msg.seen.add(answerKey(rr));
    if (msg.queryEmitted) {
      this.sink.emit(this.answerRecord(msg, msg.queryEmitted, rr, lineNo, section));
      return;
    }
    msg.answers.push({ line: lineNo, rr, section });
    if (msg.answers.length >= MAX_BUFFERED_ANSWERS) this.flushAnswers(msg);
  }

  protected newMessage(lineNo: number, format: DigFormat, implicit: boolean): Message {
    this.msg = {
      line: lineNo,
      format,
      sending: false,
      implicit,
      name: null,
      type: null,
      class: null,
      status: null,
      flags: [],
      server: null,
      protocol: null,
      time: null,
      queryTimeMs: null,
      ede: [],
      notes: [],
      error: null,
      section: null,
      answers: [],
      seen: new Set(),
      queryEmitted: null,
    };
    return this.msg;
  }

  protected current(lineNo: number): Message {
    return this.msg ?? this.newMessage(lineNo, 'text', false);
  }

  protected emitFailure(lineNo: number, error: string, format: DigFormat): void {
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
  protected flushAnswers(msg: Message): void {
    const query = msg.queryEmitted ?? this.emitQuery(msg);
    for (const a of msg.answers) this.sink.emit(this.answerRecord(msg, query, a.rr, a.line, a.section));
    msg.answers = [];
  }

  protected finishMessage(): void {
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

  protected emitQuery(msg: Message): DnsQueryRecord {
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
      name: msg.name ?? planned?.name ?? (msg.format === 'short' ? '' : (firstOwner ?? '')),
      type: msg.type ?? planned?.type ?? (msg.format === 'short' ? sharedType(msg) : (msg.answers[0]?.rr.type ?? '')),
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

  protected answerRecord(msg: Message, query: DnsQueryRecord, rr: ParsedRr, lineNo: number, section: RecordSection): DnsAnswerRecord {
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
