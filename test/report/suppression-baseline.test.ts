import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Finding } from '../../src/core/types.js';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { UsageError } from '../../src/core/errors.js';
import { compareWithBaseline, createBaseline, MAX_BASELINE_BYTES, readBaseline, serializeBaseline, type BaselineFile } from '../../src/report/baseline.js';
import { exitCodeFor } from '../../src/report/exit-code.js';
import { assignFingerprints, assignTitleFingerprints, subjectKey } from '../../src/report/fingerprint.js';
import { buildReport } from '../../src/report/report.js';
import { applySuppressions, globMatches, globToRegExp, subjectMatches } from '../../src/report/suppression.js';

function finding(over: Partial<Finding> = {}): Finding {
  return {
    ruleId: 'reconnect-storm',
    severity: 'error',
    docsUrl: 'https://example.test/docs/rules/reconnect-storm.md',
    kind: 'destination-storm',
    title: 'Reconnect storm towards the destination controller',
    message: '24 pods logged 2,875 reconnect failures',
    subject: { namespace: 'emojivoto', target: 'linkerd-dst-headless.linkerd.svc.cluster.local:8086' },
    evidence: { totalLines: 2875, window: { start: '2024-06-06T11:00:00.000Z' } },
    locations: [{ path: 'emojivoto/web-abc/linkerd-proxy.log', line: 4 }],
    remediation: 'fix it',
    keyFigure: { name: 'totalLines', value: 2875 },
    ...over,
  };
}

const parts = (findings: Finding[]) => ({ inputs: [], findings, skippedRules: [], ruleFailures: [], errors: [] });

describe('subject globs', () => {
  it('match the whole subject key or any single field, * across slashes', () => {
    const subject = finding().subject;
    assert.equal(subjectKey(subject), 'emojivoto/linkerd-dst-headless.linkerd.svc.cluster.local:8086');
    assert.ok(subjectMatches('emojivoto/*', subject));
    assert.ok(subjectMatches('linkerd-dst-*', subject));
    assert.ok(subjectMatches('*:8086', subject));
    assert.ok(!subjectMatches('linkerd-policy*', subject));
    assert.ok(!subjectMatches('emojivoto', { ...subject, namespace: 'emojivoto-staging' }), 'no implicit prefix match');
    assert.ok(globToRegExp('a.b?').test('a.bc') && !globToRegExp('a.b?').test('axbc'), 'dots are literal');
  });
});

describe('applySuppressions', () => {
  it('suppresses by rule and subject, charges the first matching entry and counts unused ones', () => {
    const dst = finding();
    const policy = finding({
      title: 'Reconnect storm towards the policy controller',
      subject: { namespace: 'emojivoto', target: 'linkerd-policy.linkerd.svc.cluster.local:8090' },
    });
    const other = finding({ ruleId: 'other-rule' });
    const { kept, suppressed, uses } = applySuppressions(
      [dst, policy, other],
      [
        { rule: 'reconnect-storm', subject: '*policy*', reason: 'policy controller migration', source: 'config' },
        { rule: 'reconnect-storm', subject: 'emojivoto/*', source: 'flag' },
        { rule: 'reconnect-storm', subject: 'nothing-here', source: 'flag' },
      ],
    );
    assert.deepEqual(kept, [other]);
    assert.deepEqual(
      suppressed.map((s) => [s.finding.subject.target, s.by.source]),
      [
        [dst.subject.target, 'flag'],
        [policy.subject.target, 'config'],
      ],
    );
    assert.deepEqual(
      uses.map((u) => u.matched),
      [1, 1, 0],
    );
  });

  it('keeps suppressed findings in the report, counted, and out of the exit code', () => {
    const report = buildReport(parts([finding()]), 'error', {
      suppressions: [{ rule: 'reconnect-storm', reason: 'accepted', source: 'config' }],
      // Another rule still checks the inputs; suppressing every rule is an error of its own.
      ruleIds: ['reconnect-storm', 'metric-cardinality'],
    });
    assert.equal(report.findings.length, 0);
    assert.equal(report.suppressedFindings.length, 1);
    assert.equal(report.suppressedFindings[0]!.suppression.reason, 'accepted');
    assert.equal(report.summary.suppressed, 1);
    assert.equal(report.summary.error, 0);
    assert.equal(report.status, 'pass');
    assert.equal(exitCodeFor(report), 0);
  });
});

