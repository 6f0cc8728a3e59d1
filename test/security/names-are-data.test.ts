// Issue 44, item 8 (audit round 3, f14-constructor.sh): names from the input are data, never keys
// that a plain object already has. A container named `constructor` (a valid DNS-1123 label) was
// looked up in a plain object of Linkerd's controllers and reported as a crash-looping Linkerd
// controller ("It provides undefined."); `level=__proto__` read as the level `{}`, and a logfmt
// key `__proto__` was dropped. Lookup tables and input-keyed objects now have no prototype
// (src/util/dict.ts), and a local lint rule refuses a plain object literal typed Record<string, …>.

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';
import type { LdRecord, ProxyLogRecord } from '../../src/core/types.js';
import { readEntry } from '../../src/engine/pipeline.js';
import podRestarts from '../../src/rules/pod-restarts/index.js';
import { runRule } from '../support/rule-tester.js';

/** Names every plain object inherits from Object.prototype. */
const INHERITED = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', 'isPrototypeOf'];

/** A described pod whose app container (named `name`) crash-loops, as `kubectl describe pod` prints it. */
const crashLooping = (name: string) =>
  [
    'Name:             shop-api-5d8f7c9b4-abcde',
    'Namespace:        shop',
    'Containers:',
    `  ${name}:`,
    '    Image:          ghcr.io/example/api:2.1.0',
    '    State:          Waiting',
    '      Reason:       CrashLoopBackOff',
    '    Last State:     Terminated',
    '      Reason:       Error',
    '      Exit Code:    1',
    '    Ready:          False',
    '    Restart Count:  7',
    '',
  ].join('\n');

async function records(content: string, path: string): Promise<LdRecord[]> {
  const out: LdRecord[] = [];
  await readEntry({ path, stream: Readable.from([Buffer.from(content)]), size: null }, { record: (r) => out.push(r) });
  return out;
}

describe('names from the input are data (issue 44, item 8)', () => {
  it('an application container named constructor is not a Linkerd controller', async () => {
    const { findings } = await runRule(podRestarts, [{ path: 'describe.txt', content: crashLooping('constructor') }]);
    assert.deepEqual(findings, []);
  });

  it('the destination controller crash-looping is still one (the table still answers its own names)', async () => {
    const { findings } = await runRule(podRestarts, [{ path: 'describe.txt', content: crashLooping('destination') }]);
    assert.equal(findings.length, 1);
    assert.match(findings[0]!.message, /It provides service discovery for every proxy/);
  });

  it('a Go log level named after an inherited key is no level, and such keys stay fields of their own', async () => {
    const log = [
      'time="2024-06-05T11:01:11Z" level=info msg="starting" __proto__=x constructor=y',
      ...INHERITED.map((name, i) => `time="2024-06-05T11:01:1${i}Z" level=${name} msg="line ${i}"`),
    ].join('\n');
    const read = (await records(log + '\n', 'linkerd/linkerd-destination-5d8f7c9b4-abcde/destination.log')) as ProxyLogRecord[];
    assert.equal(read[0]!.level, 'INFO');
    assert.equal(read[0]!.fields['__proto__'], 'x');
    assert.equal(read[0]!.fields.constructor, 'y');
    for (const r of read.slice(1)) assert.ok(r.level === null || typeof r.level === 'string', `level ${JSON.stringify(r.level)}`);
    assert.ok(!read.some((r) => typeof r.level === 'object' && r.level !== null));
  });

  it('the lint rule refuses a plain object literal keyed by strings in src/, and accepts dict()', async () => {
    const eslint = new ESLint();
    const lint = async (code: string) => (await eslint.lintText(code, { filePath: 'src/util/lint-probe.ts' }))[0]!.messages.map((m) => m.ruleId);
    assert.deepEqual(await lint('export const T: Readonly<Record<string, number>> = { a: 1 };\n'), ['doctor/no-plain-dict']);
    assert.deepEqual(await lint('export function f(): Record<string, string> {\n  const fields: Record<string, string> = {};\n  return fields;\n}\n'), [
      'doctor/no-plain-dict',
    ]);
    assert.deepEqual(
      await lint(
        "import { dict } from './dict.js';\n\nexport function f(): Record<string, string> {\n  const fields: Record<string, string> = dict();\n  return fields;\n}\n",
      ),
      [],
    );
    // Keys from a closed union cannot carry an input's name: not flagged.
    assert.deepEqual(await lint("type K = 'a' | 'b';\nexport const T: Record<K, number> = { a: 1, b: 2 };\n"), []);
  });
});
