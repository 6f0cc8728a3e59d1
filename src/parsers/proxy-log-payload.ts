// One proxy log line without its collector prefix: the tracing layout (`[uptime] LEVEL …`), the
// legacy layout (`ERR! [uptime] proxy={…} target msg`), and tracing lines that start with their
// level (wall-clock components, stripped uptimes). JSON and logfmt are in proxy-log-structured.ts.

import type { LogLevel, LogSpan } from '../core/types.js';
import { POWERS_OF_TEN } from './collector-prefix.js';
import { isIdent, matchingBrace, parsedBody, parseSpanFields, scanModulePath, skipSpaces } from './proxy-log-body.js';
import { LEVELS, parseUptime, type Parsed } from './proxy-log-parsed.js';
import { parseJson, parseLogfmt } from './proxy-log-structured.js';
import { looksLikeKlog, parseGoStd, parseKlog } from './go-log.js';
import type { ParseContext } from './context.js';
import { lookupTable } from '../util/dict.js';

const LEGACY_LEVELS: Record<string, LogLevel> = lookupTable({ 'ERR!': 'ERROR', WARN: 'WARN', INFO: 'INFO', DBUG: 'DEBUG', TRCE: 'TRACE' });

/**
 * Reads `  123.456789` up to `s]` the way parseUptime does (same arithmetic, so the same double),
 * straight from the line. Where it stopped is uptimeEnd(): a second return value would allocate
 * on the skim path, and the only characters before the `s]` are spaces, digits and a dot.
 */
export function readUptime(s: string, start: number): number | null {
  let pos = skipSpaces(s, start);
  let secs = 0;
  const secsStart = pos;
  for (let c = s.charCodeAt(pos); c >= 48 && c <= 57; c = s.charCodeAt(++pos)) secs = secs * 10 + (c - 48);
  if (pos === secsStart || pos - secsStart > 15 || s.charCodeAt(pos) !== 46 /* . */) return null;
  const fracStart = ++pos;
  let frac = 0;
  for (let c = s.charCodeAt(pos); c >= 48 && c <= 57; c = s.charCodeAt(++pos)) frac = frac * 10 + (c - 48);
  const places = pos - fracStart;
  if (places === 0 || places > 15 || s.charCodeAt(pos) !== 115 /* s */ || s.charCodeAt(pos + 1) !== 93 /* ] */) return null;
  // A table, not 10 ** places: the exponentiation was the costliest step of reading an uptime.
  return places > 6 ? secs + frac / 1e9 : secs + frac / POWERS_OF_TEN[places]!;
}

/** Just past the `s]` of an uptime readUptime(s, start) read. */
export function uptimeEnd(s: string, start: number): number {
  return s.indexOf('s]', start) + 2;
}

/**
 * Parses one payload line (collector prefix already removed). Returns null when it is not a log
 * line. `context`: the run's caches (bodies, timestamps); without one every line is parsed afresh.
 */
export function parseProxyLogPayload(content: string, context: ParseContext | null = null): Parsed | null {
  const first = content.charCodeAt(0);
  if (first === 91 /* [ */) return parsePlain(content, context);
  if (first === 123 /* { */) return parseJson(content, context);
  if (content.startsWith('time=') || content.startsWith('level=')) return parseLogfmt(content, context);
  if (looksLikeKlog(content)) return parseKlog(content);
  if (first >= 48 && first <= 57 && content.charCodeAt(4) === 47 /* / */) return parseGoStd(content);
  return parseLevelFirst(content, context);
}

/**
 * A line that starts with its level: the legacy layout (`ERR! [  1.2s] proxy={…} target msg`,
 * with or without the uptime), or a tracing line whose uptime was stripped by the user or replaced
 * by a wall-clock timestamp (policy controller, WALL_CLOCK proxies: `<ts>  INFO target: msg`, the
 * level padded).
 */
function parseLevelFirst(content: string, context: ParseContext | null): Parsed | null {
  const pos = skipSpaces(content, 0);
  const legacy = LEGACY_LEVELS[content.slice(pos, pos + 4)];
  if (legacy !== undefined && content.charCodeAt(pos + 4) === 32) {
    const after = skipSpaces(content, pos + 5);
    if (content.charCodeAt(after) === 91 /* [ */) {
      const uptime = readUptime(content, after + 1);
      if (uptime !== null) return parseLegacyBody(content, skipSpaces(content, uptimeEnd(content, after + 1)), legacy, uptime);
    }
    // ERR!, DBUG and TRCE only ever started legacy lines; WARN and INFO also start tracing lines.
    if (legacy !== 'WARN' && legacy !== 'INFO') return parseLegacyBody(content, after, legacy, null);
  }
  if (levelAt(content, pos) === null) return null;
  const tracing = parseAfterUptime(content, pos, null, context);
  if (tracing !== null || legacy === undefined) return tracing;
  return parseLegacyBody(content, skipSpaces(content, pos + 5), legacy, null);
}

