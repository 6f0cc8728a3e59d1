// Runs the shell steps of this repository's composite action (action.yml) as a GitHub runner
// would: bash -e -o pipefail, GITHUB_ACTION_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and
// GITHUB_WORKSPACE set, and `${{ … }}` resolved into the step's env. Shared by the action's own
// test and by the README example that uses the action.

import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const ACTION_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ActionStep {
  name?: string;
  id?: string;
  shell?: string;
  run?: string;
  uses?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
  'working-directory'?: string;
}

export interface Action {
  name: string;
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

export function loadAction(): Action {
  return parse(readFileSync(path.join(ACTION_ROOT, 'action.yml'), 'utf8')) as Action;
}

/** Runs one shell step of `action` in `work` (the workspace) with these inputs and earlier outputs. */
export function runActionStep(
  action: Action,
  step: ActionStep,
  work: string,
  inputs: Record<string, string>,
  outputs: Record<string, string>,
  extraEnv: Record<string, string> = {},
): SpawnSyncReturns<string> {
  const resolve = (value: string) =>
    value.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_m, expr: string) => {
      if (expr === 'github.action_path') return ACTION_ROOT.replace(/\/$/, '');
      const input = /^inputs\.([\w-]+)$/.exec(expr);
      if (input) return inputs[input[1]!] ?? action.inputs[input[1]!]?.default ?? '';
      const output = /^steps\.(?:install|analyze)\.outputs\.([\w-]+)$/.exec(expr);
      if (output) return outputs[output[1]!] ?? '';
      throw new Error(`unresolved expression ${expr}`);
    });
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    GITHUB_ACTION_PATH: ACTION_ROOT,
    GITHUB_WORKSPACE: work,
    GITHUB_OUTPUT: path.join(work, 'output'),
    GITHUB_STEP_SUMMARY: path.join(work, 'summary.md'),
    GITHUB_PATH: path.join(work, 'path'),
    NO_COLOR: '1',
    ...extraEnv,
  };
  for (const [k, v] of Object.entries(step.env ?? {})) env[k] = resolve(String(v));
  const cwd = step['working-directory'] ? resolve(step['working-directory']) : work;
  return spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run!], { cwd, env, encoding: 'utf8', maxBuffer: 32 << 20 });
}

/** The `name=value` lines the steps appended to GITHUB_OUTPUT in `work`. */
export function readActionOutputs(work: string): Record<string, string> {
  const file = path.join(work, 'output');
  if (!existsSync(file)) return {};
  return Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}
