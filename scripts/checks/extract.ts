// Regenerates data/checks/checks.json: every check `linkerd check` runs (core, --pre, --proxy, and
// the viz, multicluster and jaeger extensions), release by release from 2.7 to the newest edge,
// with its category, description, hint anchor and whether it only warns, and, per docs version,
// the remedy linkerd/website's troubleshooting page gives under that anchor.
//
// Usage: npm run checks-inventory -- [--linkerd2 DIR] [--website DIR] [--out FILE]
// Each DIR is a git directory (bare or not) of a clone:
//   git clone --bare https://github.com/linkerd/linkerd2
//   git clone --bare https://github.com/linkerd/website
// Defaults: $LINKERD2_GIT, $LINKERD_WEBSITE_GIT, else the mirrors under /work/.mirror.
// Only extracted facts and short remedy excerpts (Apache-2.0, linkerd/website) are written.

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';

/** Linkerd releases read, oldest first: the last patch of each stable minor, then the version-2.x tags, then the newest edge. */
const STABLE_MINORS = ['2.7', '2.8', '2.9', '2.10', '2.11', '2.12', '2.13', '2.14'];
const VERSION_TAGS = ['2.15', '2.16', '2.17', '2.18', '2.19', '2.20'];
/** Docs versions whose troubleshooting page exists (or existed) on linkerd/website. */
const DOCS_VERSIONS = ['2.7', '2.8', '2.9', '2.10', '2.11', '2.12', '2.13', '2.14', '2.15', '2.16', '2.17', '2.18', '2.19', '2-edge'];
/** Where check code lives; non-test Go files only. */
const CHECK_DIRS = ['pkg/healthcheck', 'viz', 'multicluster', 'jaeger', 'cli/cmd'];
const REMEDY_CHARS = 700;

export interface CheckEntry {
  /** `category/description`: what the output prints, stable across releases. */
  key: string;
  category: string | null;
  description: string;
  anchor: string | null;
  /** True when the check only warns (‼) in the newest release holding it. */
  warning: boolean;
  /** Releases holding the check (as `2.11`, `edge-26.8.3`). */
  presentIn: string[];
}

export interface Remedy {
  anchor: string;
  /** Docs version → the heading and first paragraphs of the anchor's section. */
  byDocsVersion: Record<string, { heading: string; text: string }>;
}

export interface ChecksInventory {
  generatedBy: string;
  sources: { repo: string; ref: string; commit: string }[];
  releases: string[];
  checks: CheckEntry[];
  remedies: Remedy[];
}

const here = path.dirname(fileURLToPath(import.meta.url));
const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });

function arg(name: string, env: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  if (i >= 0 && process.argv[i + 1]) return process.argv[i + 1]!;
  return process.env[env] ?? fallback;
}

function lastTag(dir: string, pattern: RegExp): string {
  const tags = git(dir, 'tag', '--list')
    .split('\n')
    .filter((t) => pattern.test(t));
  const num = (t: string) => (t.match(/\d+/g) ?? []).map(Number);
  tags.sort((a, b) => {
    const x = num(a);
    const y = num(b);
    for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
    return 0;
  });
  const tag = tags.at(-1);
  if (!tag) throw new Error(`no tag matches ${pattern}`);
  return tag;
}

interface Found {
  category: string | null;
  description: string;
  anchor: string | null;
  warning: boolean;
}

/**
 * The checks one Go file declares, in both styles linkerd2 has used: struct literals
 * (`description: "…", hintAnchor: "…", warning: true` under `id:` / `NewCategory(X,`) and the
 * builder (`NewChecker("…").WithHintAnchor("…").Warning()`, its category given after the list).
 */
