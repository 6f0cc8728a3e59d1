// The config file: `.linkerd-doctor.yaml` (or .yml/.json) in the working directory, or --config.
// It enables/disables rules, overrides their severity, sets their options and lists suppressions.
// Every mistake is reported as one line naming the file, the line and the key, and exits 2.
// Reused by other commands (export-rules) so every command reads the same thresholds.

import { open, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { closest, didYouMean } from '../util/did-you-mean.js';
import { yamlLibrary } from '../util/yaml.js';
import { describeSystemError, UsageError } from '../core/errors.js';
import type { AnyRule, RuleOptionSpec, Severity } from '../core/types.js';
import type { ConfiguredRule } from '../engine/engine.js';
import type { FailOn } from '../report/severity.js';
import type { SuppressionEntry } from '../report/suppression.js';
import { RULES } from '../rules/index.js';
import type { ValidationError } from 'jsonschema';
import { optionProblem } from './options.js';
import { buildConfigSchema, RULE_SETTINGS, SUPPRESSION_SETTINGS, TOP_LEVEL_SETTINGS } from './schema.js';

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
  return new ConfigError(
    shown,
    '',
    `config is ${size === null ? 'over' : `${(size / (1 << 10)).toFixed(0)} KiB,`} more than the ${MAX_CONFIG_BYTES >> 10} KiB a config may have; suppress findings by glob rather than one entry each`,
  );
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

/** The JSON Schema validator, loaded with the YAML library (util/yaml.ts) when there is a config to check. */
const loadJsonSchema = () => createRequire(import.meta.url)('jsonschema') as typeof import('jsonschema');

/** `; did you mean X?` for a mistyped string value, as the flags give for --fail-on warn. */
const suggestValue = (value: unknown, known: readonly string[]): string => (typeof value === 'string' ? didYouMean(closest(value, known)) : '');

/**
 * Parses a config document and validates it against the config's JSON Schema, the one `npm run
 * schema` writes to docs/schema/config.schema.json (buildConfigSchema, for these rules): the file
 * editors and CI check against and the loader cannot disagree. `source` names it in error messages.
 */
export function parseConfig(text: string, source: string, rules: readonly AnyRule[] = RULES): LinkerdDoctorConfig {
  const isJson = source.endsWith('.json');
  const { LineCounter, parseDocument } = yamlLibrary();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const line = lineCounter.linePos(e.pos[0]).line;
    throw new ConfigError(source, '', `invalid ${isJson ? 'JSON' : 'YAML'}: ${e.message.split('\n')[0]}`, line);
  }
  const lineOf = (keyPath: KeyPath): number | undefined => {
    const node = doc.getIn(keyPath, true) as { range?: [number, number, number] } | undefined;
    const keyNode =
      keyPath.length > 0 ? (doc.getIn(keyPath.slice(0, -1), true) as { items?: { key?: { value?: unknown; range?: number[] } }[] } | undefined) : undefined;
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
    throw new ConfigError(
      source,
      '',
      /alias/i.test(message)
        ? `refused: more than ${MAX_ALIAS_COUNT} YAML alias expansions (an alias bomb?)`
        : `invalid ${isJson ? 'JSON' : 'YAML'}: ${message.split('\n')[0]}`,
    );
  }
  const config = defaultConfig(rules);
  config.source = source;
  if (root === null || root === undefined) return config;

  const problem = firstSchemaProblem(root, rules);
  if (problem) return fail(problem.keyPath, problem.reason);

  // Valid against the schema: only values of the right shape are left to take over.
  const settings = root as ConfigDocument;
  if (settings.failOn !== undefined) config.failOn = settings.failOn;
  if (settings.minSeverity !== undefined) config.minSeverity = settings.minSeverity;
  if (settings.baselineTolerance !== undefined) config.baselineTolerance = settings.baselineTolerance;
  const disabled = new Set<string>();
  for (const [id, ruleSettings] of Object.entries(settings.rules ?? {})) {
    const rule = resolveRule(id, rules)!;
    const configured = config.rules.find((c) => c.rule === rule)!;
    const enabled = typeof ruleSettings === 'boolean' ? ruleSettings : ruleSettings.enabled !== false;
    if (!enabled) disabled.add(rule.meta.id);
    if (typeof ruleSettings === 'boolean') continue;
    if (ruleSettings.severity !== undefined) configured.severity = ruleSettings.severity;
    if (ruleSettings.options !== undefined) configured.options = { ...configured.options, ...ruleSettings.options };
  }
  config.rules = config.rules.filter((c) => !disabled.has(c.rule.meta.id));
  config.disabledRules = [...disabled];
  config.suppress = (settings.suppress ?? []).map((e) => ({
    rule: resolveRule(e.rule, rules)!.meta.id,
    ...(e.subject !== undefined ? { subject: e.subject } : {}),
    reason: e.reason.trim(),
    source: 'config' as const,
  }));
  return config;
}

