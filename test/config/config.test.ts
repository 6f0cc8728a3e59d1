import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { effectiveThresholds } from '../../src/cli/run-analyze.js';
import { ConfigError, configuredRules, loadConfig, parseConfig, parseSuppressFlag } from '../../src/config/config.js';
import { UsageError } from '../../src/core/errors.js';
import { RULES } from '../../src/rules/index.js';

const storm = () => RULES.find((r) => r.meta.id === 'reconnect-storm')!;

function configErrorOf(text: string, source = '.linkerd-doctor.yaml'): ConfigError {
  try {
    parseConfig(text, source);
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`);
    assert.ok(err instanceof UsageError, 'config errors are usage errors (exit 2)');
    assert.ok(!err.message.includes('\n'), `one line: ${err.message}`);
    return err;
  }
  assert.fail('config was accepted');
}

describe('parseConfig', () => {
  it('applies severity, options over the defaults, and disables rules', () => {
    const config = parseConfig(
      [
        'failOn: warning',
        'minSeverity: warning',
        'baselineTolerance: 25',
        'rules:',
        '  reconnect-storm:',
        '    severity: error',
        '    options:',
        '      minPods: 12',
        '      sustainSeconds: 45.5',
      ].join('\n'),
      'cfg.yaml',
    );
    assert.equal(config.failOn, 'warning');
    assert.equal(config.minSeverity, 'warning');
    assert.equal(config.baselineTolerance, 25);
    const configured = configuredRules(config).find((c) => c.rule.meta.id === 'reconnect-storm');
    assert.equal(configured!.severity, 'error');
    assert.deepEqual(configured!.options, { ...storm().meta.defaultOptions, minPods: 12, sustainSeconds: 45.5 });
    const ids = (c: ReturnType<typeof parseConfig>) => configuredRules(c).map((r) => r.rule.meta.id);
    assert.ok(!ids(parseConfig('rules:\n  reconnect-storm: false\n', 'c.yaml')).includes('reconnect-storm'));
    const disabled = parseConfig('rules:\n  reconnect-storm:\n    enabled: false\n', 'c.yaml');
    assert.deepEqual(disabled.disabledRules, ['reconnect-storm']);
    assert.ok(!ids(disabled).includes('reconnect-storm'));
    assert.equal(ids(disabled).length, ids(parseConfig('', 'c.yaml')).length - 1, 'only that rule is off');
  });

  it('accepts a rule code instead of its id, and JSON', () => {
    const config = parseConfig(JSON.stringify({ rules: { LD1001: { options: { minPods: 3 } } } }), 'c.json');
    assert.equal((config.rules.find((r) => r.rule.meta.id === 'reconnect-storm')!.options as { minPods: number }).minPods, 3);
  });

  it('hands out fresh option objects so one run cannot change the next', () => {
    const config = parseConfig('rules:\n  reconnect-storm:\n    options:\n      minPods: 3\n', 'c.yaml');
    (configuredRules(config)[0]!.options as { minPods: number }).minPods = 99;
    assert.equal((configuredRules(config)[0]!.options as { minPods: number }).minPods, 3);
  });

  it('requires a reason on every suppression', () => {
    const config = parseConfig('suppress:\n  - rule: reconnect-storm\n    subject: "emojivoto/*"\n    reason: known during migration, JIRA-12\n', 'c.yaml');
    assert.deepEqual(config.suppress, [{ rule: 'reconnect-storm', subject: 'emojivoto/*', reason: 'known during migration, JIRA-12', source: 'config' }]);
    const err = configErrorOf('suppress:\n  - rule: reconnect-storm\n    subject: "x"\n');
    assert.match(err.message, /^\.linkerd-doctor\.yaml:2: suppress\[0\]\.rule: a suppression needs a reason/);
  });

  const bad: [string, string, RegExp][] = [
    [
      'option below its minimum',
      'rules:\n  reconnect-storm:\n    options:\n      minPods: 0\n',
      /^\.linkerd-doctor\.yaml:4: rules\.reconnect-storm\.options\.minPods: must be ≥ 1, got 0$/,
    ],
    ['fractional integer option', 'rules:\n  reconnect-storm:\n    options:\n      minPods: 2.5\n', /options\.minPods: must be a whole number, got 2\.5/],
    [
      'string for a number',
      'rules:\n  reconnect-storm:\n    options:\n      sustainSeconds: "30s"\n',
      /options\.sustainSeconds: must be a number, got string "30s"/,
    ],
    [
      'unknown option',
      'rules:\n  reconnect-storm:\n    options:\n      minPod: 3\n',
      /:4: rules\.reconnect-storm\.options\.minPod: unknown option; did you mean minPods\? \(known: sustainSeconds, /,
    ],
    ['unknown rule', 'rules:\n  reconect-storm: {}\n', /:2: rules\.reconect-storm: unknown rule; did you mean reconnect-storm\? \(known: reconnect-storm/],
    // The same suggestion as --suppress and explain give (issue 28), for a code too.
    ['unknown rule code', 'rules:\n  LD101: false\n', /:2: rules\.LD101: unknown rule; did you mean LD1001\? \(known: /],
    [
      'unknown suppression rule',
      'suppress:\n  - rule: reconect-storm\n    reason: known\n',
      /:2: suppress\[0\]\.rule: unknown rule "reconect-storm"; did you mean reconnect-storm\? \(known: /,
    ],
    [
      'unknown rule setting',
      'rules:\n  reconnect-storm:\n    enable: false\n',
      /:3: rules\.reconnect-storm\.enable: unknown rule setting; did you mean enabled\? /,
    ],
    ['no suggestion when nothing is near', 'rules:\n  zzzzzz: false\n', /:2: rules\.zzzzzz: unknown rule \(known: /],
    [
      'bad severity',
      'rules:\n  reconnect-storm:\n    severity: critical\n',
      /rules\.reconnect-storm\.severity: must be one of error, warning, info, got "critical"/,
    ],
    ['unknown top-level key', 'failon: warning\n', /:1: failon: unknown setting; did you mean failOn\? \(known: /],
    ['bad failOn', 'failOn: warnings\n', /failOn: must be one of error, warning, info, none, got "warnings"; did you mean warning\?$/],
    ['not a mapping', '- a\n- b\n', /the config must be a mapping/],
    ['invalid YAML', 'rules:\n  reconnect-storm:\n    options: {minPods: 3\n', /^\.linkerd-doctor\.yaml:\d+: invalid YAML: /],
    ['duplicate key', 'failOn: error\nfailOn: warning\n', /invalid YAML: .*unique/i],
    // Shapes the schema (docs/schema/config.schema.json, which the loader validates with) refuses.
    ['rules not a mapping', 'rules: [reconnect-storm]\n', /:1: rules: must be a mapping from rule id to its settings$/],
    [
      'a rule set to a string',
      'rules:\n  reconnect-storm: off\n',
      /:2: rules\.reconnect-storm: must be true, false or a mapping with enabled, severity, options$/,
    ],
    ['enabled not a boolean', 'rules:\n  reconnect-storm:\n    enabled: "no"\n', /:3: rules\.reconnect-storm\.enabled: must be true or false, got "no"$/],
    [
      'options not a mapping',
      'rules:\n  reconnect-storm:\n    options: 3\n',
      /:3: rules\.reconnect-storm\.options: must be a mapping of option names to values$/,
    ],
    ['suppress not a list', 'suppress: reconnect-storm\n', /:1: suppress: must be a list of \{rule, subject, reason\} entries$/],
    ['empty subject glob', 'suppress:\n  - rule: failfast\n    subject: ""\n    reason: known\n', /:3: suppress\[0\]\.subject: must be a non-empty glob/],
    ['blank reason', 'suppress:\n  - rule: failfast\n    reason: "   "\n', /:3: suppress\[0\]\.reason: a suppression needs a reason/],
    [
      'unknown suppression setting',
      'suppress:\n  - rule: failfast\n    reason: known\n    subjects: "a/*"\n',
      /:4: suppress\[0\]\.subjects: unknown suppression setting \(known: rule, subject, reason\)$/,
    ],
    ['negative baseline tolerance', 'baselineTolerance: -5\n', /:1: baselineTolerance: must be a percentage ≥ 0, got -5$/],
    [
      'option of a rule that has none',
      'rules:\n  known-signature:\n    options:\n      x: 1\n',
      /known-signature\.options\.x: unknown option \((known: |this rule has no options)/,
    ],
  ];
  for (const [name, text, expected] of bad) {
    it(`rejects ${name} in one line naming the key`, () => assert.match(configErrorOf(text).message, expected));
  }

  it('rejects invalid JSON in a .json config', () => {
    assert.match(configErrorOf('{"rules": {', '.linkerd-doctor.json').message, /^\.linkerd-doctor\.json:1: invalid JSON/);
  });
});

describe('loadConfig', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ld-config-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('uses the defaults when the working directory has no config', async () => {
    const config = await loadConfig(undefined, { cwd: dir });
    assert.equal(config.source, null);
    assert.deepEqual(
      config.rules.map((c) => c.rule.meta.id),
      RULES.map((r) => r.meta.id),
    );
  });

  it('finds .linkerd-doctor.yaml in the working directory, and --config wins over it', async () => {
    await writeFile(path.join(dir, '.linkerd-doctor.yaml'), 'failOn: info\n');
    assert.equal((await loadConfig(undefined, { cwd: dir })).failOn, 'info');
    const other = path.join(dir, 'ci.json');
    await writeFile(other, '{"failOn": "none"}');
    assert.equal((await loadConfig(other, { cwd: dir })).failOn, 'none');
  });

  it('refuses two config files in one directory', async () => {
    await writeFile(path.join(dir, '.linkerd-doctor.json'), '{}');
    await assert.rejects(loadConfig(undefined, { cwd: dir }), /more than one config file/);
  });

  it('names a --config file that does not exist', async () => {
    await assert.rejects(loadConfig(path.join(dir, 'missing.yaml'), { cwd: dir }), /missing\.yaml: cannot read config: no such file or directory/);
  });
});

describe('flags over config', () => {
  const config = parseConfig('failOn: warning\nminSeverity: warning\nbaselineTolerance: 50\n', 'c.yaml');
  it('takes the config when no flag is given', () => {
    assert.deepEqual(effectiveThresholds({}, config), { failOn: 'warning', minSeverity: 'warning', tolerancePercent: 50 });
  });
  it('lets flags override it', () => {
    assert.deepEqual(effectiveThresholds({ 'fail-on': 'none', 'min-severity': 'info', 'baseline-tolerance': 0 }, config), {
      failOn: 'none',
      minSeverity: 'info',
      tolerancePercent: 0,
    });
  });
  it('falls back to error / info / 10 %', () => {
    assert.deepEqual(effectiveThresholds({}, parseConfig('', 'c.yaml')), { failOn: 'error', minSeverity: 'info', tolerancePercent: 10 });
  });
});

describe('parseSuppressFlag', () => {
  it('takes RULE or RULE=glob, by id or code', () => {
    assert.deepEqual(parseSuppressFlag('reconnect-storm'), { rule: 'reconnect-storm', source: 'flag' });
    assert.deepEqual(parseSuppressFlag('LD1001=emojivoto/*'), { rule: 'reconnect-storm', subject: 'emojivoto/*', source: 'flag' });
  });
  it('rejects unknown rules and empty globs', () => {
    assert.throws(() => parseSuppressFlag('nope=x'), /unknown rule "nope" \(known: reconnect-storm/);
    assert.throws(() => parseSuppressFlag('reconnect-storm='), /empty subject glob/);
  });
});

describe('parseConfig and the schema', () => {
  it('accepts a $schema key, as editors write it', () => {
    assert.equal(parseConfig('$schema: ./docs/schema/config.schema.json\nfailOn: error\n', 'c.yaml').failOn, 'error');
  });

  it('validates against the schema of the rules it is given: a rule outside them is unknown', () => {
    const only = RULES.filter((r) => r.meta.id !== 'failfast');
    assert.throws(() => parseConfig('rules:\n  failfast: false\n', 'c.yaml', only), /:2: rules\.failfast: unknown rule/);
    assert.doesNotThrow(() => parseConfig('rules:\n  failfast: false\n', 'c.yaml'));
  });
});
