// Issue 27: containers are recognised, never skipped silently. Archives inside archives are read
// as archives (to a fixed depth), a .gz.gz is inflated twice, formats this tool cannot open are
// input errors (one line each, exit 2), and tar long-name and pax headers are bounded.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { tarBuffer, tarHeaderBlock } from '../../scripts/fixtures/archive.js';
import { MAX_TAR_LONG_HEADER } from '../../src/input/open.js';

const BIN = path.resolve('bin/run.js');
const STORM_LOG = readFileSync('fixtures/storm/linkerd/linkerd-destination-27q9ckwhq2-8bswg/linkerd-proxy.log');
let dir: string;

before(() => {
  assert.ok(existsSync('dist/commands/analyze.js'), 'run `npm run build` first');
  dir = mkdtempSync(path.join(tmpdir(), 'ld-containers-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, NO_COLOR: '1' } });
}

const tarOf = (members: { name: string; body: Buffer | string }[]): Promise<Buffer> => tarBuffer(members.map((m) => [m.name, m.body] as const));

interface JsonReport {
  status: string;
  inputs: { path: string; kind: string }[];
  errors: { path: string; message: string }[];
}

function folderWith(name: string, files: Record<string, Buffer | string>): string {
  const folder = path.join(dir, name);
  mkdirSync(folder);
  for (const [file, body] of Object.entries(files)) writeFileSync(path.join(folder, file), body);
  return folder;
}

describe('archives inside archives', () => {
  it('reads a .tgz inside a .tgz as an archive: the storm inside is found', async () => {
    const inner = gzipSync(await tarOf([{ name: 'linkerd/linkerd-proxy.log', body: STORM_LOG }]));
    const folder = folderWith('nested', {
      'bundle.tgz': gzipSync(
        await tarOf([
          { name: 'node-a.tgz', body: inner },
          { name: 'README', body: 'capture\n' },
        ]),
      ),
    });
    const run = cli(['analyze', folder, '--format', 'json']);
    // Before: the inner .tgz was one text stream of tar garbage, and the gate passed.
    assert.equal(run.status, 1, run.stderr);
    const report = JSON.parse(run.stdout) as JsonReport;
    assert.deepEqual(report.inputs.find((i) => i.path.endsWith('linkerd-proxy.log'))?.path, `${folder}/bundle.tgz:node-a.tgz:linkerd/linkerd-proxy.log`);
    assert.equal(report.inputs.find((i) => i.path.endsWith('linkerd-proxy.log'))?.kind, 'proxy-log');
  });

  it('reads a plain .tar inside a .tar, and a .gz.gz', async () => {
    const folder = folderWith('nested-tar', {
      'outer.tar': await tarOf([{ name: 'inner.tar', body: await tarOf([{ name: 'proxy.log', body: STORM_LOG }]) }]),
      'twice.log.gz.gz': gzipSync(gzipSync(STORM_LOG)),
    });
    const run = cli(['analyze', folder, '--format', 'json']);
    assert.equal(run.status, 1, run.stderr);
    const report = JSON.parse(run.stdout) as JsonReport;
    assert.deepEqual(
      report.inputs.map((i) => [i.path, i.kind]),
      [
        [`${folder}/outer.tar:inner.tar:proxy.log`, 'proxy-log'],
        [`${folder}/twice.log.gz.gz`, 'proxy-log'],
      ],
    );
  });

  it('stops at a fixed depth, as an input error naming the member', async () => {
    let archive = gzipSync(await tarOf([{ name: 'proxy.log', body: STORM_LOG }]));
    for (let level = 0; level < 3; level++) archive = gzipSync(await tarOf([{ name: `level-${level}.tgz`, body: archive }]));
    const folder = folderWith('deep', { 'deep.tgz': archive });
    const run = cli(['analyze', folder, '--format', 'json']);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /deep\.tgz:level-2\.tgz:level-1\.tgz:level-0\.tgz: archives nested more than 6 layers/);
  });
});

describe('formats this tool cannot open', () => {
  const ZIP = Buffer.concat([Buffer.from('PK\x03\x04\x14\x00\x00\x00', 'latin1'), Buffer.alloc(40, 1)]);
  const XZ = Buffer.concat([Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x04]), Buffer.alloc(40, 1)]);
  const BZIP2 = Buffer.concat([Buffer.from('BZh9', 'latin1'), Buffer.from('314159265359', 'hex'), Buffer.alloc(40, 1)]);
  const ZSTD = Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), Buffer.alloc(40, 1)]);

  it('beside a recognised log, each of .zip, .xz, .bz2 and .zst is one error line and the gate fails with 2', () => {
    const folder = folderWith('unsupported', { 'proxy.log': STORM_LOG, 'logs.zip': ZIP, 'logs.xz': XZ, 'logs.bz2': BZIP2, 'logs.zst': ZSTD });
    const run = cli(['analyze', folder, '--format', 'json']);
    // Before: they were unknown inputs beside a recognised one, skipped without a word (exit 1).
    assert.equal(run.status, 2, run.stderr);
    const lines = run.stderr.split('\n').filter((l) => /not supported/.test(l));
    assert.deepEqual(
      lines.map((l) => /\/(logs\.\w+): (\w+) archive: not supported/.exec(l)?.slice(1, 3)),
      [
        ['logs.bz2', 'bzip2'],
        ['logs.xz', 'xz'],
        ['logs.zip', 'zip'],
        ['logs.zst', 'zstd'],
      ],
    );
  });

  it('a .zip inside a .tgz is an error naming the member, and the rest of the bundle is read', async () => {
    const folder = folderWith('zip-member', {
      'bundle.tgz': gzipSync(
        await tarOf([
          { name: 'logs.zip', body: ZIP },
          { name: 'proxy.log', body: STORM_LOG },
        ]),
      ),
    });
    const run = cli(['analyze', folder, '--format', 'json']);
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /bundle\.tgz:logs\.zip: zip archive: not supported/);
    const report = JSON.parse(run.stdout) as JsonReport;
    assert.ok(report.inputs.some((i) => i.path.endsWith('bundle.tgz:proxy.log') && i.kind === 'proxy-log'));
  });

  it('text that merely starts like a magic number is still read as text', () => {
    const folder = folderWith('bz-text', { 'proxy.log': Buffer.concat([Buffer.from('BZh9 not a bzip2 file\n'), STORM_LOG]) });
    assert.equal(cli(['analyze', folder, '-q']).status, 1);
  });
});

