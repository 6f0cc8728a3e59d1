// The README's GitHub Actions and GitLab CI examples, run as written: the YAML is read from
// README.md. The GitHub example uses this repository's action, whose shell steps run here with the
// example's inputs as a runner would run them; the GitLab example runs every script line that does
// not need the network (building the image clones the repository) under sh with `linkerd-doctor`
// on the PATH pointing at this checkout's bin/run.js, as the image puts it there. Each report
// file is checked as its consumer would: SARIF against the 2.1.0 schema, JUnit as XML, Markdown
// as a PR comment.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { Lexer } from 'marked';
import { parse as parseYaml } from 'yaml';
import { ACTION_ROOT, loadAction, readActionOutputs, runActionStep } from '../support/action-runner.js';
import { sarifSchemaErrors } from '../support/sarif-validator.js';
import { ONE_STORM, TWO_STORMS, writeBundle } from '../support/storm-bundle.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

function yamlBlockAfter(heading: string): unknown {
  const at = README.indexOf(`\n${heading}\n`);
  assert.ok(at >= 0, `README has a "${heading}" section`);
  const block = /```yaml\n([\s\S]*?)```/.exec(README.slice(at));
  assert.ok(block, `a yaml block under "${heading}"`);
  return parseYaml(block[1]!);
}

interface WorkflowStep {
  uses?: string;
  run?: string;
  with?: Record<string, string>;
}

function githubSteps(): WorkflowStep[] {
  const workflow = yamlBlockAfter('### GitHub Actions') as { jobs: Record<string, { steps: WorkflowStep[] }> };
  return Object.values(workflow.jobs).flatMap((j) => j.steps);
}

// A ref that exists: main, or a release tag once one is published.
const USES_THIS_ACTION = /^linkerd-doctor\/linkerd-doctor@(?:main|v\d+\.\d+\.\d+)$/;

function gitlabCommands(): string[] {
  const pipeline = yamlBlockAfter('### GitLab CI') as Record<string, { script?: string[] }>;
  return Object.values(pipeline).flatMap((j) => j.script ?? []);
}

const needsNetwork = (command: string) => /git clone|npm (ci|install|pack)|docker (login|build|push)/.test(command);

let dir: string;
let binDir: string;

before(async () => {
  if (!existsSync(path.join(ROOT, 'dist/cli/main.js'))) execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  dir = mkdtempSync(path.join(tmpdir(), 'ld-readme-ci-'));
  binDir = path.join(dir, 'bin');
  execFileSync('mkdir', ['-p', binDir]);
  const shim = path.join(binDir, 'linkerd-doctor');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${path.join(ROOT, 'bin/run.js')}" "$@"\n`);
  chmodSync(shim, 0o755);
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** A repository checkout as the examples expect it: snapshots/ and a committed baseline of an older, smaller incident. */
async function checkout(name: string): Promise<string> {
  const cwd = path.join(dir, name);
  await writeBundle(path.join(cwd, 'older'), ONE_STORM);
  await writeBundle(path.join(cwd, 'snapshots'), TWO_STORMS);
  const written = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'bin/run.js'),
      'analyze',
      'older/',
      '--write-baseline',
      '.linkerd-doctor-baseline.json',
      '-q',
      '--format',
      'json',
      '--output',
      'older.json',
    ],
    { cwd, encoding: 'utf8' },
  );
  assert.equal(written.status, 0, written.stderr);
  rmSync(path.join(cwd, 'older'), { recursive: true });
  return cwd;
}

function runAll(commands: string[], cwd: string): { codes: number[]; stdout: string; stderr: string; summary: string } {
  const summary = path.join(cwd, 'step-summary.md');
  writeFileSync(summary, '');
  const env = { ...process.env, PATH: `${binDir}${path.delimiter}${process.env.PATH}`, GITHUB_STEP_SUMMARY: summary, NO_COLOR: '1' };
  let stdout = '';
  let stderr = '';
  const codes: number[] = [];
  for (const command of commands.filter((c) => !needsNetwork(c))) {
    const run = spawnSync('sh', ['-c', command], { cwd, env, encoding: 'utf8', maxBuffer: 32 << 20 });
    codes.push(run.status ?? -1);
    stdout += run.stdout;
    stderr += run.stderr;
  }
  return { codes, stdout, stderr, summary: readFileSync(summary, 'utf8') };
}

function checkSarif(file: string): void {
  const sarif = JSON.parse(readFileSync(file, 'utf8')) as { runs: { results: { ruleId: string; baselineState?: string; properties?: { code?: string } }[] }[] };
  assert.deepEqual(sarifSchemaErrors(sarif), []);
  const results = sarif.runs[0]!.results;
  assert.ok(results.length >= 2);
  assert.ok(results.every((r) => r.ruleId === 'reconnect-storm' && r.properties?.code === 'LD1001'));
  assert.deepEqual(results.map((r) => r.baselineState).sort(), ['new', 'unchanged']);
}

