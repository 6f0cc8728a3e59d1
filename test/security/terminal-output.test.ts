// The text report and stderr reach terminals: no escape sequence or control character from the
// inputs may reach them raw (issue 21). Each case runs the built CLI on hostile bytes and checks
// the bytes it wrote.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { safeStderrChunk } from '../../src/cli/stderr.js';
import { terminalSafe, terminalSafeDeep } from '../../src/util/terminal-safe.js';
import { cli, NAME_ATTACK, scratch, stormPodsNamed, STORM_LOG, tarOf, TERMINAL_ATTACK, TERMINAL_CONTROL } from './hostile.js';

const ESC = '\x1b';
const ANY_ESCAPE = new RegExp(`${ESC}[^m]*m?`, 'g');
const SGR = new RegExp(`^${ESC}\\[[0-9;]*m$`);
const EVERY_SGR = new RegExp(`${ESC}\\[[0-9;]*m`, 'g');

describe('terminalSafe', () => {
  it('shows every control and escape introducer as visible text, keeping tabs and (unless one line) newlines', () => {
    const safe = terminalSafe(`a\tb\n${TERMINAL_ATTACK}`);
    assert.doesNotMatch(safe, TERMINAL_CONTROL);
    assert.ok(safe.startsWith('a\tb\n\\x1b]52;c;ZXZpbA==\\x07'));
    assert.match(safe, /\\x9b2J\\x1bc\\x1b\[\?1049h\\rX\\x08$/);
    assert.equal(terminalSafe('a\nb', true), 'a\\nb');
    assert.equal(terminalSafe('\u202eevil'), '\\u202eevil');
    assert.equal(terminalSafe('plain · text ✓'), 'plain · text ✓');
  });

  it('maps every string of a model, keys included, keeping newlines only in prose fields', () => {
    const model = terminalSafeDeep({ path: `a\nb${ESC}`, message: `one\ntwo${ESC}`, nested: [{ [`k${ESC}`]: `v\r` }], n: 3 });
    assert.deepEqual(structuredClone(model), { path: 'a\\nb\\x1b', message: 'one\ntwo\\x1b', nested: [{ 'k\\x1b': 'v\\r' }], n: 3 });
  });

  it('keeps a linkerd-doctor message to one line on stderr', () => {
    assert.equal(safeStderrChunk('linkerd-doctor: a:b\nlinkerd-doctor: forged\n'), 'linkerd-doctor: a:b\\nlinkerd-doctor: forged\n');
    assert.equal(safeStderrChunk(`Error: x${ESC}[2J\nSee more help\n`), 'Error: x\\x1b[2J\nSee more help\n');
  });
});

describe('text report on stdout', () => {
  const dir = scratch('term');
  const bundle = stormPodsNamed(dir, NAME_ATTACK);

  it('carries no control character from pod folder names, with or without colour', () => {
    const plain = cli(['analyze', bundle, '--no-color', '--no-progress', '--fail-on', 'warning']);
    assert.equal(plain.status, 1, plain.stderr);
    assert.match(plain.stdout, /reconnect/i);
    assert.doesNotMatch(plain.stdout, TERMINAL_CONTROL);
    // Such a folder is no pod name, so it never becomes a subject; --verbose still shows the path, as text.
    const verbose = cli(['analyze', bundle, '--no-color', '--no-progress', '--verbose', '--fail-on', 'warning']);
    assert.doesNotMatch(verbose.stdout, TERMINAL_CONTROL);
    assert.ok(verbose.stdout.includes('\\x1b]52;c;ZXZpb'), 'the escaped sequence is shown');

    const coloured = cli(['analyze', bundle, '--color', '--no-progress', '--fail-on', 'warning']);
    assert.equal(coloured.status, 1, coloured.stderr);
    // The report's own colours stay: every ESC left is a chalk SGR sequence, nothing else.
    const escapes = coloured.stdout.match(ANY_ESCAPE) ?? [];
    assert.ok(escapes.length > 0, 'colour is kept');
    for (const e of escapes) assert.match(e, SGR, `only SGR colour sequences: ${JSON.stringify(e)}`);
    assert.doesNotMatch(coloured.stdout.replace(EVERY_SGR, ''), TERMINAL_CONTROL);
  });

  it('carries no control character from log-line content, tar member names and # POD sections', () => {
    const lines = readFileSync(STORM_LOG, 'utf8').split('\n');
    // JSON escapes decode to raw ESC / C1 in the parsed fields and subjects.
    const hostile = lines.map((l) => l.replace(/"addr":"linkerd-dst-headless/g, `"addr":"linkerd-dst-headless\\u001b]0;t\\u0007\\u009b2J\\r`)).join('\n');
    const logFile = path.join(dir, 'hostile.log');
    writeFileSync(logFile, hostile);
    const tar = path.join(dir, 'bundle.tar');
    writeFileSync(tar, tarOf([{ name: `ingress/traefik-abc-def${NAME_ATTACK.slice(0, 40)}/linkerd-proxy.log`, body: readFileSync(STORM_LOG, 'utf8') }]));
    const dump = path.join(dir, 'metrics.txt');
    writeFileSync(
      dump,
      `#\n# POD traefik-7d9f8c6b5-x2x8k${TERMINAL_ATTACK.replace(/\n/g, '')} (1 of 1)\n#\n# TYPE x counter\nx{dst_pod="p\u001b]52;c;QQ==\u0007"} 1\n`,
    );
    for (const args of [[logFile], [tar], [dump, logFile]]) {
      const run = cli(['analyze', ...args, '--no-progress']);
      assert.ok(run.status === 1 || run.status === 0, `${args}: ${run.stderr}`);
      assert.doesNotMatch(run.stdout, TERMINAL_CONTROL, `stdout of ${args}`);
      assert.doesNotMatch(run.stderr, TERMINAL_CONTROL, `stderr of ${args}`);
    }
  });
});

describe('stderr', () => {
  const dir = scratch('stderr');

  it('a tar member name with a newline cannot forge a second error line, nor drive the terminal', () => {
    const tar = path.join(dir, 'evil.tar');
    writeFileSync(tar, tarOf([{ name: `a\nlinkerd-doctor: error: FORGED${ESC}]0;pwned\x07`, body: 'hello\nnot a log\n' }]));
    const run = cli(['analyze', tar, '--no-progress']);
    assert.equal(run.status, 2);
    const lines = run.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, run.stderr);
    assert.ok(lines[0]!.startsWith('linkerd-doctor: '));
    assert.ok(lines[0]!.includes('a\\nlinkerd-doctor: error: FORGED\\x1b]0;pwned\\x07'), lines[0]);
    assert.doesNotMatch(run.stderr, TERMINAL_CONTROL);
  });

  it('file names in notices and errors are made safe', () => {
    const missing = path.join(dir, `gone${NAME_ATTACK}`);
    const run = cli(['analyze', missing, '--no-progress']);
    assert.equal(run.status, 2);
    assert.equal(run.stderr.trimEnd().split('\n').length, 1, run.stderr);
    assert.doesNotMatch(run.stderr, TERMINAL_CONTROL);
    assert.ok(run.stderr.includes('\\x1b]52;c;'), run.stderr);
  });

  it('a usage error echoing an argument is made safe too', () => {
    const run = cli(['analyze', '--format', `te${ESC}]0;x\x07xt`, 'x']);
    assert.equal(run.status, 2);
    assert.doesNotMatch(run.stderr, TERMINAL_CONTROL);
  });
});
