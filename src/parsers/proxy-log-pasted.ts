// Proxy lines as people paste them, read only after the regular readers rejected a line.

import type { LogLevel } from '../core/types.js';
import { parseRfc3339, peelPrefixes } from './collector-prefix.js';
import { stripPasteMarkers } from './pasted.js';
import { parseSpansTargetMessage, skipSpaces } from './proxy-log-body.js';
import { LEVELS, parseUptime, type Parsed } from './proxy-log-parsed.js';
import type { ParseContext } from './context.js';
import { isLowerIdentStart, parseAfterUptime, parseLegacyBody, parseProxyLogPayload, threadNumber } from './proxy-log-payload.js';
import { lookupTable } from '../util/dict.js';

/** `describe pod` shows a container's last words after `Message:`; they are often proxy lines. */
const DESCRIBE_MESSAGE = /^(?:Message|message):\s+/;
/** The 2018 Conduit layout: level letter, a tab, `file.rs:line]`, then `target: message`. */
const GLOG = /^([EWIDT])[\t ]+[\w./-]+\.rs:\d+\] /;
const GLOG_LEVELS: Record<string, LogLevel> = lookupTable({ E: 'ERROR', W: 'WARN', I: 'INFO', D: 'DEBUG', T: 'TRACE' });
/** An uptime that lost a bracket in the paste: `78.195241119s]  WARN`, `[  4.1s  WARN`. */
const LOOSE_UPTIME = /^(?:\[\s*(\d+)\.(\d+)s?\]?|(\d+)\.(\d+)s\])\s+(?=(?:TRACE|DEBUG|INFO|WARN|ERROR) )/;

/**
 * Where a proxy line starts behind a log UI's own columns (Kibana's `Apr 27, 2021 @ 10:25:52.507`,
 * a Grafana or Loki export's `2024-06-06 11:01:39.532<TAB>`, a syslog header): its uptime and
 * level, or a JSON record.
 */
const EMBEDDED_LINE_START = /\[ *\d+\.\d+s\] +(?:TRACE|DEBUG|INFO|WARN|ERROR) |\{"timestamp":/;
/** Longer than any UI's columns: a proxy line further in is quoted inside another message. */
const MAX_UI_PREFIX = 100;
/** The only UI timestamp taken as wall time: one that states its zone (the others are the viewer's local time). */
const ZONED_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)(?=\s|$)/;

/**
 * Lines the readers above reject, as people paste them: behind a chat quote or indentation, behind
 * a log UI's columns, in the 2018 Conduit layout, with a damaged uptime, as a JSON record cut off by the excerpt, or as a
 * bare fragment without level and uptime (read as INFO, marked `levelAbsent`: the level is not in
 * the text, and inventing a severity would turn a fragment into an incident). Only lines the fast
 * readers rejected get here.
 */
export function parsePastedProxyLine(content: string, context: ParseContext | null = null): Parsed | null {
  let text = stripPasteMarkers(content);
  const label = DESCRIBE_MESSAGE.exec(text);
  if (label) text = text.slice(label[0].length);
  let time: number | null = null;
  let pod: string | undefined;
  let container: string | undefined;
  if (text !== content) {
    const peeled = peelPrefixes(text, 0);
    time = peeled.time;
    pod = peeled.pod;
    container = peeled.container;
    text = peeled.content;
    const again = parseProxyLogPayload(text, context);
    if (again) return withOrigin(again, time, pod, container);
  }
  const parsed =
    parsePanic(text) ??
    parseGlog(text) ??
    parseLooseUptime(text, context) ??
    parseBehindLogUi(text, context) ??
    parseTruncatedJson(text) ??
    parseFragment(text);
  return parsed ? withOrigin(parsed, time, pod, container) : null;
}

function parseBehindLogUi(text: string, context: ParseContext | null): Parsed | null {
  const start = EMBEDDED_LINE_START.exec(text);
  if (!start || start.index === 0 || start.index > MAX_UI_PREFIX) return null;
  const parsed = parseProxyLogPayload(text.slice(start.index), context);
  if (!parsed || parsed.time != null) return parsed;
  const zoned = ZONED_TIMESTAMP.exec(text);
  return zoned ? { ...parsed, time: parseRfc3339(zoned[0]) } : parsed;
}

