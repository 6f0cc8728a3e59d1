// Issue 44, item 2, as `analyze` runs it: a whole pod YAML in a bundle of healthy proxy logs (its
// status far past the sniffer's lines) is read and its OOMKilled proxy fails the gate; a List item
// that does not parse is named in the notice, where it is and why, and its lines are counted as
// not read in the report (the per-input accounting the report's input status uses).

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { runAnalyze } from '../../src/cli/run-analyze.js';
import type { Report } from '../../src/report/report.js';
import { podObject } from '../support/kube-shapes.js';
import { healthyLogs } from '../support/log-inputs.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ld-unread-'));
});
after(() => rm(dir, { recursive: true, force: true }));

async function analyze(inputs: string[], out: string): Promise<{ code: number; stderr: string; report: Report }> {
  const write = process.stderr.write.bind(process.stderr);
  let stderr = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    const code = await runAnalyze(inputs, { progress: false, quiet: false, config: path.join(dir, 'empty.yaml'), format: ['json'], output: [out] });
    return { code, stderr, report: JSON.parse(await readFile(out, 'utf8')) as Report };
  } finally {
    process.stderr.write = write;
  }
}

describe('unread Kubernetes objects in analyze (issue 44, item 2)', () => {
  it('a whole pod YAML in a bundle of healthy proxy logs: its OOMKilled proxy fails the gate', async () => {
    await writeFile(path.join(dir, 'empty.yaml'), '');
    const bundle = path.join(dir, 'bundle');
    for (const input of healthyLogs()) {
      await mkdir(path.dirname(path.join(bundle, input.path)), { recursive: true });
      await writeFile(path.join(bundle, input.path), input.content);
    }
    await writeFile(
      path.join(bundle, 'pod.yaml'),
      stringify(podObject('web-6d4cf56db6-abcde', 'shop', true), { indentSeq: false, lineWidth: 0, aliasDuplicateObjects: false }),
    );
    const { code, report } = await analyze([bundle], path.join(dir, 'bundle.json'));
    assert.equal(code, 1);
    assert.ok(report.findings.some((f) => f.ruleId === 'pod-restarts' && f.subject.pod === 'web-6d4cf56db6-abcde'));
    assert.equal(report.inputs.find((i) => i.path.endsWith('pod.yaml'))?.kind, 'kubectl');
  });

  it('a List item that does not parse: named in the notice, its lines counted as not read', async () => {
    const text = stringify(
      { apiVersion: 'v1', items: [podObject('web-6d4cf56db6-aaaaa', 'shop', false), podObject('web-6d4cf56db6-bbbbb', 'shop', true)], kind: 'List' },
      { indentSeq: false, lineWidth: 0, aliasDuplicateObjects: false },
    ).split('\n');
    const second = text.lastIndexOf('- apiVersion: v1');
    const tabbed = text.findIndex((l, i) => i > second && /^ +restartCount: 4$/.test(l));
    text[tabbed] = text[tabbed]!.replace(/^ +/, '\t');
    const file = path.join(dir, 'pods.yaml');
    await writeFile(file, text.join('\n'));
    const { stderr, report } = await analyze([file], path.join(dir, 'pods.json'));
    // The item's lines: from its `- ` to the line before `kind: List` (the last line, before the final newline).
    const unread = text.length - 2 - second;
    assert.equal(report.inputs[0]!.unparsed, unread);
    assert.match(
      stderr,
      new RegExp(
        `notice: .*pods\\.yaml: ${unread} of \\d+ lines did not parse as kubectl; the Kubernetes object at lines ${second + 1}-${second + unread} does not parse \\(line ${tabbed + 1}: `,
      ),
    );
  });
});
