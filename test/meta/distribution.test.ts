// The container image (Dockerfile) and the GitHub Actions composite action (action.yml).
// The image is built and run where a Docker engine answers; elsewhere that test is skipped with
// the reason, and the static checks still hold. The action's shell steps run here as GitHub
// would run them: with GITHUB_ACTION_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY set and the
// inputs in the step's env.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadAction, readActionOutputs, runActionStep } from '../support/action-runner.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

before(() => {
  if (!existsSync(path.join(ROOT, 'dist/cli/output.js'))) execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const instructions = dockerfile
    .split('\n')
    .filter((l) => /^[A-Z]+ /.test(l))
    .map((l) => l.trim());
  const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

  it('builds in one stage and runs from a slim current-LTS stage with only the packed tarball installed, as a non-root user', () => {
    const froms = instructions.filter((l) => l.startsWith('FROM '));
    assert.equal(froms.length, 2);
    // Pinned by digest (third audit, item 10): a rebuild gets the same base image.
    assert.match(froms[0]!, /^FROM node:24-slim@sha256:[0-9a-f]{64} AS build$/);
    assert.match(froms[1]!, /^FROM node:24-slim@sha256:[0-9a-f]{64}$/);
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    // Runtime dependencies from the lockfile, with no install script.
    assert.match(runtime, /tar -xzf \/tmp\/linkerd-doctor\.tgz/);
    assert.match(runtime, /COPY --from=build \/src\/package-lock\.json/);
    assert.match(runtime, /npm ci --omit=dev --ignore-scripts/);
    const commands = dockerfile
      .split('\n')
      .filter((l) => !l.trimStart().startsWith('#'))
      .join('\n');
    assert.doesNotMatch(commands, /npm (?:install|ci)(?![^\n]*--ignore-scripts)/, 'every install in the image runs without scripts');
    assert.match(runtime, /^USER node$/m);
    assert.match(runtime, /^ENTRYPOINT \["linkerd-doctor"\]$/m);
    assert.doesNotMatch(runtime, /COPY (?!--from=build)/, 'the runtime stage copies nothing but the packed tarball');
  });

  it('copies only files that exist and that .dockerignore keeps in the context', () => {
    for (const line of instructions.filter((l) => l.startsWith('COPY ') && !l.includes('--from='))) {
      const sources = line.split(/\s+/).slice(1, -1);
      for (const source of sources) {
        assert.ok(existsSync(path.join(ROOT, source)), `${line}: ${source} missing`);
        assert.ok(!ignored.some((i) => source === i || source.startsWith(`${i}/`)), `${source} is excluded by .dockerignore`);
      }
    }
    for (const local of ['node_modules', 'dist', '.git', 'test', 'fixtures']) assert.ok(ignored.includes(local), `.dockerignore keeps ${local} out`);
  });

  it('copies every script `npm run build` runs into the build stage', () => {
    // The image is built only where a Docker engine runs, so a build step the Dockerfile does not
    // copy would otherwise go unnoticed (the explain pages' script once did).
    const build = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { build: string } }).scripts.build;
    const scripts = [...build.matchAll(/\bnode (scripts\/[\w.-]+\.js)/g)].map((m) => m[1]!);
    assert.ok(scripts.length >= 3, build);
    const copied = instructions.filter((l) => l.startsWith('COPY ') && !l.includes('--from=')).flatMap((l) => l.split(/\s+/).slice(1, -1));
    for (const script of scripts)
      assert.ok(copied.includes(script) || copied.includes('scripts'), `the build runs ${script}, which the Dockerfile does not copy`);
  });

  it('builds an image that analyses a mounted bundle', async (t) => {
    const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8' });
    if (info.status !== 0) {
      const why = info.error ? `docker is not installed (${info.error.message})` : `no Docker engine answers: ${(info.stderr || '').trim().split('\n').pop()}`;
      t.skip(`${why}; the image is built only where an engine runs`);
      return;
    }
    const tag = `linkerd-doctor-test:${process.pid}`;
    try {
      execFileSync('docker', ['build', '-t', tag, '.'], { cwd: ROOT, stdio: 'inherit', timeout: 600_000 });
      const user = execFileSync('docker', ['run', '--rm', '--entrypoint', 'id', tag, '-u'], { encoding: 'utf8' }).trim();
      assert.notEqual(user, '0', 'runs as a non-root user');
      const run = spawnSync(
        'docker',
        ['run', '--rm', '-v', `${path.join(ROOT, 'fixtures')}:/work:ro`, tag, 'analyze', '/work/storm', '--format', 'json', '-q'],
        { encoding: 'utf8' },
      );
      assert.equal(run.status, 1, run.stderr);
      const report = JSON.parse(run.stdout) as { findings: { ruleId: string }[] };
      assert.ok(report.findings.some((f) => f.ruleId === 'reconnect-storm'));
    } finally {
      spawnSync('docker', ['rmi', '-f', tag]);
    }
  });
});

