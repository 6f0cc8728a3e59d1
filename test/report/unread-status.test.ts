// Issue 45: an input that was not understood is never a plain pass. Its lines are counted, the
// report's status is `incomplete` (or `fail` when a finding fails anyway), the verdict line names
// it, and --fail-on-unread turns it into exit 1. App output beside a proxy log does not count.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Finding, InputStats } from '../../src/core/types.js';
import { exitCodeFor } from '../../src/report/exit-code.js';
import { FORMATTERS } from '../../src/report/formats/index.js';
import { buildReport, notUnderstood, visibleFindings, type Report } from '../../src/report/report.js';

function input(over: Partial<InputStats>): InputStats {
  return { path: 'paste.txt', kind: 'kubectl', bytes: 600, records: 0, unparsed: 0, lines: 12, ...over };
}

function text(report: Report, verbose = false): string {
  return FORMATTERS.text(report, { color: false, findings: visibleFindings(report, 'info'), failOn: report.failOn, minSeverity: 'info', verbose });
}

const warning: Finding = {
  ruleId: 'pod-restarts',
  severity: 'warning',
  kind: 'restarts',
  title: 'linkerd-proxy restarting',
  message: 'restarted 5 times',
  subject: { target: 'web/linkerd-proxy' },
  evidence: {},
  locations: [],
  remediation: 'Read its log.',
  docsUrl: 'https://example.invalid/pod-restarts',
};

describe('inputs not understood', () => {
  it('a status block cut from a pod YAML with 11 of 12 lines unread is incomplete, never pass', () => {
    const report = buildReport({ inputs: [input({ unparsed: 11 })], findings: [], skippedRules: [], ruleFailures: [], errors: [] }, 'error');
    assert.equal(report.status, 'incomplete');
    assert.equal(report.inputs[0]!.status, 'incomplete');
    assert.equal(report.inputs[0]!.lines, 12);
    assert.equal(report.summary.incomplete, 1);
    assert.equal(exitCodeFor(report), 0, 'without --fail-on-unread the gate is unchanged');
    const last = text(report).trimEnd().split('\n').slice(-2).join(' ');
    assert.match(last, /INCOMPLETE · 1 input not understood: 11 of 12 lines unread/);
    assert.doesNotMatch(text(report), /PASS/);
  });

  it('--fail-on-unread makes an incomplete run exit 1', () => {
    const report = buildReport({ inputs: [input({ unparsed: 11 })], findings: [], skippedRules: [], ruleFailures: [], errors: [] }, 'error', {
      failOnUnread: true,
    });
    assert.equal(report.failOnUnread, true);
    assert.equal(exitCodeFor(report), 1);
  });

  it('a failing finding keeps status fail, and the verdict still names the unread input', () => {
    const report = buildReport(
      { inputs: [input({ unparsed: 9, records: 1 })], findings: [warning], skippedRules: [], ruleFailures: [], errors: [] },
      'warning',
    );
    assert.equal(report.status, 'fail');
    assert.match(text(report).replace(/\n/g, ' '), /FAIL · 1 input not understood: 9 of 12 lines unread/);
  });

  it('a file where nothing was read is not understood, whatever its kind', () => {
    assert.equal(notUnderstood(input({ kind: 'proxy-log', unparsed: 3, lines: 3 })), true);
    assert.equal(notUnderstood(input({ kind: 'kubectl', unparsed: 1, lines: 1 })), true);
    // A Pod manifest without status: recognised, every line taken, nothing in it to judge.
    assert.equal(notUnderstood(input({ kind: 'kubectl', records: 0, unparsed: 0, lines: 2 })), true);
  });

  it("an app's own lines inside a proxy log bundle (kubectl logs --all-containers) are no reason", () => {
    // 40 proxy lines read, 400 lines of the application's own output beside them.
    assert.equal(notUnderstood(input({ kind: 'proxy-log', records: 40, unparsed: 400, lines: 440 })), false);
    const report = buildReport(
      { inputs: [input({ kind: 'proxy-log', records: 40, unparsed: 400, lines: 440 })], findings: [], skippedRules: [], ruleFailures: [], errors: [] },
      'error',
    );
    assert.equal(report.status, 'pass');
  });

  it('a kubectl paste read for the most part stays read', () => {
    assert.equal(notUnderstood(input({ records: 5, unparsed: 2, lines: 12 })), false);
    assert.equal(notUnderstood(input({ records: 5, unparsed: 0, lines: 12 })), false);
    assert.equal(notUnderstood(input({ kind: 'unknown', records: 0, unparsed: 0, lines: 12 })), false);
  });

  it('several inputs are named with their counts', () => {
    const report = buildReport(
      {
        inputs: [input({ path: 'a.txt', unparsed: 11 }), input({ path: 'b.txt', unparsed: 4, lines: 4 }), input({ path: 'c.txt', records: 3 })],
        findings: [],
        skippedRules: [],
        ruleFailures: [],
        errors: [],
      },
      'error',
    );
    assert.equal(report.summary.incomplete, 2);
    assert.match(text(report).replace(/\n/g, ' '), /2 inputs not understood: a\.txt \(11 of 12 lines unread\), b\.txt \(4 of 4 lines unread\)/);
  });
});

describe('the report of a small paste ends with the answer', () => {
  const skippedRules = ['reconnect-storm', 'metric-cardinality', 'dns-ttl-zero', 'failfast'].map((ruleId) => ({ ruleId, reason: 'no proxy-log input' }));
  const report = buildReport({ inputs: [input({ records: 3 })], findings: [warning], skippedRules, ruleFailures: [], errors: [] }, 'error');

  it('the skipped rules take one line by default and are listed under --verbose', () => {
    const brief = text(report);
    assert.equal(brief.split('\n').filter((l) => /skipped/.test(l)).length, 1);
    assert.match(brief, /4 rules skipped for want of their inputs \(--verbose lists them\)\./);
    assert.doesNotMatch(brief, /reconnect-storm/);
    assert.match(text(report, true).replace(/\n/g, ' '), /Skipped rules \(their inputs are missing\): reconnect-storm \(no proxy-log input\)/);
  });

  it('the last lines are the verdict and the answer', () => {
    const lines = text(report).trimEnd().split('\n');
    assert.match(
      lines.find((l) => l.startsWith('Summary:'))!,
      /PASS/,
    );
    assert.match(lines[lines.length - 1]!, /Read its log\./);
  });
});
