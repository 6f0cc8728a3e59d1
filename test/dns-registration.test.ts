// The DNS parsers and rules are wired in: registry entries, option defaults matching their
// schema, stable codes, and a docs page with every required section.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { PARSERS } from '../src/parsers/index.js';
import { findRule } from '../src/rules/index.js';

const SECTIONS = ['## What it means', '## Evidence', '## How to fix it', '## False positives', '## References'];

describe('DNS registration', () => {
  it('registers the dig and coredns-log parsers', () => {
    assert.equal(typeof PARSERS.dig, 'function');
    assert.equal(typeof PARSERS['coredns-log'], 'function');
  });

  for (const [id, code, input] of [
    ['dns-ttl-zero', 'LD3001', 'dig'],
    ['dns-query-storm', 'LD3002', 'coredns-log'],
  ] as const) {
    it(`${id}: registered, agreed options, documented`, () => {
      const rule = findRule(id);
      assert.ok(rule, 'in RULES');
      assert.equal(rule.meta.code, code);
      assert.deepEqual(rule.meta.inputs, [input]);
      const options = rule.meta.defaultOptions as Record<string, unknown>;
      assert.deepEqual(Object.keys(options).sort(), Object.keys(rule.meta.optionSchema).sort());
      if (id === 'dns-query-storm') {
        assert.equal(options.burstWindowSeconds, 2);
        for (const agreed of ['burstQueries', 'minPeriodicBursts']) assert.ok(agreed in options, agreed);
      } else assert.ok('controlPlaneNames' in options);
      const doc = readFileSync(new URL(`../docs/rules/${id}.md`, import.meta.url), 'utf8');
      for (const section of SECTIONS) assert.ok(doc.includes(section), `${id}.md has ${section}`);
    });
  }
});
