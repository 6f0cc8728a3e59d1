// Process behaviour of the BUILT CLI (node bin/run.js): closed pipes, Ctrl-C, stdin that ends
// early or is a terminal, and oclif's own errors, each ending in at most one line on stderr.

import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { removeTemporaries, temporariesInFlight, writeFileAtomic } from '../../src/cli/output.js';
import { PROXY_LOG_LINES } from './corpus.js';

const BIN = path.resolve('bin/run.js');
const LINE = PROXY_LOG_LINES[1]!;
let dir: string;
let bigLog: string;

before(() => {
  // `npm test` builds first; a bare test:unit run on a fresh clone builds here.
  if (!existsSync('dist/commands/analyze.js')) spawnSync('npm', ['run', 'build'], { stdio: 'ignore' });
  dir = mkdtempSync(path.join(tmpdir(), 'ld-process-'));
  bigLog = path.join(dir, 'big.log');
  writeFileSync(bigLog, `${LINE}\n`.repeat(100_000));
});
after(() => rmSync(dir, { recursive: true, force: true }));

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function collect(child: ChildProcess): Promise<Ended> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stdout?.on('error', () => {});
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

function cli(args: string[], input = ''): Promise<Ended> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, timeout: 30_000 });
  const ended = collect(child);
  child.stdin.end(input);
  return ended;
}

function assertOneLine(stderr: string) {
  const lines = stderr.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `stderr should be one line:\n${stderr}`);
  assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
}

// Each case is its own process, so they run side by side.
describe('CLI process behaviour', { concurrency: true }, () => {
  it('`parse big.log | head` ends quietly when the reader closes the pipe', async () => {
    const child = spawn(process.execPath, [BIN, 'parse', bigLog], { stdio: ['ignore', 'pipe', 'pipe'] });
    const ended = collect(child);
    child.stdout.once('data', () => child.stdout.destroy());
    const result = await ended;
    assert.equal(result.signal, null);
    assert.equal(result.code, 0);
    assert.equal(result.stderr, '');
  });

  it('Ctrl-C during analysis exits 130 and leaves no report or temporary file', async () => {
    const out = path.join(dir, 'report.json');
    const child = spawn(process.execPath, [BIN, 'analyze', '-', '--format', 'json', '--output', out], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    const ended = collect(child);
    child.stdin.on('error', () => {});
    // More than the pipe holds: 'drain' then proves the CLI is up and reading. Interrupt it mid-input.
    if (!child.stdin.write(`${LINE}\n`.repeat(20_000))) await new Promise((r) => child.stdin.once('drain', r));
    child.kill('SIGINT');
    const result = await ended;
    assert.equal(result.code, 130, `exit ${result.code} ${result.signal}: ${result.stderr}`);
    assertOneLine(result.stderr);
    assert.equal(existsSync(out), false);
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.includes('report.json')),
      [],
    );
  });

  it('a temporary report removed by the interrupt handler never leaves a partial file', async () => {
    const out = path.join(dir, 'atomic.txt');
    const content = 'x'.repeat(32 << 20);
    const writing = writeFileAtomic(out, content).catch(() => 'interrupted');
    // The temporary is registered once the target has been checked (an asynchronous stat).
    for (let tick = 0; tick < 10_000 && temporariesInFlight().length === 0; tick++) await new Promise(setImmediate);
    assert.equal(temporariesInFlight().length, 1);
    removeTemporaries();
    await writing;
    assert.deepEqual(temporariesInFlight(), []);
    assert.ok(!existsSync(out) || readFileSync(out, 'utf8').length === content.length, 'a partial report was left');
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.includes('atomic.txt') && f !== 'atomic.txt'),
      [],
    );
  });

  it('reads stdin that closes early, mid-line, without losing the last line', async () => {
    const result = await cli(['parse', '-'], `${LINE}\n${LINE}`);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim().split('\n').length, 2);
  });

  it('empty stdin ends in one line and exit 2', async () => {
    const result = await cli(['analyze', '-']);
    assert.equal(result.code, 2);
    assertOneLine(result.stderr);
    assert.match(result.stderr, /^linkerd-doctor: -: nothing recognisable/);
  });

  it('a terminal on stdin with no PATH gets a usage message, not a hang', { skip: !existsSync('/usr/bin/script') }, async () => {
    const r = await collect(
      spawn('script', ['-qec', `${process.execPath} ${BIN} analyze`, '/dev/null'], { cwd: dir, timeout: 20_000, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    assert.equal(r.signal, null, 'the CLI hung waiting for the terminal');
    assert.match(r.stdout, /no PATH given and stdin is a terminal/);
    assert.equal(r.code, 2);
  });

  it('an --output that cannot be written is one line naming the file', async () => {
    const result = await cli(['analyze', bigLog, '--output', path.join(dir, 'missing', 'report.txt')]);
    assert.equal(result.code, 2);
    assertOneLine(result.stderr);
    assert.match(result.stderr, /missing\/report\.txt: cannot write the report: no such file or directory/);
  });

  it('a full disk on stdout is one line, not a crash', { skip: !existsSync('/dev/full') }, async () => {
    const r = await collect(spawn('sh', ['-c', `${process.execPath} ${BIN} analyze ${bigLog} > /dev/full`], { cwd: dir }));
    assert.equal(r.code, 2);
    assertOneLine(r.stderr);
    assert.match(r.stderr, /^linkerd-doctor: stdout: cannot write the report/);
  });

  for (const [what, args, pattern] of [
    ['an unknown flag', ['analyze', '--bogus', 'x'], /^linkerd-doctor: analyze: unknown flag --bogus \(see linkerd-doctor analyze --help\)/],
    [
      'a bad option value',
      ['analyze', '--fail-on', 'sometimes', 'x'],
      /^linkerd-doctor: analyze: --fail-on sometimes: not one of error, warning, info, none\n$/,
    ],
    ['an unknown command', ['frobnicate'], /^linkerd-doctor: unknown command frobnicate \(commands: analyze, /],
    ['a missing file', ['analyze', 'no-such.log'], /^linkerd-doctor: no-such\.log: no such file or directory/],
  ] as const) {
    it(`${what} is one line on stderr and exit 2`, async () => {
      const result = await cli([...args]);
      assert.equal(result.code, 2);
      assertOneLine(result.stderr);
      assert.match(result.stderr, pattern);
    });
  }
});
