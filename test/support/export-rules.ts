// Helpers for the export-rules tests: the registry, rule groups built from it, and promtool runs.

import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';
import type { AnyRule } from '../../src/core/types.js';
import { buildRuleGroups } from '../../src/export/build.js';
import type { RuleOptionOverrides } from '../../src/export/config.js';
import { renderRuleFile } from '../../src/export/render.js';
import { DEFAULT_SETTINGS, type ExportSettings, type ExportTarget, type RuleGroup } from '../../src/kit/export/types.js';
import { findRule, RULES } from '../../src/rules/index.js';

const run = promisify(execFile);

/** The real registry: the exported thresholds are the offline rules' own defaults. */
export const FLEET_RULES: readonly AnyRule[] = RULES;

export const fleetLookup = findRule;

export const NO_OVERRIDES: RuleOptionOverrides = { source: null, rules: new Map(), disabled: [] };

export function overrides(rules: Record<string, Record<string, unknown>>): RuleOptionOverrides {
  return { source: 'test.yaml', rules: new Map(Object.entries(rules)), disabled: [] };
}

export function fleetGroups(
  target: ExportTarget,
  opts: { overrides?: RuleOptionOverrides; settings?: Partial<ExportSettings> } = {},
): { groups: RuleGroup[]; notices: string[] } {
  const notices: string[] = [];
  const groups = buildRuleGroups({
    target,
    settings: { ...DEFAULT_SETTINGS, ...opts.settings },
    overrides: opts.overrides ?? NO_OVERRIDES,
    notice: (m) => notices.push(m),
    lookup: fleetLookup,
    registered: FLEET_RULES,
  });
  return { groups, notices };
}

// ---------------------------------------------------------------- promtool

let promtoolProbe: Promise<boolean> | undefined;

export function promtoolAvailable(): Promise<boolean> {
  promtoolProbe ??= run('promtool', ['--version']).then(
    () => true,
    () => false,
  );
  return promtoolProbe;
}

/**
 * Skips locally when promtool is missing; in CI (CI=true) a missing promtool fails the test, so the
 * real-engine checks can never pass by not running.
 */
export async function requirePromtool(t: TestContext): Promise<boolean> {
  if (await promtoolAvailable()) return true;
  if (process.env.CI === 'true') throw new Error("promtool is not on PATH; .ci/run installs Debian's prometheus package, which provides it");
  t.skip('promtool not installed (apt-get install prometheus); skipped outside CI');
  return false;
}

export interface PromtoolResult {
  ok: boolean;
  output: string;
}

export async function promtool(args: string[], cwd: string): Promise<PromtoolResult> {
  try {
    const { stdout, stderr } = await run('promtool', args, { cwd, maxBuffer: 16 * 1024 * 1024 });
    return { ok: true, output: stdout + stderr };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message };
  }
}

/** A scratch directory holding `files`, removed after `fn`. */
export async function withFiles<T>(files: Record<string, string>, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ld-export-'));
  try {
    for (const [name, content] of Object.entries(files)) await writeFile(path.join(dir, name), content);
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function renderPrometheus(groups: RuleGroup[]): string {
  return renderRuleFile(groups, { format: 'yaml', target: 'prometheus', source: null });
}
