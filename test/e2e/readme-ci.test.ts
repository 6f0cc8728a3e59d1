// The README's GitHub Actions and GitLab CI examples, run as written: the YAML is read from
// README.md, every shell step that does not need the network (the install clones the repository)
// runs under sh with `linkerd-doctor` on the PATH pointing at this checkout's bin/run.js, and each
// report file is checked as its consumer would: SARIF against the 2.1.0 schema, JUnit as XML,
// Markdown as a PR comment.

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

/** Shell commands of the example, in order, without the install (it clones from the network). */
function githubCommands(): string[] {
  const workflow = yamlBlockAfter('### GitHub Actions') as { jobs: Record<string, { steps: { run?: string }[] }> };
  return Object.values(workflow.jobs).flatMap((j) => j.steps.map((s) => s.run).filter((r): r is string => typeof r === 'string'));
}

function gitlabCommands(): string[] {
  const pipeline = yamlBlockAfter('### GitLab CI') as Record<string, { script?: string[] }>;
  return Object.values(pipeline).flatMap((j) => j.script ?? []);
}

const needsNetwork = (command: string) => /git clone|npm (ci|install|pack)/.test(command);

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
  const written = spawnSync(process.execPath, [path.join(ROOT, 'bin/run.js'), 'analyze', 'older/', '--write-baseline', '.linkerd-doctor-baseline.json', '-q', '--format', 'json', '--output', 'older.json'], { cwd, encoding: 'utf8' });
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
  it('GitHub Actions: text on stdout, SARIF and Markdown in their files, the job summary appended', async () => {
    const cwd = await checkout('github');
    const commands = githubCommands();
    assert.ok(commands.some((c) => c.includes('linkerd-doctor analyze')), 'the example runs analyze');
    const run = runAll(commands, cwd);
    assert.deepEqual(run.codes, [1, 0], `exit codes of the analyze and summary steps; stderr: ${run.stderr}`);
    assert.match(run.stdout, /^linkerd-doctor \S+ · \d+ inputs/, 'the text report is on stdout');
    assert.doesNotThrow(() => checkSarif(path.join(cwd, 'linkerd-doctor.sarif')));
    const markdown = readFileSync(path.join(cwd, 'linkerd-doctor.md'), 'utf8');
    checkMarkdown(markdown);
    assert.equal(run.summary, markdown);
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

  it('the install steps build from the repository, not from a registry that does not have the package', () => {
    const installs = [...githubCommands(), ...gitlabCommands()].filter(needsNetwork);
    assert.ok(installs.length >= 2);
    assert.ok(installs.every((c) => !/npm install --global linkerd-doctor@/.test(c)));
    assert.ok(installs.some((c) => /npm ci && npm install --global "\$\(npm pack --silent\)"/.test(c)));
  });
});