/** `proxy={server=in listen=…} admin={bg=resolver} linkerd2_proxy::app::errors message`: contexts become spans. */
export function parseLegacyBody(s: string, start: number, level: LogLevel, uptime: number | null): Parsed | null {
  const spans: LogSpan[] = [];
  let pos = start;
  while (true) {
    let nameEnd = pos;
    while (isIdent(s.charCodeAt(nameEnd)) || s.charCodeAt(nameEnd) === 46 /* . */) nameEnd++;
    if (nameEnd === pos || s.charCodeAt(nameEnd) !== 61 /* = */ || s.charCodeAt(nameEnd + 1) !== 123 /* { */) break;
    const close = matchingBrace(s, nameEnd + 1);
    if (close === -1) return null;
    spans.push({ name: s.slice(pos, nameEnd), fields: parseSpanFields(s.slice(nameEnd + 2, close)) });
    pos = skipSpaces(s, close + 1);
  }
  if (!isLowerIdentStart(s.charCodeAt(pos))) return null;
  const targetEnd = scanModulePath(s, pos);
  let messageStart: number;
  if (s.charCodeAt(targetEnd) === 58 /* : */ && s.charCodeAt(targetEnd + 1) === 32) messageStart = targetEnd + 2;
  else if (s.charCodeAt(targetEnd) === 32) messageStart = targetEnd + 1;
  else if (targetEnd === s.length) messageStart = targetEnd;
  else return null;
  return { format: 'legacy', uptime, level, thread: null, spans, target: s.slice(pos, targetEnd), message: s.slice(messageStart).trimEnd(), fields: {} };
}

export const isLowerIdentStart = (c: number) => (c >= 97 && c <= 122) || c === 95;

function parsePlain(content: string, context: ParseContext | null): Parsed | null {
  // The usual `[  123.456789s]`, read in place; anything unusual takes the general path below.
  const quick = readUptime(content, 1);
  if (quick !== null) return parseAfterUptime(content, uptimeEnd(content, 1), quick, context);
  const close = content.indexOf('s]');
  if (close === -1) return null;
  const uptime = parseUptime(content.slice(1, close));
  if (uptime === null) return null;
  return parseAfterUptime(content, close + 2, uptime, context);
}

export function parseAfterUptime(content: string, start: number, uptime: number | null, context: ParseContext | null): Parsed | null {
  let pos = skipSpaces(content, start);
  const level = levelAt(content, pos);
  if (level === null) return null;
  pos = skipSpaces(content, pos + level.length);
  let thread: number | null = null;
  if (content.startsWith('ThreadId(', pos)) {
    const end = content.indexOf(')', pos);
    if (end === -1) return null;
    thread = threadNumber(content, pos + 9, end);
    pos = skipSpaces(content, end + 1);
  }
  const body = parsedBody(content, pos, context === null ? null : context.bodies);
  if (!body) return null;
  return { format: 'plain', uptime, level: level as LogLevel, thread, spans: body.spans, target: body.target, message: body.message, fields: body.fields };
}

/** The level each level's first letter stands for (they all differ). */
const LEVEL_BY_INITIAL = new Map<number, LogLevel>([...LEVELS].map((level) => [level.charCodeAt(0), level as LogLevel]));

/** The level spelled at `pos` and followed by a space, or null: the same test as slicing up to the next space and looking the word up, without the slice. */
export function levelAt(s: string, pos: number): LogLevel | null {
  const level = LEVEL_BY_INITIAL.get(s.charCodeAt(pos));
  if (level === undefined || s.charCodeAt(pos + level.length) !== 32) return null;
  for (let i = 1; i < level.length; i++) if (s.charCodeAt(pos + i) !== level.charCodeAt(i)) return null;
  return level;
}

/** `ThreadId(01)`'s number, read in place; anything but plain digits reads as Number() would. */
export function threadNumber(s: string, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return Number(s.slice(start, end));
    n = n * 10 + (c - 48);
  }
  return end > start && end - start <= 15 ? n : Number(s.slice(start, end));
}
