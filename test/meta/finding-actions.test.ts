// Issue 28: the answer at 3 a.m. Every finding of every fixture and real sample (test/data/real,
// copied from the public Linkerd threads listed in its README) ends in an action a person can take
// now; the text report fits COLUMNS at 50, 80 and 200 (CJK file names included); a time range never
// hides its dates across days; and the surprises of the issue stay fixed.
//
// The reports come from the golden test (test/golden/reports.test.ts runs the built CLI over every
// fixture and sample and fails when a committed report differs): reading them here costs no CLI
// launch. The text report is re-rendered from each JSON report at every width in-process, and a
// few launches of the built CLI cover what only the CLI does (CJK names, stdin, source folders).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import stringWidth from 'string-width';
import { SIGNATURES } from '../../src/rules/known-signature/catalogue.js';
import { formatText, shortenToSentences, wrap } from '../../src/report/formats/text.js';
import type { Report, ReportFinding } from '../../src/report/report.js';
import { actionProblem } from '../support/actions.js';

const GOLDEN = path.resolve('test/golden/reports');
const BIN = path.resolve('bin/run.js');
const WIDTHS = [50, 80, 200] as const;

function firstStep(remediation: string): string {
  return remediation.split('\n').find((l) => l.trim() !== '' && !l.startsWith('Version check')) ?? '';
}

function goldenReports(): { name: string; report: Report }[] {
  return readdirSync(GOLDEN)
    .filter((name) => existsSync(path.join(GOLDEN, name, 'report.json')))
    .sort()
    .map((name) => ({ name, report: JSON.parse(readFileSync(path.join(GOLDEN, name, 'report.json'), 'utf8')) as Report }));
}

const reports = goldenReports();

function render(report: Report, width: number, extra: { verbose?: boolean; summaryOnly?: boolean } = {}): string {
  return formatText(report, { color: false, findings: report.findings as ReportFinding[], failOn: 'error', width, ...extra });
}

function overWide(text: string, width: number): string[] {
  return text.split('\n').filter((l) => stringWidth(l) > width);
}

/** `2024-06-06 11:01:10Z → 03:16:00Z`: a range whose end lost its date. */
const RANGE = /(\d{4}-\d\d-\d\d)[ T][\d:.]+Z → (\d{4}-\d\d-\d\d[ T])?([\d:.]+Z)/g;

