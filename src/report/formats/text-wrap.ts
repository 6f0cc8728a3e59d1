// Width-aware wrapping for the text report: display columns (string-width), whole words, numbers
// kept with their units, and the closing answer shortened by whole sentences.

import stringWidth from 'string-width';

/**
 * `text` cut after each `;`, and after each `.` that a capital, backtick or parenthesis
 * follows ("e.g. kubectl" stays whole), but never inside parentheses or a `code span`.
 */
function sentencesOf(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let code = false;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '`') code = !code;
    else if (code) continue;
    else if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && text[i + 1] === ' ' && (ch === ';' || (ch === '.' && /[A-Z`(]/.test(text[i + 2] ?? '')))) {
      out.push(text.slice(from, i + 1));
      from = i + 2;
    }
  }
  out.push(text.slice(from));
  return out.filter((x) => x !== '');
}

/**
 * The whole sentences of `text` that fit `maxLines` lines of `width`, at least the first: the
 * closing answer is shortened by what it says, never cut mid-word. A dropped rest is in the finding.
 */
export function shortenToSentences(text: string, width: number, maxLines: number): string {
  // A sentence ends at `.`/`;` before a space and a capital, backtick or parenthesis ("e.g. kubectl" stays whole).
  const sentences = sentencesOf(text);
  let kept = sentences[0]!;
  for (const next of sentences.slice(1)) {
    const longer = `${kept} ${next}`;
    if (wrap(longer, width).length > maxLines) break;
    kept = longer;
  }
  // A clause ending in `;` reads unfinished when what followed was dropped.
  return kept.replace(/;$/, '.');
}

/**
 * Word-wraps plain text to `width` display columns (string-width: CJK and emoji take two). Words
 * are never split, numbers stay with their units; a word longer than a whole line (a long path) is
 * broken after one of its own separators (`/`, `-`, `.`, `=`, `,`). Continuation lines are indented
 * by `hanging` spaces (included in the width).
 */
export function wrap(text: string, width: number, hanging = 0): string[] {
  const w = Math.max(10, width);
  const lines: string[] = [];
  const room = () => (lines.length === 0 ? w : w - hanging);
  for (const paragraph of text.split('\n')) {
    let line = '';
    let lineWidth = 0;
    for (let word of keepUnitsWithNumbers(paragraph.split(' '))) {
      let wordWidth = stringWidth(word);
      if (line && lineWidth + 1 + wordWidth > room()) {
        lines.push(line);
        line = '';
        lineWidth = 0;
      }
      while (!line && wordWidth > room()) {
        const [head, tail] = breakLongWord(word, room());
        lines.push(head);
        word = tail;
        wordWidth = stringWidth(word);
      }
      line = line ? `${line} ${word}` : word;
      lineWidth += (lineWidth ? 1 : 0) + wordWidth;
    }
    lines.push(line);
  }
  return lines.map((l, i) => (i > 0 && hanging ? `${' '.repeat(hanging)}${l}` : l));
}

const BREAK_AFTER = new Set(['/', '-', '.', '=', ',', ':', '&', '?', '_']);

/** The longest head of `word` that fits `room` columns, ending after a separator when it has one. */
function breakLongWord(word: string, room: number): [string, string] {
  const chars = Array.from(word);
  let used = 0;
  let end = 0;
  let lastBreak = 0;
  for (; end < chars.length; end++) {
    const w = stringWidth(chars[end]!);
    if (used + w > room) break;
    used += w;
    if (BREAK_AFTER.has(chars[end]!)) lastBreak = end + 1;
  }
  const cut = lastBreak > room / 3 ? lastBreak : Math.max(1, end);
  return [chars.slice(0, cut).join(''), chars.slice(cut).join('')];
}

/** Units that read wrong at the start of a line, cut from their number ("… in 2 min 32" / "s)"). */
const UNIT_WORD = /^(ms|s|min|h|d|k|M|G|%|B|KiB|MiB|GiB)[),.;:]*$/;

/** Joins each unit to the number before it, so wrapping never separates them. */
function keepUnitsWithNumbers(words: string[]): string[] {
  const out: string[] = [];
  for (const word of words) {
    const previous = out[out.length - 1];
    if (previous !== undefined && /\d$/.test(previous) && UNIT_WORD.test(word)) out[out.length - 1] = `${previous} ${word}`;
    else out.push(word);
  }
  return out;
}