export function checksOfGoFile(text: string, categories: ReadonlyMap<string, string>): Found[] {
  const found: (Found & { builder: boolean; at: number })[] = [];
  const cats: { at: number; id: string }[] = [];
  const token =
    /NewCategory\(\s*(?:\w+\.)?(\w+)|\bid:\s*(?:\w+\.)?(\w+),|description:\s*"((?:[^"\\]|\\.)*)"|NewChecker\(\s*"((?:[^"\\]|\\.)*)"|hintAnchor:\s*"([^"]*)"|WithHintAnchor\(\s*"([^"]*)"|warning:\s*true|[\s.]Warning\(\)/g;
  for (const m of text.matchAll(token)) {
    const at = m.index;
    const catIdent = m[1] ?? m[2];
    if (catIdent !== undefined) {
      const id = categories.get(catIdent);
      if (id !== undefined) cats.push({ at, id });
    } else if (m[3] !== undefined || m[4] !== undefined) {
      found.push({ category: null, description: JSON.parse(`"${m[3] ?? m[4]}"`) as string, anchor: null, warning: false, builder: m[4] !== undefined, at });
    } else if (m[5] !== undefined || m[6] !== undefined) {
      const last = found.at(-1);
      if (last && last.anchor === null) last.anchor = m[5] ?? m[6]!;
    } else {
      const last = found.at(-1);
      if (last) last.warning = true;
    }
  }
  const fileCats = [...new Set(cats.map((c) => c.id))];
  for (const f of found) {
    const before = cats.filter((c) => c.at < f.at).at(-1);
    const after = cats.find((c) => c.at > f.at);
    f.category = (f.builder ? (after ?? before) : (before ?? after))?.id ?? (fileCats.length === 1 ? fileCats[0]! : null);
  }
  return found.map(({ category, description, anchor, warning }) => ({ category, description, anchor, warning }));
}

function checksOfRelease(dir: string, ref: string): Found[] {
  const files = git(dir, 'ls-tree', '-r', '--name-only', ref, '--', ...CHECK_DIRS)
    .split('\n')
    .filter((f) => f.endsWith('.go') && !f.endsWith('_test.go') && !f.includes('/gen/') && !f.includes('testdata'));
  const texts = files
    .map((f) => git(dir, 'show', `${ref}:${f}`))
    .filter((t) => t.includes('hintAnchor') || t.includes('WithHintAnchor') || t.includes('CategoryID'));
  const categories = new Map<string, string>();
  for (const t of texts) for (const m of t.matchAll(/(\w+)\s+(?:healthcheck\.)?CategoryID\s*=\s*"([^"]+)"/g)) categories.set(m[1]!, m[2]!);
  return texts.filter((t) => /hintAnchor|WithHintAnchor/.test(t)).flatMap((t) => checksOfGoFile(t, categories));
}

/** The troubleshooting page of a docs version, at the newest website commit that has it. */
function troubleshootingPage(dir: string, version: string): { text: string; commit: string } | null {
  const file = `linkerd.io/content/${version}/tasks/troubleshooting.md`;
  try {
    return { text: git(dir, 'show', `HEAD:${file}`), commit: git(dir, 'rev-parse', 'HEAD').trim() };
  } catch {
    const removed = git(dir, 'log', '-1', '--format=%H', 'HEAD', '--', file).trim();
    if (!removed) return null;
    try {
      return { text: git(dir, 'show', `${removed}^:${file}`), commit: `${removed}^` };
    } catch {
      return null;
    }
  }
}

/** Markdown of a section reduced to its prose: no code blocks, links to their text, no shortcodes. */
function prose(markdown: string): string {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.trimStart().startsWith('```')) {
      fenced = !fenced;
      continue;
    }
    if (fenced || line.trimStart().startsWith('{{')) continue;
    out.push(line);
  }
  const text = out
    .join('\n')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter((p) => p !== '' && !/^Example (failure|warning)s?:?$/i.test(p))
    .join('\n\n');
  return text.length > REMEDY_CHARS ? `${text.slice(0, text.lastIndexOf(' ', REMEDY_CHARS))} …` : text;
}

export function sectionsByAnchor(page: string): Map<string, { heading: string; text: string }> {
  const sections = new Map<string, { heading: string; text: string }>();
  const lines = page.split('\n');
  let current: { anchor: string; heading: string; body: string[] } | null = null;
  const close = () => {
    if (current && !sections.has(current.anchor)) sections.set(current.anchor, { heading: current.heading, text: prose(current.body.join('\n')) });
  };
  for (const line of lines) {
    const h = /^#{2,4}\s+(.*?)\s*\{#([\w-]+)\}\s*$/.exec(line);
    if (h) {
      close();
      current = { anchor: h[2]!, heading: h[1]!.replace(/^√\s*/, ''), body: [] };
    } else if (/^#{2,4}\s/.test(line)) {
      close();
      current = null;
    } else if (current) current.body.push(line);
  }
  close();
  return sections;
}

/**
 * The module the analyzer reads a check's anchor from when its output printed none (a passing
 * check, a paste cut before the hint): by `category/description`, and by description alone when
 * every release gives that description one anchor.
 */
