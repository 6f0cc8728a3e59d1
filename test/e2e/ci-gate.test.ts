// End-to-end: the built CLI (`node bin/run.js`, rebuilt first when dist/ is older than src/) on
// generated bundles, checking what CI sees: stdout, stderr and the exit code.

import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { RULES } from '../../src/rules/index.js';
import type { Report } from '../../src/report/report.js';
import { sarifSchemaErrors } from '../support/sarif-validator.js';
import { ONE_STORM, TWO_STORMS, writeBundle } from '../support/storm-bundle.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(ROOT, 'bin/run.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 32 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

async function newestMtime(pattern: string): Promise<number> {
  const files = await fg(pattern, { cwd: ROOT, absolute: true });
  const times = await Promise.all(files.map(async (f) => (await stat(f)).mtimeMs));
  return Math.max(0, ...times);
}

let dir: string;
/** The baseline scenario is about the storm rule; the info findings of known-signature would only add rows. */
let noSignatures: string;

before(async () => {
  if ((await newestMtime('src/**/*.ts')) > (await newestMtime('dist/**/*.js')))
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  dir = await mkdtemp(path.join(tmpdir(), 'ld-e2e-'));
  await writeBundle(path.join(dir, 'one-storm'), ONE_STORM);
  await writeBundle(path.join(dir, 'two-storms'), TWO_STORMS);
  noSignatures = path.join(dir, 'no-signatures.yaml');
  await writeFile(noSignatures, 'rules:\n  known-signature: false\n');
});
after(() => rm(dir, { recursive: true, force: true }));

describe('analyze', () => {
  it('--format sarif validates against SARIF 2.1.0 with relative URIs, and exits 1 on the error storm', async () => {
    const run = await cli(['analyze', 'one-storm', '--format', 'sarif'], dir);
    assert.equal(run.code, 1, run.stderr);
    const log = JSON.parse(run.stdout) as {
      runs: { results: { locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[] }[] }[];
    };
    assert.deepEqual(sarifSchemaErrors(log), []);
    const loc = log.runs[0]!.results[0]!.locations[0]!.physicalLocation;
    assert.match(loc.artifactLocation.uri, /^one-storm\/emojivoto\/[^/]+\/linkerd-proxy\.log$/);
    assert.ok(loc.region.startLine >= 1);
  });

  it('repeatable flags before PATH take one value each and leave PATH alone', async () => {
    const run = await cli(['analyze', '--format', 'json', '--suppress', 'reconnect-storm=nothing', 'one-storm', '-q'], dir);
    assert.equal(run.code, 1, run.stderr);
    assert.equal((JSON.parse(run.stdout) as Report).inputs.length, 24);
  });

  it('--format junit parses and its failures match the exit code', async () => {
    const run = await cli(['analyze', 'two-storms', '--format', 'junit', '--fail-on', 'error'], dir);
    assert.equal(run.code, 1);
    assert.equal(XMLValidator.validate(run.stdout), true);
    const doc = new XMLParser({ ignoreAttributes: false }).parse(run.stdout) as { testsuites: { '@_failures': string } };
    assert.equal(doc.testsuites['@_failures'], '2');
  });

  it('a baseline written from a bundle makes the same bundle pass; one more storm fails against it', async () => {
    const baseline = path.join(dir, 'baseline.json');
    const write = await cli(['analyze', '--config', noSignatures, 'one-storm', '--write-baseline', baseline, '--format', 'json'], dir);
    assert.equal(write.code, 0, 'writing a baseline accepts the current findings');
    assert.match(write.stderr, /wrote baseline .*baseline\.json with 1 finding/);
    const stored = JSON.parse(await readFile(baseline, 'utf8')) as { findings: { ruleId: string; keyFigure: { name: string } }[] };
    assert.deepEqual(
      stored.findings.map((f) => [f.ruleId, f.keyFigure.name]),
      [['reconnect-storm', 'totalLines']],
    );

    const same = await cli(['analyze', '--config', noSignatures, 'one-storm', '--baseline', baseline, '--fail-on', 'info', '--format', 'json'], dir);
    assert.equal(same.code, 0, same.stderr);
    assert.deepEqual(
      (JSON.parse(same.stdout) as Report).findings.map((f) => f.baseline?.state),
      ['unchanged'],
    );

    const more = await cli(['analyze', '--config', noSignatures, 'two-storms', '--baseline', baseline, '--format', 'sarif'], dir);
    assert.equal(more.code, 1);
    const results = (JSON.parse(more.stdout) as { runs: { results: { baselineState: string; message: { text: string } }[] }[] }).runs[0]!.results;
    assert.deepEqual(results.map((r) => [r.baselineState, /policy/.test(r.message.text)]).sort(), [
      ['new', true],
      ['unchanged', false],
    ]);
    assert.match(more.stderr, /baseline .*: 1 new, 0 worse, 1 unchanged, 0 fixed, 0 stale/);

    const fixed = await cli(['analyze', '--config', noSignatures, 'two-storms', '--write-baseline', baseline, '-q'], dir);
    assert.equal(fixed.code, 0);
    const gone = await cli(['analyze', '--config', noSignatures, 'one-storm', '--baseline', baseline, '--format', 'json'], dir);
    assert.equal(gone.code, 0);
    assert.equal((JSON.parse(gone.stdout) as Report).baseline!.fixed.length, 1, 'the policy storm is reported fixed');
  });

  it('a bad config exits 2 with one line naming the file, line, key and reason', async () => {
    const cwd = path.join(dir, 'bad-config');
    await writeBundle(cwd, ONE_STORM);
    await writeFile(path.join(cwd, '.linkerd-doctor.yaml'), 'rules:\n  reconnect-storm:\n    options:\n      sustainSeconds: soon\n');
    const run = await cli(['analyze', 'emojivoto', '--format', 'json'], cwd);
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.deepEqual(run.stderr.trimEnd().split('\n'), [
      'linkerd-doctor: .linkerd-doctor.yaml:4: rules.reconnect-storm.options.sustainSeconds: must be a number, got string "soon"',
    ]);
  });

  it('reads .linkerd-doctor.yaml from the working directory; suppressions need and show a reason', async () => {
    const cwd = path.join(dir, 'with-config');
    await writeBundle(cwd, TWO_STORMS);
    await writeFile(
      path.join(cwd, '.linkerd-doctor.yaml'),
      [
        'suppress:',
        '  - rule: reconnect-storm',
        '    subject: "*linkerd-policy*"',
        '    reason: policy controller replaced in INC-42',
        '  - rule: LD1001',
        '    subject: "staging/*"',
        '    reason: never matches',
      ].join('\n') + '\n',
    );
    const run = await cli(['analyze', 'emojivoto', '--format', 'sarif', '--output', 'out.sarif', '--format', 'json'], cwd);
    assert.equal(run.code, 1, 'the destination storm still fails');
    const report = JSON.parse(run.stdout) as Report;
    assert.equal(report.summary.suppressed, 1);
    assert.deepEqual(
      report.suppressions.map((s) => s.matched),
      [1, 0],
    );
    assert.match(run.stderr, /unused suppression reconnect-storm=staging\/\*/);
    const sarif = JSON.parse(await readFile(path.join(cwd, 'out.sarif'), 'utf8')) as { runs: { results: { suppressions?: { justification: string }[] }[] }[] };
    assert.deepEqual(sarifSchemaErrors(sarif), []);
    assert.deepEqual(
      sarif.runs[0]!.results.flatMap((r) => r.suppressions ?? []).map((s) => s.justification),
      ['policy controller replaced in INC-42'],
    );
  });
});

