// Regenerates data/inventory/inventory.json: every WARN/ERROR log call site (and every INFO one
// whose message announces a failure) of the Linkerd components users run, read from the upstream
// sources at their latest release, with the releases each message exists in.
//
// Usage: npm run inventory -- [--proxy DIR] [--linkerd2 DIR] [--proxy-init DIR] [--out FILE]
// Each DIR is a git directory (bare or not) of a clone:
//   git clone --bare https://github.com/linkerd/linkerd2-proxy
//   git clone --bare https://github.com/linkerd/linkerd2
//   git clone --bare https://github.com/linkerd/linkerd2-proxy-init
// Defaults: $LINKERD2_PROXY_GIT, $LINKERD2_GIT, $LINKERD2_PROXY_INIT_GIT, else the mirrors under
// /work/.mirror. Only extracted data is written; no upstream code is copied.

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callArguments, literalValue, normaliseTemplate } from './tokenize.js';
import { COMPONENT_SOURCES, LINKERD_RELEASES, type ComponentSource, type Language } from './sources.js';

export type Level = 'error' | 'warn' | 'info' | 'fatal';

export interface InventorySite {
  file: string;
  line: number;
}

export interface InventoryEntry {
  /** `component level template`: stable across line moves. */
  key: string;
  component: string;
  level: Level;
  /** The message with placeholders as `{}`; null when the message is a runtime value (an error printed alone). */
  template: string | null;
  /** Structured fields the call attaches (tracing `error = %e`, logrus WithError). */
  fields: string[];
  /** Rust: the tracing target (module path) the line prints; Go: the package directory. */
  target: string;
  sites: InventorySite[];
  /** Linkerd releases (of LINKERD_RELEASES, plus the latest) whose sources hold this template; null when not tracked. */
  presentIn: string[] | null;
}

export interface Inventory {
  generatedBy: string;
  sources: { repo: string; component: string; ref: string; commit: string }[];
  releases: string[];
  entries: InventoryEntry[];
}

const here = path.dirname(fileURLToPath(import.meta.url));

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
}

/** `git grep` exits 1 when nothing matched; that is an empty answer, not an error. */
function gitGrep(dir: string, ...args: string[]): string {
  try {
    return git(dir, 'grep', ...args);
  } catch (error) {
    if ((error as { status?: number }).status === 1) return '';
    throw error;
  }
}

function option(name: string, env: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0 && process.argv[i + 1]) return process.argv[i + 1]!;
  return process.env[env] ?? fallback;
}

