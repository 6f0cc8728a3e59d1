import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { InputError } from '../../src/core/errors.js';
import type { Finding } from '../../src/core/types.js';
import { createBaseline } from '../../src/report/baseline.js';
import { FORMATTERS } from '../../src/report/formats/index.js';
import { artifactLocationFor } from '../../src/report/formats/artifact-uri.js';
import { buildReport, visibleFindings, type GateOptions, type Report, type ReportParts } from '../../src/report/report.js';
import reconnectStorm from '../../src/rules/reconnect-storm/index.js';
import { stormBundle } from '../../scripts/fixtures/reconnect-storm.js';
import { runRule } from '../support/rule-tester.js';
import { sarifSchemaErrors } from '../support/sarif-validator.js';
import { TWO_STORMS } from '../support/storm-bundle.js';

const CWD = path.resolve('/work/ci/checkout');
const run = await runRule(reconnectStorm, stormBundle(TWO_STORMS));
const [dstStorm, policyStorm] = [...run.findings].sort((a, b) => a.title.localeCompare(b.title));
assert.ok(dstStorm && policyStorm, 'fixture must produce two storms');

function parts(findings: Finding[], over: Partial<ReportParts> = {}): ReportParts {
  return { inputs: run.inputs, findings, skippedRules: [], ruleFailures: [], errors: [], ...over };
}

function format(report: Report, name: keyof typeof FORMATTERS, minSeverity: 'error' | 'warning' | 'info' = 'info'): string {
  return FORMATTERS[name](report, { color: false, findings: visibleFindings(report, minSeverity), failOn: report.failOn, minSeverity, cwd: CWD });
}

type Sarif = {
  runs: {
    tool: { driver: { rules: { id: string; help: { text: string; markdown?: string }; helpUri: string; shortDescription: { text: string } }[] } };
    results: {
      ruleId: string;
      ruleIndex: number;
      level: string;
      locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number }; properties?: { archiveMember?: string } } }[];
      partialFingerprints: Record<string, string>;
      suppressions?: { kind: string; justification: string }[];
      baselineState?: string;
    }[];
    invocations: {
      executionSuccessful: boolean;
      toolExecutionNotifications: { level: string; message: { text: string } }[];
      toolConfigurationNotifications: { message: { text: string }; descriptor: { id: string } }[];
    }[];
  }[];
};

