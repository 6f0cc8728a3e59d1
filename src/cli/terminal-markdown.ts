// Markdown for a terminal, for `explain`: the pages are lexed by marked at build time
// (scripts/explain-pages.js writes the tokens to dist/explain/), and this walks the tokens and lays
// them out with chalk for the terminal's width and colours, which are only known at run time. It
// covers what the rule pages use (headings, paragraphs wrapped to the width, nested lists, code
// blocks, inline code, emphasis, links as text and URL, quotes, rules, tables) and nothing else: a
// full terminal renderer (marked-terminal) brought a syntax highlighter and 40 packages into every
// install for one command, and marked itself is needed only to build.

import { Chalk, type ChalkInstance } from 'chalk';
import type { Token, Tokens } from 'marked';

export interface TerminalMarkdownOptions {
  /** Columns to wrap paragraphs and list items at. */
  width: number;
  color: boolean;
}

/** Lays out a page's tokens (marked's lexer output, as JSON from the build) for a terminal. */
export function renderTerminalTokens(tokens: readonly Token[], options: TerminalMarkdownOptions): string {
  const style = new Chalk({ level: options.color ? 1 : 0 });
  const renderer = new BlockRenderer(style, options.color, Math.max(20, options.width));
  const blocks = renderer.blocks(tokens, '');
  return blocks.join('\n\n') + '\n';
}

class BlockRenderer {
  constructor(
    private readonly style: ChalkInstance,
    private readonly color: boolean,
    private readonly width: number,
  ) {}

  /** Each block as its lines joined, every line starting with `indent`. */
  blocks(tokens: readonly Token[], indent: string): string[] {
    const out: string[] = [];
    for (const token of tokens) {
      const block = this.block(token, indent);
      if (block !== null) out.push(block);
    }
    return out;
  }

  private block(token: Token, indent: string): string | null {
    const s = this.style;
    switch (token.type) {
      case 'space':
        return null;
      case 'heading': {
        const t = token as Tokens.Heading;
        const text = this.inline(t.tokens);
        const styled = t.depth === 1 ? s.bold.underline(text) : t.depth === 2 ? s.bold(text) : s.bold.dim(text);
        // Without colour the level must still show: keep Markdown's own markers.
        return indent + (this.color ? styled : `${'#'.repeat(t.depth)} ${text}`);
      }
      case 'paragraph':
        return wrap(this.inline((token as Tokens.Paragraph).tokens), this.width, indent, indent);
      case 'text': {
        const t = token as Tokens.Text;
        return wrap(t.tokens ? this.inline(t.tokens) : t.text, this.width, indent, indent);
      }
      case 'code': {
        const t = token as Tokens.Code;
        // Never wrapped: commands must stay copyable.
        return t.text
          .split('\n')
          .map((line) => `${indent}    ${s.yellow(line)}`)
          .join('\n');
      }
      case 'blockquote':
        return this.blocks((token as Tokens.Blockquote).tokens, `${indent}${s.dim('│')} `).join(`\n${indent}${s.dim('│')}\n`);
      case 'list':
        return this.list(token as Tokens.List, indent);
      case 'hr':
        return indent + s.dim('─'.repeat(Math.max(3, this.width - indent.length)));
      case 'table':
        return this.table(token as Tokens.Table, indent);
      case 'html':
        return indent + (token as Tokens.HTML).text.trimEnd();
      default:
        return 'text' in token && typeof token.text === 'string' ? wrap(token.text, this.width, indent, indent) : null;
    }
  }

  private list(list: Tokens.List, indent: string): string {
    const start = typeof list.start === 'number' ? list.start : 1;
    const items = list.items.map((item, i) => {
      const marker = list.ordered ? `${start + i}.` : '-';
      const hanging = indent + ' '.repeat(marker.length + 1);
      const [first, ...rest] = this.blocks(item.tokens, hanging);
      // The first block's indent is replaced by the marker; text already carries the hanging indent.
      const head = first === undefined ? indent + marker : indent + marker + ' ' + first.slice(hanging.length);
      return [head, ...rest].join(item.loose ? '\n\n' : '\n');
    });
    return items.join(list.loose ? '\n\n' : '\n');
  }

  private table(table: Tokens.Table, indent: string): string {
    const rows = [table.header.map((cell) => this.inline(cell.tokens)), ...table.rows.map((row) => row.map((cell) => this.inline(cell.tokens)))];
    const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => visibleLength(row[col] ?? ''))));
    const line = (row: string[]) =>
      indent +
      row
        .map((cell, col) => cell + ' '.repeat(widths[col]! - visibleLength(cell)))
        .join('  ')
        .trimEnd();
    const [header, ...body] = rows;
    return [this.style.bold(line(header!)), indent + widths.map((w) => '─'.repeat(w)).join('  '), ...body.map(line)].join('\n');
  }

  private inline(tokens: readonly Token[] | undefined): string {
    if (!tokens) return '';
    const s = this.style;
    let out = '';
    for (const token of tokens) {
      switch (token.type) {
        case 'strong':
          out += s.bold(this.inline((token as Tokens.Strong).tokens));
          break;
        case 'em':
          out += s.italic(this.inline((token as Tokens.Em).tokens));
          break;
        case 'del':
          out += s.strikethrough(this.inline((token as Tokens.Del).tokens));
          break;
        case 'codespan': {
          const text = (token as Tokens.Codespan).text;
          out += this.color ? s.yellow(text) : `\`${text}\``;
          break;
        }
        case 'link': {
          const t = token as Tokens.Link;
          const text = this.inline(t.tokens);
          out += text === t.href || `mailto:${text}` === t.href ? s.cyan(t.href) : `${text} (${s.cyan(t.href)})`;
          break;
        }
        case 'image': {
          const t = token as Tokens.Image;
          out += `[${t.text || 'image'}] (${s.cyan(t.href)})`;
          break;
        }
        case 'br':
          out += HARD_BREAK;
          break;
        case 'text': {
          const t = token as Tokens.Text;
          out += t.tokens ? this.inline(t.tokens) : t.text;
          break;
        }
        default:
          out += 'text' in token && typeof token.text === 'string' ? token.text : (token.raw ?? '');
      }
    }
    return out;
  }
}

/** A Markdown hard break; a plain newline inside a paragraph is a soft one and reflows. */
const HARD_BREAK = '\u2028';

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

function visibleLength(text: string): number {
  return text.replace(ANSI, '').length;
}

/**
 * Fills words into lines of at most `width` visible columns (a word longer than the line gets a
 * line of its own, never broken: URLs and addresses stay copyable). Newlines reflow; hard breaks stay.
 */
export function wrap(text: string, width: number, firstIndent: string, indent: string): string {
  const lines: string[] = [];
  let prefix = firstIndent;
  for (const hardLine of text.split(HARD_BREAK)) {
    let line = '';
    let lineLength = 0;
    for (const word of hardLine.split(/\s+/)) {
      if (word === '') continue;
      const length = visibleLength(word);
      if (line !== '' && prefix.length + lineLength + 1 + length > width) {
        lines.push(prefix + line);
        prefix = indent;
        line = '';
        lineLength = 0;
      }
      line += (line === '' ? '' : ' ') + word;
      lineLength += (lineLength === 0 ? 0 : 1) + length;
    }
    lines.push(prefix + line);
    prefix = indent;
  }
  return lines.join('\n');
}
