import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exitCodeFor, isFailing } from '../src/report/exit-code.js';
import type { FailOn } from '../src/report/severity.js';

describe('isFailing', () => {
  const cases: [string, FailOn, 'new' | 'worse' | 'unchanged' | undefined, boolean][] = [
    ['error', 'error', undefined, true],
    ['warning', 'error', undefined, false],
    ['warning', 'warning', undefined, true],
    ['info', 'warning', undefined, false],
    ['info', 'info', undefined, true],
    ['error', 'none', undefined, false],
    ['error', 'error', 'unchanged', false],
    ['error', 'error', 'new', true],
    ['error', 'error', 'worse', true],
    ['warning', 'error', 'worse', false],
  ];
  for (const [severity, failOn, state, expected] of cases) {
    it(`${severity} with --fail-on ${failOn}${state ? `, baseline ${state}` : ''} → ${expected ? 'fails' : 'passes'}`, () => {
      const finding = state ? { severity: severity as 'error', baseline: { state } } : { severity: severity as 'error' };
      assert.equal(isFailing(finding, failOn), expected);
    });
  }
});

describe('exitCodeFor', () => {
  it('is 2 on any error, whatever the findings; else 1 on fail, 0 on pass', () => {
    assert.equal(exitCodeFor({ status: 'pass', errors: [] }), 0);
    assert.equal(exitCodeFor({ status: 'fail', errors: [] }), 1);
    assert.equal(exitCodeFor({ status: 'fail', errors: [{ path: 'a.gz', message: 'corrupt' }] }), 2);
    assert.equal(exitCodeFor({ status: 'pass', errors: [{ path: 'rule:x', message: 'rule failed' }] }), 2);
  });
});
