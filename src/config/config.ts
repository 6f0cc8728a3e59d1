// The config file: `.linkerd-doctor.yaml` (or .yml/.json) in the working directory, or --config.
// It enables/disables rules, overrides their severity, sets their options and lists suppressions.
// Every mistake is reported as one line naming the file, the line and the key, and exits 2.
// Reused by other commands (export-rules) so every command reads the same thresholds.

import { open, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { closest, didYouMean } from '../cli/argv.js';
import { describeSystemError, UsageError } from '../core/errors.js';
import { SEVERITIES, type AnyRule, type Severity } from '../core/types.js';
import type { ConfiguredRule } from '../engine/engine.js';
import type { FailOn } from '../report/severity.js';
import type { SuppressionEntry } from '../report/suppression.js';
import { RULES } from '../rules/index.js';
import { optionIssues } from './options.js';

export const CONFIG_FILE_NAMES = ['.linkerd-doctor.yaml', '.linkerd-doctor.yml', '.linkerd-doctor.json'] as const;

export interface LinkerdDoctorConfig {
  /** The file the settings came from; null when none was found and defaults apply. */
  source: string | null;
  /** Enabled rules in registry order, options merged over the rule's defaults. */
  rules: ConfiguredRule[];
  disabledRules: string[];
  failOn?: FailOn;
  minSeverity?: Severity;
  /** Percent a baseline key figure may grow before the finding counts as worse. */
  baselineTolerance?: number;
  suppress: SuppressionEntry[];
}

/** A config mistake: `file[:line]: key: reason`, one line, exit code 2. */
export class ConfigError extends UsageError {
  constructor(
    readonly source: string,
    readonly key: string,
    readonly reason: string,
    readonly line?: number,
  ) {
    super(`${source}${line ? `:${line}` : ''}: ${key ? `${key}: ` : ''}${reason}`);
    this.name = 'ConfigError';
  }
}

export interface LoadConfigOptions {
  cwd?: string;
  rules?: readonly AnyRule[];
}

/**
 * Reads `file`, or the config in `cwd` when no file is given. No config file means the defaults:
 * every rule enabled with its default options.
 */
export async function loadConfig(file?: string, options: LoadConfigOptions = {}): Promise<LinkerdDoctorConfig> {
  const cwd = options.cwd ?? process.cwd();
  const rules = options.rules ?? RULES;
  let chosen = file;
  if (!chosen) {
    const present: string[] = [];
    for (const name of CONFIG_FILE_NAMES) {
      if (await isFile(path.join(cwd, name))) present.push(name);
    }
    if (present.length > 1) throw new ConfigError(present.join(', '), '', 'more than one config file in the working directory; keep one or pass --config FILE');
    if (present.length === 0) return defaultConfig(rules);
    chosen = path.join(cwd, present[0]!);
  }
  const text = await readConfigText(chosen, displayPath(chosen, cwd));
  return parseConfig(text, displayPath(chosen, cwd), rules);
}

/**
 * Largest config read. A real one is a few kilobytes; parsing builds a YAML tree of about 1 KB per
 * node (a 9 MB file took 941 MB, a 100 MB one ran out of memory, and 1 MiB of `[1,1,…]` still
 * took 600 MB), so a bigger file is refused before it is parsed. At 256 KiB the densest text
 * measured (flow sequences of one-character scalars, nested brackets) peaks near 220 MB.
 */
export const MAX_CONFIG_BYTES = 256 << 10;

/** Reads at most MAX_CONFIG_BYTES (+1 to tell a bigger file), also from a FIFO or /dev/stdin. */
async function readConfigText(file: string, shown: string): Promise<string> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, 'r');
    const info = await handle.stat();
    if (info.isDirectory()) throw new ConfigError(shown, '', 'cannot read config: is a directory');
    if (info.isFile() && info.size > MAX_CONFIG_BYTES) throw tooBig(shown, info.size);
    const buffer = Buffer.alloc(MAX_CONFIG_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > MAX_CONFIG_BYTES) throw tooBig(shown, null);
    return buffer.toString('utf8', 0, length);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(shown, '', `cannot read config: ${describeSystemError(err)}`);
  } finally {
    await handle?.close();
  }
}

function tooBig(shown: string, size: number | null): ConfigError {
  return new ConfigError(shown, '', `config is ${size === null ? 'over' : `${(size / (1 << 10)).toFixed(0)} KiB,`} more than the ${MAX_CONFIG_BYTES >> 10} KiB a config may have; suppress findings by glob rather than one entry each`);
}

export function defaultConfig(rules: readonly AnyRule[] = RULES): LinkerdDoctorConfig {
  return { source: null, rules: rules.map((rule) => ({ rule, options: { ...rule.meta.defaultOptions } })), disabledRules: [], suppress: [] };
}

/** Fresh copies of the enabled rules with their options, ready for the engine. */
export function configuredRules(config: LinkerdDoctorConfig): ConfiguredRule[] {
  return config.rules.map((c) => ({ ...c, options: { ...c.options } }));
}

