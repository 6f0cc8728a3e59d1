// What a user installs (issues 20 and 31): the packed tarball carries the built CLI, a LICENSE and
// no source maps, runs no build at install time, and its runtime dependency tree stays within the
// 6.6 MB issue 31 measured when it was filed (a third of the 18.4 MB before issue 20). The sizes
// come from this clone's node_modules (installed by npm ci from the same lockfile), so the check
// runs offline; `npm run size` measures a real pack + install (docs/install.md).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  license: string;
  dependencies: Record<string, string>;
  engines: { node: string };
};

/**
 * Runtime dependencies pinned exactly, and why: a range would let a global install pick up a
 * release that grows the install. tar-stream 3.1.8 added bare-fs and with it about 7 MB of Bare
 * runtime packages Node never loads.
 */
const PINNED: Record<string, string> = { 'tar-stream': '3.1.8 and later depend on bare-fs' };
/**
 * Runtime dependencies held to one minor line (`~`), and why: the next minor needs more than the
 * engines we declare. @oclif/plugin-autocomplete 3.3 requires Node 22 (4.x requires @oclif/core 5).
 */
const MINOR_LINE: Record<string, string> = { '@oclif/plugin-autocomplete': '3.3 requires Node >= 22' };
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { dev?: boolean; devOptional?: boolean; optional?: boolean; link?: boolean }>;
};

/** Measured by `npm run size` before the change: 18.4 MB of files (24.5 MiB on disk), 107 packages. */
const INSTALLED_BYTES_BEFORE = 18_400_000;

/** Measured by `npm run size` when issue 31 was filed, the ceiling it sets: 6.6 MB of files. */
const INSTALLED_BYTES_ISSUE_31 = 6_600_000;

/**
 * Bytes of the files under `target`, as the package installs them: a package's nested
 * node_modules are lockfile entries of their own (counted once, there).
 */
function apparentBytes(target: string): number {
  const stat = lstatSync(target);
  if (!stat.isDirectory()) return stat.size;
  let total = 0;
  for (const name of readdirSync(target)) if (name !== 'node_modules') total += apparentBytes(path.join(target, name));
  return total;
}

const runtimePackages = Object.entries(lock.packages)
  .filter(([key, entry]) => key !== '' && !entry.dev && !entry.devOptional && !entry.link)
  .map(([key, entry]) => ({ key, optional: entry.optional === true }));

