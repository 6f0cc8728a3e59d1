// The Linkerd extension contract (linkerd2 EXTENSIONS.md): `check` in the output shapes of
// `linkerd check` (table, short, json as pkg/healthcheck parses it), `install`/`uninstall` for an
// extension with nothing in the cluster, and `_extension-metadata`. The checks run against a
// given environment in-process, and through the built CLI as `linkerd check` calls it.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  checkExplainPages,
  checkNodeVersion,
  checkOnPath,
  defaultCheckEnvironment,
  checkRuleDocs,
  checkRules,
  formatCheck,
  runChecks,
  type CheckEnvironment,
  type CheckOutput,
} from '../../src/cli/run-check.js';
import { readRuleDocs } from '../../src/core/rule-docs.js';
import { RULES } from '../../src/rules/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(ROOT, 'bin/run.js');

let dir: string;
before(() => {
  const dist = path.join(ROOT, 'dist/commands/check.js');
  if (!existsSync(dist) || statSync(path.join(ROOT, 'src/cli/run-check.ts')).mtimeMs > statSync(dist).mtimeMs)
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  dir = mkdtempSync(path.join(tmpdir(), 'ld-extension-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...options.env };
  delete env.FORCE_COLOR;
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd: options.cwd ?? dir, env, encoding: 'utf8' });
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

/** A directory holding an executable linkerd-doctor, as a global install puts on the PATH. */
function pathWithExecutable(): string {
  const bin = path.join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, 'linkerd-doctor'), '#!/bin/sh\n');
  chmodSync(path.join(bin, 'linkerd-doctor'), 0o755);
  return bin;
}

function environment(overrides: Partial<CheckEnvironment> = {}): CheckEnvironment {
  return {
    nodeVersion: 'v22.11.0',
    engines: '>=20.9',
    rules: RULES,
    docsFor: readRuleDocs,
    pageFor: defaultCheckEnvironment().pageFor,
    cwd: dir,
    pathEnv: pathWithExecutable(),
    ...overrides,
  };
}