const RUST_CALL = /\b(?:tracing::)?(warn|error|info)!\s*\(/g;
const GO_CALL = /\.(Errorf|Errorln|Error|Warnf|Warningf|Warnln|Warning|Warn|Fatalf|Fatalln|Fatal|Infof|Info|ErrorS|InfoS)\s*\(/g;
/** What a Go logging call is made on: a logger (log, logger, s.log, klog, logrus) or a WithError/WithField(s) chain. */
const GO_RECEIVER = /(?:\b(?:log|logger|klog|logrus|[a-z]\w*[Ll]og(?:ger)?|l)|With(?:Error|Fields?|Context)\([^;\n]*\))$/;
const FAILURE_WORDS =
  /fail|error|unable|cannot|can't|could not|couldn't|denied|invalid|refused|timeout|timed out|lost|unavailable|expired|reject|panic|abort|not found|missing/i;

function levelOf(name: string): Level {
  if (name.startsWith('Error') || name === 'error') return 'error';
  if (name.startsWith('Warn') || name === 'warn') return 'warn';
  if (name.startsWith('Fatal')) return 'fatal';
  return 'info';
}

/** tracing's default target: the crate name (dashes as underscores) and the module path. */
function rustTarget(file: string): string {
  const m = /^(.*?)\/src\/(.*)\.rs$/.exec(file);
  if (!m) return file;
  const crate = m[1]!
    .replace(/^linkerd\//, 'linkerd/')
    .replace(/[/-]/g, '_')
    .replace(/^policy_controller/, 'linkerd_policy_controller');
  const module = m[2]!
    .replace(/(^|\/)(lib|main|mod)$/, '')
    .split('/')
    .filter((s) => s !== '');
  return [crate, ...module].join('::');
}

interface Site {
  level: Level;
  template: string | null;
  fields: string[];
  target: string;
  file: string;
  line: number;
}

/** Rust tracing macro: fields, then the format string and its arguments. */
function rustSite(args: string[]): { template: string | null; fields: string[] } {
  const fields: string[] = [];
  for (const arg of args) {
    if (/^(target|parent|name)\s*:/.test(arg)) continue;
    const message = literalValue(arg);
    if (message !== null) return { template: normaliseTemplate(message, 'rust'), fields };
    const named = /^([\w.]+)\s*=\s*/.exec(arg);
    // `message = "…"` is the message given as a field.
    if (named?.[1] === 'message') {
      const value = literalValue(arg.slice(named[0].length));
      if (value !== null) return { template: normaliseTemplate(value, 'rust'), fields: [...fields, ...restFields(args.slice(args.indexOf(arg) + 1))] };
    }
    const bare = /^[%?]?\s*([\w.]+)$/.exec(arg);
    const name = named?.[1] ?? bare?.[1];
    if (name && name !== 'message') fields.push(name);
  }
  return { template: null, fields };
}

/** Field names of the arguments after a `message = "…"` field. */
function restFields(args: string[]): string[] {
  return args.flatMap((arg) => {
    const name = /^([\w.]+)\s*=/.exec(arg)?.[1] ?? /^[%?]?\s*([\w.]+)$/.exec(arg)?.[1];
    return name ? [name] : [];
  });
}

function goSite(args: string[], receiver: string): { template: string | null; fields: string[] } {
  const fields = /WithError\(/.test(receiver) ? ['error'] : [];
  const first = args[0];
  // klog's structured calls: ErrorS(err, "msg", kv…).
  const message = first === undefined ? null : (literalValue(first) ?? (args[1] !== undefined ? literalValue(args[1]) : null));
  return { template: message === null ? null : normaliseTemplate(message, 'go').trim(), fields };
}

/** The log call sites of one component at one ref. */
function sitesOf(dir: string, ref: string, source: ComponentSource): Site[] {
  const pattern = source.language === 'rust' ? '\\b(warn|error|info)!' : '\\.(Error|Warn|Fatal|Info)[a-zS]*\\(';
  const files = gitGrep(dir, '-l', '-E', pattern, ref, '--', ...source.pathspecs)
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.slice(ref.length + 1));
  const sites: Site[] = [];
  for (const file of files) {
    const src = git(dir, 'show', `${ref}:${file}`);
    // Unit tests sit in a `#[cfg(test)] mod …` at the end of a Rust file.
    const testModule = source.language === 'rust' ? src.search(/#\[cfg\(test\)\]\s*(?:pub\s+)?mod\s+\w+\s*\{/) : -1;
    const limit = testModule < 0 ? src.length : testModule;
    const call = new RegExp(source.language === 'rust' ? RUST_CALL : GO_CALL);
    for (let m = call.exec(src); m !== null && m.index < limit; m = call.exec(src)) {
      const open = m.index + m[0].length - 1;
      const lineStart = src.lastIndexOf('\n', m.index) + 1;
      const before = src.slice(Math.max(lineStart, m.index - 200), m.index);
      if (source.language === 'rust' && /\/\/.*$/.test(src.slice(lineStart, m.index))) continue;
      if (source.language === 'go' && !GO_RECEIVER.test(before.trimEnd())) continue;
      const { args, end } = callArguments(src, open);
      if (end < 0 || args.length === 0) continue;
      const level = levelOf(m[1]!);
      const { template, fields } = source.language === 'rust' ? rustSite(args) : goSite(args, before);
      if (level === 'info' && (template === null || !FAILURE_WORDS.test(template))) continue;
      const line = src.slice(0, m.index).split('\n').length;
      const target = source.language === 'rust' ? rustTarget(file) : path.posix.dirname(file);
      sites.push({ level, template, fields, target, file, line });
    }
  }
  return sites;
}

/** Every string literal in a component's files at a ref, normalised as templates are. */
function templatesAt(dir: string, ref: string, language: Language, pathspecs: readonly string[]): Set<string> {
  const out = gitGrep(dir, '-h', '-o', '-E', '"([^"\\\\]|\\\\.)*"', ref, '--', ...pathspecs);
  const set = new Set<string>();
  for (const literal of out.split('\n')) {
    const value = literalValue(literal);
    if (value !== null) set.add(normaliseTemplate(value, language).trim());
  }
  return set;
}

function tagExists(dir: string, tag: string): boolean {
  try {
    git(dir, 'rev-parse', '--verify', '--quiet', `${tag}^{commit}`);
    return true;
  } catch {
    return false;
  }
}

function latestTag(dir: string, pattern: string): string | null {
  const tags = git(dir, 'tag', '--list', pattern, '--sort=-version:refname')
    .split('\n')
    .filter((t) => t !== '');
  return tags[0] ?? null;
}

function main(): void {
  const mirror = '/work/.mirror';
  const dirs = {
    'linkerd2-proxy': option('proxy', 'LINKERD2_PROXY_GIT', `${mirror}/linkerd+linkerd2-proxy/repo`),
    linkerd2: option('linkerd2', 'LINKERD2_GIT', `${mirror}/linkerd+linkerd2/repo`),
    'linkerd2-proxy-init': option('proxy-init', 'LINKERD2_PROXY_INIT_GIT', `${mirror}/linkerd+linkerd2-proxy-init/repo`),
  } as const;
  const out = option('out', 'INVENTORY_OUT', path.resolve(here, '../../data/inventory/inventory.json'));

  // The latest Linkerd release is the newest edge tag; its .proxy-version names the proxy release.
  const latest = latestTag(dirs.linkerd2, 'edge-*');
  if (!latest) throw new Error(`${dirs.linkerd2}: no edge-* tag; is this a clone of linkerd/linkerd2?`);
  const releases = [...LINKERD_RELEASES.filter((t) => tagExists(dirs.linkerd2, t)), latest];
  const proxyRefOf = (release: string): string | null => {
    const version = git(dirs.linkerd2, 'show', `${release}:.proxy-version`).trim();
    const tag = `release/${version}`;
    return tagExists(dirs['linkerd2-proxy'], tag) ? tag : null;
  };

  const entries = new Map<string, InventoryEntry>();
  const sources: Inventory['sources'] = [];
  for (const source of COMPONENT_SOURCES) {
    const dir = dirs[source.repo];
    const legacy = source.legacyReleases?.filter((t) => tagExists(dirs.linkerd2, t)) ?? null;
    const ref = legacy
      ? proxyRefOf(legacy[0]!)
      : source.repo === 'linkerd2'
        ? latest
        : source.repo === 'linkerd2-proxy'
          ? proxyRefOf(latest)
          : source.tagPrefix
            ? latestTag(dir, `${source.tagPrefix}v*`)
            : 'HEAD';
    if (!ref) throw new Error(`${source.component}: no release ref found in ${dir}`);
    const commit = git(dir, 'rev-parse', `${ref}^{commit}`).trim();
    sources.push({ repo: `linkerd/${source.repo}`, component: source.component, ref, commit });
    // Which releases hold each template: Linkerd releases for the proxy and the controllers; the
    // proxy-init tools ship on their own tags, so only their latest is recorded.
    const tracked = legacy ?? (source.repo === 'linkerd2-proxy-init' ? [] : releases);
    // Legacy wordings only: what the current proxy still logs is in the proxy component already.
    const current = new Set([...entries.values()].filter((e) => e.component === 'proxy').map((e) => e.template));
    const present = tracked.map((release) => {
      const at = source.repo === 'linkerd2' ? release : proxyRefOf(release);
      return { release, templates: at ? templatesAt(dir, at, source.language, source.pathspecs) : new Set<string>() };
    });
    for (const site of sitesOf(dir, ref, source)) {
      if (legacy && current.has(site.template)) continue;
      const key = `${source.component} ${site.level} ${site.template ?? `{${site.fields.join(',')}}`}`;
      let entry = entries.get(key);
      if (!entry) {
        const presentIn = site.template === null || tracked.length === 0 ? null : present.filter((p) => p.templates.has(site.template!)).map((p) => p.release);
        entry = {
          key,
          component: source.component,
          level: site.level,
          template: site.template,
          fields: site.fields,
          target: site.target,
          sites: [],
          presentIn,
        };
        entries.set(key, entry);
      }
      entry.sites.push({ file: `${source.repo}/${site.file}`, line: site.line });
    }
  }
  const inventory: Inventory = {
    generatedBy: 'npm run inventory (scripts/inventory/extract.ts)',
    sources,
    releases,
    entries: [...entries.values()].sort((a, b) => a.key.localeCompare(b.key)),
  };
  writeFileSync(out, `${JSON.stringify(inventory, null, 1)}\n`);
  const byComponent = new Map<string, number>();
  for (const e of inventory.entries) byComponent.set(e.component, (byComponent.get(e.component) ?? 0) + 1);
  process.stderr.write(`${inventory.entries.length} entries (${[...byComponent].map(([c, n]) => `${c} ${n}`).join(', ')}) -> ${out}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) main();