type KeyPath = (string | number)[];

/** YAML alias expansions allowed in a config: a real one uses a handful, a billion-laughs file millions. */
const MAX_ALIAS_COUNT = 100;

/**
 * The YAML library, loaded when a config file is read: most runs have none, and importing it at
 * start-up cost every `analyze` ~40 ms. Its CommonJS build loads synchronously.
 */
const loadYaml = () => createRequire(import.meta.url)('yaml') as typeof import('yaml');

/** Parses and validates a config document; `source` names it in error messages. */
const TOP_LEVEL_SETTINGS = ['failOn', 'minSeverity', 'baselineTolerance', 'rules', 'suppress'];
const RULE_SETTINGS = ['enabled', 'severity', 'options'];

/** `; did you mean X?` for a mistyped string value, as the flags give for --fail-on warn. */
const suggestValue = (value: unknown, known: readonly string[]): string => (typeof value === 'string' ? didYouMean(closest(value, known)) : '');

export function parseConfig(text: string, source: string, rules: readonly AnyRule[] = RULES): LinkerdDoctorConfig {
  const isJson = source.endsWith('.json');
  const { LineCounter, parseDocument } = loadYaml();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const line = lineCounter.linePos(e.pos[0]).line;
    throw new ConfigError(source, '', `invalid ${isJson ? 'JSON' : 'YAML'}: ${e.message.split('\n')[0]}`, line);
  }
  const lineOf = (keyPath: KeyPath): number | undefined => {
    const node = doc.getIn(keyPath, true) as { range?: [number, number, number] } | undefined;
    const keyNode = keyPath.length > 0 ? (doc.getIn(keyPath.slice(0, -1), true) as { items?: { key?: { value?: unknown; range?: number[] } }[] } | undefined) : undefined;
    const keyRange = keyNode?.items?.find((i) => i.key?.value === keyPath[keyPath.length - 1])?.key?.range;
    const offset = keyRange?.[0] ?? node?.range?.[0];
    return offset === undefined ? undefined : lineCounter.linePos(offset).line;
  };
  const fail = (keyPath: KeyPath, reason: string): never => {
    throw new ConfigError(source, formatKey(keyPath), reason, lineOf(keyPath));
  };

  let root: unknown;
  try {
    // Each alias expands to a copy of its anchor: nine levels of nine aliases are 387 million
    // nodes. The library counts expansions and stops past maxAliasCount.
    root = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new ConfigError(source, '', /alias/i.test(message) ? `refused: more than ${MAX_ALIAS_COUNT} YAML alias expansions (an alias bomb?)` : `invalid ${isJson ? 'JSON' : 'YAML'}: ${message.split('\n')[0]}`);
  }
  const config = defaultConfig(rules);
  config.source = source;
  if (root === null || root === undefined) return config;
  if (!isMapping(root)) return fail([], 'the config must be a mapping of settings');

  for (const [key, value] of Object.entries(root)) {
    switch (key) {
      case 'failOn':
        if (typeof value !== 'string' || ![...SEVERITIES, 'none'].includes(value)) fail([key], `must be one of ${[...SEVERITIES, 'none'].join(', ')}, got ${JSON.stringify(value)}${suggestValue(value, [...SEVERITIES, 'none'])}`);
        config.failOn = value as FailOn;
        break;
      case 'minSeverity':
        if (typeof value !== 'string' || !(SEVERITIES as readonly string[]).includes(value)) fail([key], `must be one of ${SEVERITIES.join(', ')}, got ${JSON.stringify(value)}${suggestValue(value, SEVERITIES)}`);
        config.minSeverity = value as Severity;
        break;
      case 'baselineTolerance':
        if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) fail([key], `must be a percentage ≥ 0, got ${JSON.stringify(value)}`);
        config.baselineTolerance = value as number;
        break;
      case 'rules':
        applyRules(config, value, rules, fail);
        break;
      case 'suppress':
        config.suppress = parseSuppressions(value, rules, fail);
        break;
      case '$schema':
        // Editors find docs/schema/config.schema.json through it; it sets nothing.
        break;
      default:
        fail([key], `unknown setting${didYouMean(closest(key, TOP_LEVEL_SETTINGS))} (known: ${TOP_LEVEL_SETTINGS.join(', ')})`);
    }
  }
  return config;
}

