// Rule options are validated in one place (src/config/options.ts): the config loader and the
// export build say the same thing about the same bad value.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, parseConfig } from '../../src/config/config.js';
import { resolveRuleOptions } from '../../src/config/options.js';
import { UsageError } from '../../src/core/errors.js';
import { RULES } from '../../src/rules/index.js';

const storm = RULES.find((r) => r.meta.id === 'reconnect-storm')!;

function loaderReason(options: Record<string, unknown>): string {
  const lines = ['rules:', '  reconnect-storm:', '    options:', ...Object.entries(options).map(([k, v]) => `      ${k}: ${JSON.stringify(v)}`)];
  try {
    parseConfig(lines.join('\n') + '\n', 'fleet.yaml');
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.message.replace(/^fleet\.yaml:\d+: /, 'fleet.yaml: ');
  }
  assert.fail('the loader accepted the options');
}

function resolveReason(options: Record<string, unknown>): string {
  try {
    resolveRuleOptions(storm.meta, options, 'fleet.yaml');
  } catch (err) {
    assert.ok(err instanceof UsageError, String(err));
    return err.message;
  }
  assert.fail('resolveRuleOptions accepted the options');
}

describe('rule option validation', () => {
  for (const [what, options] of [
    ['below the minimum', { minPods: 0 }],
    ['not a whole number', { minPods: 2.5 }],
    ['a string for a number', { sustainSeconds: 'long' }],
    ['an unknown option', { minPod: 3 }],
  ] as const) {
    it(`words ${what} the same in the config loader and in the export build`, () => {
      const fromResolve = resolveReason(options);
      assert.match(fromResolve, new RegExp(`^fleet\\.yaml: rules\\.reconnect-storm\\.options\\.${Object.keys(options)[0]}: `));
      assert.equal(fromResolve, loaderReason(options));
    });
  }

  it('merges valid overrides over the defaults', () => {
    const resolved = resolveRuleOptions(storm.meta, { minPods: 7 }, 'fleet.yaml') as Record<string, unknown>;
    assert.equal(resolved.minPods, 7);
    assert.equal(resolved.sustainSeconds, (storm.meta.defaultOptions as Record<string, unknown>).sustainSeconds);
  });
});
