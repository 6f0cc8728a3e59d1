// The gate as `analyze` runs it, in-process on generated bundles: the exit code for every format ×
// --fail-on × --min-severity, several --format/--output pairs in one run, config and flags.

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { XMLValidator } from 'fast-xml-parser';
import { outputTargets, runAnalyze, type AnalyzeFlags } from '../../src/cli/run-analyze.js';
import { FORMAT_NAMES } from '../../src/report/formats/index.js';
import type { Report } from '../../src/report/report.js';
import { DESTINATION_STORM, POLICY_STORM } from '../../scripts/fixtures/reconnect-storm.js';
import { sarifSchemaErrors } from '../support/sarif-validator.js';
import { writeBundle } from '../support/storm-bundle.js';

let dir: string;
let errorBundle: string;
let warningBundle: string;
let emptyConfig: string;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ld-gate-'));
  // 6 pods ≥ errorMinPods: control-plane storms are errors; a single pod is a warning.
  errorBundle = await writeBundle(path.join(dir, 'errors'), {
    seed: 21,
    namespace: 'emojivoto',
    workloads: ['web', 'emoji'],
    podsPerWorkload: 3,
    storms: [DESTINATION_STORM, POLICY_STORM],
    durationSeconds: 40,
  });
  warningBundle = await writeBundle(path.join(dir, 'warnings'), {
    seed: 22,
    namespace: 'shop',
    workloads: ['cart'],
    podsPerWorkload: 1,
    storms: [DESTINATION_STORM],
    durationSeconds: 40,
  });
  emptyConfig = path.join(dir, 'empty.yaml');
  await writeFile(emptyConfig, '');
});
after(() => rm(dir, { recursive: true, force: true }));

const flags = (over: Partial<AnalyzeFlags>): AnalyzeFlags => ({ progress: false, quiet: true, config: emptyConfig, ...over });

describe('exit code matrix', () => {
  const expected: Record<string, Record<string, number>> = {
    errors: { error: 1, warning: 1, info: 1, none: 0 },
    warnings: { error: 0, warning: 1, info: 1, none: 0 },
  };
  for (const bundle of ['errors', 'warnings'] as const) {
    for (const failOn of ['error', 'warning', 'info', 'none'] as const) {
      it(`${bundle} bundle, --fail-on ${failOn}: exit ${expected[bundle]![failOn]} in every format and for every --min-severity`, async () => {
        const codes: string[] = [];
        for (const format of FORMAT_NAMES) {
          for (const minSeverity of ['error', 'info'] as const) {
            const out = path.join(dir, `${bundle}-${failOn}-${minSeverity}.${format}`);
            const code = await runAnalyze(
              [bundle === 'errors' ? errorBundle : warningBundle],
              flags({ format: [format], output: [out], 'fail-on': failOn, 'min-severity': minSeverity }),
            );
            codes.push(`${format}/${minSeverity}=${code}`);
          }
        }
        assert.deepEqual(
          codes,
          FORMAT_NAMES.flatMap((f) => ['error', 'info'].map((m) => `${f}/${m}=${expected[bundle]![failOn]}`)),
        );
      });
    }
  }

  it('--min-severity changes what is printed, not the exit code', async () => {
    const out = (m: string) => path.join(dir, `ms-${m}.json`);
    assert.equal(await runAnalyze([warningBundle], flags({ format: ['json'], output: [out('error')], 'fail-on': 'warning', 'min-severity': 'error' })), 1);
    assert.equal(await runAnalyze([warningBundle], flags({ format: ['json'], output: [out('info')], 'fail-on': 'warning', 'min-severity': 'info' })), 1);
    const hidden = JSON.parse(await readFile(out('error'), 'utf8')) as Report;
    const shown = JSON.parse(await readFile(out('info'), 'utf8')) as Report;
    assert.equal(hidden.findings.length, 0);
    // Refused controller connects are a background signature: in a full log the storm rule judges them.
    assert.deepEqual(
      shown.findings.map((f) => [f.ruleId, f.severity]),
      [['reconnect-storm', 'warning']],
    );
    assert.equal(hidden.status, 'fail');
    assert.equal(hidden.summary.warning, 1);
  });
});

