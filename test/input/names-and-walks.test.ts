// Issue 27: names are bytes, and a glob and a folder see the same files. A name that is not valid
// UTF-8 (Latin-1 from Windows or a ZIP) must be listed, opened and shown escaped; nothing under a
// glob may be skipped in silence; an archive's name may hold colons.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import * as tar from 'tar-stream';
import { discoverInputs } from '../../src/input/discover.js';
import { displayName } from '../../src/input/names.js';

const BIN = path.resolve('bin/run.js');
let dir: string;

before(() => {
  assert.ok(existsSync('dist/commands/analyze.js'), 'run `npm run build` first');
  dir = mkdtempSync(path.join(tmpdir(), 'ld-names-'));
});
after(() => {
  spawnSync('chmod', ['-R', 'u+rwx', dir]);
  rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, NO_COLOR: '1' } });
}

/** `<dir>/<prefix><0xe9><suffix>` as bytes: a Latin-1 é, not valid UTF-8. */
function latin1Name(folder: string, prefix: string, suffix: string): Buffer {
  return Buffer.concat([Buffer.from(`${folder}/${prefix}`), Buffer.from([0xe9]), Buffer.from(suffix)]);
}

interface JsonReport {
  status: string;
  inputs: { path: string; kind: string }[];
  errors: { path: string; message: string }[];
}

describe('names that are not UTF-8', () => {
  it('shows each byte outside valid UTF-8 as \\xNN and leaves valid names alone', () => {
    assert.equal(displayName(Buffer.from([0x6e, 0x2d, 0xe9, 0x2e, 0x74])), 'n-\\xe9.t');
    assert.equal(displayName(Buffer.from('café-日本.log')), 'café-日本.log');
    // A truncated sequence, an overlong encoding and an encoded surrogate are each escaped byte by byte.
    assert.equal(displayName(Buffer.from([0x61, 0xe6, 0x97, 0x62])), 'a\\xe6\\x97b');
    assert.equal(displayName(Buffer.from([0xc0, 0xaf])), '\\xc0\\xaf');
    assert.equal(displayName(Buffer.from([0xed, 0xa0, 0x80])), '\\xed\\xa0\\x80');
  });

  it('a 2-byte Latin-1 file in the storm bundle hides nothing: glob and folder read the same inputs and fail on the storm', () => {
    const bundle = path.join(dir, 'storm');
    cpSync('fixtures/storm', bundle, { recursive: true });
    writeFileSync(latin1Name(bundle, 'notes-', '.txt'), 'hi');
    const asFolder = cli(['analyze', bundle, '--format', 'json']);
    const asGlob = cli(['analyze', `${bundle}/**/*`, '--format', 'json']);
    // Before: the glob matched nothing (or 1 input) and the folder gave a false ENOENT, exit 2.
    for (const run of [asFolder, asGlob]) {
      assert.equal(run.status, 1, run.stderr);
      const report = JSON.parse(run.stdout) as JsonReport;
      assert.equal(report.status, 'fail');
      assert.deepEqual(report.errors, []);
      assert.ok(
        report.inputs.some((i) => i.path === `${bundle}/notes-\\xe9.txt`),
        'the file is listed, escaped',
      );
    }
    const paths = (run: typeof asFolder) => (JSON.parse(run.stdout) as JsonReport).inputs.map((i) => i.path).sort();
    assert.deepEqual(paths(asGlob), paths(asFolder));
    assert.ok(paths(asFolder).length > 18);
  });

  it('a proxy log with a Latin-1 name is opened by its bytes and analysed', async () => {
    const folder = path.join(dir, 'latin1');
    mkdirSync(folder);
    writeFileSync(latin1Name(folder, 'caf', '-proxy.log'), readFileSync('fixtures/storm/linkerd/linkerd-destination-27q9ckwhq2-8bswg/linkerd-proxy.log'));
    const discovery = await discoverInputs([folder]);
    assert.deepEqual(discovery.errors, []);
    assert.deepEqual(
      discovery.sources.map((s) => s.path),
      [`${folder}/caf\\xe9-proxy.log`],
    );
    const run = cli(['analyze', folder, '--format', 'json']);
    const report = JSON.parse(run.stdout) as JsonReport;
    assert.deepEqual(
      report.inputs.map((i) => [i.path, i.kind]),
      [[`${folder}/caf\\xe9-proxy.log`, 'proxy-log']],
    );
    assert.equal(run.status, 1, run.stderr);
  });

  it('an undecodable folder name is walked too, its files named escaped', async () => {
    const folder = path.join(dir, 'latin1-folder');
    mkdirSync(folder);
    const inner = latin1Name(folder, 'pods-', '');
    mkdirSync(inner);
    writeFileSync(Buffer.concat([inner, Buffer.from('/a.log')]), 'x\n');
    for (const arg of [folder, `${folder}/**/*.log`]) {
      const discovery = await discoverInputs([arg]);
      assert.deepEqual(
        discovery.sources.map((s) => s.path),
        [`${folder}/pods-\\xe9/a.log`],
        arg,
      );
    }
  });
});