/** A config document that passed the schema. */
interface ConfigDocument {
  failOn?: FailOn;
  minSeverity?: Severity;
  baselineTolerance?: number;
  rules?: Record<string, boolean | { enabled?: boolean; severity?: Severity; options?: Record<string, unknown> }>;
  suppress?: { rule: string; subject?: string; reason: string }[];
}

/**
 * The first schema violation of a config document, as the key it is at and a reason worded as
 * the flags word theirs (the same did-you-mean and lists of known names). A rule's settings are
 * `true`, `false` or a mapping (anyOf): the mismatch against the branch that was not meant is noise,
 * so a violation inside the mapping wins over both.
 */
function firstSchemaProblem(root: unknown, rules: readonly AnyRule[]): { keyPath: KeyPath; reason: string } | null {
  const { Validator } = loadJsonSchema();
  const { errors } = new Validator().validate(root, buildConfigSchema(rules), { nestedErrors: true });
  if (errors.length === 0) return null;
  const choices = new Set(errors.filter((e) => e.name === 'anyOf').map((e) => formatKey(e.path)));
  const error = errors.find((e) => e.name !== 'anyOf' && !(e.name === 'type' && choices.has(formatKey(e.path)))) ?? errors[0]!;
  return describeSchemaError(error, rules);
}