export function anchorsModule(checks: readonly CheckEntry[]): string {
  const byKey: Record<string, string> = {};
  const byDescription = new Map<string, Set<string>>();
  for (const c of checks) {
    if (!c.anchor) continue;
    byKey[`${c.category ?? '?'}/${c.description}`.toLowerCase()] = c.anchor;
    const d = c.description.toLowerCase();
    if (!byDescription.has(d)) byDescription.set(d, new Set());
    byDescription.get(d)!.add(c.anchor);
  }
  const unique: Record<string, string> = {};
  for (const [d, anchors] of [...byDescription].sort(([a], [b]) => a.localeCompare(b))) if (anchors.size === 1) unique[d] = [...anchors][0]!;
  const sorted = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
  return [
    '// Generated by npm run checks-inventory (scripts/checks/extract.ts) from data/checks/checks.json: do not edit.',
    '// The hint anchor of each check, for output that printed none (a passing check, a paste cut before it).',
    '',
    "import { lookupTable } from '../util/dict.js';",
    '',
    '/** `category/description` (lower case) → anchor. */',
    `export const ANCHOR_BY_CHECK: Readonly<Record<string, string>> = lookupTable(${JSON.stringify(sorted(byKey), null, 2)});`,
    '',
    '/** Description (lower case) → anchor, for descriptions with one anchor in every release. */',
    `export const ANCHOR_BY_DESCRIPTION: Readonly<Record<string, string>> = lookupTable(${JSON.stringify(unique, null, 2)});`,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const linkerd2 = arg('--linkerd2', 'LINKERD2_GIT', '/work/.mirror/linkerd+linkerd2/repo');
  const website = arg('--website', 'LINKERD_WEBSITE_GIT', '/work/.mirror/linkerd+website/repo');
  const out = arg('--out', 'CHECKS_OUT', path.join(here, '..', '..', 'data', 'checks', 'checks.json'));
  const anchorsOut = arg('--anchors-out', 'CHECKS_ANCHORS_OUT', path.join(here, '..', '..', 'src', 'knowledge', 'check-anchors.ts'));

  const refs: { release: string; ref: string }[] = [
    ...STABLE_MINORS.map((v) => ({ release: v, ref: lastTag(linkerd2, new RegExp(`^stable-${v.replace('.', '\\.')}\\.\\d+$`)) })),
    ...VERSION_TAGS.map((v) => ({ release: v, ref: `version-${v}` })),
  ];
  const edge = lastTag(linkerd2, /^edge-\d+\.\d+\.\d+$/);
  refs.push({ release: edge, ref: edge });

  const sources: ChecksInventory['sources'] = [];
  const byKey = new Map<string, CheckEntry>();
  for (const { release, ref } of refs) {
    sources.push({ repo: 'linkerd/linkerd2', ref, commit: git(linkerd2, 'rev-parse', `${ref}^{commit}`).trim() });
    for (const c of checksOfRelease(linkerd2, ref)) {
      const key = `${c.category ?? '?'}/${c.description}`;
      const entry = byKey.get(key);
      if (entry) {
        if (!entry.presentIn.includes(release)) entry.presentIn.push(release);
        entry.anchor = c.anchor ?? entry.anchor;
        entry.warning = c.warning;
      } else byKey.set(key, { key, category: c.category, description: c.description, anchor: c.anchor, warning: c.warning, presentIn: [release] });
    }
  }

  const remedies = new Map<string, Remedy>();
  for (const version of DOCS_VERSIONS) {
    const page = troubleshootingPage(website, version);
    if (!page) continue;
    sources.push({ repo: 'linkerd/website', ref: `linkerd.io/content/${version}/tasks/troubleshooting.md`, commit: page.commit });
    for (const [anchor, section] of sectionsByAnchor(page.text)) {
      let r = remedies.get(anchor);
      if (!r) remedies.set(anchor, (r = { anchor, byDocsVersion: {} }));
      r.byDocsVersion[version] = section;
    }
  }
  const anchors = new Set([...byKey.values()].map((c) => c.anchor));
  const inventory: ChecksInventory = {
    generatedBy: 'npm run checks-inventory (scripts/checks/extract.ts)',
    sources,
    releases: refs.map((r) => r.release),
    checks: [...byKey.values()].sort((a, b) => a.key.localeCompare(b.key)),
    remedies: [...remedies.values()].filter((r) => anchors.has(r.anchor)).sort((a, b) => a.anchor.localeCompare(b.anchor)),
  };
  writeFileSync(out, `${JSON.stringify(inventory, null, 1)}\n`);
  // Formatted as `npm run format` would, so a regeneration leaves format:check clean.
  const options = (await resolveConfig(anchorsOut)) ?? {};
  writeFileSync(anchorsOut, await format(anchorsModule(inventory.checks), { ...options, filepath: anchorsOut }));
  console.log(`${inventory.checks.length} checks, ${anchors.size} anchors, ${inventory.remedies.length} with a remedy on the website -> ${out}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
