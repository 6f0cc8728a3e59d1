// CoreDNS `log` plugin lines in the default Common Log Format:
//   [INFO] 10.0.0.1:53000 - 12345 "SRV IN name. udp 78 false 1232" NOERROR qr,aa,rd 449 0.000123s
// CoreDNS ≥ 1.6.3 prints no timestamp of its own; `kubectl logs --timestamps`, CRI files and
// CoreDNS ≤ 1.6.2 (`2019-10-08T14:41:05.156Z [INFO] …`) give one, peeled off by CollectorPrefixReader.
// CoreDNS ≤ 1.2 wrote its own Common Log Format date instead of the level:
//   192.168.2.14:56084 - [11/Jan/2019:19:57:57 +0000] 7 "A IN name. udp 62 false 512" NXDOMAIN qr,aa,rd,ra 155 0.000134637s
// and before 1.0.5 (plugin/log, January 2018) had neither the client port nor the query id, and
// printed the duration as Go does (`116.504µs`, `12.37ms`). Its messages went through Go's log
// package (`2018/09/06 13:02:45 [FATAL] plugin/loop: …`), and client-go inside the kubernetes
// plugin writes klog lines (`E0411 11:27:17.279482       1 reflector.go:322] …`).
// Start-up banners, plugin messages and errors-plugin lines are not queries: they become
// `coredns-message` records.

import type { CorednsMessageRecord, CorednsQueryRecord } from '../core/types.js';
import { CollectorPrefixReader } from './collector-prefix.js';
import { isPasteNoise } from './pasted.js';
import type { FormatSniff, LineParser, ParserFactory } from './parser.js';
import { lookupTable } from '../util/dict.js';

const QUERY_LINE =
  /^\[(?:INFO|DEBUG)\] (\[[0-9a-fA-F:.%\w]+\]|[^\s:]+):(\d+) - (\d+) "(\S+) (\S+) (\S+) (\S+) (\d+) (true|false) (\d+)" (\S+) (\S+) (\d+) (\d+(?:\.\d+)?)s(?:\s|$)/;
const CLF_QUERY_LINE =
  /^(\[[0-9a-fA-F:.%\w]+\]|[^\s:]+)(?::(\d+))? - \[(\d\d\/[A-Z][a-z]{2}\/\d{4}:\d\d:\d\d:\d\d [+-]\d{4})\] (?:(\d+) )?"(\S+) (\S+) (\S+) (\S+) (\d+) (true|false) (\d+)" (\S+) (\S+) (\d+) (\d+(?:\.\d+)?)(s|ms|µs|us|ns)(?:\s|$)/;
/** Seconds per unit of a Go duration as CoreDNS before 1.0.5 printed it. */
const DURATION_UNITS: Record<string, number> = lookupTable({ s: 1, ms: 1e-3, µs: 1e-6, us: 1e-6, ns: 1e-9 });
/** Go's log package prefix (`2018/09/06 13:02:45 `), in front of CoreDNS ≤ 1.2 messages. */
const GO_LOG_DATE = /^(\d{4})\/(\d\d)\/(\d\d) (\d\d):(\d\d):(\d\d) /;
/** klog's header: severity letter, MMDD, time, thread id, file:line. The year is not printed. */
const KLOG_LINE = /^([IWEF])\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [\w.-]+:\d+\] (.*)$/s;
const KLOG_LEVELS: Record<string, string> = lookupTable({ I: 'INFO', W: 'WARNING', E: 'ERROR', F: 'FATAL' });
/** The start-up banner: server blocks (`.:53`, `cluster.local.:53`, `dns://.:53`), the version, the platform, maxprocs. */
const BANNER_LINE =
  /^(?:(?:[a-z]+:\/\/)?(?:[\w-]+\.)*\.?:\d+|CoreDNS-\d+\.\d+\.\d+(?:[^\d\s]\S*)?|(?:linux|darwin|windows|freebsd)\/\w+, go\d.*|Listen: .*|maxprocs: .*)$/;