/** What GitHub code scanning checks beyond the schema (kube-linter's lessons). */
function assertGithubAcceptable(log: Sarif): void {
  const r = log.runs[0]!;
  assert.ok(Array.isArray(r.results), 'results array is always present');
  for (const rule of r.tool.driver.rules) {
    assert.ok(rule.help.text.length > 20, `${rule.id}: help text`);
    assert.ok(rule.help.text.includes(rule.helpUri), `${rule.id}: help text repeats the docs URL (GitHub ignores helpUri)`);
    assert.match(rule.helpUri, /^https:\/\//);
  }
  for (const res of r.results) {
    assert.equal(r.tool.driver.rules[res.ruleIndex]!.id, res.ruleId, 'ruleIndex points at the rule');
    assert.ok(res.locations.length > 0, 'every result has a location');
    for (const l of res.locations) {
      assert.ok(l.physicalLocation.region.startLine >= 1);
      assert.doesNotMatch(l.physicalLocation.artifactLocation.uri, /^(?:[a-z][a-z0-9+.-]*:|\/)/i, 'relative URI');
    }
    assert.ok(Object.values(res.partialFingerprints)[0]!.length >= 16);
  }
}

describe('SARIF', () => {
  it('validates against the 2.1.0 schema with findings, a suppression and a baseline', () => {
    const gate: GateOptions = {
      ruleIds: ['reconnect-storm'],
      suppressions: [{ rule: 'reconnect-storm', subject: '*policy*', reason: 'policy controller being replaced', source: 'config' }],
    };
    const baseline = createBaseline(buildReport(parts([dstStorm]), 'error').findings);
    const report = buildReport(parts([dstStorm, policyStorm]), 'error', { ...gate, baseline: { file: 'baseline.json', data: baseline, tolerancePercent: 10 } });
    const log = JSON.parse(format(report, 'sarif')) as Sarif;
    assert.deepEqual(sarifSchemaErrors(log), []);
    assertGithubAcceptable(log);
    const results = log.runs[0]!.results;
    assert.equal(results.length, 2);
    const suppressed = results.find((r) => r.suppressions);
    assert.deepEqual(
      suppressed!.suppressions!.map((s) => [s.kind, s.justification]),
      [['external', 'policy controller being replaced']],
    );
    assert.equal(results.find((r) => !r.suppressions)!.baselineState, 'unchanged');
    assert.equal(results[0]!.level, 'error');
    const uri = results[0]!.locations[0]!.physicalLocation.artifactLocation.uri;
    assert.match(uri, /^emojivoto\/[a-z]+-[a-z0-9]+-[a-z0-9]+\/linkerd-proxy\.log$/);
  });

  it('always has a results array and reports input errors, rule failures and skipped rules as notifications', () => {
    const report = buildReport(
      parts([], {
        inputs: [],
        skippedRules: [{ ruleId: 'reconnect-storm', reason: 'no proxy-log input' }],
        errors: [new InputError('dumps/web.txt.gz', 'truncated gzip data (unexpected end of file)', 120)],
        ruleFailures: [{ ruleId: 'metric-cardinality', message: 'boom' }],
      }),
      'error',
      { ruleIds: ['reconnect-storm', 'metric-cardinality'], disabledRules: ['dns-ttl-zero'], suppressions: [{ rule: 'reconnect-storm', source: 'flag' }] },
    );
    const log = JSON.parse(format(report, 'sarif')) as Sarif;
    assert.deepEqual(sarifSchemaErrors(log), []);
    assertGithubAcceptable(log);
    const r = log.runs[0]!;
    assert.deepEqual(r.results, []);
    const inv = r.invocations[0]!;
    assert.equal(inv.executionSuccessful, false);
    assert.deepEqual(
      inv.toolExecutionNotifications.map((n) => n.message.text),
      ['dumps/web.txt.gz:120: truncated gzip data (unexpected end of file)', 'metric-cardinality: rule failed: boom'],
    );
    assert.deepEqual(
      inv.toolConfigurationNotifications.map((n) => n.descriptor.id),
      ['rule-skipped', 'rule-disabled', 'unused-suppression'],
    );
  });

  it('points findings inside archives at the archive, keeps the member, and makes absolute paths relative', () => {
    const inArchive = {
      ...dstStorm,
      locations: [
        { path: 'incident.tgz:logs/emojivoto/web/linkerd-proxy.log', line: 7 },
        { path: path.join(CWD, 'bundle dir/proxy.log'), line: 3 },
      ],
    };
    const noLocation = { ...policyStorm, locations: [] };
    const log = JSON.parse(format(buildReport(parts([inArchive, noLocation]), 'error'), 'sarif')) as Sarif;
    assert.deepEqual(sarifSchemaErrors(log), []);
    assertGithubAcceptable(log);
    const byTitle = log.runs[0]!.results;
    const locs = byTitle.flatMap((r) =>
      r.locations.map((l) => [
        l.physicalLocation.artifactLocation.uri,
        l.physicalLocation.region.startLine,
        l.physicalLocation.properties?.archiveMember ?? null,
      ]),
    );
    assert.deepEqual(locs.slice(0, 2), [
      ['incident.tgz', 7, 'logs/emojivoto/web/linkerd-proxy.log'],
      ['bundle%20dir/proxy.log', 3, null],
    ]);
    assert.equal(locs[2]![1], 1, 'a finding without locations points at line 1 of an input the rule read');
  });

  it('the validator itself rejects what GitHub would reject', () => {
    const report = buildReport(parts([dstStorm]), 'error');
    const log = JSON.parse(format(report, 'sarif')) as Sarif & { version: string };
    log.runs[0]!.results[0]!.locations[0]!.physicalLocation.region.startLine = 0;
    assert.notDeepEqual(sarifSchemaErrors(log), []);
    assert.notDeepEqual(sarifSchemaErrors({ ...log, version: '2.0.0' }), []);
  });
});

describe('artifactLocationFor', () => {
  it('handles stdin, relative, absolute outside cwd and Windows-ish separators', () => {
    assert.deepEqual(artifactLocationFor('-', CWD), { uri: 'stdin' });
    assert.deepEqual(artifactLocationFor('./a/b.log', CWD), { uri: 'a/b.log' });
    assert.deepEqual(artifactLocationFor(path.resolve(CWD, '../elsewhere/x.log'), CWD), { uri: '../elsewhere/x.log' });
    assert.deepEqual(artifactLocationFor('b.tar:./x#1.log', CWD), { uri: 'b.tar', archiveMember: './x#1.log' });
  });
});

type JunitCase = {
  '@_name': string;
  '@_classname': string;
  failure?: { '@_type': string; '@_message': string; '#text': string };
  skipped?: { '@_message': string };
  error?: { '@_message': string };
};
type Junit = {
  testsuites: {
    '@_tests': string;
    '@_failures': string;
    '@_skipped': string;
    '@_errors': string;
    testsuite: { '@_name': string; '@_tests': string; testcase: JunitCase[] }[];
  };
};

function parseJunit(xml: string): Junit {
  assert.equal(XMLValidator.validate(xml), true, 'well-formed XML');
  return new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'testsuite' || name === 'testcase' }).parse(xml) as Junit;
}

