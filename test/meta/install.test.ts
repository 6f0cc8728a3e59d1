// The README's two install paths, run into a temporary npm prefix: `npm install --global .` from
// the clone, and the packed tarball. Both install offline from the npm cache `npm ci` filled,
// then the installed `linkerd-doctor` analyses the storm bundle. The tarball is packed with
// --ignore-scripts: its prepack build would rewrite dist/ under the tests running beside this one,
// and `npm test` has just built it.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const STORM = path.join(ROOT, 'fixtures/storm');
const QUIET_NPM = ['--offline', '--no-audit', '--no-fund', '--loglevel=error'];

let dir: string;
before(() => {
  if (!existsSync(path.join(ROOT, 'dist/cli/main.js'))) execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  dir = mkdtempSync(path.join(tmpdir(), 'ld-install-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function npm(args: string[], cwd: string): string {
  const run = spawnSync('npm', args, { cwd, encoding: 'utf8' });
  assert.equal(run.status, 0, `npm ${args.join(' ')}: ${run.stderr}${/ENOTCACHED/.test(run.stderr) ? ' (run npm ci first: it fills the npm cache this test installs from)' : ''}`);
  return run.stdout;
}

/** The installed command analyses the storm bundle as the README's quick start does. */
function checkInstalled(prefix: string): void {
  const bin = path.join(prefix, 'bin', 'linkerd-doctor');
  const version = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  assert.equal(version.status, 0, version.stderr);
  assert.match(version.stdout, /^linkerd-doctor\/0\.1\.0 /);
  const run = spawnSync(bin, ['analyze', STORM, '--summary'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '100' } });
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stdout, /^Probable cause: Destination controller saturated/m);
}

describe('installing as the README says', () => {
  it('documents both paths', () => {
    assert.match(README, /^npm ci && npm run build && npm install --global \.$/m);
    assert.match(README, /^npm install --global \.\/linkerd-doctor-0\.1\.0\.tgz$/m);
  });

  it('from a clone: npm install --global .', () => {
    const prefix = path.join(dir, 'from-clone');
    npm(['install', '--global', '.', '--prefix', prefix, ...QUIET_NPM], ROOT);
    checkInstalled(prefix);
  });

  it('from the packed tarball: the built CLI, a LICENSE, no source maps of its own', async () => {
    const tarball = npm(['pack', '--silent', '--ignore-scripts', '--pack-destination', dir], ROOT).trim();
    assert.equal(tarball, 'linkerd-doctor-0.1.0.tgz');
    const prefix = path.join(dir, 'from-tarball');
    npm(['install', '--global', path.join(dir, tarball), '--prefix', prefix, ...QUIET_NPM], dir);
    checkInstalled(prefix);
    const installed = path.join(prefix, 'lib', 'node_modules', 'linkerd-doctor');
    assert.match(readFileSync(path.join(installed, 'LICENSE'), 'utf8'), /Apache License\s+Version 2\.0/);
    assert.deepEqual(await fg('**/*.map', { cwd: installed, ignore: ['node_modules/**'] }), []);
    assert.equal(existsSync(path.join(installed, 'src')), false);
  });
});