describe('the checks', () => {
  it('all pass on a supported Node.js with every rule, its docs and no config', async () => {
    const output = await runChecks(environment());
    assert.equal(output.success, true);
    assert.deepEqual(
      output.categories.map((c) => c.categoryName),
      ['linkerd-doctor'],
    );
    assert.deepEqual(
      output.categories[0]!.checks.map((c) => c.result),
      ['success', 'success', 'success', 'success', 'success', 'success'],
    );
    assert.match(output.categories[0]!.checks[1]!.description, new RegExp(`the ${RULES.length} rules load`));
  });

  it('fail on a Node.js outside the engines range, naming both', () => {
    const old = checkNodeVersion('v18.19.0', '>=20.9');
    assert.equal(old.result, 'error');
    assert.match(old.error!, /v18\.19\.0 is outside the supported range >=20\.9/);
    assert.match(old.hint!, /extension\.md#check$/);
    assert.equal(checkNodeVersion('v20.9.0', '>=20.9').result, 'success');
    assert.equal(checkNodeVersion('v24.1.0', '^20.9 || ^22 || ^24').result, 'success');
    assert.equal(checkNodeVersion('v21.0.0', '^20.9 || ^22 || ^24').result, 'error');
  });

  it('fail on a missing docs page or a duplicate rule code, naming the rule', () => {
    const missing = checkRuleDocs(RULES, (id) => (id === 'dns-ttl-zero' ? null : '# page'));
    assert.equal(missing.result, 'error');
    assert.match(missing.error!, /no docs page for dns-ttl-zero \(/);
    const first = RULES[0]!;
    const twin = { ...RULES[1]!, meta: { ...RULES[1]!.meta, code: first.meta.code } } as (typeof RULES)[number];
    const duplicated = checkRules([first, twin]);
    assert.equal(duplicated.result, 'error');
    assert.match(duplicated.error!, new RegExp(`duplicate rule ids or codes: ${first.meta.code}`));
    assert.equal(checkRules([]).result, 'error');
  });

  it('fail when an explain page is missing or the pages cannot be read', async () => {
    const missing = await checkExplainPages(RULES, async (kind, id) => (kind === 'entries' && id === 'trust-anchor-mismatch' ? null : []));
    assert.equal(missing.result, 'error');
    assert.match(missing.error!, /no explain page for trust-anchor-mismatch;/);
    const unreadable = await checkExplainPages(RULES, async () => {
      throw new Error("Cannot find package 'marked'");
    });
    assert.match(unreadable.error!, /cannot read the explain pages \(Cannot find package 'marked'\); reinstall/);
  });

  it('fail on an invalid config with its one-line error, and name a valid one', async () => {
    const bad = path.join(dir, 'bad');
    mkdirSync(bad, { recursive: true });
    writeFileSync(path.join(bad, '.linkerd-doctor.yaml'), 'rules:\n  reconect-storm:\n    enabled: false\n');
    const output = await runChecks(environment({ cwd: bad }));
    assert.equal(output.success, false);
    const config = output.categories[0]!.checks[4]!;
    assert.equal(config.result, 'error');
    assert.match(config.error!, /^\.linkerd-doctor\.yaml:2: rules\.reconect-storm: unknown rule/);
    const good = path.join(dir, 'good');
    mkdirSync(good, { recursive: true });
    writeFileSync(path.join(good, '.linkerd-doctor.yaml'), 'failOn: warning\n');
    const fine = await runChecks(environment({ cwd: good }));
    assert.equal(fine.success, true);
    assert.equal(fine.categories[0]!.checks[4]!.description, `config .linkerd-doctor.yaml is valid (${RULES.length} rules enabled, 0 suppressions)`);
  });

  it('warn, without failing, when linkerd-doctor is not on the PATH', async () => {
    const empty = path.join(dir, 'empty');
    mkdirSync(empty, { recursive: true });
    assert.equal(checkOnPath(empty).result, 'warning');
    assert.equal(checkOnPath(`${empty}${path.delimiter}${pathWithExecutable()}`).result, 'success');
    const output = await runChecks(environment({ pathEnv: empty }));
    assert.equal(output.success, true, 'a warning still passes');
  });
});

describe('the check output', () => {
  const output: CheckOutput = {
    success: false,
    categories: [
      {
        categoryName: 'linkerd-doctor',
        checks: [
          { description: 'a passes', result: 'success' },
          { description: 'b fails', hint: 'https://h', error: 'why b', result: 'error' },
        ],
      },
    ],
  };

  it('table: the category, a mark per check, the error and hint indented, the closing line', () => {
    assert.equal(
      formatCheck(output, 'table'),
      ['linkerd-doctor', '--------------', '√ a passes', '× b fails', '    why b', '    see https://h for hints', '', 'Status check results are ×', ''].join(
        '\n',
      ),
    );
  });

  it('short: only what did not pass; all passing leaves the closing line', () => {
    assert.doesNotMatch(formatCheck(output, 'short'), /a passes/);
    assert.equal(
      formatCheck({ success: true, categories: [{ categoryName: 'linkerd-doctor', checks: [{ description: 'a', result: 'success' }] }] }, 'short'),
      'Status check results are √\n',
    );
  });
});

describe('through the CLI, as linkerd calls it', () => {
  it('check --output=json with the flags `linkerd check` forwards: the CheckOutput JSON, exit 0', () => {
    const run = cli(['check', '--verbose=false', '--namespace=emojivoto', '--proxy=false', '--wait=5m0s', '--linkerd-namespace=linkerd', '--output=json'], {
      env: { PATH: `${pathWithExecutable()}${path.delimiter}${process.env.PATH}` },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '');
    const parsed = JSON.parse(run.stdout) as CheckOutput;
    assert.equal(parsed.success, true);
    // pkg/healthcheck's Check: description, hint and error only when set, result.
    for (const check of parsed.categories[0]!.checks) {
      assert.deepEqual(Object.keys(check), ['description', 'result']);
      assert.equal(check.result, 'success');
    }
  });

  it('check ignores flags it does not know (a newer linkerd), with a notice on stderr only', () => {
    const run = cli(['check', '--output=json', '--some-future-flag=1']);
    assert.equal(run.code, 0, run.stderr);
    assert.ok((JSON.parse(run.stdout) as CheckOutput).categories.length === 1);
    assert.match(run.stderr, /^linkerd-doctor: notice: check: ignoring flags this version does not know: --some-future-flag=1$/m);
  });

  it('check fails, exit 1, on an invalid config; the table ends with ×', () => {
    const cwd = path.join(dir, 'cli-bad');
    mkdirSync(cwd, { recursive: true });
    writeFileSync(path.join(cwd, '.linkerd-doctor.yaml'), 'failOn: sometimes\n');
    const run = cli(['check'], { cwd });
    assert.equal(run.code, 1);
    assert.match(run.stdout, /^× the config file is valid$/m);
    assert.match(run.stdout, /\nStatus check results are ×\n$/);
    assert.equal(cli(['check', '-o', 'yaml']).code, 2, 'an unknown output format is a usage error');
  });

  for (const action of ['install', 'uninstall']) {
    it(`${action}: nothing on stdout, why on stderr, exit 0 (with Linkerd's global flags)`, () => {
      const run = cli([action, '--context=prod', '-L', 'linkerd']);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, new RegExp(`^linkerd-doctor: notice: ${action}: nothing to`));
      assert.equal(cli([action, '-q']).stderr, '');
    });
  }

  it('_extension-metadata opts in to `linkerd check`: its name and "always"', () => {
    const run = cli(['_extension-metadata']);
    assert.equal(run.code, 0);
    assert.deepEqual(JSON.parse(run.stdout), { name: 'linkerd-doctor', checks: 'always' });
  });
});