function describeSchemaError(error: ValidationError, rules: readonly AnyRule[]): { keyPath: KeyPath; reason: string } {
  const at = error.path;
  const value: unknown = error.instance;
  const known = (names: readonly string[]) => names.join(', ');
  const ruleIds = known(rules.map((r) => r.meta.id));
  const [top, id, setting, option] = at;
  if (error.name === 'additionalProperties') {
    const key = String(error.argument);
    const keyPath = [...at, key];
    if (at.length === 0) return { keyPath, reason: `unknown setting${didYouMean(closest(key, TOP_LEVEL_SETTINGS))} (known: ${known(TOP_LEVEL_SETTINGS)})` };
    if (top === 'rules' && at.length === 1) return { keyPath, reason: `unknown rule${didYouMean(nearestRule(key, rules))} (known: ${ruleIds})` };
    if (top === 'rules' && at.length === 2)
      return { keyPath, reason: `unknown rule setting${didYouMean(closest(key, RULE_SETTINGS))} (known: ${known(RULE_SETTINGS)})` };
    if (top === 'rules' && setting === 'options') {
      const names = Object.keys(resolveRule(String(id), rules)?.meta.optionSchema ?? {});
      return { keyPath, reason: `unknown option${didYouMean(closest(key, names))} (${names.length ? `known: ${known(names)}` : 'this rule has no options'})` };
    }
    if (top === 'suppress') return { keyPath, reason: `unknown suppression setting (known: ${known(SUPPRESSION_SETTINGS)})` };
  }
  if (error.name === 'required' && top === 'suppress') {
    // Missing `reason` is reported at the entry's `rule` line: the entry, not a key that is not there.
    return error.argument === 'reason'
      ? { keyPath: [...at, 'rule'], reason: 'a suppression needs a reason: say why the finding is accepted' }
      : { keyPath: [...at, 'rule'], reason: 'is required: the rule id or code to suppress' };
  }
  if (top === 'suppress' && at.length === 1) return { keyPath: at, reason: 'must be a list of {rule, subject, reason} entries' };
  if (top === 'suppress' && at.length === 2) return { keyPath: at, reason: 'must be a mapping with rule, reason and an optional subject glob' };
  if (top === 'suppress' && id !== undefined && setting === 'rule') {
    return {
      keyPath: at,
      reason: `unknown rule ${JSON.stringify(value)}${typeof value === 'string' ? didYouMean(nearestRule(value, rules)) : ''} (known: ${ruleIds})`,
    };
  }
  if (top === 'suppress' && setting === 'subject') return { keyPath: at, reason: 'must be a non-empty glob, e.g. "emojivoto/*"' };
  if (top === 'suppress' && setting === 'reason') return { keyPath: at, reason: 'a suppression needs a reason: say why the finding is accepted' };
  if (at.length === 0) return { keyPath: at, reason: 'the config must be a mapping of settings' };
  if (top === 'rules' && at.length === 1) return { keyPath: at, reason: 'must be a mapping from rule id to its settings' };
  if (top === 'rules' && at.length === 2) return { keyPath: at, reason: `must be true, false or a mapping with ${known(RULE_SETTINGS)}` };
  if (top === 'rules' && setting === 'enabled') return { keyPath: at, reason: `must be true or false, got ${JSON.stringify(value)}` };
  if (top === 'rules' && setting === 'options' && at.length === 3) return { keyPath: at, reason: 'must be a mapping of option names to values' };
  if (top === 'rules' && setting === 'options' && option !== undefined) {
    const spec = (resolveRule(String(id), rules)?.meta.optionSchema as Record<string, RuleOptionSpec> | undefined)?.[String(option)];
    const reason = spec ? optionProblem(spec, value) : null;
    if (reason) return { keyPath: at, reason };
  }
  if (top === 'baselineTolerance') return { keyPath: at, reason: `must be a percentage ≥ 0, got ${JSON.stringify(value)}` };
  if (error.name === 'enum') {
    const allowed = (error.argument as unknown[]).map(String);
    return { keyPath: at, reason: `must be one of ${known(allowed)}, got ${JSON.stringify(value)}${suggestValue(value, allowed)}` };
  }
  return { keyPath: at, reason: error.message };
}

/** `--suppress RULE[=subject-glob]`; RULE is an id or a code. */
export function parseSuppressFlag(value: string, rules: readonly AnyRule[] = RULES): SuppressionEntry {
  const eq = value.indexOf('=');
  const id = eq < 0 ? value : value.slice(0, eq);
  const subject = eq < 0 ? undefined : value.slice(eq + 1);
  const rule = resolveRule(id, rules);
  if (!rule)
    throw new UsageError(
      `--suppress ${value}: unknown rule ${JSON.stringify(id)}${didYouMean(nearestRule(id, rules))} (known: ${rules.map((r) => r.meta.id).join(', ')})`,
    );
  if (subject === '') throw new UsageError(`--suppress ${value}: empty subject glob; drop the = to suppress every finding of the rule`);
  return subject === undefined ? { rule: rule.meta.id, source: 'flag' } : { rule: rule.meta.id, subject, source: 'flag' };
}

/** The rule id or code nearest a mistyped one, the same for the flags and the config file. */
export function nearestRule(idOrCode: string, rules: readonly AnyRule[] = RULES): string | undefined {
  return closest(
    idOrCode,
    rules.flatMap((r) => [r.meta.id, r.meta.code]),
  );
}

/** A rule by id or by code. */
export function resolveRule(idOrCode: string, rules: readonly AnyRule[] = RULES): AnyRule | undefined {
  return rules.find((r) => r.meta.id === idOrCode) ?? rules.find((r) => r.meta.code.toLowerCase() === idOrCode.toLowerCase());
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
