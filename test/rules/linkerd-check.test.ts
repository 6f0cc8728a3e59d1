// linkerd-check beyond its cases: a certificate linkerd check names and what the API server says
// about the same certificate in the events are one incident, the check's finding its probable cause.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { Finding } from '../../src/core/types.js';
import { correlate } from '../../src/incident/correlate.js';
import { findRule } from '../../src/rules/index.js';
import { runRule } from '../support/rule-tester.js';

const read = (name: string) => readFileSync(new URL(`../data/linkerd-cli/${name}`, import.meta.url), 'utf8');

describe('linkerd-check', () => {
  it('folds the check output and the events of the same webhook certificate into one incident', async () => {
    const inputs = [
      { path: 'check.txt', content: read('check-json-elided.txt'), kind: 'linkerd-cli' as const },
      { path: 'events.txt', content: read('events-injector-webhook-expired.txt'), kind: 'kubectl' as const },
    ];
    const findings: Finding[] = [];
    for (const id of ['linkerd-check', 'controller-api-errors']) findings.push(...(await runRule(findRule(id)!, inputs)).findings);
    assert.deepEqual(findings.map((f) => f.ruleId).sort(), ['controller-api-errors', 'linkerd-check']);
    const incidents = correlate(findings);
    assert.equal(incidents.length, 1);
    assert.deepEqual(
      incidents[0]!.findings.map((f) => [f.ruleId, f.role]),
      [
        ['linkerd-check', 'probable cause'],
        ['controller-api-errors', 'effect'],
      ],
    );
    assert.match(incidents[0]!.headline, /proxy-injector webhook's serving certificate expired on 2022-06-01T10:00:00Z/);
  });
});