/** `[ERROR] plugin/errors: 2 name. A: read udp …`, `[INFO] plugin/reload: Running configuration …`, `[INFO] SIGTERM: …`. */
const LEVELLED_MESSAGE = /^\[(INFO|WARNING|ERROR|DEBUG|FATAL)\] (?:plugin\/([\w-]+): ?)?(.*)$/s;
/** The 2017 errors plugin: `[ERROR 0 name. A] no items found` (rcode, name, type, then the error). */
const BRACKETED_ERROR = /^\[(ERROR|INFO|WARNING) (\d+) (\S+) (\S+)\] (.*)$/s;
/** The Common Log Format date CoreDNS ≤ 1.2 started lines with. */
const CLF_DATE = /^(\d\d)\/([A-Z][a-z]{2})\/(\d{4}):(\d\d):(\d\d):(\d\d) ([+-])(\d\d)(\d\d)/;
const MONTHS: Record<string, number> = lookupTable({ Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 });

/** `11/Jan/2019:19:57:57 +0000` in ms since the epoch, or null. */
export function parseClfDate(text: string): number | null {
  const m = CLF_DATE.exec(text);
  if (!m) return null;
  const month = MONTHS[m[2]!];
  if (month === undefined) return null;
  const utc = Date.UTC(Number(m[3]), month, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  const offset = (Number(m[8]) * 60 + Number(m[9])) * 60_000 * (m[7] === '-' ? -1 : 1);
  return utc - offset;
}

/** A non-query CoreDNS line as a message record, or null when it is not one CoreDNS writes. */
export function parseCorednsMessage(content: string): (Omit<CorednsMessageRecord, 'path' | 'line' | 'time'> & { time: number | null }) | null {
  let text = content;
  let time: number | null = null;
  const date = CLF_DATE.exec(text);
  const goDate = date ? null : GO_LOG_DATE.exec(text);
  if (date && text.charCodeAt(date[0].length) === 32) {
    time = parseClfDate(text);
    text = text.slice(date[0].length + 1);
  } else if (goDate) {
    // Go's log package prints the local time of the container, which is UTC in CoreDNS images.
    const [, y, mo, d, h, mi, sec] = goDate.map(Number) as number[];
    time = Date.UTC(y!, mo! - 1, d!, h!, mi!, sec!);
    text = text.slice(goDate[0].length);
  }
  const klog = KLOG_LINE.exec(text);
  if (klog) return { kind: 'coredns-message', time, level: KLOG_LEVELS[klog[1]!]!, plugin: null, message: klog[2]!, raw: content };
  const bracketed = BRACKETED_ERROR.exec(text);
  // Written the way the errors plugin prints it since 2018: `rcode name. type: error`.
  if (bracketed)
    return {
      kind: 'coredns-message',
      time,
      level: bracketed[1]!,
      plugin: null,
      message: `${bracketed[2]} ${bracketed[3]} ${bracketed[4]}: ${bracketed[5]}`,
      raw: content,
    };
  const levelled = LEVELLED_MESSAGE.exec(text);
  if (levelled) return { kind: 'coredns-message', time, level: levelled[1]!, plugin: levelled[2] ?? null, message: levelled[3]!, raw: content };
  if (time === null && BANNER_LINE.test(text)) return { kind: 'coredns-message', time, level: null, plugin: null, message: text, raw: content };
  return null;
}

export function parseCorednsQuery(content: string): Omit<CorednsQueryRecord, 'path' | 'line' | 'time'> | null {
  const m = QUERY_LINE.exec(content);
  if (!m) return null;
  return queryFrom(m);
}

/** The CoreDNS ≤ 1.2 query line, with the time it carries. */
export function parseClfQuery(content: string): (Omit<CorednsQueryRecord, 'path' | 'line' | 'time'> & { time: number | null }) | null {
  const m = CLF_QUERY_LINE.exec(content);
  if (!m) return null;
  // Same groups as QUERY_LINE once the date and the duration's unit are taken out.
  const groups = [m[0], m[1], m[2], ...m.slice(4, 15)] as unknown as RegExpExecArray;
  const query = queryFrom(groups);
  if (m[2] === undefined) query.clientPort = null;
  if (m[4] === undefined) query.id = null;
  query.durationSeconds = Number(m[15]) * DURATION_UNITS[m[16]!]!;
  return { ...query, time: parseClfDate(m[3]!) };
}

function queryFrom(m: RegExpExecArray): Omit<CorednsQueryRecord, 'path' | 'line' | 'time'> {
  const client = m[1]!.startsWith('[') ? m[1]!.slice(1, -1) : m[1]!;
  return {
    kind: 'coredns-query',
    client,
    clientPort: Number(m[2]),
    id: Number(m[3]),
    type: m[4]!.toUpperCase(),
    class: m[5]!.toUpperCase(),
    name: m[6]!,
    proto: m[7]!,
    requestSize: Number(m[8]),
    dnssecOk: m[9] === 'true',
    bufsize: Number(m[10]),
    rcode: m[11]!,
    flags: m[12] === '-' ? [] : m[12]!.split(','),
    responseSize: Number(m[13]),
    durationSeconds: Number(m[14]),
  };
}

export const createCorednsLogParser: ParserFactory = (input, sink) => {
  const prefixes = new CollectorPrefixReader();
  const meta = {
    ...(input.pod ? { pod: input.pod } : {}),
    ...(input.namespace ? { namespace: input.namespace } : {}),
    ...(input.container ? { container: input.container } : {}),
  };
  const handle = (content: string, time: number | null, line: number) => {
    const text = content.trimEnd();
    if (text === '') return;
    const query = parseCorednsQuery(text);
    if (query) {
      sink.emit({ ...query, path: input.path, line, time, ...meta } as CorednsQueryRecord);
      return;
    }
    const clf = text.charCodeAt(0) === 91 /* [ */ ? null : parseClfQuery(text);
    if (clf) {
      sink.emit({ ...clf, path: input.path, line, ...meta, time: time ?? clf.time } as CorednsQueryRecord);
      return;
    }
    // Counted (the input's unparsed tally) but never fatal: a query log is interleaved with these.
    if (/^\[(?:INFO|DEBUG)\] \S+:\d+ - /.test(text)) {
      sink.unparsed(line, 'query log line in a custom format');
      return;
    }
    const message = parseCorednsMessage(text);
    if (message) {
      sink.emit({ ...message, path: input.path, line, ...meta, time: time ?? message.time } as CorednsMessageRecord);
      return;
    }
    if (isPasteNoise(text)) return;
    sink.unparsed(line, 'not a CoreDNS log line');
  };
  const parser: LineParser = {
    line(raw, lineNo) {
      const collected = prefixes.feed(raw, lineNo);
      if (collected) handle(collected.content, collected.time, collected.line);
    },
    end() {
      const pending = prefixes.flush();
      if (pending) handle(pending.content, pending.time, pending.line);
    },
  };
  return parser;
};

const SNIFF_QUERY = /^\[(?:INFO|DEBUG)\] \S+:\d+ - \d+ "\S+ \S+ \S+ /;
/** CoreDNS messages; ≤ 1.2 behind Go's log date (`2018/09/06 13:02:45 [INFO] …`). */
const SNIFF_OTHER =
  /^(?:\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d )?\[(?:INFO|WARNING|ERROR|DEBUG|FATAL)\] (?:plugin\/|CoreDNS-|Reloading|linux\/|SIGTERM|Running configuration|Starting)/;
/** CoreDNS ≤ 1.2 query log: `ip:port - [11/Jan/2019:19:57:57 +0000] id "A IN name. …`; before 1.0.5 without port and id. */
const SNIFF_QUERY_CLF = /^\S+ - \[\d\d\/[A-Z][a-z]{2}\/\d{4}:\d\d:\d\d:\d\d [+-]\d{4}\] (?:\d+ )?"\S+ \S+ \S+ /;
/** 2017 errors plugin, `29/Nov/2017:23:16:11 +0000 [ERROR 0 name. A] no items found`, and the start-up banner. */
const SNIFF_MESSAGE =
  /^(?:\d\d\/[A-Z][a-z]{2}\/\d{4}:\d\d:\d\d:\d\d [+-]\d{4} \[(?:ERROR|INFO|WARNING|DEBUG)[ \]]|CoreDNS-\d+\.\d+\.\d+\s*$|(?:[\w-]+\.)*\.?:\d+$|(?:linux|darwin|windows|freebsd)\/\w+, go\d)/;

/** How the sniffer (parsers/sniff.ts) tells a CoreDNS log: a query-log line is sure, a plugin message less so. */
export const corednsLogSniff: FormatSniff = {
  kind: 'coredns-log',
  tests: [
    { order: 40, on: 'line', claim: (line) => (SNIFF_QUERY.test(line) || SNIFF_QUERY_CLF.test(line) ? { kind: 'coredns-log', score: 3 } : null) },
    { order: 50, on: 'line', claim: (line) => (SNIFF_OTHER.test(line) || SNIFF_MESSAGE.test(line) ? { kind: 'coredns-log', score: 1 } : null) },
  ],
};
