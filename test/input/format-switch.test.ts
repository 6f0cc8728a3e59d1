// Issue 27: a file that changes format after its head (70 lines of dig, then a proxy log) was
// read as the first format only and the gate passed. It is now an input error naming the file.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

const BIN = path.resolve('bin/run.js');
let dir: string;

before(() => {
  assert.ok(existsSync('dist/commands/analyze.js'), 'run `npm run build` first');
  dir = mkdtempSync(path.join(tmpdir(), 'ld-switch-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const DIG = readFileSync('test/dns/data/dig-samples/14-truncated-tcp-retry.out', 'utf8').split('\n').slice(0, 70).join('\n');
const PROXY_LOG = readFileSync('fixtures/storm/linkerd/linkerd-destination-27q9ckwhq2-8bswg/linkerd-proxy.log', 'utf8');

describe('a file that changes format', () => {
  it('70 lines of healthy dig, then a proxy log with failures: exit 2 and one line naming the file', () => {
    const file = path.join(dir, 'capture.txt');
    writeFileSync(file, `${DIG}\n${PROXY_LOG}`);
    const run = spawnSync(process.execPath, [BIN, 'analyze', file, '-q'], { encoding: 'utf8' });
    // Before: read as dig only, no finding, exit 0.
    assert.equal(run.status, 2, run.stderr);
    assert.match(
      run.stderr,
      /capture\.txt: \d+ of \d+ lines did not parse as dig, the kind its first lines show; they read as proxy-log: the input changes format/,
    );
  });

  it('the same dig and proxy log as two files pass through untouched (each is one format)', () => {
    writeFileSync(path.join(dir, 'dig.txt'), `${DIG}\n`);
    const run = spawnSync(process.execPath, [BIN, 'analyze', path.join(dir, 'dig.txt'), '-q'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, '');
  });

  it("a proxy log followed by the app container's own output (kubectl logs --all-containers) is no input error", () => {
    const app = Array.from(
      { length: 300 },
      (_, i) => `2024-06-05T10:00:${String(i % 60).padStart(2, '0')}.000Z INFO  [main] com.example.App - handled GET /api/items/${i} in 12ms`,
    ).join('\n');
    const file = path.join(dir, 'all-containers.log');
    writeFileSync(file, `${PROXY_LOG.split('\n').slice(0, 50).join('\n')}\n${app}\n`);
    const run = spawnSync(process.execPath, [BIN, 'analyze', file, '-q'], { encoding: 'utf8' });
    assert.notEqual(run.status, 2, run.stderr);
    assert.doesNotMatch(run.stderr, /changes format/);
  });
});