describe('JUnit', () => {
  it('has a testcase per subject group; failures are exactly the findings at or above --fail-on', () => {
    const warning = { ...policyStorm, severity: 'warning' as const };
    for (const [failOn, expected] of [
      ['error', 1],
      ['warning', 2],
      ['none', 0],
    ] as const) {
      const doc = parseJunit(format(buildReport(parts([dstStorm, warning]), failOn, { ruleIds: ['reconnect-storm'] }), 'junit'));
      const suite = doc.testsuites.testsuite.find((s) => s['@_name'] === 'reconnect-storm')!;
      assert.equal(suite.testcase.length, 2);
      assert.deepEqual(suite.testcase.map((c) => c['@_name']).sort(), [
        'emojivoto/linkerd-dst-headless.linkerd.svc.cluster.local:8086',
        'emojivoto/linkerd-policy.linkerd.svc.cluster.local:8090',
      ]);
      assert.equal(suite.testcase.filter((c) => c.failure).length, expected, `--fail-on ${failOn}`);
      assert.equal(doc.testsuites['@_failures'], String(expected));
    }
  });

  it('lists failing findings even when --min-severity hides them, so the test tab agrees with the exit code', () => {
    const report = buildReport(parts([{ ...dstStorm, severity: 'warning' }]), 'warning', { ruleIds: ['reconnect-storm'] });
    const doc = parseJunit(format(report, 'junit', 'error'));
    assert.equal(doc.testsuites['@_failures'], '1');
  });

  it('marks skipped and disabled rules as skipped, suppressed groups as skipped, errors as errors, and escapes XML', () => {
    const weird = { ...dstStorm, title: 'Storm <towards> "dst" & co', message: 'a]]>b \u0001', subject: { namespace: 'x&y', target: 't"1' } };
    const report = buildReport(
      parts([weird, policyStorm], {
        skippedRules: [{ ruleId: 'metric-cardinality', reason: 'no prometheus input' }],
        errors: [new InputError('a.gz', 'corrupt gzip data')],
      }),
      'error',
      {
        ruleIds: ['reconnect-storm', 'metric-cardinality'],
        disabledRules: ['dns-ttl-zero'],
        suppressions: [{ rule: 'reconnect-storm', subject: '*policy*', reason: 'accepted', source: 'config' }],
      },
    );
    const doc = parseJunit(format(report, 'junit'));
    const suites = Object.fromEntries(doc.testsuites.testsuite.map((s) => [s['@_name'], s.testcase]));
    assert.equal(suites['metric-cardinality']![0]!.skipped!['@_message'], 'not evaluated: no prometheus input');
    assert.equal(suites['dns-ttl-zero']![0]!.skipped!['@_message'], 'disabled in the config');
    assert.equal(suites.inputs![0]!.error!['@_message'], 'a.gz: corrupt gzip data');
    const storm = suites['reconnect-storm']!;
    assert.equal(storm.find((c) => c['@_name'] === 'x&y/t"1')!.failure!['@_message'], 'Storm <towards> "dst" & co');
    assert.match(storm.find((c) => c['@_name'].includes('policy'))!.skipped!['@_message'], /suppressed: accepted/);
    assert.equal(doc.testsuites['@_skipped'], '3');
    assert.equal(doc.testsuites['@_errors'], '1');
  });

  it('gives a clean rule one passing testcase', () => {
    const doc = parseJunit(format(buildReport(parts([]), 'error', { ruleIds: ['reconnect-storm'] }), 'junit'));
    const [c] = doc.testsuites.testsuite[0]!.testcase;
    assert.equal(c!['@_name'], 'reconnect-storm');
    assert.equal(c!.failure, undefined);
    assert.equal(doc.testsuites['@_tests'], '1');
  });
});

