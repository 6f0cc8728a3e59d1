// docs/schema/*.schema.json: generated from the code (`npm run schema`), and true of what the
// code produces: every fixture's and real artifact's JSON report (the fixtures' also with a
// baseline and suppressions) validates against report.schema.json, and the example configs
// against config.schema.json and the loader.
//
// The plain reports are the committed golden ones (test/golden/reports/*/report.json), which
// test/golden/reports.test.ts keeps byte-identical to what the built CLI writes: validating those
// needs no CLI launch of its own.

import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/config.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCHEMA_DIR = path.join(ROOT, 'docs/schema');
const EXAMPLES = path.join(SCHEMA_DIR, 'examples');
const GOLDEN = path.join(ROOT, 'test/golden/reports');

/** The committed golden JSON report of a case (fixtures-<bundle>, real-<kind>-<file>). */
const golden = (name: string) =>
  JSON.parse(readFileSync(path.join(GOLDEN, name, 'report.json'), 'utf8')) as Record<string, unknown> & { findings: Record<string, unknown>[] };

function cli(args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'bin/run.js'), ...args], { cwd: ROOT, maxBuffer: 64 << 20 }, (_err, stdout) => resolve(stdout));
  });
}

function compile(file: string): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: true });
  return ajv.compile(JSON.parse(readFileSync(path.join(SCHEMA_DIR, file), 'utf8')));
}

function problems(validate: ValidateFunction, value: unknown): string[] {
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

before(() => {
  if (!existsSync(path.join(ROOT, 'dist/cli/output.js'))) execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
});

describe('docs/schema', () => {
  // That the committed files are what the code generates is test/meta/generated.test.ts's job.

  describe('report.schema.json', () => {
    const validate = compile('report.schema.json');
    const fixtures = readdirSync(path.join(ROOT, 'fixtures'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    let work: string;
    before(async () => {
      work = await mkdtemp(path.join(tmpdir(), 'ld-schema-'));
    });
    after(async () => {
      await rm(work, { recursive: true, force: true });
    });

    it('every golden JSON report validates: each fixture bundle and each real artifact', () => {
      const cases = readdirSync(GOLDEN).filter((name) => existsSync(path.join(GOLDEN, name, 'report.json')));
      for (const fixture of fixtures) assert.ok(cases.includes(`fixtures-${fixture}`), `no golden report for fixtures/${fixture}`);
      assert.ok(cases.filter((name) => name.startsWith('real-')).length >= 40);
      for (const name of cases) assert.deepEqual(problems(validate, golden(name)), [], name);
    });

    for (const fixture of fixtures) {
      it(`fixtures/${fixture}: the JSON report validates with a baseline and a suppression`, async () => {
        const report = golden(`fixtures-${fixture}`) as { findings: { ruleId: string }[] };
        const baseline = path.join(work, `${fixture}.baseline.json`);
        const gated = JSON.parse(await cli(['analyze', `fixtures/${fixture}`, '--format', 'json', '-q', '--write-baseline', baseline])) as unknown;
        assert.deepEqual(problems(validate, gated), []);
        const extra = report.findings[0] ? ['--suppress', report.findings[0].ruleId] : [];
        const compared = JSON.parse(await cli(['analyze', `fixtures/${fixture}`, '--format', 'json', '-q', '--baseline', baseline, ...extra])) as unknown;
        assert.deepEqual(problems(validate, compared), []);
      });
    }

    it('an input error report validates too', async () => {
      const report = JSON.parse(await cli(['analyze', 'fixtures/storm', path.join(work, 'missing.log'), '--format', 'json', '-q'])) as { errors: unknown[] };
      assert.ok(report.errors.length > 0);
      assert.deepEqual(problems(validate, report), []);
    });

    it('rejects what the report never is (the check can fail)', () => {
      const report = golden('fixtures-storm');
      assert.deepEqual(problems(validate, report), []);
      assert.notDeepEqual(problems(validate, { ...report, status: 'maybe' }), []);
      assert.notDeepEqual(problems(validate, { ...report, findings: [{ ...report.findings[0], severity: 'critical' }] }), []);
      assert.notDeepEqual(problems(validate, { ...report, findings: [{ ...report.findings[0], ruleId: 'no-such-rule' }] }), []);
      const { summary: _summary, ...withoutSummary } = report;
      assert.notDeepEqual(problems(validate, withoutSummary), []);
    });
  });

  describe('config.schema.json', () => {
    const validate = compile('config.schema.json');
    const examples = readdirSync(EXAMPLES).filter((f) => /\.(ya?ml|json)$/.test(f));

    it('has examples to check', () => assert.ok(examples.length >= 2));

    for (const example of examples) {
      it(`docs/schema/examples/${example} validates and loads`, async () => {
        const file = path.join(EXAMPLES, example);
        assert.deepEqual(problems(validate, parse(readFileSync(file, 'utf8'))), []);
        const config = await loadConfig(file);
        assert.ok(config.source?.endsWith(example));
      });
    }

    it('rejects what the loader rejects: unknown settings, options, rules, wrong types, missing reasons', async () => {
      const bad = [
        { failOn: 'critical' },
        { unknown: 1 },
        { rules: { 'no-such-rule': true } },
        { rules: { 'reconnect-storm': { options: { sustainSeconds: 'soon' } } } },
        { rules: { 'reconnect-storm': { options: { noSuchOption: 1 } } } },
        { rules: { LD1001: { severity: 'fatal' } } },
        { suppress: [{ rule: 'reconnect-storm' }] },
        { suppress: [{ rule: 'reconnect-storm', reason: ' ' }] },
      ];
      const work = await mkdtemp(path.join(tmpdir(), 'ld-schema-config-'));
      try {
        for (const [i, config] of bad.entries()) {
          assert.notDeepEqual(problems(validate, config), [], JSON.stringify(config));
          const file = path.join(work, `bad-${i}.json`);
          await writeFile(file, JSON.stringify(config));
          await assert.rejects(loadConfig(file), Error, `the loader accepts ${JSON.stringify(config)}`);
        }
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    });
  });
});
