// Issue 45: a fragment of kubectl output gives the findings of the whole document where it holds
// the same facts. The whole is fixtures/pod-restarts/describe-linkerd-destination.txt (shaped
// after linkerd/linkerd2#10643, a destination pod crash-looping); each fragment is a piece of it
// as users paste them, under a cluster-info-dump path that names the pod and namespace the cut
// lost (`<ns>/<pod>/logs.txt`), so the facts are the same.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { Finding } from '../../src/core/types.js';
import podRestarts from '../../src/rules/pod-restarts/index.js';
import probeFailure from '../../src/rules/probe-failure/index.js';
import { runRule } from '../support/rule-tester.js';

const whole = readFileSync(new URL('../../fixtures/pod-restarts/describe-linkerd-destination.txt', import.meta.url), 'utf8');
const lines = whole.split('\n');
const from = (start: string) => lines.slice(lines.findIndex((l) => l.startsWith(start))).join('\n');
const PLACED = 'linkerd/linkerd-destination-7c9d5b8f6-q2wzl/logs.txt';

/** What a finding says, without where its lines sit. */
const said = (findings: readonly Finding[]) =>
  findings.map((f) => ({ severity: f.severity, kind: f.kind, title: f.title, subject: f.subject, keyFigure: f.keyFigure }));

describe('fragments of a describe give the findings of the whole', () => {
  for (const rule of [podRestarts, probeFailure]) {
    it(`${rule.meta.id}: from Init Containers: on, and from Containers: on`, async () => {
      const expected = said((await runRule(rule, [{ path: 'describe.txt', content: whole }])).findings);
      assert.ok(expected.length > 0, 'the whole document fires');
      assert.deepEqual(said((await runRule(rule, [{ path: PLACED, content: from('Init Containers:') }])).findings), expected);
      if (rule === probeFailure) assert.deepEqual(said((await runRule(rule, [{ path: PLACED, content: from('Containers:') }])).findings), expected);
    });
  }

  it("probe-failure: the Events table's rows alone, without its header", async () => {
    const expected = said((await runRule(probeFailure, [{ path: 'describe.txt', content: whole }])).findings);
    const rows = from('Events:').split('\n').slice(3).join('\n');
    assert.doesNotMatch(rows, /Type\s+Reason/);
    assert.deepEqual(said((await runRule(probeFailure, [{ path: PLACED, content: rows }])).findings), expected);
  });
});