function applyRules(config: LinkerdDoctorConfig, value: unknown, rules: readonly AnyRule[], fail: (p: KeyPath, reason: string) => never): void {
  if (!isMapping(value)) fail(['rules'], 'must be a mapping from rule id to its settings');
  const disabled = new Set<string>();
  for (const [id, settings] of Object.entries(value as Record<string, unknown>)) {
    const at: KeyPath = ['rules', id];
    const rule = resolveRule(id, rules);
    if (!rule) fail(at, `unknown rule${didYouMean(nearestRule(id, rules))} (known: ${rules.map((r) => r.meta.id).join(', ')})`);
    const configured = config.rules.find((c) => c.rule === rule)!;
    if (typeof settings === 'boolean') {
      if (!settings) disabled.add(rule!.meta.id);
      continue;
    }
    if (!isMapping(settings)) fail(at, 'must be true, false or a mapping with enabled, severity and options');
    for (const [key, v] of Object.entries(settings as Record<string, unknown>)) {
      if (key === 'enabled') {
        if (typeof v !== 'boolean') fail([...at, key], `must be true or false, got ${JSON.stringify(v)}`);
        if (!v) disabled.add(rule!.meta.id);
      } else if (key === 'severity') {
        if (typeof v !== 'string' || !(SEVERITIES as readonly string[]).includes(v)) fail([...at, key], `must be one of ${SEVERITIES.join(', ')}, got ${JSON.stringify(v)}${suggestValue(v, SEVERITIES)}`);
        configured.severity = v as Severity;
      } else if (key === 'options') {
        if (!isMapping(v)) fail([...at, key], 'must be a mapping of option names to values');
        const issue = optionIssues(rule!, v as Record<string, unknown>)[0];
        if (issue) fail([...at, key, issue.key], issue.reason);
        configured.options = { ...configured.options, ...(v as object) };
      } else {
        fail([...at, key], `unknown rule setting${didYouMean(closest(key, RULE_SETTINGS))} (known: ${RULE_SETTINGS.join(', ')})`);
      }
    }
  }
  config.rules = config.rules.filter((c) => !disabled.has(c.rule.meta.id));
  config.disabledRules = [...disabled];
}

function parseSuppressions(value: unknown, rules: readonly AnyRule[], fail: (p: KeyPath, reason: string) => never): SuppressionEntry[] {
  if (!Array.isArray(value)) return fail(['suppress'], 'must be a list of {rule, subject, reason} entries');
  return value.map((entry: unknown, i) => {
    const at: KeyPath = ['suppress', i];
    if (!isMapping(entry)) fail(at, 'must be a mapping with rule, reason and an optional subject glob');
    const e = entry as Record<string, unknown>;
    for (const key of Object.keys(e)) if (!['rule', 'subject', 'reason'].includes(key)) fail([...at, key], 'unknown suppression setting (known: rule, subject, reason)');
    if (typeof e.rule !== 'string') fail([...at, 'rule'], 'is required: the rule id or code to suppress');
    const rule = resolveRule(e.rule as string, rules);
    if (!rule) fail([...at, 'rule'], `unknown rule ${JSON.stringify(e.rule)}${didYouMean(nearestRule(e.rule as string, rules))} (known: ${rules.map((r) => r.meta.id).join(', ')})`);
    if (typeof e.reason !== 'string' || e.reason.trim() === '') fail([...at, typeof e.reason === 'string' ? 'reason' : 'rule'], 'a suppression needs a reason: say why the finding is accepted');
    if (e.subject !== undefined && (typeof e.subject !== 'string' || e.subject === '')) fail([...at, 'subject'], 'must be a non-empty glob, e.g. "emojivoto/*"');
    const out: SuppressionEntry = { rule: rule!.meta.id, reason: (e.reason as string).trim(), source: 'config' };
    if (typeof e.subject === 'string') out.subject = e.subject;
    return out;
  });
}

/** `--suppress RULE[=subject-glob]`; RULE is an id or a code. */
export function parseSuppressFlag(value: string, rules: readonly AnyRule[] = RULES): SuppressionEntry {
  const eq = value.indexOf('=');
  const id = eq < 0 ? value : value.slice(0, eq);
  const subject = eq < 0 ? undefined : value.slice(eq + 1);
  const rule = resolveRule(id, rules);
  if (!rule) throw new UsageError(`--suppress ${value}: unknown rule ${JSON.stringify(id)}${didYouMean(nearestRule(id, rules))} (known: ${rules.map((r) => r.meta.id).join(', ')})`);
  if (subject === '') throw new UsageError(`--suppress ${value}: empty subject glob; drop the = to suppress every finding of the rule`);
  return subject === undefined ? { rule: rule.meta.id, source: 'flag' } : { rule: rule.meta.id, subject, source: 'flag' };
}

/** The rule id or code nearest a mistyped one, the same for the flags and the config file. */
export function nearestRule(idOrCode: string, rules: readonly AnyRule[] = RULES): string | undefined {
  return closest(idOrCode, rules.flatMap((r) => [r.meta.id, r.meta.code]));
}

/** A rule by id or by code. */
export function resolveRule(idOrCode: string, rules: readonly AnyRule[] = RULES): AnyRule | undefined {
  return rules.find((r) => r.meta.id === idOrCode) ?? rules.find((r) => r.meta.code.toLowerCase() === idOrCode.toLowerCase());
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function formatKey(keyPath: KeyPath): string {
  return keyPath.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile();
  } catch {
    return false;
  }
}

function displayPath(p: string, cwd: string): string {
  const rel = path.relative(cwd, p);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : p;
}
