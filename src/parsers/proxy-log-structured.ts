// Structured proxy lines: the JSON layout of tracing-subscriber, and logfmt from the Go
// components that share the container (their JSON and klog layouts are in go-log.ts).

import type { LogLevel, LogSpan } from '../core/types.js';
import { parseRfc3339 } from './collector-prefix.js';
import { goJsonRecord } from './go-log.js';
import { boundedJson } from './pasted.js';
import { LEVELS, parseUptime, type Parsed } from './proxy-log-parsed.js';
import type { ParseContext } from './context.js';
import { dict, lookupTable } from '../util/dict.js';

const LOGFMT_LEVELS: Record<string, LogLevel> = lookupTable({
  trace: 'TRACE',
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  warning: 'WARN',
  error: 'ERROR',
  fatal: 'ERROR',
  panic: 'ERROR',
});

export function parseJson(content: string, context: ParseContext | null = null): Parsed | null {
  let doc: unknown;
  try {
    doc = JSON.parse(content);
  } catch {
    return null;
  }
  if (!doc || typeof doc !== 'object') return null;
  const d = doc as Record<string, unknown>;
  // A Go component's logrus JSON has `msg` and no `target`.
  if (typeof d.target !== 'string') return goJsonRecord(d, context === null ? null : context.times);
  const level = typeof d.level === 'string' ? d.level.toUpperCase() : '';
  if (!LEVELS.has(level)) return null;
  const rawFields = d.fields && typeof d.fields === 'object' ? (d.fields as Record<string, unknown>) : {};
  const fields: Record<string, string> = dict();
  for (const [k, v] of Object.entries(rawFields)) if (k !== 'message') fields[k] = stringify(v);
  const spans: LogSpan[] = Array.isArray(d.spans)
    ? d.spans
        .filter((s): s is Record<string, unknown> => !!s && typeof s === 'object')
        .map((s) => {
          const spanFields: Record<string, string> = dict();
          for (const [k, v] of Object.entries(s)) if (k !== 'name') spanFields[k] = stringify(v);
          return { name: String(s.name ?? ''), fields: spanFields };
        })
    : [];
  let uptime: number | null = null;
  let time: number | null = null;
  if (typeof d.timestamp === 'string') {
    // Before proxy v2.252 the JSON timestamp is the uptime string; from v2.252 it is RFC 3339.
    if (d.timestamp.startsWith('[')) uptime = parseUptime(d.timestamp.slice(1, d.timestamp.indexOf('s]')));
    else time = parseRfc3339(d.timestamp, context === null ? null : context.times);
  }
  const threadMatch = typeof d.threadId === 'string' ? /(\d+)/.exec(d.threadId) : null;
  return {
    format: 'json',
    uptime,
    time,
    level: level as LogLevel,
    thread: threadMatch ? Number(threadMatch[1]) : null,
    spans,
    target: d.target,
    message: stringify(rawFields.message ?? ''),
    fields,
  };
}

/** Nested values are rendered to a bounded depth: a line nested thousands deep must not overflow the stack. */
function stringify(v: unknown): string {
  return typeof v === 'string' ? v : boundedJson(v);
}

// A key starts where a run of key characters starts: tried from inside a run, `[\w.-]+` would
// rescan the run at every position (quadratic on a long value with no `=`).
const LOGFMT_PAIR = /(?<![\w.-])([\w.-]+)=(?:"((?:[^"\\]|\\.)*)"|(\S*))/g;

export function parseLogfmt(content: string, context: ParseContext | null = null): Parsed | null {
  const pairs: Record<string, string> = dict();
  LOGFMT_PAIR.lastIndex = 0;
  for (let m = LOGFMT_PAIR.exec(content); m; m = LOGFMT_PAIR.exec(content)) {
    pairs[m[1]!] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '');
  }
  const level = LOGFMT_LEVELS[(pairs.level ?? '').toLowerCase()];
  if (!level) return null;
  const { time: timeText, level: _level, msg, component, ...fields } = pairs;
  return {
    format: 'logfmt',
    uptime: null,
    time: timeText ? parseRfc3339(timeText, context === null ? null : context.times) : null,
    level,
    thread: null,
    spans: [],
    target: component ?? '',
    message: msg ?? '',
    fields,
  };
}
