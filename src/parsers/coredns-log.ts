// CoreDNS `log` plugin lines in the default Common Log Format:
//   [INFO] 10.0.0.1:53000 - 12345 "SRV IN name. udp 78 false 1232" NOERROR qr,aa,rd 449 0.000123s
// CoreDNS ≥ 1.6.3 prints no timestamp of its own; `kubectl logs --timestamps`, CRI files and
// CoreDNS ≤ 1.6.2 (`2019-10-08T14:41:05.156Z [INFO] …`) give one, peeled off by CollectorPrefixReader.
// Startup banners, plugin messages and errors are part of the log but not queries: they are counted as
// unparsed lines and skipped.

import type { CorednsQueryRecord } from '../core/types.js';
import { CollectorPrefixReader } from './collector-prefix.js';
import type { LineParser, ParserFactory } from './parser.js';

const QUERY_LINE =
  /^\[(?:INFO|DEBUG)\] (\[[0-9a-fA-F:.%\w]+\]|[^\s:]+):(\d+) - (\d+) "(\S+) (\S+) (\S+) (\S+) (\d+) (true|false) (\d+)" (\S+) (\S+) (\d+) (\d+(?:\.\d+)?)s(?:\s|$)/;
/** What else CoreDNS writes to the same stream: `[WARNING] plugin/…`, `.:53`, `CoreDNS-1.11.1`, `linux/amd64, go1.21…`. */
const OTHER_COREDNS_LINE = /^(?:\[(?:INFO|WARNING|ERROR|DEBUG|FATAL)\] |\S*:\d+$|CoreDNS-|linux\/|darwin\/|Listen: |maxprocs: )/;

export function parseCorednsQuery(content: string): Omit<CorednsQueryRecord, 'path' | 'line' | 'time'> | null {
  const m = QUERY_LINE.exec(content);
  if (!m) return null;
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
    // Counted (the input's unparsed tally) but never fatal: a query log is interleaved with these.
    if (/^\[(?:INFO|DEBUG)\] \S+:\d+ - /.test(text)) sink.unparsed(line, 'query log line in a custom format');
    else if (OTHER_COREDNS_LINE.test(text)) sink.unparsed(line, 'CoreDNS message, not a query log line');
    else sink.unparsed(line, 'not a CoreDNS log line');
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
