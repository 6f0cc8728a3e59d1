// What people paste around log lines: the kubectl command they ran and its chatter, chat-quote
// markers, indentation, and JSON records pretty-printed over many lines. Parsers reach for these
// helpers only for lines their fast path rejected, so none of this runs for ordinary log lines.

import { bracketBalance, JsonBracketDepth } from '../util/json-bracket-depth.js';

/**
 * Lines kubectl, stern and shells print around the log itself. They say nothing about the mesh
 * and are skipped without counting as unparsed.
 */
const PASTE_NOISE = [
  /^Defaulted container "/,
  /^Found \d+ pods, using pod\//,
  /^Use 'kubectl describe /,
  // The command line itself, with or without a shell prompt.
  /^(?:[$#%]\s*|:;\s*|[^\s@]+@[^\s:~]+[:~][^$#]*[$#]\s*)?(?:sudo\s+)?(?:kubectl|oc|stern|kubetail)(?:\s|$)/,
  /^(?:[$#%]\s*|:;\s*)?linkerd(?:\s+(?:viz|jaeger|multicluster|smi))?\s+(?:logs|diagnostics|check|tap|metrics)\b/,
  // stern's header when it starts or stops following a container: `+ ns pod › container`.
  /^[+-] \S+ \S+ [›>] \S+\s*$/,
];

export function isPasteNoise(text: string): boolean {
  const line = text.trim();
  if (line === '') return false;
  for (const pattern of PASTE_NOISE) if (pattern.test(line)) return true;
  return false;
}

/**
 * Removes what a chat or a forum adds before a pasted line: `> ` quote markers (nested too, and
 * `>` without its space, which Markdown accepts), and leading indentation. Returns the text
 * unchanged when there is none. Only lines the regular readers rejected get here, and no log
 * line starts with `>`.
 */
export function stripPasteMarkers(text: string): string {
  let pos = 0;
  while (true) {
    while (text.charCodeAt(pos) === 32 || text.charCodeAt(pos) === 9) pos++;
    if (text.charCodeAt(pos) === 62 /* > */) {
      pos += 1;
      continue;
    }
    return pos === 0 ? text : text.slice(pos);
  }
}

/** A pretty-printed record longer than this is not one; its lines are handed back one by one. */
const MAX_RECORD_LINES = 512;
const MAX_RECORD_CHARS = 256 * 1024;

export type AssembledJson =
  /** The brackets closed: the text (lines joined by newlines), its first line, and the lines as fed. */
  | { done: true; text: string; line: number; lines: { text: string; line: number }[] }
  /** Still collecting. */
  | { done: false }
  /** It was not a record after all (too long, or unbalanced at the end): the lines as fed, to be read one by one. */
  | { done: 'abandoned'; lines: { text: string; line: number }[] };

/**
 * Joins a JSON record pretty-printed over several lines (`{` alone on a line, then one key per
 * line, down to the closing `}`). Depth is tracked by counting brackets outside strings, so the
 * walk is iterative and bounded by the text, whatever the nesting.
 */
export class JsonRecordAssembler {
  private lines: { text: string; line: number }[] = [];
  private chars = 0;
  private readonly brackets = new JsonBracketDepth();

  get active(): boolean {
    return this.lines.length > 0;
  }

  /**
   * Whether a line (already stripped of collector prefixes) opens a multi-line record: `{` alone,
   * or a record broken after an opening bracket or a comma. A single-line record, even one cut off
   * by an excerpt, does not.
   */
  static opens(text: string): boolean {
    let start = 0;
    while (text.charCodeAt(start) === 32 || text.charCodeAt(start) === 9) start++;
    if (text.charCodeAt(start) !== 123 /* { */) return false;
    let end = text.length - 1;
    while (end > start && (text.charCodeAt(end) === 32 || text.charCodeAt(end) === 9)) end--;
    if (end === start) return true;
    const last = text.charCodeAt(end);
    return (last === 123 || last === 91 || last === 44) && bracketBalance(text) > 0;
  }

  feed(text: string, line: number): AssembledJson {
    this.lines.push({ text, line });
    this.chars += text.length + 1;
    const depth = this.brackets.scan(text);
    if (depth <= 0) {
      const unbalanced = depth < 0;
      const lines = this.reset();
      if (unbalanced) return { done: 'abandoned', lines };
      return { done: true, text: lines.map((l) => l.text).join('\n'), line: lines[0]!.line, lines };
    }
    if (this.lines.length >= MAX_RECORD_LINES || this.chars >= MAX_RECORD_CHARS) return { done: 'abandoned', lines: this.reset() };
    return { done: false };
  }

  /** What is left at the end of the input: never a whole record. */
  flush(): { text: string; line: number }[] {
    return this.reset();
  }

  private reset(): { text: string; line: number }[] {
    const lines = this.lines;
    this.lines = [];
    this.chars = 0;
    this.brackets.reset();
    return lines;
  }
}

/** How deep a field value is rendered; deeper parts read `…`. */
export const MAX_FIELD_DEPTH = 8;

/**
 * JSON text of a parsed value, nested at most `depth` levels (JSON.stringify recurses without a
 * bound and throws on a value nested a few thousand levels deep).
 */
export function boundedJson(value: unknown, depth = MAX_FIELD_DEPTH): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (depth <= 0) return '"…"';
  if (Array.isArray(value)) return `[${value.map((v) => boundedJson(v, depth - 1)).join(',')}]`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value)) parts.push(`${JSON.stringify(k)}:${boundedJson(v, depth - 1)}`);
  return `{${parts.join(',')}}`;
}
