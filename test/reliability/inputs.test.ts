// Hostile bundles: tar members with absolute and `..` names, decompression bombs, directory trees
// with link loops, FIFOs, unreadable folders and kernel pseudo file systems.

import assert from 'node:assert/strict';
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import * as tar from 'tar-stream';
import { UsageError } from '../../src/core/errors.js';
import { readInputs } from '../../src/engine/analyze.js';
import { discoverInputs } from '../../src/input/discover.js';
import { decompressionLimits, DEFAULT_DECOMPRESSION_LIMITS } from '../../src/input/open.js';
import { PROXY_LOG_LINES } from './corpus.js';

const LOG = PROXY_LOG_LINES.slice(0, 4).join('\n') + '\n';
let dir: string;

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ld-inputs-'));
});
after(() => {
  spawnSync('chmod', ['-R', 'u+rwx', dir]);
  rmSync(dir, { recursive: true, force: true });
});

async function tarOf(members: { name: string; body: string | Buffer }[]): Promise<Buffer> {
  const pack = tar.pack();
  for (const m of members) pack.entry({ name: m.name }, m.body);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function withEnv<T>(vars: Record<string, string>, run: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await run();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe('tar members with hostile names', () => {
  it('reads absolute and .. members as data only and writes nothing to disk', async () => {
    const work = path.join(dir, 'tar');
    mkdirSync(work);
    const archive = path.join(work, 'bundle.tgz');
    writeFileSync(
      archive,
      gzipSync(
        await tarOf([
          { name: '/etc/evil.log', body: LOG },
          { name: '../../escape.log', body: LOG },
          { name: 'ns/web-7d9f8c6b5-x2x8k/linkerd-proxy.log', body: LOG },
        ]),
      ),
    );
    const result = await readInputs([archive], () => {});
    assert.deepEqual(result.errors, []);
    assert.deepEqual(
      result.inputs.map((i) => i.path),
      [`${archive}:/etc/evil.log`, `${archive}:../../escape.log`, `${archive}:ns/web-7d9f8c6b5-x2x8k/linkerd-proxy.log`],
    );
    assert.ok(result.inputs.every((i) => i.kind === 'proxy-log' && i.records === 4));
    assert.deepEqual(readdirSync(work), ['bundle.tgz']);
    assert.equal(existsSync(path.join(dir, 'escape.log')), false);
    assert.equal(existsSync(path.resolve(work, '../../escape.log')), false);
  });
});

describe('broken archives', () => {
  it('reports a tar cut mid-member once, at the member and line, and keeps what was read', async () => {
    const whole = await tarOf([
      { name: 'a.log', body: LOG },
      { name: 'b.log', body: LOG.repeat(2_000) },
    ]);
    const archive = path.join(dir, 'cut.tar');
    writeFileSync(archive, whole.subarray(0, whole.length - 100_000));
    let records = 0;
    const result = await readInputs([archive], () => records++);
    assert.equal(result.errors.length, 1);
    assert.match(result.errors[0]!.toLine(), new RegExp(`^${archive.replace(/[.\\/]/g, '\\$&')}:b\\.log:\\d+: broken tar archive: unexpected end of data`));
    assert.equal(result.inputs[0]!.records, 4);
    assert.ok(result.inputs[1]!.records > 0);
    assert.equal(records, result.inputs[0]!.records + result.inputs[1]!.records);
  });
});

describe('decompression bombs', () => {
  it('stops a gzip that inflates past both limits, with one line naming the file', async () => {
    const bomb = path.join(dir, 'bomb.log.gz');
    writeFileSync(bomb, gzipSync(Buffer.alloc(8 << 20)));
    const result = await withEnv({ LINKERD_DOCTOR_MAX_DECOMPRESSED_BYTES: String(1 << 20) }, () => readInputs([bomb], () => {}));
    assert.equal(result.errors.length, 1);
    const line = result.errors[0]!.toLine();
    assert.ok(line.startsWith(`${bomb}: decompression stopped at`), line);
    assert.match(line, /decompression bomb/);
    assert.ok(!line.includes('\n'));
  });

  it('names the archive when a tar.gz bundle is the bomb', async () => {
    const bomb = path.join(dir, 'bomb.tgz');
    writeFileSync(bomb, gzipSync(await tarOf([{ name: 'zeros.log', body: Buffer.alloc(8 << 20) }])));
    const result = await withEnv({ LINKERD_DOCTOR_MAX_DECOMPRESSED_BYTES: String(1 << 20) }, () => readInputs([bomb], () => {}));
    assert.equal(result.errors.length, 1);
    assert.match(result.errors[0]!.toLine(), /bomb\.tgz.*decompression stopped/);
  });

  it('counts every gzip member of a tar against one budget for the archive (no member alone is over it)', async () => {
    const bomb = path.join(dir, 'members.tar');
    const member = gzipSync(Buffer.alloc(4 << 20), { level: 9 });
    writeFileSync(bomb, await tarOf(Array.from({ length: 8 }, (_, i) => ({ name: `m${i}.log.gz`, body: member }))));
    const result = await withEnv({ LINKERD_DOCTOR_MAX_DECOMPRESSED_BYTES: String(8 << 20) }, () => readInputs([bomb], () => {}));
    assert.equal(result.errors.length, 1);
    assert.match(result.errors[0]!.toLine(), /^\S*members\.tar: decompression stopped at 8\.0 MiB \(all gzip data of this archive\)/);
  });

  it('counts every gzip file of the run against one budget, and says once that the rest stopped', async () => {
    const folder = path.join(dir, 'gz-folder');
    mkdirSync(folder);
    const member = gzipSync(Buffer.alloc(4 << 20), { level: 9 });
    for (let i = 0; i < 6; i++) writeFileSync(path.join(folder, `z${i}.log.gz`), member);
    const result = await withEnv({ LINKERD_DOCTOR_MAX_DECOMPRESSED_BYTES: String(8 << 20) }, () => readInputs([folder], () => {}));
    assert.equal(result.errors.length, 1, result.errors.map((e) => e.toLine()).join('\n'));
    assert.match(
      result.errors[0]!.toLine(),
      /z2\.log\.gz: decompression stopped at 8\.0 MiB \(all gzip data of this run\).*; 3 later gzip input\(s\) stopped too: \S+z3\.log\.gz, \S+z4\.log\.gz, \S+z5\.log\.gz$/,
    );
  });

  it('lets a highly compressible but genuine log through when the ratio is below the limit', async () => {
    const log = path.join(dir, 'repetitive.log.gz');
    writeFileSync(log, gzipSync(Buffer.from(LOG.repeat(20_000))));
    const result = await withEnv({ LINKERD_DOCTOR_MAX_DECOMPRESSED_BYTES: String(1 << 20) }, () => readInputs([log], () => {}));
    assert.deepEqual(result.errors, []);
    assert.equal(result.inputs[0]!.records, 80_000);
  });

  it('reads the limits from the environment, 0 meaning no limit, and rejects nonsense', () => {
    assert.deepEqual(decompressionLimits({}), DEFAULT_DECOMPRESSION_LIMITS);
    assert.deepEqual(decompressionLimits({ LINKERD_DOCTOR_MAX_DECOMPRESSED_BYTES: '0', LINKERD_DOCTOR_MAX_DECOMPRESSION_RATIO: '50' }), {
      maxBytes: Infinity,
      maxRatio: 50,
    });
    assert.throws(() => decompressionLimits({ LINKERD_DOCTOR_MAX_DECOMPRESSION_RATIO: 'lots' }), UsageError);
  });
});

describe('directory walks', () => {
  it('follows links once, reports loops, dangling links and FIFOs, and reads each file once', async () => {
    const root = path.join(dir, 'walk');
    mkdirSync(path.join(root, 'ns', 'pod'), { recursive: true });
    writeFileSync(path.join(root, 'ns', 'pod', 'linkerd-proxy.log'), LOG);
    symlinkSync('..', path.join(root, 'ns', 'pod', 'up'));
    symlinkSync('self', path.join(root, 'self'));
    symlinkSync('nowhere', path.join(root, 'dangling'));
    symlinkSync(path.join(root, 'ns', 'pod', 'linkerd-proxy.log'), path.join(root, 'alias.log'));
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    const discovery = await discoverInputs([root]);
    assert.deepEqual(discovery.errors, []);
    assert.deepEqual(
      discovery.sources.map((s) => s.path),
      [path.join(root, 'alias.log')],
    );
    const notices = discovery.notices.map((n) => n.toLine()).sort();
    assert.deepEqual(notices, [
      `${path.join(root, 'dangling')}: dangling symbolic link; skipped`,
      `${path.join(root, 'ns', 'pod', 'up')}: symbolic link to a folder already walked; skipped`,
      `${path.join(root, 'pipe')}: not a regular file (FIFO, socket or device); not read`,
      `${path.join(root, 'self')}: symbolic link loop; skipped`,
    ]);
  });

  it('never reads /proc-like pseudo file systems, named directly or reached by a link', { skip: !existsSync('/proc/self/status') }, async () => {
    const root = path.join(dir, 'proc-link');
    mkdirSync(root);
    symlinkSync('/proc', path.join(root, 'proc'));
    // Links to pseudo files, not folders: a walk and a glob over them must not read them either.
    symlinkSync('/proc/self/status', path.join(root, 'status.log'));
    if (existsSync('/sys/kernel/osrelease')) symlinkSync('/sys/kernel/osrelease', path.join(root, 'release.log'));
    const discovery = await discoverInputs([root, '/proc/self/status']);
    assert.deepEqual(discovery.sources, []);
    assert.deepEqual(
      discovery.notices.map((n) => n.toLine()),
      ['proc', ...(existsSync('/sys/kernel/osrelease') ? ['release.log'] : []), 'status.log'].map(
        (name) => `${path.join(root, name)}: kernel pseudo file system (/proc, /sys, …); not read`,
      ),
    );
    assert.match(discovery.errors[0]!.toLine(), /^\/proc\/self\/status: on a kernel pseudo file system/);
    const globbed = await discoverInputs([path.join(root, '*.log')]);
    assert.deepEqual(globbed.sources, []);
    assert.equal(globbed.notices.length, existsSync('/sys/kernel/osrelease') ? 2 : 1);
  });

  // As root the walk runs as nobody, who must be able to read the checkout (not so under /root).
  const asRoot = process.getuid?.() === 0;
  const nobodyCanRead =
    !asRoot ||
    spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(path.resolve('src/input/discover.ts'))}, 4)`], { uid: 65534, gid: 65534 })
      .status === 0;
  it(
    'reports an unreadable sub-folder as an error and still reads the rest',
    { skip: !nobodyCanRead && 'running as root and user nobody cannot read the checkout' },
    () => {
      const root = path.join(dir, 'locked');
      mkdirSync(path.join(root, 'secret'), { recursive: true });
      writeFileSync(path.join(root, 'ok.log'), LOG);
      writeFileSync(path.join(root, 'secret', 'hidden.log'), LOG);
      chmodSync(path.join(root, 'secret'), 0o000);
      // Root reads anything, so run the walk as an unprivileged user when we are root.
      const asUser = asRoot ? { uid: 65534, gid: 65534 } : {};
      chmodSync(dir, 0o755);
      const script = `import { discoverInputs } from ${JSON.stringify(path.resolve('src/input/discover.ts'))};
      const d = await discoverInputs([${JSON.stringify(root)}]);
      console.log(JSON.stringify({ sources: d.sources.map((s) => s.path), errors: d.errors.map((e) => e.toLine()) }));`;
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        encoding: 'utf8',
        env: { ...process.env, TSX_TSCONFIG_PATH: path.resolve('tsconfig.json') },
        ...asUser,
      });
      assert.equal(child.status, 0, child.stderr);
      const out = JSON.parse(child.stdout) as { sources: string[]; errors: string[] };
      assert.deepEqual(out.sources, [path.join(root, 'ok.log')]);
      assert.deepEqual(out.errors, [`${path.join(root, 'secret')}: permission denied; folder skipped`]);
    },
  );
});

describe('glob walks', () => {
  it('reads files a glob matches through links, skips folders, and notes FIFOs and dangling links', async () => {
    const root = path.join(dir, 'containers');
    mkdirSync(path.join(root, 'pods', 'ns_web-7d9f8c6b5-x2x8k_0123456789abcdef0123456789abcdef', 'linkerd-proxy'), { recursive: true });
    const real = path.join(root, 'pods', 'ns_web-7d9f8c6b5-x2x8k_0123456789abcdef0123456789abcdef', 'linkerd-proxy', '0.log');
    writeFileSync(real, LOG);
    mkdirSync(path.join(root, 'containers'));
    const link = path.join(root, 'containers', `web-7d9f8c6b5-x2x8k_ns_linkerd-proxy-${'a'.repeat(64)}.log`);
    symlinkSync(real, link);
    symlinkSync(path.join(root, 'nowhere'), path.join(root, 'containers', 'gone.log'));
    execFileSync('mkfifo', [path.join(root, 'containers', 'pipe.log')]);
    mkdirSync(path.join(root, 'containers', 'folder.log'));
    const discovery = await discoverInputs([path.join(root, 'containers', '*.log')]);
    assert.deepEqual(discovery.errors, []);
    assert.deepEqual(
      discovery.sources.map((s) => s.path),
      [link],
    );
    assert.deepEqual(discovery.notices.map((n) => n.message).sort(), [
      'dangling symbolic link; skipped',
      'not a regular file (FIFO, socket or device); not read',
    ]);
    const result = await readInputs([path.join(root, 'containers', '*.log')], () => {});
    assert.deepEqual(
      result.inputs.map((i) => [i.pod, i.namespace, i.container, i.records]),
      [['web-7d9f8c6b5-x2x8k', 'ns', 'linkerd-proxy', 4]],
    );
  });
});