describe('fingerprints', () => {
  it('ignore line numbers, timestamps, counts and the title', () => {
    const a = finding();
    const b = finding({
      locations: [{ path: 'other/file.log', line: 999 }],
      evidence: { totalLines: 10, window: { start: '2025-01-01T00:00:00.000Z' } },
      message: 'different',
      keyFigure: { name: 'totalLines', value: 10 },
    });
    assert.deepEqual(assignFingerprints([a]), assignFingerprints([b]));
    const counted = (n: number) => finding({ title: `${n} pods in a reconnect storm` });
    assert.deepEqual(assignFingerprints([counted(3)]), assignFingerprints([counted(30)]));
    assert.deepEqual(assignFingerprints([finding({ title: 'Destination controller storm, reworded' })]), assignFingerprints([a]));
  });

  it('differ by rule, subject, key figure and kind', () => {
    const [base] = assignFingerprints([finding()]);
    for (const changed of [
      finding({ ruleId: 'x' }),
      finding({ subject: { namespace: 'other', target: finding().subject.target } }),
      finding({ keyFigure: { name: 'series', value: 1 } }),
      finding({ kind: 'policy-storm' }),
    ]) {
      assert.notEqual(assignFingerprints([changed])[0], base);
    }
  });

  it('stay unique within a run when two findings collide', () => {
    const fps = assignFingerprints([finding(), finding()]);
    assert.notEqual(fps[0], fps[1]);
    assert.equal(fps[1], `${fps[0]}:2`);
  });
});