describe('Markdown', () => {
  it('starts with the status and one summary table, then a <details> block per finding', () => {
    const md = format(buildReport(parts([dstStorm, policyStorm]), 'error', { ruleIds: ['reconnect-storm'] }), 'markdown');
    const lines = md.split('\n');
    assert.match(lines[0]!, /^### linkerd-doctor \S+: ❌ \*\*FAIL\*\*$/);
    const tableStart = lines.findIndex((l) => l.startsWith('| Severity |'));
    const firstDetails = lines.findIndex((l) => l.startsWith('<details>'));
    assert.ok(tableStart > 0 && tableStart < firstDetails, 'summary table comes before details');
    assert.equal(lines.filter((l) => /^\| 🔴 error/.test(l)).length, 2);
    assert.equal((md.match(/<details>/g) ?? []).length, 2);
    assert.equal((md.match(/<\/details>/g) ?? []).length, 2);
    assert.match(md, /\*\*Fix\*\*/);
    assert.match(md, /```text\n/);
  });

  it('escapes table cells and says PASS with no findings', () => {
    const piped = { ...dstStorm, title: 'a | b <script>' };
    const md = format(buildReport(parts([piped]), 'error'), 'markdown');
    assert.ok(md.includes('a \\| b &lt;script&gt;'));
    const clean = format(buildReport(parts([]), 'error'), 'markdown');
    assert.match(clean, /✅ \*\*PASS\*\*/);
    assert.match(clean, /No findings\./);
  });
});

describe('JSON', () => {
  it('carries the additive gate fields', () => {
    const report = buildReport(parts([dstStorm, policyStorm]), 'warning', {
      ruleIds: ['reconnect-storm'],
      suppressions: [{ rule: 'reconnect-storm', subject: '*policy*', reason: 'r', source: 'config' }],
    });
    const json = JSON.parse(format(report, 'json')) as Report;
    assert.equal(json.schemaVersion, 1);
    assert.equal(json.failOn, 'warning');
    assert.deepEqual(json.evaluatedRules, ['reconnect-storm']);
    assert.equal(json.summary.suppressed, 1);
    assert.equal(json.summary.failing, 1);
    assert.equal(json.suppressedFindings.length, 1);
    assert.equal(json.suppressions[0]!.matched, 1);
    assert.match(json.findings[0]!.fingerprint, /^[0-9a-f]{32}$/);
    assert.equal(json.baseline, null);
  });
});