describe('every finding ends in an action', () => {
  it('covers every fixture and every real sample', () => {
    const names = new Set(reports.map((r) => r.name));
    for (const f of readdirSync('fixtures')) if (!f.includes('.')) assert.ok(names.has(`fixtures-${f}`), `no golden report for fixtures/${f}`);
    assert.ok(reports.filter((r) => r.name.startsWith('real-')).length >= 50, 'the real samples are in the golden reports');
  });

  it('each catalogue entry opens with an imperative first fix', () => {
    const bad = SIGNATURES.map((s) => [s.id, actionProblem(s.fix[0]?.action ?? '')] as const).filter(([, p]) => p !== null);
    assert.deepEqual(bad, []);
  });

  it('each finding and incident of every report opens its fix with a whole imperative action', () => {
    const bad: string[] = [];
    let findings = 0;
    for (const { name, report } of reports) {
      for (const f of report.findings) {
        findings++;
        const problem = actionProblem(firstStep(f.remediation));
        if (problem) bad.push(`${name}: ${f.ruleId} "${f.title}": ${problem}: ${firstStep(f.remediation).slice(0, 80)}`);
        // Commands name the control plane's namespace: the one the evidence shows, else Linkerd's default.
        if (f.remediation.includes('<linkerd-ns>')) bad.push(`${name}: ${f.ruleId}: <linkerd-ns> left in a command`);
      }
      for (const inc of report.incidents ?? []) {
        const problem = actionProblem(inc.firstAction.replace(/^Start with the earliest signal \(.*?\), since the order is unclear: /, ''));
        if (problem) bad.push(`${name}: ${inc.id}: ${problem}`);
      }
    }
    assert.ok(findings > 40, `only ${findings} findings read`);
    assert.deepEqual(bad, []);
  });

  it('names signatures, files and pods as a person would', () => {
    for (const { name, report } of reports) {
      const text = render(report, 100);
      assert.doesNotMatch(text, /Likely causes, most likely first:\n/, name);
      assert.doesNotMatch(text, /target [a-z-]+ *\n? *lines \d/, `${name}: a signature shown as a target`);
      assert.doesNotMatch(text, /explain known-signature/, name);
      assert.doesNotMatch(text, /pod (?:test|fixtures)\//, `${name}: a path shown as a pod`);
      assert.doesNotMatch(text, /\(-\)|a pod the paste does not name/, name);
      for (const f of report.findings) {
        if (f.ruleId === 'pod-restarts' && f.keyFigure?.name === 'restarts')
          assert.equal(f.keyFigure.value, f.evidence.restarts, `${name}: restarts figure and evidence agree`);
      }
    }
  });
});

describe('the text report fits its terminal', () => {
  for (const width of WIDTHS) {
    it(`every line of every report fits ${width} columns (brief, verbose, summary)`, () => {
      const bad: string[] = [];
      for (const { name, report } of reports) {
        for (const mode of [{}, { verbose: true }, { summaryOnly: true }]) {
          for (const line of overWide(render(report, width, mode), width)) bad.push(`${name} ${JSON.stringify(mode)}: ${stringWidth(line)}: ${line}`);
        }
      }
      assert.deepEqual(bad.slice(0, 10), []);
    });
  }

  it('--summary fits 24 rows at 80 columns with whole titles', () => {
    for (const { name, report } of reports) {
      const text = render(report, 80, { summaryOnly: true });
      assert.ok(text.trimEnd().split('\n').length <= 24, `${name}: ${text.split('\n').length} rows`);
      for (const f of report.findings.slice(0, 1)) assert.ok(text.replace(/\n {8}/g, ' ').includes(f.title), `${name}: "${f.title}" whole`);
    }
  });

  it('the closing answer is whole: never cut mid-word, at any width', () => {
    for (const { name, report } of reports) {
      for (const width of WIDTHS) {
        const text = render(report, width);
        const answer = text.slice(text.lastIndexOf('\nSummary:'));
        assert.doesNotMatch(answer, /…\n?$|[a-z]…/, `${name} at ${width}`);
        const doNow = answer.slice(answer.indexOf('Do now:'));
        if (answer.includes('Do now:')) assert.match(doNow.trimEnd(), /[.)`"]$/, `${name} at ${width}: ${doNow}`);
      }
    }
  });

  it('shortens by whole sentences, never inside parentheses or code', () => {
    const text = 'Set `a; b` here (or there; elsewhere). Then restart it. Finally check the logs of every pod in the namespace.';
    assert.equal(shortenToSentences(text, 40, 1), 'Set `a; b` here (or there; elsewhere).');
    assert.equal(shortenToSentences(text, 40, 2), 'Set `a; b` here (or there; elsewhere). Then restart it.');
  });

  it('wraps by display width and never splits a number from its unit or a short path', () => {
    assert.deepEqual(wrap('日志日志日志 日志日志日志', 12), ['日志日志日志', '日志日志日志']);
    assert.ok(wrap('a b c d e 18 k lines', 12).every((l) => !/^k\b/.test(l)));
    const lines = wrap('see /var/log/pods/linkerd_linkerd-destination-7c9d5b8f6-xk4pd/linkerd-proxy/0.log now', 30);
    assert.ok(lines.every((l) => stringWidth(l) <= 30));
    assert.ok(
      lines.some((l) => l.endsWith('/')),
      'a long path breaks after a separator',
    );
  });
});

describe('time is told honestly', () => {
  it('every range crossing a day shows both dates, in every report and format', () => {
    for (const { name } of reports) {
      for (const file of ['report.txt', 'report.md', 'report.html']) {
        const p = path.join(GOLDEN, name, file);
        if (!existsSync(p)) continue;
        for (const m of readFileSync(p, 'utf8').matchAll(RANGE)) {
          if (m[2]) continue;
          // Without an end date the range must lie within one day: the end time is not before the start.
          const start = m[0].slice(11, 19);
          assert.ok(m[3]!.slice(0, 8) >= start, `${name}/${file}: ${m[0]}`);
        }
      }
    }
  });

  it('an incident of hundreds of signals draws the largest and sums the rest into one row', () => {
    const storm = reports.find((r) => r.name === 'fixtures-storm')!.report;
    const incident = storm.incidents![0]!;
    const [first] = incident.timeline!.series;
    // 40 services failing for one cause, the 40th the busiest.
    const series = Array.from({ length: 40 }, (_, i) => ({
      ...first!,
      label: `fail-fast svc-${i}.shop:80 per minute`,
      counts: first!.counts.map((c) => c * (i === 39 ? 100 : 1)),
    }));
    const many = { ...storm, incidents: [{ ...incident, timeline: { ...incident.timeline!, series } }] } as Report;
    const text = render(many, 100);
    const drawn = text.split('\n').filter((l) => / per minute /.test(l));
    assert.equal(drawn.length, 1 + 8 + 1, 'the sum, eight signals and the rest');
    assert.match(text, /svc-39\.shop:80 per minute/, 'the busiest signal is drawn');
    assert.match(text, /32 other signals per minute/);
    assert.doesNotMatch(text, /svc-38\.shop/, 'a signal past the eight largest is only in the sum');
  });

  it('sparkline labels name the bucket they draw', () => {
    for (const { name, report } of reports) {
      const text = render(report, 80);
      const all = /all signals per (\S+(?: min| h| d)?)/.exec(text);
      if (!all) continue;
      if (all[1] !== 'minute') assert.doesNotMatch(text, /per minute {2,}/, `${name}: rows say per minute under "${all[0]}"`);
    }
  });
});

describe('the built CLI', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ld-actions-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const run = (args: string[], env: Record<string, string> = {}, input?: string) =>
    spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', input, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env } });

  it('fits 50 columns with CJK file names, in one launch per width', () => {
    const bundle = path.join(dir, '事故日志');
    mkdirSync(bundle);
    copyFileSync('test/data/real/proxy-log/l2-11279-destination-failfast.log', path.join(bundle, '目的地控制器故障快速失败日志.log'));
    copyFileSync('test/data/real/proxy-log/l2-5932-accessdenied-identity-srv.log', path.join(bundle, '身份验证拒绝访问.log'));
    for (const width of [50, 80]) {
      const out = path.join(dir, `cjk-${width}.txt`);
      const verbose = path.join(dir, `cjk-${width}-verbose.txt`);
      const r = run(['analyze', bundle, '-q', '-f', 'text', '-o', out], { COLUMNS: String(width) });
      assert.ok(r.status === 0 || r.status === 1, r.stderr);
      const v = run(['analyze', bundle, '-q', '--verbose', '-f', 'text', '-o', verbose], { COLUMNS: String(width) });
      assert.ok(v.status === 0 || v.status === 1, v.stderr);
      for (const file of [out, verbose]) assert.deepEqual(overWide(readFileSync(file, 'utf8'), width), [], file);
    }
  });

  it('unrecognised stdin: the error, no verdict before it', () => {
    const r = run(['analyze', '-'], { COLUMNS: '80' }, 'hello, this is not a log\nnor is this\n');
    assert.equal(r.status, 2);
    assert.doesNotMatch(r.stdout, /No findings\.|Skipped rules/);
    assert.match(r.stdout, /error: -: nothing recognisable/);
  });

  it('a folder of TypeScript sources gives no findings', () => {
    const src = path.join(dir, 'src');
    mkdirSync(src);
    // Sources that quote proxy log lines: the signature catalogue and a rule.
    copyFileSync('src/rules/known-signature/signatures/failfast.ts', path.join(src, 'failfast.ts'));
    copyFileSync('src/rules/known-signature/signatures/control-plane.ts', path.join(src, 'control-plane.ts'));
    copyFileSync('src/rules/control-plane-unavailable/index.ts', path.join(src, 'index.ts'));
    writeFileSync(path.join(src, 'note.txt'), 'nothing here\n');
    const r = run(['analyze', src, '-q', '-f', 'json']);
    const report = JSON.parse(r.stdout) as Report;
    assert.equal(report.findings.length, 0);
    assert.ok(
      report.inputs.every((i) => i.kind === 'unknown'),
      JSON.stringify(report.inputs.map((i) => i.kind)),
    );
  });
});

describe('--redact treats input file names alike', () => {
  it('renames every non-pod file name as a file and pod-shaped names as pods', async () => {
    const { Redactor } = await import('../../src/report/redact.js');
    const r = new Redactor();
    const paths = [
      'real/cd-1265-errors-plugin-2017.log',
      'real/l2-5932-accessdenied-identity-srv.log',
      'bundle/traefik-7d9f8c6b5-x2x8k.log',
      'kubectl/events.txt',
    ];
    r.learnInputNames(paths);
    assert.deepEqual(
      paths.map((p) => r.redactText(p)),
      ['real/file-1.log', 'real/file-2.log', 'bundle/pod-1.log', 'kubectl/file-3.txt'],
    );
  });
});
