// explain's Markdown renderer (src/cli/terminal-markdown.ts): the rule pages must stay readable in
// a terminal at any width, lose no text, and keep commands and URLs copyable.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync } from 'node:zlib';
import { Lexer, type Token } from 'marked';
import { renderSignaturePage } from '../../src/rules/known-signature/docs.js';
import { SIGNATURES } from '../../src/rules/known-signature/index.js';
import { renderTerminalTokens, type TerminalMarkdownOptions } from '../../src/cli/terminal-markdown.js';

/** The build lexes the pages and drops what the layout does not read (scripts/explain-pages.js); the same here. */
const lean = (key: string, value: unknown): unknown => {
  if (key === 'raw') return undefined;
  if (
    value &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Array.isArray((value as { tokens?: unknown }).tokens) &&
    (value as { type?: string }).type !== 'image' &&
    'text' in value
  ) {
    const rest = { ...(value as Record<string, unknown>) };
    delete rest.text;
    return rest;
  }
  return value;
};
const renderTerminalMarkdown = (markdown: string, options: TerminalMarkdownOptions) =>
  renderTerminalTokens(JSON.parse(JSON.stringify(Lexer.lex(markdown), lean)), options);
import { readRuleDocs } from '../../src/core/rule-docs.js';
import { RULES } from '../../src/rules/index.js';

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;
const plain = (markdown: string, width = 60) => renderTerminalMarkdown(markdown, { width, color: false });

describe('terminal markdown', () => {
  it('wraps paragraphs to the width, reflowing soft line breaks', () => {
    const out = plain('one two three four five six seven eight nine ten\neleven twelve thirteen fourteen', 30);
    assert.equal(out, 'one two three four five six\nseven eight nine ten eleven\ntwelve thirteen fourteen\n');
  });

  it('keeps heading levels visible without colour and styles them with colour', () => {
    assert.equal(plain('# Title\n\n## Section\n\ntext'), '# Title\n\n## Section\n\ntext\n');
    const coloured = renderTerminalMarkdown('# Title\n\n## Section', { width: 60, color: true });
    assert.ok(coloured.includes('\u001b[1m'));
    assert.equal(coloured.replace(ANSI, ''), 'Title\n\nSection\n');
  });

  it('lays out nested and ordered lists with hanging indents', () => {
    const out = plain('- first item that is long enough to wrap onto a second line\n- second\n  - nested one\n\n1. alpha\n2. beta', 30);
    assert.equal(
      out,
      ['- first item that is long', '  enough to wrap onto a second', '  line', '- second', '  - nested one', '', '1. alpha', '2. beta', ''].join('\n'),
    );
  });

  it('prints code blocks verbatim and indented, never wrapped', () => {
    const command = 'kubectl -n linkerd get pods -o wide --sort-by=.status.startTime --field-selector=status.phase=Running';
    const out = plain(`Run:\n\n\`\`\`sh\n${command}\n  indented\n\`\`\``, 40);
    assert.ok(out.includes(`    ${command}\n      indented\n`), out);
  });

  it('marks inline code with backticks without colour, and colours it otherwise', () => {
    assert.equal(plain('set `proxy.additionalEnv` now'), 'set `proxy.additionalEnv` now\n');
    const coloured = renderTerminalMarkdown('set `proxy.additionalEnv` now', { width: 60, color: true });
    assert.equal(coloured.replace(ANSI, ''), 'set proxy.additionalEnv now\n');
    assert.notEqual(coloured, coloured.replace(ANSI, ''));
  });

  it('prints links as their text and URL, bare URLs once, and keeps long URLs whole', () => {
    assert.equal(plain('see [the PR](https://github.com/linkerd/linkerd2/pull/12598).'), 'see the PR (https://github.com/linkerd/linkerd2/pull/12598).\n');
    assert.equal(plain('<https://linkerd.io/2/reference/>'), 'https://linkerd.io/2/reference/\n');
    const long = 'https://example.com/' + 'a'.repeat(80);
    assert.equal(plain(`x ${long} y`, 40), `x\n${long}\ny\n`);
  });

  it('renders quotes, rules, tables, and emphasis as text', () => {
    assert.equal(plain('> careful & calm'), '│ careful & calm\n');
    assert.equal(plain('a\n\n---\n\nb', 24), `a\n\n${'─'.repeat(24)}\n\nb\n`);
    assert.equal(plain('| a | bb |\n|---|---|\n| ccc | d |'), 'a    bb\n───  ──\nccc  d\n');
    assert.equal(plain('**bold** and _it_ and ~~gone~~'), 'bold and it and gone\n');
  });

  for (const rule of RULES) {
    it(`renders docs/rules/${rule.meta.id}.md within 80 columns, losing no link or heading`, () => {
      const markdown = readRuleDocs(rule.meta.id)!;
      const out = plain(markdown, 80);
      const codeLines = new Set(
        Lexer.lex(markdown)
          .filter((t) => t.type === 'code')
          .flatMap((t) => (t as { text: string }).text.split('\n')),
      );
      for (const line of out.split('\n')) {
        // Only a single unbreakable word (a URL, an address) or a code line may overflow.
        if (line.length > 80) assert.ok(!line.trim().includes(' ') || codeLines.has(line.trim()), `too wide: ${line}`);
      }
      for (const [, url] of markdown.matchAll(/\]\(([^)\s]+)\)/g)) assert.ok(out.includes(url!), `link ${url} kept`);
      for (const [, heading] of markdown.matchAll(/^#+ (.+)$/gm)) assert.ok(out.includes(heading!.replace(/[`*]/g, '')), `heading ${heading}`);
    });
  }
});

describe('the pages lexed at build time (dist/explain-pages.json.br)', () => {
  it('lay out exactly as the Markdown lexed now, for every rule page and signature page', async () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const built = path.join(root, 'dist/explain-pages.json.br');
    if (!existsSync(built) || statSync(path.join(root, 'scripts/explain-pages.js')).mtimeMs > statSync(built).mtimeMs)
      execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
    const pages = JSON.parse(brotliDecompressSync(readFileSync(built)).toString('utf8')) as {
      rules: Record<string, Token[]>;
      entries: Record<string, Token[]>;
    };
    assert.deepEqual(Object.keys(pages.rules).sort(), RULES.map((r) => r.meta.id).sort());
    assert.deepEqual(Object.keys(pages.entries).sort(), SIGNATURES.map((s) => s.id).sort());
    for (const color of [false, true]) {
      const options = { width: 72, color };
      for (const rule of RULES)
        assert.equal(
          renderTerminalTokens(pages.rules[rule.meta.id]!, options),
          renderTerminalTokens(Lexer.lex(readRuleDocs(rule.meta.id)!), options),
          rule.meta.id,
        );
      for (const signature of SIGNATURES)
        assert.equal(
          renderTerminalTokens(pages.entries[signature.id]!, options),
          renderTerminalTokens(Lexer.lex(renderSignaturePage(signature)), options),
          signature.id,
        );
    }
  });
});