function checkMarkdown(text: string): void {
  assert.match(text, /^### linkerd-doctor \S+: ❌ \*\*FAIL\*\*/);
  assert.ok(text.length < 65_536, `${text.length} characters is over GitHub's comment limit`);
  const tokens = new Lexer().lex(text);
  const table = tokens.find((t) => t.type === 'table') as { header: unknown[]; rows: unknown[][] } | undefined;
  assert.ok(table, 'the findings table parses as a table');
  assert.ok(table.rows.every((r) => r.length === table.header.length));
  assert.match(text, /LD1001/);
}

function checkJunit(file: string): void {
  const xml = readFileSync(file, 'utf8');
  assert.equal(XMLValidator.validate(xml), true);
  const doc = new XMLParser({ ignoreAttributes: false }).parse(xml) as { testsuites: { '@_failures': string; testsuite: unknown } };
  assert.equal(doc.testsuites['@_failures'], '1', 'the one new storm fails; the known one does not');
}

describe('the README CI examples, run verbatim', () => {
  it('GitHub Actions: the action writes SARIF and Markdown, appends the summary and fails the step on the new storm', async () => {
    const cwd = await checkout('github');
    const steps = githubSteps();
    const uses = steps.filter((s) => s.uses && USES_THIS_ACTION.test(s.uses));
    assert.equal(uses.length, 1, "the example uses this repository's action at main or a release");
    assert.deepEqual(
      steps.filter((s) => s.run),
      [],
      'the action does the work; no shell step of its own',
    );
    const inputs = uses[0]!.with ?? {};
    const action = loadAction();
    writeFileSync(path.join(cwd, 'summary.md'), '');
    const analyzed = runActionStep(
      action,
      action.runs.steps.find((s) => s.id === 'analyze')!,
      cwd,
      inputs,
      { bin: path.join(ACTION_ROOT, 'bin/run.js') },
    );
    assert.equal(analyzed.status, 0, analyzed.stderr);
    assert.match(analyzed.stdout, /^linkerd-doctor \S+ · \d+ inputs/, 'the text report is in the log');
    const outputs = readActionOutputs(cwd);
    assert.equal(outputs['exit-code'], '1', analyzed.stderr);
    assert.doesNotThrow(() => checkSarif(path.join(cwd, outputs['sarif-file']!)));
    const markdown = readFileSync(path.join(cwd, 'linkerd-doctor.md'), 'utf8');
    checkMarkdown(markdown);
    assert.equal(readFileSync(path.join(cwd, 'summary.md'), 'utf8'), markdown);
    assert.equal(runActionStep(action, action.runs.steps.at(-1)!, cwd, inputs, outputs).status, 1, 'the gate step fails the job');
  });

  it('GitLab CI: JUnit, SARIF and Markdown each in the file named after its --format', async () => {
    const cwd = await checkout('gitlab');
    const commands = gitlabCommands();
    const run = runAll(commands, cwd);
    assert.deepEqual(run.codes, [1], run.stderr);
    assert.match(run.stdout, /^linkerd-doctor \S+ · \d+ inputs/);
    checkJunit(path.join(cwd, 'linkerd-doctor.xml'));
    checkSarif(path.join(cwd, 'linkerd-doctor.sarif'));
    checkMarkdown(readFileSync(path.join(cwd, 'linkerd-doctor.md'), 'utf8'));
  });

  it('nothing is installed from a registry that does not have the package: the action builds its checkout, the image is built from a clone', () => {
    assert.ok(githubSteps().some((s) => s.uses && USES_THIS_ACTION.test(s.uses)));
    const installs = gitlabCommands().filter(needsNetwork);
    assert.ok(installs.every((c) => !/npm install --global linkerd-doctor@/.test(c)));
    assert.ok(installs.some((c) => /^git clone .*github\.com\/linkerd-doctor\/linkerd-doctor\.git (\S+)$/.test(c)));
    const clone = /(\S+)$/.exec(installs.find((c) => c.startsWith('git clone'))!)![1]!;
    assert.ok(
      installs.some((c) => c.startsWith('docker build') && c.endsWith(` ${clone}`)),
      "the image is built from the clone's Dockerfile",
    );
    const pipeline = yamlBlockAfter('### GitLab CI') as Record<string, { image?: { name?: string; entrypoint?: string[] } }>;
    const gate = Object.values(pipeline).find((j) => j.image?.name?.includes('linkerd-doctor'));
    assert.deepEqual(gate?.image?.entrypoint, [''], 'GitLab runs the script in the image with a shell, not through its entrypoint');
  });
});
