// Escaping for text from inputs interpolated into GitHub-flavoured Markdown (PR comments, job
// summaries). A pod name, path, label value or log line must render as that text and nothing
// else: no link or image (a tracking pixel on an outside host), no raw HTML (`<img>`, `<script>`,
// a `</details>` that closes our block early), no `@mention` that pings someone, no autolinked
// URL, no code fence it can close. Each context has its own helper:
// - mdText: inline text (paragraphs, list items, table cells), one line;
// - mdProse: rule-written prose, whose `code spans` stay code and whose lines stay lines;
// - mdCode: an inline code span around arbitrary text;
// - htmlText: text inside our raw HTML (`<summary>`), where Markdown is not parsed;
// - fencedBlock: a fenced code block longer than any backtick run inside it.

import { terminalSafe } from '../../util/terminal-safe.js';

const ZWSP = '\u200b';

/** HTML-significant characters as entities (also inside Markdown: GitHub passes raw HTML through). */
function entities(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * GitHub turns `@name` into a mention and bare `https://…`, `www.…` and `a@b.c` into links after
 * Markdown is rendered, in text nodes, so backslash escapes do not help; an invisible zero-width
 * space after `@`, after the scheme's colon and inside `www.` does.
 */
function breakAutolinks(s: string): string {
  return s
    .replace(/@/g, `@${ZWSP}`)
    .replace(/(https?):\/\/([^\s]*)/gi, (url: string, scheme: string, rest: string) => (OWN_DOCS_LINK.test(url) ? url : `${scheme}:${ZWSP}//${rest}`))
    .replace(/(www)\./gi, `$1${ZWSP}.`);
}

// The rules' own prose points at Linkerd's docs and repositories; those links must stay clickable
// and copyable. An input value that spells the same URL links to the same trusted place, so the
// exemption gives an attacker nothing.
const OWN_DOCS_LINK = /^https:\/\/(linkerd\.io|github\.com\/linkerd)\/[A-Za-z0-9._~/#-]*$/;

/** Controls shown as `\xNN`, as on the terminal; a newline only where the caller keeps lines. */
function visibleControls(s: string, keepLines: boolean): string {
  return terminalSafe(s.replace(/\r\n?/g, '\n'), !keepLines).replace(/\n/g, keepLines ? '\n' : ' ');
}

// Every ASCII punctuation character may be backslash-escaped in CommonMark; these are the ones that
// start links, images, emphasis, code, tables, strikethrough, headings and entities.
const MARKDOWN_PUNCTUATION = /[\\`*_[\]()!#|~{}]/g;

/** Inline Markdown text on one line: renders exactly as `s`. */
export function mdText(s: string): string {
  return breakAutolinks(entities(visibleControls(String(s), false)).replace(MARKDOWN_PUNCTUATION, '\\$&'));
}

/** The longest run of backticks in `s`. */
function longestBacktickRun(s: string): number {
  let longest = 0;
  for (const run of s.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/**
 * An inline code span showing `s` verbatim: delimited by more backticks than any run inside, padded
 * when it starts or ends with a backtick. In a table cell a pipe still splits the cell, even in code.
 */
export function mdCode(s: string, inTable = true): string {
  let text = visibleControls(String(s), false);
  if (inTable) text = text.replace(/\|/g, '\\|');
  const fence = '`'.repeat(longestBacktickRun(text) + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || text.startsWith(' ') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** The rule prose's code spans (CommonMark: a backtick run closed by a run of the same length). */
function splitCodeSpans(s: string): { code: boolean; text: string }[] {
  const parts: { code: boolean; text: string }[] = [];
  let textStart = 0;
  let i = 0;
  while (i < s.length) {
    if (s[i] !== '`') {
      i++;
      continue;
    }
    let j = i;
    while (s[j] === '`') j++;
    const run = j - i;
    let close = -1;
    for (let k = s.indexOf('`', j); k !== -1;) {
      let m = k;
      while (s[m] === '`') m++;
      if (m - k === run) {
        close = k;
        break;
      }
      k = s.indexOf('`', m);
    }
    if (close === -1) {
      i = j;
      continue;
    }
    if (i > textStart) parts.push({ code: false, text: s.slice(textStart, i) });
    parts.push({ code: true, text: s.slice(j, close) });
    i = textStart = close + run;
  }
  if (textStart < s.length) parts.push({ code: false, text: s.slice(textStart) });
  return parts;
}

/**
 * Prose written by a rule (message, fix, first action), which may quote input values: its code
 * spans are kept as code, everything else is escaped as text. With `keepLines`, each line stays a
 * line (numbered steps stay a list); a line cannot start a heading, quote, rule or code block.
 */
export function mdProse(s: string, options: { keepLines?: boolean; inTable?: boolean } = {}): string {
  const lines = options.keepLines ? visibleControls(String(s), true).split('\n') : [visibleControls(String(s), false)];
  return lines
    .map((line) => {
      const rendered = splitCodeSpans(line.trimStart())
        .map((part) => (part.code ? mdCode(part.text.replace(/^ (.*) $/, '$1'), options.inTable ?? false) : mdText(part.text)))
        .join('');
      // `-`, `+` and `=` at the start of a line would make a list item or a setext heading.
      return rendered.replace(/^[-+=]/, '\\$&');
    })
    .join('\n');
}

/** Text inside our own HTML (`<summary>`): entities, one line (a blank line would end the HTML block). */
export function htmlText(s: string): string {
  return breakAutolinks(entities(visibleControls(String(s), false)));
}

/** A fenced code block of `lines`, each one line, fenced with more backticks than any run inside. */
export function fencedBlock(lines: readonly string[], info = 'text'): string[] {
  const body = lines.map((l) => visibleControls(String(l), false));
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(body.join('\n')) + 1));
  return [`${fence}${info}`, ...body, fence];
}

/** A URL we put in a link ourselves (rule docs): anything else is shown as code, not linked. */
export function mdLink(label: string, url: string): string {
  return /^https:\/\/[A-Za-z0-9._~:/?#@!$&'*+,;=%-]+$/.test(url) && !/[()]/.test(url) ? `[${label}](${url})` : `${label} (${mdCode(url)})`;
}
