// Minimal reader for the `rules:` part of .linkerd-doctor.yaml, so export-rules takes its thresholds
// from the same file as analyze. Kept to one function (loadRuleOptionOverrides) so the shared
// config loader can replace it: anything it returns as `rule id → options` fits.

import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { isMap, isScalar, parseDocument } from 'yaml';
import { describeSystemError, InputError } from '../core/errors.js';

export const DEFAULT_CONFIG_FILE = '.linkerd-doctor.yaml';

export interface RuleOptionOverrides {
  /** The file the overrides came from, or null when none was found. */
  source: string | null;
  /** Per rule id, the raw option values from `rules.<id>.options` (validated later against the rule's schema). */
  rules: Map<string, Record<string, unknown>>;
}

/**
 * Reads `rules: { <id>: { options: {...} } }` from FILE, or from .linkerd-doctor.yaml in `cwd` when
 * no FILE is given (a missing default file just means no overrides). Other keys are left to the
 * commands that own them.
 */
export async function loadRuleOptionOverrides(file: string | undefined, cwd: string = process.cwd()): Promise<RuleOptionOverrides> {
  const configPath = file ?? path.join(cwd, DEFAULT_CONFIG_FILE);
  if (file === undefined && !(await exists(configPath))) return { source: null, rules: new Map() };
  let text: string;
  try {
    text = await readFile(configPath, 'utf8');
  } catch (err) {
    throw new InputError(configPath, describeSystemError(err));
  }
  return { source: configPath, rules: parseRuleOptions(text, configPath) };
}

export function parseRuleOptions(text: string, configPath: string): Map<string, Record<string, unknown>> {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  const firstError = doc.errors[0];
  if (firstError) throw new InputError(configPath, `invalid YAML: ${firstError.message.split('\n')[0]}`, firstError.linePos?.[0]?.line);
  const result = new Map<string, Record<string, unknown>>();
  const root = doc.contents;
  if (root === null || (isScalar(root) && root.value === null)) return result;
  if (!isMap(root)) throw new InputError(configPath, 'expected a mapping at the top level', lineOf(text, root));
  const rules = root.get('rules', true);
  if (rules === undefined || (isScalar(rules) && rules.value === null)) return result;
  if (!isMap(rules)) throw new InputError(configPath, '`rules` must map rule ids to settings', lineOf(text, rules));
  for (const pair of rules.items) {
    const id = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const settings = pair.value;
    if (settings === null || (isScalar(settings) && settings.value === null)) continue;
    if (!isMap(settings)) throw new InputError(configPath, `rules.${id} must be a mapping`, lineOf(text, settings));
    const options = settings.get('options', true);
    if (options === undefined || (isScalar(options) && options.value === null)) continue;
    if (!isMap(options)) throw new InputError(configPath, `rules.${id}.options must be a mapping of option names to values`, lineOf(text, options));
    result.set(id, options.toJSON() as Record<string, unknown>);
  }
  return result;
}

/** 1-based line of a YAML node, for the one-line error. */
function lineOf(text: string, node: unknown): number | undefined {
  const start = (node as { range?: [number, number, number] } | null)?.range?.[0];
  if (start === undefined) return undefined;
  let line = 1;
  for (let i = 0; i < start && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