describe('tar long headers are bounded', () => {
  it('a 400 MiB GNU long name in a small .tgz is refused as one short error naming the archive', () => {
    // 400 KiB of the declared name follow, as in the 408 KB case: tar-stream would buffer all 400 MiB.
    const body = Buffer.concat([tarHeaderBlock('././@LongLink', 'L', 400 << 20), Buffer.alloc(400 * 1024, 0x61)]);
    const folder = folderWith('long-name', { 'proxy.log': STORM_LOG, 'hostile.tgz': gzipSync(body) });
    const run = cli(['analyze', folder, '--format', 'json']);
    assert.equal(run.status, 2);
    const errors = run.stderr.split('\n').filter((l) => l.includes('hostile.tgz'));
    assert.equal(errors.length, 1, run.stderr);
    assert.match(errors[0]!, /hostile\.tgz: .*tar GNU long name header of 400\.0 MiB \(over 64 KiB\)/);
    assert.ok(run.stderr.length < 2000, `stderr is ${run.stderr.length} bytes`);
  });

  it('follows a pax size record to the next header, as tar-stream does (no false refusal inside data)', async () => {
    // The member's ustar size says 0, its pax record says the real size; its second block reads as
    // a hostile long-name header to a walker that ignored the record.
    const data = Buffer.concat([Buffer.alloc(512, 'x\n'), tarHeaderBlock('././@LongLink', 'L', 400 << 20), STORM_LOG]);
    const record = (key: string, value: string) => {
      const body = ` ${key}=${value}\n`;
      let length = body.length + 1;
      if (`${length}${body}`.length !== length) length++;
      return `${length}${body}`;
    };
    const paxBody = Buffer.from(record('size', String(data.length)));
    const pad = (b: Buffer) => Buffer.concat([b, Buffer.alloc((512 - (b.length % 512)) % 512)]);
    const archive = Buffer.concat([
      tarHeaderBlock('PaxHeader/proxy.log', 'x', paxBody.length),
      pad(paxBody),
      tarHeaderBlock('proxy.log', '0', 0),
      pad(data),
      Buffer.alloc(1024),
    ]);
    const folder = folderWith('pax-size', { 'sized.tar': archive });
    const run = cli(['analyze', folder, '--format', 'json']);
    assert.doesNotMatch(run.stderr, /refused/);
    const report = JSON.parse(run.stdout) as JsonReport;
    assert.deepEqual(
      report.inputs.map((i) => i.path),
      [`${folder}/sized.tar:proxy.log`],
    );
  });

  it('a pax header past the bound is refused too; long names within it are read', async () => {
    const hostile = Buffer.concat([tarHeaderBlock('PaxHeader/x', 'x', MAX_TAR_LONG_HEADER + 1), Buffer.alloc(MAX_TAR_LONG_HEADER + 512, 0x61)]);
    const longName = `${'ns/'.repeat(60)}linkerd-proxy.log`;
    const folder = folderWith('pax', { 'pax.tar': hostile, 'ok.tar': await tarOf([{ name: longName, body: STORM_LOG }]) });
    const run = cli(['analyze', folder, '--format', 'json']);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /pax\.tar: .*tar pax header of 65 KiB \(over 64 KiB\)/);
    const report = JSON.parse(run.stdout) as JsonReport;
    assert.ok(
      report.inputs.some((i) => i.path === `${folder}/ok.tar:${longName}` && i.kind === 'proxy-log'),
      JSON.stringify(report.inputs),
    );
  });
});
