// `--output` onto what is not a plain file (issue 21, issue 20): symlinks are followed, devices,
// FIFOs and /dev/stdout are written in place, never replaced; an input is never overwritten; a
// duplicate output is warned about; a hung-up run removes its temporary file; a killed run's
// temporary file is removed by the next write; the data is on disk before the rename. Through the
// built CLI.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BIN, cli, scratch, STORM_LOG } from './hostile.js';
import { copyFileSync } from 'node:fs';

const HEALTHY = 'fixtures/healthy';

describe('--output onto special files', () => {
  const dir = scratch('out');

  it('follows a symlink: the target gets the report, the link stays a link, the mode is kept', () => {
    const target = path.join(dir, 'real-report.json');
    writeFileSync(target, 'old');
    chmodSync(target, 0o640);
    const link = path.join(dir, 'report.json');
    symlinkSync('real-report.json', link);
    const run = cli(['analyze', HEALTHY, '--format', 'json', '--output', link, '--no-progress']);
    assert.equal(run.status, 0, run.stderr);
    assert.ok(lstatSync(link).isSymbolicLink(), 'the link is still a link');
    assert.equal(readlinkSync(link), 'real-report.json');
    assert.equal(JSON.parse(readFileSync(target, 'utf8')).schemaVersion, 1);
    assert.equal(statSync(target).mode & 0o777, 0o640, 'mode kept');
    assert.deepEqual(
      readdirSync(dir).filter((n) => n.endsWith('.tmp')),
      [],
    );
  });

  const canTrace = spawnSync('strace', ['-o', '/dev/null', 'true']).status === 0;
  it('fsyncs the temporary file before renaming it into place, then the folder', { skip: !canTrace && 'strace is missing or may not trace here' }, () => {
    const report = path.join(dir, 'durable.json');
    const trace = path.join(dir, 'durable.strace');
    // -y prints the path behind each descriptor, so the fsync can be matched to the file.
    const run = spawnSync(
      'strace',
      [
        '-f',
        '-y',
        '-e',
        'trace=fsync,fdatasync,rename,renameat,renameat2',
        '-o',
        trace,
        process.execPath,
        BIN,
        'analyze',
        HEALTHY,
        '--format',
        'json',
        '--output',
        report,
        '-q',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(run.status, 0, run.stderr);
    const calls = readFileSync(trace, 'utf8').split('\n');
    const tmp = /\/\.durable\.json\.linkerd-doctor-\d+\.tmp/;
    const synced = calls.findIndex((l) => /\bf(data)?sync\(\d+</.test(l) && tmp.test(l));
    const renamed = calls.findIndex((l) => /\brename(at2?)?\(/.test(l) && tmp.test(l) && l.includes(`"${report}"`));
    const folderSynced = calls.findIndex((l, i) => i > renamed && /\bfsync\(\d+</.test(l) && l.includes(`<${dir}>)`));
    assert.ok(synced >= 0, 'the temporary file is fsynced');
    assert.ok(renamed > synced, 'and only then renamed over the report');
    assert.ok(folderSynced > renamed, 'the folder is fsynced after the rename');
  });

  // Never aimed at /dev/null or /dev/stdout themselves: run as root, a regression (or the code
  // before the fix) would replace those nodes for the whole machine. A link to /dev/stdout and a
  // device node made here show the same behaviour.
  it('writes through a link to /dev/stdout in place: the report arrives on stdout', () => {
    const link = path.join(dir, 'to-stdout');
    symlinkSync('/dev/stdout', link);
    const run = cli(['analyze', HEALTHY, '--format', 'json', '--output', link, '--no-progress']);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).schemaVersion, 1);
    assert.ok(lstatSync(link).isSymbolicLink());
  });

  it('writes into a character device instead of replacing it', { skip: process.getuid?.() !== 0 && 'mknod needs root' }, () => {
    const device = path.join(dir, 'null-device');
    if (spawnSync('mknod', ['-m', '666', device, 'c', '1', '3']).status !== 0) return;
    const run = cli(['analyze', HEALTHY, '--format', 'json', '--output', device, '--no-progress']);
    assert.equal(run.status, 0, run.stderr);
    assert.ok(lstatSync(device).isCharacterDevice(), 'still a device');
  });

  it('writes into a FIFO instead of replacing it', { timeout: 30_000, skip: spawnSync('mkfifo', ['--version']).status !== 0 && 'no mkfifo' }, async (t) => {
    const fifo = path.join(dir, 'report.fifo');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    const reader = spawn('cat', [fifo]);
    // Replaced by a plain file, the FIFO would never get a writer and cat would wait forever.
    t.after(() => reader.kill());
    let received = '';
    reader.stdout.on('data', (d) => (received += d));
    const readerDone = new Promise((resolve) => reader.on('close', resolve));
    const run = cli(['analyze', HEALTHY, '--format', 'json', '--output', fifo, '--no-progress']);
    await readerDone;
    assert.equal(run.status, 0, run.stderr);
    assert.ok(lstatSync(fifo).isFIFO(), 'still a FIFO');
    assert.equal(JSON.parse(received).schemaVersion, 1);
  });

  it('refuses to overwrite an input file, in one line, exit 2, leaving it untouched', () => {
    const log = path.join(dir, 'captured.log');
    copyFileSync(STORM_LOG, log);
    const before = readFileSync(log, 'utf8');
    for (const args of [
      [log, '--output', log],
      [dir, '--output', log],
      [path.join(dir, '*.log'), '--output', path.join(dir, '.', 'captured.log')],
    ]) {
      const run = cli(['analyze', ...args, '--no-progress']);
      assert.equal(run.status, 2, `${args}: ${run.stderr}`);
      const lines = run.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0]!, /is also an input .*refusing to overwrite it/);
      assert.equal(readFileSync(log, 'utf8'), before);
    }
  });

  it('warns when two outputs name the same file', () => {
    const out = path.join(dir, 'twice.txt');
    const run = cli(['analyze', HEALTHY, '--format', 'json', '--output', out, '--format', 'sarif', '--output', `${dir}/./twice.txt`, '--no-progress']);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /warning: --output .*twice\.txt names the same file as --output .*twice\.txt/);
  });

  it("removes a killed run's temporary file on the next write, keeps a live run's", () => {
    const out = path.join(dir, 'stale.json');
    // A PID that is not running (the kernel's pid_max is far below it) and one that is (ours).
    const dead = path.join(dir, '.stale.json.linkerd-doctor-999999999.tmp');
    const live = path.join(dir, `.stale.json.linkerd-doctor-${process.pid}.tmp`);
    writeFileSync(dead, 'partial');
    writeFileSync(live, 'partial');
    const run = cli(['analyze', HEALTHY, '--format', 'json', '--output', out, '--no-progress']);
    assert.equal(run.status, 0, run.stderr);
    assert.ok(!existsSync(dead), 'stale temporary removed');
    assert.ok(existsSync(live), "a live run's temporary kept");
  });

  it('SIGHUP ends the run with 129 and the interrupt cleanup, like SIGINT and SIGTERM', async () => {
    // Reading a stdin nobody writes keeps the run waiting until the signal.
    const child = spawn(process.execPath, [BIN, 'analyze', '-', '--output', path.join(dir, 'hup.txt'), '--no-progress'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise((r) => setTimeout(r, 1500));
    child.kill('SIGHUP');
    assert.equal(await exited, 129, stderr);
    assert.match(stderr, /interrupted; unfinished report files removed/);
    assert.deepEqual(
      readdirSync(dir).filter((n) => n.startsWith('.hup.txt')),
      [],
    );
  });
});
