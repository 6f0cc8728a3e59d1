import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolvePathArgs } from '../src/cli/paths.js';
import { UsageError } from '../src/core/errors.js';

describe('resolvePathArgs', () => {
  it('refuses to wait on a terminal when no PATH is given', () => {
    assert.throws(
      () => resolvePathArgs([], true),
      (err: unknown) => err instanceof UsageError && /stdin is a terminal/.test(err.message),
    );
  });

  it('reads stdin when it is a pipe or a file and no PATH is given', () => {
    assert.deepEqual(resolvePathArgs([], false), ['-']);
    assert.deepEqual(resolvePathArgs([], undefined), ['-']);
  });

  it('uses the given paths whatever stdin is', () => {
    assert.deepEqual(resolvePathArgs(['a.log', '-'], true), ['a.log', '-']);
  });
});
