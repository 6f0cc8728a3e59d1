// Lone surrogates from JSON log lines (`\ud800` decodes to half a UTF-16 pair) must not reach the
// JSON outputs as such: jq, Go and Python reject them (issue 21). Run through the built CLI.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { wellFormedJson } from '../../src/util/json-safe.js';
import { cli, scratch, STORM_LOG } from './hostile.js';

/** No unpaired surrogate (String.prototype.isWellFormed, which this TypeScript lib does not type). */
function isWellFormed(s: string): boolean {
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
}

/** Every string of a parsed document, keys included, is well-formed UTF-16. */
function assertWellFormed(value: unknown, where: string): void {
  if (typeof value === 'string') assert.ok(isWellFormed(value), `${where}: ${JSON.stringify(value)}`);
  else if (Array.isArray(value)) value.forEach((v, i) => assertWellFormed(v, `${where}[${i}]`));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      assert.ok(isWellFormed(k), `${where}: key ${JSON.stringify(k)}`);
      assertWellFormed(v, `${where}.${k}`);
    }
  }
}

/** JSON text a strict decoder accepts: no escaped lone surrogate, no raw C1 control. */
function assertStrictJson(text: string, what: string): void {
  assert.doesNotMatch(text, /(?<!\\)(?:\\\\)*\\ud[89a-f][0-9a-f]{2}(?!\\ud[c-f])/i, `${what} carries an escaped lone surrogate`);
  assert.doesNotMatch(text, /[\u007f-\u009f]/, `${what} carries a raw C1 control`);
  assertWellFormed(JSON.parse(text), what);
}

const jq = spawnSync('jq', ['--version']).status === 0;

describe('well-formed JSON from hostile JSON log lines', () => {
  const dir = scratch('json');
  const pod = path.join(dir, 'ingress', 'traefik-84f22pthm6-9jxm9');
  mkdirSync(pod, { recursive: true });
  // The controller address (a finding's subject) and an error text carry lone surrogates and a C1 CSI.
  const hostile = readFileSync(STORM_LOG, 'utf8')
    .replace(/"addr":"linkerd-dst-headless\.linkerd/g, '"addr":"linkerd-dst-headless\\ud800.linkerd')
    .replace(/Connection refused \(os error 111\)/g, 'Connection refused\\udfff\\u009b (os error 111)');
  const log = path.join(pod, 'linkerd-proxy.log');
  writeFileSync(log, hostile);

  it('the JSON and SARIF reports are well-formed', () => {
    for (const format of ['json', 'sarif']) {
      const run = cli(['analyze', dir, '--format', format, '--no-progress']);
      assert.ok(run.status === 0 || run.status === 1, run.stderr);
      assert.ok(run.stdout.includes('linkerd-dst-headless\ufffd.linkerd'), `${format}: the lone surrogate becomes U+FFFD`);
      assertStrictJson(run.stdout, format);
      if (jq) assert.equal(spawnSync('jq', ['-e', '.'], { input: run.stdout, encoding: 'utf8' }).status, 0, `jq accepts the ${format} report`);
    }
  });

  it('parse NDJSON is well-formed line by line', () => {
    const run = cli(['parse', log]);
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trimEnd().split('\n');
    assert.ok(lines.length > 1000);
    lines.forEach((line, i) => assertStrictJson(line, `parse line ${i + 1}`));
    if (jq) assert.equal(spawnSync('jq', ['-c', '.'], { input: run.stdout, encoding: 'utf8', maxBuffer: 1 << 28 }).status, 0, 'jq accepts the NDJSON');
  });

  it('wellFormedJson leaves escaped backslashes and real pairs alone', () => {
    const text = JSON.stringify({ a: 'x\ud800', b: '\\ud800', c: '😀', d: '\\\ud800' });
    assert.deepEqual(JSON.parse(wellFormedJson(text)), { a: 'x\ufffd', b: '\\ud800', c: '😀', d: '\\\ufffd' });
  });
});