describe('the installed package', () => {
  it('runs no build at install time (no prepare/install scripts); packing builds it', () => {
    for (const script of ['prepare', 'preinstall', 'install', 'postinstall']) assert.equal(pkg.scripts[script], undefined, script);
    assert.match(pkg.scripts.prepack ?? '', /npm run build/);
  });

  it('ships the built CLI, the docs pages and a LICENSE, and no source maps', () => {
    // --ignore-scripts: list what `npm pack` would ship from the dist/ `npm test` has just built.
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' })) as [
      { files: { path: string }[] },
    ];
    const files = packed.files.map((f) => f.path);
    assert.deepEqual(
      files.filter((f) => f.endsWith('.map')),
      [],
    );
    for (const required of ['LICENSE', 'bin/run.js', 'dist/commands/analyze.js', 'docs/rules/reconnect-storm.md', 'package.json'])
      assert.ok(files.includes(required), required);
    assert.deepEqual(
      files.filter((f) => f.startsWith('src/') || f.startsWith('test/')),
      [],
    );
  });

  it('has the Apache-2.0 LICENSE package.json names', () => {
    assert.equal(pkg.license, 'Apache-2.0');
    const license = readFileSync(path.join(root, 'LICENSE'), 'utf8');
    assert.match(license, /^\s*Apache License\s+Version 2\.0, January 2004/);
    assert.match(license, /END OF TERMS AND CONDITIONS/);
  });

  it('takes its runtime dependencies in semver ranges, each matching the locked version, pinning only what says why', () => {
    for (const [name, spec] of Object.entries(pkg.dependencies)) {
      const locked = lock.packages[`node_modules/${name}`] as { version?: string } | undefined;
      assert.ok(locked?.version, `${name} is not in package-lock.json: run npm install`);
      if (PINNED[name]) {
        assert.equal(spec, locked.version, `${name} stays pinned (${PINNED[name]})`);
        continue;
      }
      const range = (MINOR_LINE[name] ? /^~(\d+)\.(\d+)\.(\d+)$/ : /^\^(\d+)\.(\d+)\.(\d+)$/).exec(spec);
      assert.ok(
        range,
        `${name}: ${spec} is not a ${MINOR_LINE[name] ? `~ range (${MINOR_LINE[name]})` : '^ range'}; an exact pin keeps a global install from taking patch releases`,
      );
      if (MINOR_LINE[name])
        assert.equal(locked.version.split('.').slice(0, 2).join('.'), range.slice(1, 3).join('.'), `${name}: the locked ${locked.version} is outside ${spec}`);
      const [major, minor, patch] = range.slice(1).map(Number) as [number, number, number];
      const [lockedMajor, lockedMinor, lockedPatch] = locked.version.split('.').map((n) => Number.parseInt(n, 10)) as [number, number, number];
      const sameLine = major === 0 ? lockedMajor === 0 && lockedMinor === minor : lockedMajor === major;
      const notOlder = lockedMinor !== minor ? lockedMinor > minor || lockedMajor > major : lockedPatch >= patch;
      assert.ok(sameLine && notOlder, `${name}: the locked ${locked.version} is outside ${spec}; run npm install`);
    }
  });

  it('declares the Node lines .ci/run tests', () => {
    assert.equal(pkg.engines.node, '^20.9.0 || ^22.0.0 || >=24.0.0');
    const ci = readFileSync(path.join(root, '.ci/run'), 'utf8');
    assert.match(ci, /for major in 22 24; do/);
  });

  it('depends on no terminal-Markdown renderer and no bare-* runtime packages', () => {
    const names = runtimePackages.map((p) => p.key.replace(/^.*node_modules\//, ''));
    assert.deepEqual(
      names.filter((n) => n === 'marked-terminal' || n === 'highlight.js' || n === 'cli-highlight' || /^bare-(fs|url|buffer|path|stream)$/.test(n)),
      [],
    );
  });

  it('matches catalogue patterns without a regex engine of its own, and globs without fast-glob (both development-only)', () => {
    // re2js (0.9 MB) is the tests' reference for the catalogue matcher; fast-glob (with its 14
    // packages) serves the scripts and tests, while the CLI walks and matches with picomatch.
    const names = runtimePackages.map((p) => p.key.replace(/^.*node_modules\//, ''));
    assert.deepEqual(
      names.filter((n) => n === 're2js' || n === 'fast-glob' || n === 'micromatch'),
      [],
    );
  });

  it('installs in no more than when issue 31 was filed (6.6 MB), a third of what it was before issue 20', () => {
    // This package as npm packs it (every shipped file with its size: README, LICENSE and
    // package.json too), then every runtime dependency as installed.
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' })) as [
      { files: { path: string; size: number }[] },
    ];
    let bytes = packed.files.reduce((sum, f) => sum + f.size - sourceMapComment(f.path), 0);
    for (const { key, optional } of runtimePackages) {
      try {
        bytes += apparentBytes(path.join(root, key));
      } catch (err) {
        // An optional dependency for another platform is in the lockfile but not installed here.
        if (!optional) throw err;
      }
    }
    assert.ok(INSTALLED_BYTES_ISSUE_31 < INSTALLED_BYTES_BEFORE / 2);
    assert.ok(
      bytes <= INSTALLED_BYTES_ISSUE_31,
      `runtime install is ${(bytes / 1e6).toFixed(2)} MB, budget ${(INSTALLED_BYTES_ISSUE_31 / 1e6).toFixed(1)} MB (npm run size measures the real install)`,
    );
  });
});

/**
 * Bytes of the `//# sourceMappingURL=…` line that `npm run coverage` (and so CI) re-emits at the
 * end of each built file so c8 can map dist/ back to src/. The release build has no source maps
 * and no such line, and this test measures the package a user installs.
 */
function sourceMapComment(file: string): number {
  if (!file.endsWith('.js')) return 0;
  const text = readFileSync(path.join(root, file), 'utf8');
  const comment = /\n\/\/# sourceMappingURL=[^\n]*\n?$/.exec(text);
  return comment ? Buffer.byteLength(comment[0]) : 0;
}
