// The last step of `npm run build`: bundles tsc's output in dist/ into the few files a run loads.
//
// Why: Node loads ES modules one by one (resolve, stat, read, compile, link), and an analyze run
// loaded 211 of ours before reading a byte, most of what a small run spends starting. Bundled,
// the same code is the entry files below and a few dozen shared chunks (esbuild's code splitting,
// so every entry loads one copy of each module).
// Measured on Node 20, a two-line dump: docs/performance.md, "Start-up".
//
// What stays as it is: the entry files oclif and the worker threads load by path (the commands
// in dist/commands/, cli/main.js and cli/output.js from bin/run.js, engine/analyze-worker.js,
// analysis/catalog.js), every dependency in node_modules (imported, not bundled: the install
// is the same), and names: local identifiers are minified (about 150 KB of the install) but
// keepNames keeps every function's and class's own name, so a profile or an internal error still
// names the function. Chunks sit in dist/chunks/, one level under
// dist/ like every source folder, so the paths the code builds from import.meta.url
// (`../explain-pages.json.br`, `../../docs/rules/`, `../engine/analyze-worker.js`) resolve the
// same from a chunk as from tsc's layout, which `npm run coverage` still runs.
//
// The build is from dist/ (JavaScript tsc has checked and emitted), not from src/, so the bundle
// runs exactly the code the type check saw. `--sourcemap` (npm run coverage) writes linked source
// maps that go through tsc's own maps back to src/, so c8 measures the bundle users run.
import { cpSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const staging = path.join(root, 'dist.bundle');

const entries = [
  ...readdirSync(path.join(dist, 'commands'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => `commands/${f}`),
  'cli/main.js',
  'cli/output.js',
  'engine/analyze-worker.js',
  'analysis/catalog.js',
].map((f) => path.join(dist, f));

rmSync(staging, { recursive: true, force: true });
await build({
  entryPoints: entries,
  outbase: dist,
  outdir: staging,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  chunkNames: 'chunks/[name]-[hash]',
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers: true,
  keepNames: true,
  legalComments: 'none',
  sourcemap: process.argv.includes('--sourcemap') ? 'linked' : false,
  logLevel: 'warning',
});
// What the earlier build steps wrote besides the modules (the explain pages) goes along.
for (const entry of readdirSync(dist, { withFileTypes: true }))
  if (entry.isFile() && !entry.name.endsWith('.js')) cpSync(path.join(dist, entry.name), path.join(staging, entry.name));
rmSync(dist, { recursive: true, force: true });
renameSync(staging, dist);