describe('baseline comparison', () => {
  const known = buildReport(parts([finding()]), 'error', { ruleIds: ['reconnect-storm'] });
  const baseline = createBaseline(known.findings);
  const evaluated = new Set(['reconnect-storm']);
  const compare = (f: Finding, tolerancePercent = 10) =>
    compareWithBaseline(buildReport(parts([f]), 'error').findings, baseline, {
      tolerancePercent,
      evaluatedRules: evaluated,
      notEvaluatedReason: () => 'skipped',
    });

  it('has no timestamps and records severity and key figure', () => {
    assert.equal(JSON.stringify(baseline).match(/20\d\d-\d\d-\d\dT/), null);
    assert.deepEqual(baseline.findings[0]!.keyFigure, { name: 'totalLines', value: 2875 });
    assert.equal(baseline.findings[0]!.severity, 'error');
  });

  it('keeps a known finding unchanged within the tolerance', () => {
    assert.equal(compare(finding({ keyFigure: { name: 'totalLines', value: Math.floor(2875 * 1.1) } })).verdicts[0]!.state, 'unchanged');
    assert.equal(compare(finding({ keyFigure: { name: 'totalLines', value: 100 } })).verdicts[0]!.state, 'unchanged', 'smaller is not worse');
  });

  it('calls it worse when the key figure grows past the tolerance', () => {
    const v = compare(finding({ keyFigure: { name: 'totalLines', value: 3200 } })).verdicts[0]!;
    assert.equal(v.state, 'worse');
    assert.match(v.reason!, /totalLines grew from 2875 to 3200, more than the 10% tolerance/);
    assert.equal(compare(finding({ keyFigure: { name: 'totalLines', value: 3200 } }), 20).verdicts[0]!.state, 'unchanged');
  });

  // Catches `value > limit` written `>=`: a key figure exactly at the tolerance is within it.
  // 200 × 1.5 is exactly 300 in binary floating point, so the boundary is the comparison's alone.
  it('keeps a key figure exactly at the tolerance unchanged, and calls one above it worse', () => {
    const at200 = createBaseline(buildReport(parts([finding({ keyFigure: { name: 'totalLines', value: 200 } })]), 'error').findings);
    const verdict = (value: number) =>
      compareWithBaseline(buildReport(parts([finding({ keyFigure: { name: 'totalLines', value } })]), 'error').findings, at200, {
        tolerancePercent: 50,
        evaluatedRules: evaluated,
        notEvaluatedReason: () => '',
      }).verdicts[0]!.state;
    assert.equal(verdict(300), 'unchanged');
    assert.equal(verdict(301), 'worse');
  });

  it('calls it worse when the severity rises', () => {
    const low = createBaseline(buildReport(parts([finding({ severity: 'warning' })]), 'error').findings);
    const [v] = compareWithBaseline(buildReport(parts([finding()]), 'error').findings, low, {
      tolerancePercent: 10,
      evaluatedRules: evaluated,
      notEvaluatedReason: () => '',
    }).verdicts;
    assert.equal(v!.state, 'worse');
    assert.match(v!.reason!, /severity rose from warning to error/);
  });

  it('reports fixed entries when the rule ran, stale ones when it could not', () => {
    const gone = compareWithBaseline([], baseline, { tolerancePercent: 10, evaluatedRules: evaluated, notEvaluatedReason: () => '' });
    assert.equal(gone.fixed.length, 1);
    assert.equal(gone.stale.length, 0);
    const unchecked = compareWithBaseline([], baseline, {
      tolerancePercent: 10,
      evaluatedRules: new Set(),
      notEvaluatedReason: () => 'rule skipped: no proxy-log input',
    });
    assert.deepEqual(
      unchecked.stale.map((s) => s.reason),
      ['rule skipped: no proxy-log input'],
    );
  });

  it('gates only new and worse findings in the report', () => {
    const data: BaselineFile = baseline;
    const same = buildReport(parts([finding()]), 'error', { baseline: { file: 'b.json', data, tolerancePercent: 10 }, ruleIds: ['reconnect-storm'] });
    assert.equal(same.status, 'pass');
    assert.deepEqual([same.baseline!.new, same.baseline!.worse, same.baseline!.unchanged], [0, 0, 1]);
    const more = buildReport(
      parts([
        finding(),
        finding({
          title: 'Reconnect storm towards the policy controller',
          subject: { namespace: 'emojivoto', target: 'linkerd-policy.linkerd.svc.cluster.local:8090' },
        }),
      ]),
      'error',
      {
        baseline: { file: 'b.json', data, tolerancePercent: 10 },
        ruleIds: ['reconnect-storm'],
      },
    );
    assert.equal(more.status, 'fail');
    assert.equal(more.summary.failing, 1);
    assert.equal(exitCodeFor(more), 1);
  });
});

describe('a baseline of schema 1 (fingerprints over the title)', () => {
  const evaluated = { ruleIds: ['reconnect-storm'] };
  const written = finding();
  const [titleFingerprint] = assignTitleFingerprints([written]);
  const v1: BaselineFile = {
    schemaVersion: 1,
    tool: { name: 'linkerd-doctor', version: '0.0.9' },
    findings: [
      {
        fingerprint: titleFingerprint!,
        ruleId: 'reconnect-storm',
        subject: written.subject,
        kind: `totalLines|${written.title}`,
        severity: 'error',
        title: written.title,
        keyFigure: { name: 'totalLines', value: 2875 },
      },
    ],
  };
  const gate = (f: Finding) => buildReport(parts([f]), 'error', { baseline: { file: 'old.json', data: v1, tolerancePercent: 10 }, ...evaluated });

  it('still recognises the finding it was written for, whose new fingerprint differs', () => {
    assert.notEqual(assignFingerprints([written])[0], titleFingerprint);
    const report = gate(written);
    assert.deepEqual([report.baseline!.new, report.baseline!.unchanged, report.baseline!.fixed.length], [0, 1, 0]);
    assert.equal(report.status, 'pass');
  });

  it('still compares its key figure', () => {
    assert.equal(gate(finding({ keyFigure: { name: 'totalLines', value: 9000 } })).baseline!.worse, 1);
  });

  it('is rewritten as schema 2, fingerprinted by kind', () => {
    const rewritten = createBaseline(gate(written).findings);
    assert.equal(rewritten.schemaVersion, 2);
    assert.equal(rewritten.findings[0]!.fingerprint, assignFingerprints([written])[0]);
    assert.equal(rewritten.findings[0]!.kind, 'totalLines|destination-storm');
    const reworded = buildReport(parts([finding({ title: 'Proxies storm the destination controller' })]), 'error', {
      baseline: { file: 'new.json', data: rewritten, tolerancePercent: 10 },
      ...evaluated,
    });
    assert.equal(reworded.baseline!.unchanged, 1, 'a reworded title is the same finding');
  });
});

