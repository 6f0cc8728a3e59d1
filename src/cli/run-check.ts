// `linkerd-doctor check`: the health check every Linkerd extension must answer (linkerd2
// EXTENSIONS.md), in the output shapes of `linkerd check` (pkg/healthcheck: table, short, json).
// linkerd-doctor has nothing in the cluster, so it checks what it needs to work on this machine:
// the Node.js version, the rules and their docs pages, the config file in effect, and that
// `linkerd doctor` can find it on the PATH.

import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import semver from 'semver';
import { loadConfig } from '../config/config.js';
import { DOCS_BASE, TOOL_NAME } from '../core/docs.js';
import { readRuleDocs } from '../core/rule-docs.js';
import type { AnyRule } from '../core/types.js';
import { RULES } from '../rules/index.js';
import { LINKERD_EXTENSION_NAME } from './argv.js';
import { explainPageTokens, type ExplainPageKind } from './explain-pages.js';

const require = createRequire(import.meta.url);
const pkg = require('../../package.json') as { engines?: { node?: string } };

export const CHECK_OUTPUTS = ['table', 'json', 'short'] as const;
export type CheckOutputFormat = (typeof CHECK_OUTPUTS)[number];

/** The category `linkerd check` prints above this extension's checks. */
export const CHECK_CATEGORY = LINKERD_EXTENSION_NAME;

/** The page the hints point to: what each check means and how to fix it. */
export const CHECK_HINT_URL = `${DOCS_BASE.replace(/\/rules$/, '')}/extension.md#check`;

/** pkg/healthcheck's CheckResultStr. */
export type CheckResult = 'success' | 'warning' | 'error';

/** One check as `linkerd check -o json` writes it (pkg/healthcheck Check). */
export interface CheckLine {
  description: string;
  hint?: string;
  error?: string;
  result: CheckResult;
}

/** What `linkerd check` parses from an extension's `check --output=json` (pkg/healthcheck CheckOutput). */
export interface CheckOutput {
  success: boolean;
  categories: { categoryName: string; checks: CheckLine[] }[];
}

export interface CheckEnvironment {
  nodeVersion: string;
  /** package.json engines.node. */
  engines: string;
  rules: readonly AnyRule[];
  docsFor: (ruleId: string) => string | null;
  /** A page's tokens for `explain`, null when it has none. */
  pageFor: (kind: ExplainPageKind, id: string) => Promise<unknown>;
  cwd: string;
  config?: string;
  /** PATH, to look for the executable `linkerd doctor` runs. */
  pathEnv: string;
}

export function defaultCheckEnvironment(config?: string): CheckEnvironment {
  return {
    nodeVersion: process.version,
    engines: pkg.engines?.node ?? '*',
    rules: RULES,
    docsFor: readRuleDocs,
    pageFor: (kind, id) => explainPageTokens(kind, id, () => pageSource(RULES, kind, id)),
    cwd: process.cwd(),
    ...(config !== undefined ? { config } : {}),
    pathEnv: process.env.PATH ?? '',
  };
}

/** A page's Markdown, for a source checkout without the build's pages. */
function pageSource(rules: readonly AnyRule[], kind: ExplainPageKind, id: string): string | null {
  if (kind === 'rules') return readRuleDocs(id);
  const owner = rules.find((r) => r.catalogue?.ids.includes(id));
  return owner?.catalogue ? owner.catalogue.page(id) : null;
}

const ok = (description: string): CheckLine => ({ description, result: 'success' });
const problem = (result: 'warning' | 'error', description: string, error: string): CheckLine => ({ description, hint: CHECK_HINT_URL, error, result });

export function checkNodeVersion(version: string, engines: string): CheckLine {
  const description = `Node.js ${version} satisfies ${engines}`;
  return semver.satisfies(version, engines)
    ? ok(description)
    : problem('error', description, `Node.js ${version} is outside the supported range ${engines}; install a supported Node.js LTS`);
}

export function checkRules(rules: readonly AnyRule[]): CheckLine {
  const description = `the ${rules.length} rules load with unique ids and codes`;
  const seen = new Set<string>();
  const duplicates: string[] = [];
  for (const { meta } of rules) {
    for (const name of [meta.id, meta.code]) {
      if (seen.has(name)) duplicates.push(name);
      seen.add(name);
    }
  }
  if (rules.length === 0) return problem('error', 'the rules load', 'no rules are registered; reinstall linkerd-doctor');
  return duplicates.length === 0
    ? ok(description)
    : problem('error', description, `duplicate rule ids or codes: ${duplicates.join(', ')}; reinstall linkerd-doctor`);
}