describe('several --format/--output pairs in one run', () => {
  it('writes each format to its own file', async () => {
    const files = Object.fromEntries(FORMAT_NAMES.map((f) => [f, path.join(dir, `multi.${f}`)]));
    const code = await runAnalyze([errorBundle], flags({ format: [...FORMAT_NAMES], output: FORMAT_NAMES.map((f) => files[f]!) }));
    assert.equal(code, 1);
    const read = (f: string) => readFile(files[f]!, 'utf8');
    assert.match(await read('text'), /Reconnect storm towards the destination controller/);
    assert.equal((JSON.parse(await read('json')) as Report).findings.filter((f) => f.ruleId !== 'known-signature').length, 2);
    assert.deepEqual(sarifSchemaErrors(JSON.parse(await read('sarif'))), []);
    assert.equal(XMLValidator.validate(await read('junit')), true);
    assert.match(await read('markdown'), /^### linkerd-doctor/);
  });

  it('still writes the other reports when one file cannot be written, and exits 2', async () => {
    const good = path.join(dir, 'kept.sarif');
    const code = await runAnalyze([errorBundle], flags({ format: ['json', 'sarif'], output: [path.join(dir, 'no-such-dir', 'r.json'), good] }));
    assert.equal(code, 2);
    assert.deepEqual(sarifSchemaErrors(JSON.parse(await readFile(good, 'utf8'))), []);
  });

  it('pairs formats and outputs in order, - is stdout, and refuses ambiguous pairings', () => {
    assert.deepEqual(outputTargets(['text', 'sarif'], ['-', 'r.sarif']), [
      { format: 'text', file: null },
      { format: 'sarif', file: 'r.sarif' },
    ]);
    assert.deepEqual(outputTargets(['sarif', 'text'], ['r.sarif']), [
      { format: 'sarif', file: 'r.sarif' },
      { format: 'text', file: null },
    ]);
    assert.deepEqual(outputTargets([], []), [{ format: 'text', file: null }]);
    assert.throws(() => outputTargets(['text', 'json'], []), /more than one --format would go to stdout/);
    assert.throws(() => outputTargets(['json'], ['a', 'b']), /2 --output files but only 1 --format/);
    assert.throws(() => outputTargets(['yaml'], []), /unknown --format yaml/);
  });
});

describe('config and flags', () => {
  it('a config severity override and failOn decide the exit code; a flag overrides the config', async () => {
    const config = path.join(dir, 'strict.yaml');
    await writeFile(config, 'failOn: warning\nrules:\n  reconnect-storm:\n    severity: info\n');
    const out = path.join(dir, 'cfg.json');
    assert.equal(await runAnalyze([warningBundle], flags({ config, format: ['json'], output: [out] })), 0, 'severity info is below failOn warning');
    assert.equal((JSON.parse(await readFile(out, 'utf8')) as Report).findings[0]!.severity, 'info');
    assert.equal(await runAnalyze([warningBundle], flags({ config, format: ['json'], output: [out], 'fail-on': 'info' })), 1);
  });

  it('options from the config reach the rule', async () => {
    const config = path.join(dir, 'lenient.yaml');
    await writeFile(config, 'rules:\n  reconnect-storm:\n    options:\n      sustainSeconds: 600\n      minPods: 50\n');
    const out = path.join(dir, 'lenient.json');
    assert.equal(await runAnalyze([errorBundle], flags({ config, format: ['json'], output: [out] })), 0);
    assert.equal((JSON.parse(await readFile(out, 'utf8')) as Report).findings.filter((f) => f.ruleId !== 'known-signature').length, 0);
  });

  it('a disabled rule is listed, not silently passed', async () => {
    const config = path.join(dir, 'off.yaml');
    await writeFile(config, 'rules:\n  reconnect-storm: false\n');
    const out = path.join(dir, 'off.json');
    assert.equal(await runAnalyze([errorBundle], flags({ config, format: ['json'], output: [out] })), 0);
    const report = JSON.parse(await readFile(out, 'utf8')) as Report;
    assert.deepEqual(report.disabledRules, ['reconnect-storm']);
    assert.ok(!report.evaluatedRules.includes('reconnect-storm'));
  });

  it('--suppress takes findings out of the gate and counts them', async () => {
    const out = path.join(dir, 'sup.json');
    assert.equal(await runAnalyze([errorBundle], flags({ format: ['json'], output: [out], suppress: ['reconnect-storm=emojivoto/*'] })), 0);
    const report = JSON.parse(await readFile(out, 'utf8')) as Report;
    assert.equal(report.summary.suppressed, 2);
    assert.equal(report.suppressions[0]!.matched, 2);
  });

  it('a bad --suppress or config is exit 2 before any input is read', async () => {
    assert.equal(await runAnalyze([path.join(dir, 'does-not-exist')], flags({ suppress: ['no-such-rule'] })), 2);
    const bad = path.join(dir, 'bad.yaml');
    await writeFile(bad, 'rules:\n  reconnect-storm:\n    options:\n      minPods: -3\n');
    assert.equal(await runAnalyze([errorBundle], flags({ config: bad })), 2);
  });
});
