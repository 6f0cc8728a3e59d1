// Where `explain` finds a page's Markdown tokens: dist/explain-pages.json.br, lexed by marked when
// the package is built (scripts/explain-pages.js), so marked is not a run-time dependency, and
// brotli-compressed (0.6 MB of JSON ships as 58 KB; Node's zlib inflates it, no dependency). In a
// source checkout run through tsx there is no build output, and the page is lexed on the spot with
// marked, a devDependency there.

import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { brotliDecompress } from 'node:zlib';
import type { Token } from 'marked';

/** `rules`: a rule's docs page; `entries`: a page of an entry of a rule's catalogue (RuleCatalogue). */
export type ExplainPageKind = 'rules' | 'entries';

type Pages = Record<ExplainPageKind, Record<string, Token[]>>;

/** From dist/cli (or src/cli), one level up. */
export const EXPLAIN_PAGES_URL = new URL('../explain-pages.json.br', import.meta.url);

const inflate = promisify(brotliDecompress);

/** Read and inflated once per process: `check` asks for every page. */
let builtPagesOnce: Promise<Pages | null> | undefined;

function builtPages(): Promise<Pages | null> {
  return (builtPagesOnce ??= readBuiltPages());
}

async function readBuiltPages(): Promise<Pages | null> {
  try {
    return JSON.parse((await inflate(await readFile(EXPLAIN_PAGES_URL))).toString('utf8')) as Pages;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * The tokens of a page; `markdown` gives its source when there is no build output, null for none.
 * `id` comes from the rule registry or a rule's catalogue, never from the command line.
 */
export async function explainPageTokens(kind: ExplainPageKind, id: string, markdown: () => string | null): Promise<Token[] | null> {
  const pages = await builtPages();
  if (pages !== null) return Object.hasOwn(pages[kind], id) ? pages[kind][id]! : null;
  const source = markdown();
  if (source === null) return null;
  const { Lexer } = await import('marked');
  return Lexer.lex(source);
}
