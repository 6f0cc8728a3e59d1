// What follows the level of a tracing line: `span{fields}:span{…}: target: message key=value`,
// read in place, with a bounded cache of bodies because real logs repeat them.

import type { LogSpan } from '../core/types.js';
import { forgetDerivations, shareFields } from '../util/body-memo.js';
import { HitRateGate } from '../util/hit-rate-gate.js';
import type { Parsed } from './proxy-log-parsed.js';
import { dict } from '../util/dict.js';

type Body = Pick<Parsed, 'spans' | 'target' | 'message' | 'fields'>;

/**
 * Bodies (spans, target, message and fields: everything after the thread id) parsed recently.
 * A storm repeats the same few hundred bodies millions of times, one per reconnect loop, so
 * looking a body up costs a fraction of parsing it again. Two generations bound the memory:
 * when the current one is full it becomes the previous one, and entries still in use move up.
 * Cached bodies are frozen, since every record with that body shares them, and their fields carry
 * the slots perBody() remembers derivations in. One cache per run and thread, in the run's
 * ParseContext: what it holds comes from that run's input.
 */
const BODY_CACHE_ENTRIES = 4096;
const BODY_CACHE_MAX_LENGTH = 1024;

/**
 * Bodies seen once and not cached yet. A body enters the cache on its second sighting, so lines
 * that name a per-connection span (`rescue{client.addr=10.42.3.7:51234}`: a new ephemeral port
 * on every connection) never repeat and never take a slot. Caching them on first sight had them
 * push a storm's few thousand repeating bodies out of both generations (each eviction costs a
 * parse and every rule's per-body derivation again), and froze and marked each of them for
 * sharing, old-generation garbage: on the 256 MiB bench log, one in ten lines was such a line,
 * and caching them cost 2.3 CPU s of 5.7 and 100 MB of peak RSS.
 */
const SEEN_ONCE_ENTRIES = 16_384;

/**
 * The seen-once set holds a hash of each body, not the body: a body string is a slice that keeps
 * its whole line alive, and every never-repeating line then left ~300 bytes in the old generation
 * once the set was replaced. A collision only caches a body on its first sighting.
 */
function bodyHash(s: string, from: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

/**
 * Bodies that never repeat (an address bomb: every line a new endpoint) make the cache pure cost:
 * each entry outlives a young-generation collection, is promoted, and dies in the old generation
 * (the 2M-address stress case went from 5 s and 222 MB to 13 s and 468 MB). So the hit rate is
 * checked every 512 lookups (a HitRateGate), and below a quarter the cache is bypassed for a while
 * before it is tried again. The window is short because each probe leaves its entries behind as
 * old-generation garbage: with 4096-lookup probes the same case still peaked at 400 MB, with 512
 * at 237 MB. The bypass starts short and doubles with every failed probe, up to 65,536 bodies:
 * a cold cache also fails its first probe (a storm's first 512 bodies are mostly new), and a
 * fixed 65,536 then sent the next 10 % of a 256 MiB storm range past the cache and past every
 * rule's per-body memo. A storm hits 99 % once warm.
 */
const BODY_CACHE_GATE = { window: 512, firstPause: 512, longestPause: 65_536, minShare: 0.25 };

export class BodyCache {
  private current = new Map<string, Body | null>();
  private previous = new Map<string, Body | null>();
  private seenOnce = new Set<number>();
  private readonly gate = new HitRateGate(BODY_CACHE_GATE);

  /** The body of `content` from `pos` on, shared and frozen when it repeats. */
  body(content: string, pos: number): Body | null {
    if (!this.gate.open() || content.length - pos > BODY_CACHE_MAX_LENGTH) return parseSpansTargetMessage(content, pos);
    const key = content.slice(pos);
    let body = this.current.get(key);
    if (body !== undefined) {
      this.gate.tried(true);
      return body;
    }
    body = this.previous.get(key);
    this.gate.tried(body !== undefined);
    if (body === undefined) {
      const hash = bodyHash(content, pos);
      if (!this.seenOnce.delete(hash)) {
        if (this.seenOnce.size >= SEEN_ONCE_ENTRIES) this.seenOnce = new Set();
        this.seenOnce.add(hash);
        return parseSpansTargetMessage(content, pos);
      }
      body = freezeBody(parseSpansTargetMessage(content, pos));
    }
    if (this.current.size >= BODY_CACHE_ENTRIES) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, body);
    return body;
  }

  /**
   * Drops what rules remembered on the cached bodies (perBody()): a derivation may point into the
   * rule state of the task that made it, so this runs when a task starts and ends, while the
   * parsed bodies stay for the run's next task on this thread.
   */
  forgetDerivations(): void {
    for (const body of this.current.values()) if (body !== null) forgetDerivations(body.fields);
    for (const body of this.previous.values()) if (body !== null) forgetDerivations(body.fields);
  }
}

/** The body from `pos` on: through the run's cache when there is one, else parsed afresh. */
export function parsedBody(content: string, pos: number, bodies: BodyCache | null): Body | null {
  return bodies === null ? parseSpansTargetMessage(content, pos) : bodies.body(content, pos);
}

function freezeBody(body: Body | null): Body | null {
  if (body === null) return null;
  for (const span of body.spans) Object.freeze(span.fields);
  Object.freeze(body.spans);
  shareFields(body.fields);
  Object.freeze(body.fields);
  return Object.freeze(body);
}

export function skipSpaces(s: string, pos: number): number {
  while (s.charCodeAt(pos) === 32) pos++;
  return pos;
}

