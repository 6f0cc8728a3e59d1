// JSON every consumer accepts. JSON.stringify writes a lone surrogate (half of a UTF-16 pair, as a
// truncated or hostile JSON log line can carry in `\ud800`) as the escape `\ud800`: valid JSON
// text, but not well-formed Unicode, and jq, Go and Python's strict decoders reject the document.
// It is replaced by U+FFFD, as a UTF-8 decoder does with a broken sequence. DEL and C1 controls
// (U+007F-U+009F, among them the 8-bit CSI U+009B), which JSON.stringify leaves raw, are written
// as escapes: the same value, but inert when the JSON is printed on a terminal.

// An escape `\uD800`-`\uDFFF` is one only after an even number of backslashes (`\\ud800` is text).
// Tried only where a run of backslashes starts (a look-behind over the run would rescan it per position).
const LONE_SURROGATE_ESCAPE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;
const RAW_C1 = /[\u007f-\u009f]/g;
const NEEDS_FIXING = /\\ud[89a-f]|[\u007f-\u009f]/;

/** Post-processes JSON.stringify output; cheap when there is nothing to fix. */
export function wellFormedJson(json: string): string {
  if (!NEEDS_FIXING.test(json)) return json;
  return json.replace(LONE_SURROGATE_ESCAPE, '$1\ufffd').replace(RAW_C1, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** JSON.stringify, then wellFormedJson. */
export function stringifyWellFormed(value: unknown, indent?: number): string {
  return wellFormedJson(JSON.stringify(value, null, indent));
}