describe('rules and explain', () => {
  it('rules lists every rule as a table and as JSON', async () => {
    const table = await cli(['rules'], dir);
    assert.equal(table.code, 0);
    const json = await cli(['rules', '--format', 'json'], dir);
    assert.equal(json.code, 0);
    const listing = JSON.parse(json.stdout) as { id: string; code: string; defaultSeverity: string; inputs: string[]; description: string }[];
    assert.deepEqual(
      listing.map((r) => r.id),
      RULES.map((r) => r.meta.id),
    );
    for (const rule of RULES) {
      assert.ok(table.stdout.includes(rule.meta.id) && table.stdout.includes(rule.meta.code), `${rule.meta.id} in the table`);
      const entry = listing.find((r) => r.id === rule.meta.id)!;
      assert.deepEqual(
        [entry.code, entry.defaultSeverity, entry.inputs, entry.description],
        [rule.meta.code, rule.meta.defaultSeverity, rule.meta.inputs, rule.meta.description],
      );
    }
  });

  for (const rule of RULES) {
    it(`explain ${rule.meta.id} renders its docs page (also by code ${rule.meta.code})`, async () => {
      const byId = await cli(['explain', rule.meta.id], dir);
      assert.equal(byId.code, 0, byId.stderr);
      for (const heading of ['What it means', 'Evidence', 'How to fix it', 'False positives', 'References']) assert.ok(byId.stdout.includes(heading), heading);
      assert.ok(!byId.stdout.includes('\u001b['), 'no escape codes when piped with NO_COLOR');
      const byCode = await cli(['explain', rule.meta.code], dir);
      assert.equal(byCode.stdout, byId.stdout);
    });
  }

  it('explain of an unknown rule exits 2 and lists the known ids', async () => {
    const run = await cli(['explain', 'reconnect-stom'], dir);
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.equal(
      run.stderr.trimEnd(),
      `linkerd-doctor: explain: unknown rule or signature "reconnect-stom"; did you mean reconnect-storm? (known rules: ${RULES.map((r) => r.meta.id).join(', ')}; signatures: linkerd-doctor explain known-signature)`,
    );
  });
});
