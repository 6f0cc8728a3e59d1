// The command line around oclif: Linkerd's global flags, forward-compatible `check`, and parse
// errors described by oclif's error class (never by the wording of its message).

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  describeParseError,
  dropUnknownFlags,
  FlagValueError,
  parseWholeNumber,
  stripLinkerdGlobals,
  type CommandShape,
  type ParserErrorClasses,
} from '../../src/cli/argv.js';

const require = createRequire(import.meta.url);
/** The classes oclif's parser throws, loaded the way main.ts loads them. */
const classes = require(path.join(path.dirname(require.resolve('@oclif/core')), 'parser', 'errors.js')) as ParserErrorClasses &
  Record<string, new (...args: never[]) => Error>;
const construct = (name: string, ...args: unknown[]) => new (classes[name] as unknown as new (...a: unknown[]) => Error)(...args);

const ANALYZE: CommandShape = {
  id: 'analyze',
  flags: {
    format: { name: 'format', char: 'f', type: 'option', options: ['text', 'json', 'sarif'] },
    'fail-on': { name: 'fail-on', type: 'option', options: ['error', 'warning', 'info', 'none'] },
    quiet: { name: 'quiet', char: 'q', type: 'boolean' },
  },
};
const EXPORT: CommandShape = {
  id: 'export-rules',
  flags: { target: { name: 'target', char: 't', type: 'option', options: ['prometheus', 'loki'], required: true } },
};

describe('describeParseError', () => {
  it('an unknown flag, by NonExistentFlagsError: the nearest long flag', () => {
    const err = construct('NonExistentFlagsError', { flags: ['--formt'], parse: {} });
    assert.equal(describeParseError(err, ANALYZE, classes), 'analyze: unknown flag --formt; did you mean --format? (see linkerd-doctor analyze --help)');
  });

  it('a stray argument, by UnexpectedArgsError', () => {
    const err = construct('UnexpectedArgsError', { args: ['extra', 'more'], parse: {} });
    assert.equal(describeParseError(err, { id: 'rules', flags: {} }, classes), 'rules: unexpected arguments extra more (see linkerd-doctor rules --help)');
  });

  it('a value outside the options, by FlagInvalidOptionError, named from the permissive parse', () => {
    const err = construct('FlagInvalidOptionError', { name: 'fail-on', options: ['error', 'warning', 'info', 'none'] }, 'warn');
    const raw = [
      { type: 'arg', input: 'bundle/' },
      { type: 'flag', flag: 'format', input: 'json' },
      { type: 'flag', flag: 'fail-on', input: 'warn' },
    ];
    assert.equal(
      describeParseError(err, ANALYZE, classes, { raw, flags: {} }),
      'analyze: --fail-on warn: not one of error, warning, info, none; did you mean warning?',
    );
  });

  it('a missing required flag, by FailedFlagValidationError, with its options', () => {
    const err = construct('FailedFlagValidationError', {
      failed: [{ name: 'target', reason: 'Missing required flag target', status: 'failed', validationFn: 'required' }],
      parse: {},
    });
    assert.equal(
      describeParseError(err, EXPORT, classes, { raw: [], flags: {} }),
      'export-rules: --target is required (one of: prometheus, loki) (see linkerd-doctor export-rules --help)',
    );
  });

  it('our own flag value errors keep their reason though oclif rewrites the message', () => {
    const err = new FlagValueError('jobs', '--jobs must be a whole number of at least 1, got "0"');
    err.message = `Parsing --jobs \n\t${err.message}\nSee more help with --help`;
    assert.equal(describeParseError(err, ANALYZE, classes), 'analyze: --jobs must be a whole number of at least 1, got "0"');
    assert.throws(
      () => parseWholeNumber('max-findings', '1.5', 1),
      (e: unknown) => e instanceof FlagValueError && e.flag === 'max-findings',
    );
    assert.equal(parseWholeNumber('max-findings', '3', 1), 3);
  });

  it('reads nothing into the wording: an unclassed error that looks like an option error is only its first line', () => {
    const lookalike = new Error('Expected --fail-on=warn to be one of: error, warning\nSee more help with --help');
    assert.equal(
      describeParseError(lookalike, ANALYZE, classes),
      'analyze: Expected --fail-on=warn to be one of: error, warning (see linkerd-doctor analyze --help)',
    );
    const header = new Error('The following error occurred:\n  something specific');
    assert.equal(describeParseError(header, ANALYZE, undefined), 'analyze: something specific (see linkerd-doctor analyze --help)');
  });
});

describe('Linkerd flags', () => {
  it('strips the cluster flags with their values and keeps them for collect', () => {
    const prepared = stripLinkerdGlobals(['--context', 'prod', 'collect', '-L', 'l5d', '--as=me', '--verbose=false', '-n', 'web', '--', '--context', 'x']);
    assert.deepEqual(prepared.argv, ['collect', '-n', 'web', '--', '--context', 'x']);
    assert.deepEqual(prepared.clusterFlags, ['--context', 'prod', '-L', 'l5d', '--as=me']);
    assert.equal(prepared.verbose, false);
  });

  it('check drops flags it does not know and takes --flag=false booleans', () => {
    const check: CommandShape = {
      id: 'check',
      flags: { output: { name: 'output', char: 'o', type: 'option' }, proxy: { name: 'proxy', type: 'boolean' }, pre: { name: 'pre', type: 'boolean' } },
    };
    assert.deepEqual(dropUnknownFlags(['--proxy=false', '--pre=true', '--output=json', '--future=1', '-Z', '-o', 'json', '--', '--x'], check), {
      argv: ['--no-proxy', '--pre', '--output=json', '-o', 'json', '--', '--x'],
      dropped: ['--future=1', '-Z'],
    });
  });
});
