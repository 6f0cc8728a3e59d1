// Issue 27: UTF-16 captures (PowerShell 5.1's `>` writes UTF-16 LE with a BOM and CRLF) are
// decoded before lines are split, as they stream, so a storm saved that way is found.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LineSplitter, utf16Of } from '../../src/input/lines.js';

const BIN = path.resolve('bin/run.js');
const STORM_TEXT = readFileSync('fixtures/storm/linkerd/linkerd-destination-27q9ckwhq2-8bswg/linkerd-proxy.log', 'utf8');
let dir: string;

before(() => {
  assert.ok(existsSync('dist/commands/analyze.js'), 'run `npm run build` first');
  dir = mkdtempSync(path.join(tmpdir(), 'ld-encodings-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** What PowerShell 5.1's `Get-Content x | Out-File y` (and `>`) writes: BOM, UTF-16 LE, CRLF. */
function powershell(text: string): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text.replace(/\n/g, '\r\n'), 'utf16le')]);
}

function utf16be(text: string): Buffer {
  const le = Buffer.from(text, 'utf16le');
  return le.swap16();
}

function splitAll(bytes: Buffer, chunk: number): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter(1 << 20, { line: (l) => lines.push(l), overlong: () => lines.push('<overlong>') });
  for (let i = 0; i < bytes.length; i += chunk) splitter.write(bytes.subarray(i, i + chunk));
  splitter.end();
  return lines;
}

describe('UTF-16 inputs', () => {
  it('tells UTF-16 by its BOM or its NUL pattern, and leaves UTF-8 and damaged BOMs alone', () => {
    assert.equal(utf16Of(powershell('hello world\n')), 'utf-16le');
    assert.equal(utf16Of(Buffer.from('hello world, no BOM\n', 'utf16le')), 'utf-16le');
    assert.equal(utf16Of(utf16be('hello world, no BOM\n')), 'utf-16be');
    assert.equal(utf16Of(Buffer.from('hello world, plain UTF-8 café\n')), null);
    assert.equal(utf16Of(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('ascii text after a stray BOM\n')])), null);
  });

  it('decodes as it streams, whatever the chunking (a character cut between chunks included)', () => {
    const text = 'first line é\nsecond line 日本\nthird\n';
    for (const chunk of [1, 3, 7, 1024]) {
      assert.deepEqual(splitAll(powershell(text), chunk), ['first line é', 'second line 日本', 'third'], `chunk ${chunk}`);
      assert.deepEqual(splitAll(utf16be(text), chunk), ['first line é', 'second line 日本', 'third'], `chunk ${chunk}`);
    }
  });

  it('a storm saved by PowerShell beside a metrics dump is found and fails the gate', () => {
    const folder = path.join(dir, 'powershell');
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'linkerd-proxy.log'), powershell(STORM_TEXT));
    copyFileSync('fixtures/healthy-metrics/proxy-metrics.txt', path.join(folder, 'proxy-metrics.txt'));
    const run = spawnSync(process.execPath, [BIN, 'analyze', folder, '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    // Before: the log was "unknown" (a notice blamed a preamble) and the gate passed with exit 0.
    assert.equal(run.status, 1, run.stderr);
    const report = JSON.parse(run.stdout) as { inputs: { path: string; kind: string }[]; findings: { ruleId: string }[] };
    assert.equal(report.inputs.find((i) => i.path.endsWith('linkerd-proxy.log'))?.kind, 'proxy-log');
    // The same findings as the log saved as UTF-8.
    const utf8Folder = path.join(dir, 'utf8');
    mkdirSync(utf8Folder);
    writeFileSync(path.join(utf8Folder, 'linkerd-proxy.log'), STORM_TEXT);
    copyFileSync('fixtures/healthy-metrics/proxy-metrics.txt', path.join(utf8Folder, 'proxy-metrics.txt'));
    const utf8 = spawnSync(process.execPath, [BIN, 'analyze', utf8Folder, '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const ruleIds = (r: { findings: { ruleId: string }[] }) => r.findings.map((f) => f.ruleId);
    assert.ok(report.findings.length > 0);
    assert.deepEqual(ruleIds(report), ruleIds(JSON.parse(utf8.stdout) as typeof report));
  });
});