describe('globs see what folders see', () => {
  // As root the walk runs as nobody, who must be able to read the checkout (not so under /root).
  const asRoot = process.getuid?.() === 0;
  const nobodyCanRead =
    !asRoot ||
    spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(path.resolve('src/input/discover.ts'))}, 4)`], { uid: 65534, gid: 65534 })
      .status === 0;
  it(
    'an unreadable sub-folder under a glob is named as an input error',
    { skip: !nobodyCanRead && 'running as root and user nobody cannot read the checkout' },
    () => {
      const root = path.join(dir, 'locked-glob');
      mkdirSync(path.join(root, 'secret'), { recursive: true });
      writeFileSync(path.join(root, 'ok.log'), 'x\n');
      writeFileSync(path.join(root, 'secret', 'hidden.log'), 'x\n');
      chmodSync(path.join(root, 'secret'), 0o000);
      chmodSync(dir, 0o755);
      const script = `import { discoverInputs } from ${JSON.stringify(path.resolve('src/input/discover.ts'))};
      const d = await discoverInputs([${JSON.stringify(`${root}/**/*.log`)}]);
      console.log(JSON.stringify({ sources: d.sources.map((s) => s.path), errors: d.errors.map((e) => e.toLine()) }));`;
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        encoding: 'utf8',
        env: { ...process.env, TSX_TSCONFIG_PATH: path.resolve('tsconfig.json') },
        ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
      });
      assert.equal(child.status, 0, child.stderr);
      const out = JSON.parse(child.stdout) as { sources: string[]; errors: string[] };
      assert.deepEqual(out.sources, [path.join(root, 'ok.log')]);
      assert.deepEqual(out.errors, [`${path.join(root, 'secret')}: permission denied; folder skipped`]);
    },
  );

  it('a glob into /proc or /sys is refused like the folder itself', { skip: !existsSync('/proc/self/status') }, async () => {
    const discovery = await discoverInputs(['/proc/self/stat*']);
    assert.deepEqual(discovery.sources, []);
    assert.deepEqual(
      discovery.errors.map((e) => e.toLine()),
      ['/proc/self/stat*: on a kernel pseudo file system (/proc, /sys, …); not read'],
    );
    const run = cli(['analyze', '/proc/self/stat*']);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /\/proc\/self\/stat\*: on a kernel pseudo file system/);
  });

  it('a glob skips hidden names unless a pattern segment names them, as fast-glob did', async () => {
    const root = path.join(dir, 'hidden');
    mkdirSync(path.join(root, '.cache'), { recursive: true });
    writeFileSync(path.join(root, '.cache', 'a.log'), 'x\n');
    writeFileSync(path.join(root, '.b.log'), 'x\n');
    writeFileSync(path.join(root, 'c.log'), 'x\n');
    assert.deepEqual(
      (await discoverInputs([`${root}/**/*.log`])).sources.map((s) => s.path),
      [path.join(root, 'c.log')],
    );
    assert.deepEqual(
      (await discoverInputs([`${root}/.cache/*.log`])).sources.map((s) => s.path),
      [path.join(root, '.cache', 'a.log')],
    );
    assert.deepEqual(
      (await discoverInputs([`${root}/.*.log`])).sources.map((s) => s.path),
      [path.join(root, '.b.log')],
    );
  });

  it('a glob without ** does not descend deeper than its pattern', async () => {
    const root = path.join(dir, 'shallow');
    mkdirSync(path.join(root, 'deep'), { recursive: true });
    writeFileSync(path.join(root, 'a.log'), 'x\n');
    writeFileSync(path.join(root, 'deep', 'b.log'), 'x\n');
    assert.deepEqual(
      (await discoverInputs([`${root}/*.log`])).sources.map((s) => s.path),
      [path.join(root, 'a.log')],
    );
    assert.deepEqual(
      (await discoverInputs([`${root}/*/*.log`])).sources.map((s) => s.path),
      [path.join(root, 'deep', 'b.log')],
    );
  });
});

describe('archive names with colons', () => {
  it("capture:2024-06-05.tgz in a folder counts as that folder's recognised input", async () => {
    const folder = path.join(dir, 'colon');
    mkdirSync(folder);
    const pack = tar.pack();
    pack.entry({ name: 'linkerd/linkerd-proxy.log' }, readFileSync('fixtures/storm/linkerd/linkerd-destination-27q9ckwhq2-8bswg/linkerd-proxy.log'));
    pack.finalize();
    const chunks: Buffer[] = [];
    for await (const c of pack) chunks.push(c as Buffer);
    writeFileSync(path.join(folder, 'capture:2024-06-05.tgz'), gzipSync(Buffer.concat(chunks)));
    const run = cli(['analyze', folder, '--format', 'json']);
    // Before: findings printed, then "nothing recognisable" and exit 2.
    assert.equal(run.status, 1, run.stderr);
    assert.doesNotMatch(run.stderr, /nothing recognisable/);
  });
});
