// Run by `npm run build` after tsc: lexes every page `explain` prints (docs/rules/<id>.md and the
// page of each entry of a rule's catalogue, such as a known signature) with marked and writes the
// tokens to dist/explain-pages.json.br, one file
// ({rules: {id: tokens}, entries: {id: tokens}}) without the copies of the source the layout does
// not read (see lean), compressed with Node's own brotli: the JSON is 0.6 MB of repetitive token
// objects and 58 KB compressed, and `explain` inflates it in a few milliseconds.
// The terminal layout depends on the width and colours of the terminal, so it stays at run time;
// the Markdown parsing does not, so marked is a build-time (dev) dependency only.
import { Buffer } from 'node:buffer';
import { rmSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, constants } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Lexer } from 'marked';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const { RULES } = await import(path.join(dist, 'rules/index.js'));
const { readRuleDocs } = await import(path.join(dist, 'core/rule-docs.js'));

const pages = { rules: {}, entries: {} };
for (const rule of RULES) {
  const markdown = readRuleDocs(rule.meta.id);
  // A missing page is reported by `explain` and the docs meta-test; the build does not invent one.
  if (markdown !== null) pages.rules[rule.meta.id] = Lexer.lex(markdown);
}
// Entries of a rule's catalogue (known-signature's signatures), each with its own page.
for (const rule of RULES) for (const id of rule.catalogue?.ids ?? []) pages.entries[id] = Lexer.lex(rule.catalogue.page(id));
if (Object.keys(pages.rules).length === 0) throw new Error('explain-pages: no rule page found');
/** Drops what the layout never reads: `raw` everywhere, and `text` beside the inline `tokens` it repeats (images keep theirs: it is their alt text). */
function lean(key, value) {
  if (key === 'raw') return undefined;
  if (value && typeof value === 'object' && !Array.isArray(value) && Array.isArray(value.tokens) && value.type !== 'image' && 'text' in value) {
    const rest = { ...value };
    delete rest.text;
    return rest;
  }
  return value;
}
const json = Buffer.from(JSON.stringify(pages, lean));
const compressed = brotliCompressSync(json, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: json.length } });
writeFileSync(path.join(dist, 'explain-pages.json.br'), compressed);
// An earlier build's uncompressed file would otherwise be packed beside it.
rmSync(path.join(dist, 'explain-pages.json'), { force: true });