describe('readBaseline', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ld-baseline-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const cases: [string, string, RegExp][] = [
    ['not JSON', '{', /not JSON/],
    ['wrong schema version', '{"schemaVersion": 3, "findings": []}', /unsupported schemaVersion 3 \(this version reads 1 and 2\)/],
    ['findings not a list', '{"schemaVersion": 1, "findings": {}}', /findings must be a list/],
    ['bad severity', '{"schemaVersion": 1, "findings": [{"fingerprint": "a", "ruleId": "r", "severity": "fatal"}]}', /findings\[0\]\.severity/],
  ];
  for (const [name, text, expected] of cases) {
    it(`rejects ${name} as a usage error naming the file`, async () => {
      const file = path.join(dir, `${name.replace(/\W/g, '-')}.json`);
      await writeFile(file, text);
      await assert.rejects(readBaseline(file), (err: Error) => err.name === 'UsageError' && expected.test(err.message) && err.message.includes(file));
    });
  }
  it('names a missing file', async () => {
    await assert.rejects(readBaseline(path.join(dir, 'nope.json')), /cannot read: no such file or directory/);
  });
});

describe('suppression globs in linear time (issue 27)', () => {
  it('match as the regex form does, and a many-star glob on a 256 KiB subject stays fast', () => {
    const globs = ['*', 'a*', '*a', 'a?c', '*a*b*', 'a.b?', '**', '?', '', 'x*y*z', 'shop/*', '*/web-*/*', 'a\nb'];
    const texts = ['', 'a', 'abc', 'a.bc', 'axbc', 'ab', 'ba', 'aab', 'xyz', 'xaybz', 'shop/web', 'shop/web-1/pod/t', 'zz/web-1/x/y', 'a\nb'];
    for (const g of globs) for (const t of texts) assert.equal(globMatches(g, t), globToRegExp(g).test(t), `${JSON.stringify(g)} on ${JSON.stringify(t)}`);
    // The regex form of this glob takes minutes on such a subject (one backtracking level per star).
    const started = process.cpuUsage();
    assert.equal(subjectMatches('*a*a*a*a*a*b', { pod: 'a'.repeat(256 << 10) }), false);
    const cpu = process.cpuUsage(started);
    assert.ok((cpu.user + cpu.system) / 1000 < 500, `${(cpu.user + cpu.system) / 1000} ms`);
  });
});

describe('baseline size cap (issue 27)', () => {
  it('refuses a baseline over MAX_BASELINE_BYTES with one line naming the file, without reading it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ld-baseline-'));
    const file = path.join(dir, 'huge-baseline.json');
    // Sparse: 194 MB on the landed code took 867 MB of memory to parse.
    writeFileSync(file, '');
    truncateSync(file, MAX_BASELINE_BYTES + 1);
    const before = process.memoryUsage().rss;
    await assert.rejects(readBaseline(file), (err: Error) => {
      assert.ok(err instanceof UsageError);
      assert.match(err.message, /^--baseline .*huge-baseline\.json: \d+ MiB, more than the 16 MiB a baseline may have/);
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });
    assert.ok(process.memoryUsage().rss - before < 8 << 20);
    rmSync(dir, { recursive: true });
  });

  it('still reads a baseline under the cap', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ld-baseline-'));
    const file = path.join(dir, 'baseline.json');
    writeFileSync(file, serializeBaseline(createBaseline([])));
    assert.deepEqual((await readBaseline(file)).findings, []);
    rmSync(dir, { recursive: true });
  });
});
