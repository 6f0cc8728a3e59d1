// Where `explain` finds a page's Markdown tokens: dist/explain-pages.json, lexed by marked when
// the package is built (scripts/explain-pages.js), so marked is not a run-time dependency. In a
// source checkout run through tsx there is no build output, and the page is lexed on the spot with
// marked, a devDependency there.

import { readFile } from 'node:fs/promises';
import type { Token } from 'marked';

export type ExplainPageKind = 'rules' | 'signatures';

type Pages = Record<ExplainPageKind, Record<string, Token[]>>;

/** From dist/cli (or src/cli), one level up. */
export const EXPLAIN_PAGES_URL = new URL('../explain-pages.json', import.meta.url);

async function builtPages(): Promise<Pages | null> {
  try {
    return JSON.parse(await readFile(EXPLAIN_PAGES_URL, 'utf8')) as Pages;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * The tokens of a page; `markdown` gives its source when there is no build output, null for none.
 * `id` comes from the rule registry or the signature catalogue, never from the command line.
 */
export async function explainPageTokens(kind: ExplainPageKind, id: string, markdown: () => string | null): Promise<Token[] | null> {
  const pages = await builtPages();
  if (pages !== null) return Object.hasOwn(pages[kind], id) ? pages[kind][id]! : null;
  const source = markdown();
  if (source === null) return null;
  const { Lexer } = await import('marked');
  return Lexer.lex(source);
}
