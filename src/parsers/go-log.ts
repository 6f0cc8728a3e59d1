// Logs of Linkerd's Go components: the controllers (destination, identity, proxy-injector,
// heartbeat, tap, sp-validator), proxy-init and linkerd-cni. They log through logrus, as text
// (`time="…" level=error msg="…"`, read by parseLogfmt) or as JSON with `-log-format=json`
// (`{"level":"error","msg":"…","time":"…"}`), and the Kubernetes client they embed logs through
// klog (`E0605 11:01:10.123456       1 reflector.go:138] …`: reflector list/watch failures, RBAC
// `forbidden`, leader election). Their records are proxy-log records with a Go format, so the
// rules and the signature catalogue read them beside the proxy's own lines; their text for
// pattern matching is `component: message key=value…` (kit/go-log.ts goLineText), whichever layout printed it.

import type { LogLevel } from '../core/types.js';
import { parseRfc3339, type TimestampMemo } from './collector-prefix.js';
import type { Parsed } from './proxy-log-parsed.js';
import { dict, lookupTable } from '../util/dict.js';
import { boundedJson } from './pasted.js';

const GO_LEVELS: Readonly<Record<string, LogLevel>> = lookupTable({
  trace: 'TRACE',
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  warning: 'WARN',
  error: 'ERROR',
  fatal: 'ERROR',
  panic: 'ERROR',
});

/** Keys logrus (and zap, for the few components built on it) use for what is not a field. */
const RESERVED = new Set(['level', 'msg', 'message', 'time', 'ts', 'timestamp', 'component', 'logger']);

/**
 * A logrus JSON record (`{"level":"error","msg":"…","time":"…","component":"…"}`), or null for
 * JSON that is not one. Takes the already parsed document: parseJson tries the tracing layout first.
 */
export function goJsonRecord(d: Record<string, unknown>, times: TimestampMemo | null = null): Parsed | null {
  const level = typeof d.level === 'string' ? GO_LEVELS[d.level.toLowerCase()] : undefined;
  const message = typeof d.msg === 'string' ? d.msg : typeof d.message === 'string' ? d.message : undefined;
  if (level === undefined || message === undefined) return null;
  const fields: Record<string, string> = dict();
  // Rendered to a bounded depth, as the proxy's JSON layout is: JSON.stringify recurses, and a field
  // nested 5,000 deep overflowed the stack and lost the rest of the file (issue 44).
  for (const [k, v] of Object.entries(d)) if (!RESERVED.has(k)) fields[k] = typeof v === 'string' ? v : boundedJson(v);
  const timeText = typeof d.time === 'string' ? d.time : typeof d.ts === 'string' ? d.ts : typeof d.timestamp === 'string' ? d.timestamp : null;
  const component = typeof d.component === 'string' ? d.component : typeof d.logger === 'string' ? d.logger : '';
  return {
    format: 'go-json',
    uptime: null,
    time: timeText ? parseRfc3339(timeText, times) : null,
    level,
    thread: null,
    spans: [],
    target: component,
    message,
    fields,
  };
}

const KLOG_LEVELS: Readonly<Record<string, LogLevel>> = lookupTable({ I: 'INFO', W: 'WARN', E: 'ERROR', F: 'ERROR' });

/**
 * klog's header: severity letter, MMDD, wall time, thread id, `file:line]`. No quantifier can
 * split the same characters with its neighbour, so a long line is read in linear time.
 */
const KLOG_HEADER = /^([IWEF])(\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6}) +(\d+) ([\w.-]+:\d+)\] /;

/**
 * A klog line. Its header has no year: the time is left unknown rather than guessed, and the
 * month and day stay readable in the raw line.
 */
export function parseKlog(content: string): Parsed | null {
  const m = KLOG_HEADER.exec(content);
  if (!m) return null;
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  return {
    format: 'klog',
    uptime: null,
    time: null,
    level: KLOG_LEVELS[m[1]!]!,
    thread: Number(m[8]),
    spans: [],
    target: '',
    message: content.slice(m[0].length).trimEnd(),
    fields: { source: m[9]! },
  };
}

/**
 * Go's standard logger, which the controllers' HTTPS servers (the webhooks) log through:
 * `2023/06/05 11:01:10 http: TLS handshake error from 10.0.0.1:53512: remote error: tls: bad
 * certificate`. CoreDNS ≤ 1.2 shares the date but follows it with `[LEVEL]`: not taken here.
 */
const GO_STD = /^(\d{4})\/(\d\d)\/(\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))? (?!\[)(\S.*)$/;

/** A Go standard-logger line; it has no level, so the record says the level is absent. */
export function parseGoStd(content: string): Parsed | null {
  const m = GO_STD.exec(content);
  if (!m) return null;
  const time = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}${m[5] ? `.${m[5].slice(0, 3)}` : ''}Z`);
  return {
    format: 'go-std',
    uptime: null,
    time: Number.isNaN(time) ? null : time,
    level: 'INFO',
    levelAbsent: true,
    thread: null,
    spans: [],
    target: '',
    message: m[6]!.trimEnd(),
    fields: {},
  };
}

/** Cheap test before the regex: `E0605 ` and the like. */
export function looksLikeKlog(content: string): boolean {
  const c = content.charCodeAt(0);
  if (c !== 73 && c !== 87 && c !== 69 && c !== 70) return false;
  for (let i = 1; i <= 4; i++) {
    const d = content.charCodeAt(i);
    if (d < 48 || d > 57) return false;
  }
  return content.charCodeAt(5) === 32;
}
