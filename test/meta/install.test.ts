// The README's two install paths, each run into a temporary directory, then the installed
// `linkerd-doctor` analyses the storm bundle:
// - from a clone, `npm install --global .` into a temporary prefix (npm links the clone, whose
//   node_modules `npm ci` filled);
// - the packed tarball with exactly the runtime dependencies this clone's package-lock.json pins.
//   `npm install --global <tarball>` would need each dependency's registry metadata, which
//   `npm ci` never caches (it fetches tarballs by their locked URL and integrity), so on a fresh
//   machine it fails with ENOTCACHED. Instead the test writes a throw-away project whose lockfile
//   holds the tarball plus the runtime entries of ours, and runs `npm ci --offline` there: every
//   dependency tarball comes from the npm cache `npm ci` just filled, with no network.
// The tarball is packed with --ignore-scripts: its prepack build would rewrite dist/ under the tests
// running beside this one, and `npm test` has just built it.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const STORM = path.join(ROOT, 'fixtures/storm');
const QUIET_NPM = ['--offline', '--no-audit', '--no-fund', '--loglevel=error'];

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dev?: boolean;
  devOptional?: boolean;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  bin?: Record<string, string>;
  engines?: Record<string, string>;
  [key: string]: unknown;
}
interface Manifest {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  bin: Record<string, string>;
  engines?: Record<string, string>;
  license?: string;
}

let dir: string;
before(() => {
  if (!existsSync(path.join(ROOT, 'dist/cli/main.js'))) execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  dir = mkdtempSync(path.join(tmpdir(), 'ld-install-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function npm(args: string[], cwd: string): string {
  const run = spawnSync('npm', args, { cwd, encoding: 'utf8' });
  assert.equal(
    run.status,
    0,
    `npm ${args.join(' ')}: ${run.stderr}${/ENOTCACHED/.test(run.stderr) ? ' (run npm ci first, with the same npm cache: it fills the cache this test installs from)' : ''}`,
  );
  return run.stdout;
}

/** The installed command analyses the storm bundle as the README's quick start does. */
function checkInstalled(bin: string): void {
  const version = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  assert.equal(version.status, 0, version.stderr);
  assert.match(version.stdout, /^linkerd-doctor\/0\.1\.0 /);
  const run = spawnSync(bin, ['analyze', STORM, '--summary'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '100' } });
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stdout, /^Probable cause: Destination controller saturated/m);
}

/**
 * A project that depends on the tarball alone, with a lockfile `npm ci` can install offline: the
 * tarball's entry (by its sha512) and our lockfile's runtime entries at the same paths. Dev-only
 * entries are dropped; a runtime package npm nested under its dependent stays nested.
 */
function projectForTarball(project: string, tarball: string): void {
  const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Manifest;
  const spec = `file:${path.relative(project, tarball)}`;
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  const packages: Record<string, LockEntry> = {
    '': { name: 'ld-install-check', dependencies: { [manifest.name]: spec } },
    [`node_modules/${manifest.name}`]: {
      version: manifest.version,
      resolved: spec,
      integrity,
      license: manifest.license,
      dependencies: manifest.dependencies,
      bin: manifest.bin,
      ...(manifest.engines ? { engines: manifest.engines } : {}),
    },
  };
  for (const [key, entry] of Object.entries(lock.packages)) if (key !== '' && !entry.dev && !entry.devOptional && !entry.link) packages[key] = entry;
  mkdirSync(project, { recursive: true });
  writeFileSync(
    path.join(project, 'package.json'),
    `${JSON.stringify({ name: 'ld-install-check', private: true, dependencies: { [manifest.name]: spec } }, null, 2)}\n`,
  );
  writeFileSync(
    path.join(project, 'package-lock.json'),
    `${JSON.stringify({ name: 'ld-install-check', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`,
  );
}

describe('installing as the README says', () => {
  it('documents both paths', () => {
    assert.match(README, /^npm ci && npm run build && npm install --global \.$/m);
    assert.match(README, /^npm install --global \.\/linkerd-doctor-0\.1\.0\.tgz$/m);
  });

  it('from a clone: npm install --global .', () => {
    const prefix = path.join(dir, 'from-clone');
    npm(['install', '--global', '.', '--prefix', prefix, ...QUIET_NPM], ROOT);
    checkInstalled(path.join(prefix, 'bin', 'linkerd-doctor'));
  });

  it('from the packed tarball with the locked runtime dependencies: the built CLI, a LICENSE, no source maps of its own', async () => {
    const tarball = npm(['pack', '--silent', '--ignore-scripts', '--pack-destination', dir], ROOT).trim();
    assert.equal(tarball, 'linkerd-doctor-0.1.0.tgz');
    const project = path.join(dir, 'from-tarball');
    projectForTarball(project, path.join(dir, tarball));
    npm(['ci', '--ignore-scripts', ...QUIET_NPM], project);
    checkInstalled(path.join(project, 'node_modules', '.bin', 'linkerd-doctor'));
    const installed = path.join(project, 'node_modules', 'linkerd-doctor');
    assert.match(readFileSync(path.join(installed, 'LICENSE'), 'utf8'), /Apache License\s+Version 2\.0/);
    assert.deepEqual(await fg('**/*.map', { cwd: installed, ignore: ['node_modules/**'] }), []);
    assert.equal(existsSync(path.join(installed, 'src')), false);
    // Shell completion (oclif's plugin, a runtime dependency) works from the install: it finds the
    // plugin where npm put it and writes functions that name our commands and flags.
    const cacheHome = path.join(dir, 'completion-home');
    const bin = path.join(project, 'node_modules', '.bin', 'linkerd-doctor');
    const complete = spawnSync(bin, ['autocomplete', '--refresh-cache'], {
      encoding: 'utf8',
      env: { ...process.env, HOME: cacheHome, XDG_CACHE_HOME: path.join(cacheHome, '.cache') },
    });
    assert.equal(complete.status, 0, complete.stderr);
    const bash = readFileSync(path.join(cacheHome, '.cache/linkerd-doctor/autocomplete/functions/bash/linkerd-doctor.bash'), 'utf8');
    assert.match(bash, /^analyze --format --output --fail-on /m);
    const script = spawnSync(bin, ['autocomplete', 'script', 'zsh'], {
      encoding: 'utf8',
      env: { ...process.env, HOME: cacheHome, XDG_CACHE_HOME: path.join(cacheHome, '.cache') },
    });
    assert.equal(script.status, 0, script.stderr);
    assert.match(script.stdout, /LINKERD_DOCTOR_AC_ZSH_SETUP_PATH=/);
    // Only the runtime tree was installed: no compiler, linter or test tool came along.
    for (const devOnly of ['typescript', 'eslint', 'tsx', 'playwright-core'])
      assert.equal(existsSync(path.join(project, 'node_modules', devOnly)), false, devOnly);
  });
});