/**
 * `span{k=v}:span: target::path: message k=v …`. Spans are tokens `name` or `name{…}` joined by
 * single colons; the target is a module path. Scanning (rather than a lazy regex) keeps this linear
 * and stops `: ` inside error text from being mistaken for a span boundary.
 */
export function parseSpansTargetMessage(s: string, start: number): Pick<Parsed, 'spans' | 'target' | 'message' | 'fields'> | null {
  const chain: { name: string; fields: string | null }[] = [];
  let pos = start;
  while (true) {
    const nameEnd = scanModulePath(s, pos);
    if (nameEnd === pos) return null;
    const name = s.slice(pos, nameEnd);
    pos = nameEnd;
    let fields: string | null = null;
    if (s.charCodeAt(pos) === 123 /* { */) {
      const close = matchingBrace(s, pos);
      if (close === -1) return null;
      fields = s.slice(pos + 1, close);
      pos = close + 1;
    }
    chain.push({ name, fields });
    if (s.charCodeAt(pos) === 58 /* : */ && s.charCodeAt(pos + 1) === 32) {
      pos += 2;
      break;
    }
    if (s.charCodeAt(pos) === 58) {
      pos += 1;
      continue;
    }
    return null;
  }
  // Is the next token a target (`module::path: `)? Then the chain was the span list.
  const targetEnd = scanModulePath(s, pos);
  if (targetEnd > pos && s.charCodeAt(targetEnd) === 58 && s.charCodeAt(targetEnd + 1) === 32) {
    const spans = chain.map((c): LogSpan => ({ name: c.name, fields: c.fields ? parseSpanFields(c.fields) : {} }));
    return { spans, target: s.slice(pos, targetEnd), ...splitMessage(s.slice(targetEnd + 2)) };
  }
  if (chain.length !== 1 || chain[0]!.fields !== null) return null;
  return { spans: [], target: chain[0]!.name, ...splitMessage(s.slice(pos)) };
}

const isIdentStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
export const isIdent = (c: number) => isIdentStart(c) || (c >= 48 && c <= 57) || c === 45; /* - */

export function scanModulePath(s: string, pos: number): number {
  let i = pos;
  if (!isIdentStart(s.charCodeAt(i))) return pos;
  while (true) {
    while (isIdent(s.charCodeAt(i))) i++;
    if (s.charCodeAt(i) === 58 && s.charCodeAt(i + 1) === 58 && isIdentStart(s.charCodeAt(i + 2))) {
      i += 2;
      continue;
    }
    return i;
  }
}

export function matchingBrace(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 123) depth++;
    else if (c === 125 && --depth === 0) return i;
  }
  return -1;
}

/**
 * `k=v k2=v2`: values are Display text and may hold spaces, so keys mark the boundaries. A key
 * is `[A-Za-z_][\w.]*=` at the start or after a space (the grammar of the regex
 * `/(?:^| )([A-Za-z_][\w.]*)=/g`, scanned by hand: this runs for every span of every record).
 */
export function parseSpanFields(text: string): Record<string, string> {
  const fields: Record<string, string> = dict();
  let keyStart = nextFieldKey(text, 0);
  while (keyStart !== -1) {
    // keyAt() checked that the key's characters run up to an `=`, so the first `=` ends it.
    const equals = text.indexOf('=', keyStart);
    const next = nextFieldKey(text, equals + 1);
    fields[text.slice(keyStart, equals)] = unquote(text.slice(equals + 1, next === -1 ? text.length : next - 1));
    keyStart = next;
  }
  return fields;
}

/** Start of the next key (`key=` at the very start, or after a space) at or after `from`, or -1. */
function nextFieldKey(s: string, from: number): number {
  if (from === 0 && keyAt(s, 0)) return 0;
  for (let space = s.indexOf(' ', from); space !== -1; space = s.indexOf(' ', space + 1)) if (keyAt(s, space + 1)) return space + 1;
  return -1;
}

function keyAt(s: string, start: number): boolean {
  const c = s.charCodeAt(start);
  if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95)) return false;
  let i = start + 1;
  for (let d = s.charCodeAt(i); (d >= 65 && d <= 90) || (d >= 97 && d <= 122) || (d >= 48 && d <= 57) || d === 95 || d === 46; d = s.charCodeAt(++i));
  return s.charCodeAt(i) === 61; /* = */
}

const MESSAGE_FIELD = / ([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*)=/g;

/** `message key=value …`: `error.sources=[…]` is bracketed and may contain anything. */
function splitMessage(rest: string): { message: string; fields: Record<string, string> } {
  const fields: Record<string, string> = dict();
  MESSAGE_FIELD.lastIndex = 0;
  const first = MESSAGE_FIELD.exec(rest);
  if (!first) return { message: rest, fields };
  const message = rest.slice(0, first.index);
  let key = first[1]!;
  let valueStart = first.index + first[0].length;
  while (true) {
    if (rest.charCodeAt(valueStart) === 91 /* [ */ && key.endsWith('.sources')) {
      const close = rest.indexOf(']', valueStart);
      const end = close === -1 ? rest.length : close + 1;
      fields[key] = rest.slice(valueStart, end);
      MESSAGE_FIELD.lastIndex = end;
    } else {
      MESSAGE_FIELD.lastIndex = valueStart;
    }
    const next = MESSAGE_FIELD.exec(rest);
    if (fields[key] === undefined) fields[key] = unquote(rest.slice(valueStart, next ? next.index : rest.length));
    if (!next) break;
    key = next[1]!;
    valueStart = next.index + next[0].length;
  }
  return { message, fields };
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}