describe('action.yml', () => {
  const action = loadAction();
  let work: string;

  before(() => {
    work = mkdtempSync(path.join(tmpdir(), 'ld-action-'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('is a composite action with the expected inputs and outputs', () => {
    assert.equal(action.runs.using, 'composite');
    assert.deepEqual(Object.keys(action.inputs).sort(), ['args', 'baseline', 'config', 'fail-on', 'markdown-file', 'paths', 'sarif-file', 'upload-sarif']);
    assert.equal(action.inputs.paths!.required, true);
    assert.equal(action.inputs['fail-on']!.default, 'error');
    for (const [name, input] of Object.entries(action.inputs)) assert.ok(input.description, name);
    assert.deepEqual(Object.keys(action.outputs).sort(), ['exit-code', 'sarif-file']);
    for (const step of action.runs.steps) {
      assert.ok(step.name, 'every step is named');
      if (step.run) assert.equal(step.shell, 'bash', `${step.name}: composite run steps must name a shell`);
      // Inputs must not be spliced into script text (script injection): only env carries them.
      if (step.run) assert.doesNotMatch(step.run, /\$\{\{/, `${step.name} interpolates an expression into its script`);
    }
    const upload = action.runs.steps.find((s) => s.uses?.startsWith('github/codeql-action/upload-sarif@'));
    assert.ok(upload, 'uploads the SARIF');
    assert.equal(upload.with?.sarif_file, '${{ inputs.sarif-file }}');
  });

  /** Runs the install step with a stand-in npm that records its calls (a real install here would rewrite this checkout). */
  function runInstallStep(registryHasIt: boolean): { calls: string[]; stdout: string; bin: string | undefined } {
    const shim = path.join(work, 'shim');
    execFileSync('mkdir', ['-p', shim]);
    rmSync(path.join(work, 'npm.log'), { force: true });
    rmSync(path.join(work, 'output'), { force: true });
    const failInstall = registryHasIt ? '' : 'case "$1" in install) echo "npm error 404 Not Found" >&2; exit 1;; esac\n';
    writeFileSync(path.join(shim, 'npm'), `#!/bin/sh\necho "$PWD :: $*" >> "${path.join(work, 'npm.log')}"\n${failInstall}`);
    chmodSync(path.join(shim, 'npm'), 0o755);
    const step = action.runs.steps.find((s) => s.id === 'install')!;
    const result = runActionStep(action, step, work, { paths: 'x' }, {}, { PATH: `${shim}:${process.env.PATH}`, RUNNER_TEMP: work });
    assert.equal(result.status, 0, result.stderr);
    return { calls: readFileSync(path.join(work, 'npm.log'), 'utf8').trim().split('\n'), stdout: result.stdout, bin: readActionOutputs(work).bin };
  }

  // Third audit, item 10: the code the action runs is the code of the commit it is pinned to, its
  // dependencies those of the lockfile, and no install script runs: nothing is fetched by name.
  it('install step: builds the action checkout from its lockfile with install scripts off, and fetches nothing by name', () => {
    const { calls, bin } = runInstallStep(true);
    const root = ROOT.replace(/\/$/, '');
    assert.deepEqual(calls, [`${root} :: ci --ignore-scripts --no-audit --no-fund --loglevel=error`, `${root} :: run build`]);
    assert.equal(bin, path.join(root, 'bin/run.js'));
  });

  it('pins upload-sarif to a full commit, not a moving tag', () => {
    const upload = action.runs.steps.find((s) => s.uses?.startsWith('github/codeql-action/upload-sarif@'))!;
    assert.match(upload.uses!, /^github\/codeql-action\/upload-sarif@[0-9a-f]{40}$/);
  });

  /** What the install step hands the analyze step when it built this checkout. */
  const installed = { bin: path.join(ROOT, 'bin/run.js') };
  const analyze = () => action.runs.steps.find((s) => s.id === 'analyze')!;
  const gate = () => action.runs.steps.at(-1)!;

  it('analyze + gate on a storm bundle: SARIF and markdown written, summary appended, step fails with exit 1', () => {
    rmSync(path.join(work, 'output'), { force: true });
    execFileSync('cp', ['-r', path.join(ROOT, 'fixtures/storm'), path.join(work, 'storm')]);
    writeFileSync(path.join(work, 'summary.md'), '# earlier step\n');
    const inputs = { paths: 'storm/linkerd\n  storm/ingress', 'fail-on': 'error' };
    const result = runActionStep(action, analyze(), work, inputs, installed);
    assert.equal(result.status, 0, `the analyze step records the code and does not fail itself: ${result.stderr}`);
    assert.match(result.stdout, /reconnect storm/i, 'the text report goes to the log');
    const outputs = readActionOutputs(work);
    assert.equal(outputs['exit-code'], '1');
    assert.equal(outputs['sarif-file'], 'linkerd-doctor.sarif');
    const sarif = JSON.parse(readFileSync(path.join(work, 'linkerd-doctor.sarif'), 'utf8')) as { version: string; runs: { results: unknown[] }[] };
    assert.equal(sarif.version, '2.1.0');
    assert.ok(sarif.runs[0]!.results.length > 0);
    const summary = readFileSync(path.join(work, 'summary.md'), 'utf8');
    assert.ok(summary.startsWith('# earlier step\n'), 'appends, never overwrites');
    assert.equal(summary.slice('# earlier step\n'.length), readFileSync(path.join(work, 'linkerd-doctor.md'), 'utf8'));
    const gated = runActionStep(action, gate(), work, inputs, outputs);
    assert.equal(gated.status, 1);
    assert.match(gated.stdout, /::error title=linkerd-doctor::analyze exited 1/);
  });

  it('a clean bundle passes the gate; fail-on none and extra args reach analyze', () => {
    rmSync(path.join(work, 'output'), { force: true });
    execFileSync('cp', ['-r', path.join(ROOT, 'fixtures/healthy'), path.join(work, 'healthy')]);
    execFileSync('mkdir', ['-p', path.join(work, 'out')]);
    runActionStep(action, analyze(), work, { paths: 'healthy', 'sarif-file': 'out/h.sarif', 'markdown-file': 'h.md' }, installed);
    assert.equal(readActionOutputs(work)['exit-code'], '0');
    assert.ok(existsSync(path.join(work, 'out/h.sarif')) && existsSync(path.join(work, 'h.md')));
    assert.equal(runActionStep(action, gate(), work, {}, readActionOutputs(work)).status, 0);
    rmSync(path.join(work, 'output'), { force: true });
    runActionStep(action, analyze(), work, { paths: 'storm', 'fail-on': 'none', args: '--min-severity error' }, installed);
    assert.equal(readActionOutputs(work)['exit-code'], '0');
  });

  it('a missing input fails the step with exit 2', () => {
    rmSync(path.join(work, 'output'), { force: true });
    const result = runActionStep(action, analyze(), work, { paths: 'no-such-dir' }, installed);
    assert.equal(result.status, 0);
    assert.equal(readActionOutputs(work)['exit-code'], '2');
    assert.equal(runActionStep(action, gate(), work, {}, readActionOutputs(work)).status, 2);
  });

  // Third audit, f10: a newline in sarif-file appended `exit-code=0` after the real code in
  // GITHUB_OUTPUT, and the gate read the forged value and passed.
  it('refuses a sarif-file or markdown-file input holding a newline, writing no output a gate could read', () => {
    for (const inputs of <Record<string, string>[]>[
      { paths: 'storm', 'sarif-file': 'r.sarif\nexit-code=0' },
      { paths: 'storm', 'markdown-file': 'r.md\rexit-code=0' },
    ]) {
      rmSync(path.join(work, 'output'), { force: true });
      const result = runActionStep(action, analyze(), work, inputs, installed);
      assert.equal(result.status, 2, 'the step itself fails');
      assert.match(result.stdout, /::error title=linkerd-doctor::the sarif-file and markdown-file inputs must each be a single line/);
      assert.deepEqual(readActionOutputs(work), {});
    }
  });
});