function withOrigin(parsed: Parsed, time: number | null, pod: string | undefined, container: string | undefined): Parsed {
  if (time === null && pod === undefined && container === undefined) return parsed;
  const out: Parsed = { ...parsed, time: parsed.time ?? time };
  if (pod !== undefined) out.pod = pod;
  if (container !== undefined) out.container = container;
  return out;
}

/**
 * Rust's panic report, printed by the runtime rather than the logger: `thread 'main' panicked at
 * src/x.rs:1:2:` (the message on the next line since Rust 1.73) or `… panicked at 'message',
 * src/x.rs:1:2`. It is the last thing a crashing proxy says, so it is read as an ERROR line.
 */
const PANIC = /^thread '[^']{1,64}' panicked at /;

function parsePanic(text: string): Parsed | null {
  if (!PANIC.test(text)) return null;
  return { format: 'plain', uptime: null, level: 'ERROR', thread: null, spans: [], target: 'panic', message: text, fields: {} };
}

function parseGlog(text: string): Parsed | null {
  const m = GLOG.exec(text);
  if (!m) return null;
  const body = parseSpansTargetMessage(text, m[0].length);
  if (body) return { format: 'legacy', uptime: null, level: GLOG_LEVELS[m[1]!]!, thread: null, ...body };
  return parseLegacyBody(text, m[0].length, GLOG_LEVELS[m[1]!]!, null);
}

function parseLooseUptime(text: string, context: ParseContext | null): Parsed | null {
  const m = LOOSE_UPTIME.exec(text);
  if (!m) return null;
  const uptime = parseUptime(`${m[1] ?? m[3]}.${m[2] ?? m[4]}`);
  return parseAfterUptime(text, m[0].length, uptime, context);
}

/** A JSON record cut off mid-way (excerpts, log UIs): level, target and message read by key. */
function parseTruncatedJson(text: string): Parsed | null {
  if (!text.startsWith('{"') && !text.startsWith('{ "')) return null;
  const level = /"level"\s*:\s*"(\w+)"/.exec(text)?.[1]?.toUpperCase();
  const target = /"target"\s*:\s*"([^"\\]+)"/.exec(text)?.[1];
  if (level === undefined || !LEVELS.has(level) || target === undefined) return null;
  const message = /"message"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(text)?.[1];
  const stamp = /"timestamp"\s*:\s*"([^"]*)"/.exec(text)?.[1];
  let uptime: number | null = null;
  let time: number | null = null;
  if (stamp?.startsWith('[')) uptime = parseUptime(stamp.slice(1, stamp.indexOf('s]')));
  else if (stamp) time = parseRfc3339(stamp);
  return {
    format: 'json',
    uptime,
    time,
    level: level as LogLevel,
    thread: null,
    spans: [],
    target,
    message: message === undefined ? '' : unescapeJson(message),
    fields: {},
  };
}

function unescapeJson(text: string): string {
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return text;
  }
}

/**
 * `spans: target: message` or `target: message` with nothing before it. The target must look like
 * a Rust module path (`::` in it, or spans before it, or a `linkerd` crate), so that `Reason: Error`
 * or `note: see above` are not taken for log lines.
 */
function parseFragment(text: string): Parsed | null {
  let pos = 0;
  let thread: number | null = null;
  if (text.startsWith('ThreadId(')) {
    const end = text.indexOf(')');
    if (end === -1) return null;
    thread = threadNumber(text, 9, end);
    pos = skipSpaces(text, end + 1);
  }
  if (!isLowerIdentStart(text.charCodeAt(pos))) return null;
  const body = parseSpansTargetMessage(text, pos);
  if (!body || !isLowerIdentStart(body.target.charCodeAt(0))) return null;
  if (body.spans.length === 0 && !body.target.includes('::') && !body.target.startsWith('linkerd')) return null;
  if (body.spans.some((span) => !isLowerIdentStart(span.name.charCodeAt(0)))) return null;
  return { format: 'plain', uptime: null, level: 'INFO', levelAbsent: true, thread, ...body };
}
