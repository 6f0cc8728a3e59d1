// `npm run size`: what a user installs. Packs this checkout (`npm pack`, which builds it through
// `prepack`), installs the tarball with --omit=dev into an empty prefix, and prints the installed
// size, the package count, the tarball's size and file count, the largest packages, and whether the
// tarball ships source maps. docs/install.md records the figures. Needs the npm registry (or a warm
// npm cache): it is a measurement, not a test; test/meta/package.test.ts checks the same budget
// offline against the lockfile.
//
// Usage: node scripts/install-size.js [--json]

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, lstatSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(path.join(tmpdir(), 'ld-size-'));
const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

try {
  const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', work], root));
  const tarball = path.join(work, packed.filename);
  const prefix = path.join(work, 'prefix');
  npm(['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', '--prefix', prefix, tarball], work);
  const modules = path.join(prefix, 'node_modules');
  const packages = listPackages(modules);
  const result = {
    tarballBytes: packed.size,
    tarballFiles: packed.entryCount,
    sourceMaps: packed.files.filter((f) => f.path.endsWith('.map')).length,
    installedBytes: diskBytes(modules),
    installedDiskKiB: duKiB(modules),
    packages: packages.length,
    largest: packages
      .map((p) => ({ name: p.name, bytes: diskBytes(p.dir) }))
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 8),
  };
  if (process.argv.includes('--json')) {
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  } else {
    const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;
    process.stdout.write(
      `installed: ${mb(result.installedBytes)} (${(result.installedDiskKiB / 1024).toFixed(1)} MiB on disk) in ${result.packages} packages (linkerd-doctor included)\n` +
        `tarball: ${mb(result.tarballBytes)}, ${result.tarballFiles} files, ${result.sourceMaps} source maps\n` +
        `largest:\n${result.largest.map((p) => `  ${mb(p.bytes).padStart(8)}  ${p.name}`).join('\n')}\n`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** Package directories under node_modules, scoped ones as `@scope/name`, nested ones as `parent>name`. */
function listPackages(modules, parent = '', found = []) {
  for (const name of safeReaddir(modules)) {
    if (name.startsWith('.')) continue;
    const dir = path.join(modules, name);
    const names = name.startsWith('@') ? safeReaddir(dir).map((sub) => `${name}/${sub}`) : [name];
    for (const pkg of names) {
      const pkgDir = path.join(modules, pkg);
      const label = parent ? `${parent}>${pkg}` : pkg;
      found.push({ name: label, dir: pkgDir });
      listPackages(path.join(pkgDir, 'node_modules'), label, found);
    }
  }
  return found;
}

/** Apparent size (file bytes, not blocks): comparable across file systems. Symlinks count as links. */
function diskBytes(target) {
  const stat = lstatSync(target);
  if (!stat.isDirectory()) return stat.size;
  let total = 0;
  for (const name of readdirSync(target)) total += diskBytes(path.join(target, name));
  return total;
}

/** Disk usage in blocks as `du` reports it (what `du -sh node_modules` shows a user). */
function duKiB(target) {
  return Number(execFileSync('du', ['-sk', target], { encoding: 'utf8' }).split('\t')[0]);
}

function safeReaddir(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