export function checkRuleDocs(rules: readonly AnyRule[], docsFor: (ruleId: string) => string | null): CheckLine {
  const description = 'every rule has its docs page for `linkerd-doctor explain`';
  const missing = rules.map((r) => r.meta.id).filter((id) => docsFor(id) === null);
  return missing.length === 0
    ? ok(description)
    : problem('error', description, `no docs page for ${missing.join(', ')} (docs/rules/<id>.md is missing from the install); reinstall linkerd-doctor`);
}

/** The pages `explain` prints, lexed at build time (dist/explain-pages.json.br), for every rule and catalogue entry. */
export async function checkExplainPages(rules: readonly AnyRule[], pageFor: (kind: ExplainPageKind, id: string) => Promise<unknown>): Promise<CheckLine> {
  const catalogues = rules.flatMap((r) => (r.catalogue ? [r.catalogue] : []));
  const entries = catalogues.map((c) => ` and its ${c.ids.length} known ${c.noun}s`).join('');
  const description = `\`linkerd-doctor explain\` has a page for every rule${entries}`;
  const missing: string[] = [];
  try {
    for (const id of rules.map((r) => r.meta.id)) if ((await pageFor('rules', id)) === null) missing.push(id);
    for (const id of catalogues.flatMap((c) => c.ids)) if ((await pageFor('entries', id)) === null) missing.push(id);
  } catch (err) {
    return problem(
      'error',
      description,
      `cannot read the explain pages (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); reinstall linkerd-doctor`,
    );
  }
  return missing.length === 0 ? ok(description) : problem('error', description, `no explain page for ${missing.join(', ')}; reinstall linkerd-doctor`);
}

export async function checkConfig(cwd: string, file: string | undefined, rules: readonly AnyRule[]): Promise<CheckLine> {
  try {
    const config = await loadConfig(file, { cwd, rules });
    if (config.source === null) return ok('no config file in the working directory; every rule runs with its defaults');
    return ok(`config ${config.source} is valid (${config.rules.length} rules enabled, ${config.suppress.length} suppressions)`);
  } catch (err) {
    return problem('error', 'the config file is valid', err instanceof Error ? err.message : String(err));
  }
}

/** `linkerd doctor` runs the first executable named linkerd-doctor on the PATH. */
export function checkOnPath(pathEnv: string): CheckLine {
  const description = `${TOOL_NAME} is on the PATH, so \`linkerd doctor\` runs it`;
  for (const dir of pathEnv.split(path.delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(path.join(dir, TOOL_NAME), constants.X_OK);
      return ok(description);
    } catch {
      // not in this directory
    }
  }
  return problem(
    'warning',
    description,
    `no executable ${TOOL_NAME} on the PATH; install it globally (npm install -g linkerd-doctor) to use it as \`linkerd doctor\``,
  );
}

export async function runChecks(env: CheckEnvironment): Promise<CheckOutput> {
  const checks = [
    checkNodeVersion(env.nodeVersion, env.engines),
    checkRules(env.rules),
    checkRuleDocs(env.rules, env.docsFor),
    await checkExplainPages(env.rules, env.pageFor),
    await checkConfig(env.cwd, env.config, env.rules),
    checkOnPath(env.pathEnv),
  ];
  return { success: checks.every((c) => c.result !== 'error'), categories: [{ categoryName: CHECK_CATEGORY, checks }] };
}

const MARKS: Record<CheckResult, string> = { success: '√', warning: '‼', error: '×' };

/** `linkerd check`'s table (every check) or short (only the ones that did not pass) layout. */
export function formatCheckTable(output: CheckOutput, format: 'table' | 'short', paint: (result: CheckResult, mark: string) => string = (_, m) => m): string {
  const lines: string[] = [];
  for (const category of output.categories) {
    const shown = format === 'short' ? category.checks.filter((c) => c.result !== 'success') : category.checks;
    if (shown.length === 0) continue;
    lines.push(category.categoryName, '-'.repeat(category.categoryName.length));
    for (const check of shown) {
      lines.push(`${paint(check.result, MARKS[check.result])} ${check.description}`);
      if (check.error) lines.push(`    ${check.error}`);
      if (check.error && check.hint) lines.push(`    see ${check.hint} for hints`);
    }
    lines.push('');
  }
  const mark = output.success ? 'success' : 'error';
  lines.push(`Status check results are ${paint(mark, MARKS[mark])}`);
  return lines.join('\n') + '\n';
}

export function formatCheck(output: CheckOutput, format: CheckOutputFormat, paint?: (result: CheckResult, mark: string) => string): string {
  // json: the indented object linkerd's own `check -o json` prints (json.MarshalIndent, two spaces).
  return format === 'json' ? JSON.stringify(output, null, 2) + '\n' : formatCheckTable(output, format, paint);
}
