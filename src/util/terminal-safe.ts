// Text from inputs (file and member names, pod names, label values, log lines) reaches terminals
// through the text report and stderr. A terminal obeys control characters and escape sequences in
// it: OSC 52 writes the clipboard, OSC 0 sets the title, OSC 8 hides links, `ESC c` resets, a bare
// CR or backspace overwrites what was printed. Every such character is shown as a visible `\xNN`
// (`\u202e` for bidirectional overrides) instead, so the sequence is inert and the reader sees
// that it was there. Without its ESC/CSI introducer, the rest of a sequence is plain text.
import { dict } from './dict.js';

// C0 controls, DEL, C1 controls (U+0080-U+009F, e.g. the 8-bit CSI U+009B), and the bidi
// overrides/isolates that reorder what is shown ("Trojan source").
// eslint-disable-next-line no-control-regex
const UNSAFE_KEEP_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const UNSAFE_ONE_LINE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function visible(char: string): string {
  const code = char.charCodeAt(0);
  if (code === 0x0a) return '\\n';
  if (code === 0x0d) return '\\r';
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `s` with every control character visible; tabs and (unless `oneLine`) newlines are kept. */
export function terminalSafe(s: string, oneLine = false): string {
  return s.replace(oneLine ? UNSAFE_ONE_LINE : UNSAFE_KEEP_LINES, visible);
}

/** Fields whose text is prose written by the rules, where a newline separates paragraphs. */
const PROSE_KEYS = new Set(['message', 'remediation', 'firstAction', 'reasoning', 'description', 'reason']);

/**
 * A deep copy of a JSON-like value (the report model) with every string, keys included, made
 * terminal-safe. Newlines are kept only in prose fields: in a path, name or label value a newline
 * would forge report lines.
 */
export function terminalSafeDeep<T>(value: T): T {
  return mapStrings(value, undefined) as T;
}

function mapStrings(value: unknown, key: string | undefined): unknown {
  if (typeof value === 'string') return terminalSafe(value, key === undefined || !PROSE_KEYS.has(key));
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, key));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = dict();
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[terminalSafe(k, true)] = mapStrings(v, k);
  return out;
}
