// Reports people read, through the built CLI (`node bin/run.js`): folding many pods into one
// finding, the text layout at 80 and 200 columns, usage errors with suggestions, the Linkerd
// extension contract, the config notice, colour and the baseline marks.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { createProgress, isCompressedPath, progressLine } from '../../src/cli/progress.js';
import type { Report } from '../../src/report/report.js';
import { ONE_STORM, TWO_STORMS, writeBundle } from '../support/storm-bundle.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(ROOT, 'bin/run.js');
const STORM = path.join(ROOT, 'fixtures/storm');
const TRAEFIK_LOG = path.join(ROOT, 'fixtures/traefik-cardinality/traefik-7d9f8c6b5-x2x8k.log');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], options: { cwd?: string; env?: Record<string, string | undefined> } = {}): Run {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, COLUMNS: undefined, ...options.env };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd: options.cwd ?? dir, env: env as NodeJS.ProcessEnv, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

let dir: string;
/** 40 Traefik pods whose proxies logged the same pod-IP dials (the fixture's log, one copy per pod). */
let traefik40: string;
let traefik30: string;

function traefikPods(name: string, count: number): string {
  const out = path.join(dir, name);
  mkdirSync(out, { recursive: true });
  for (let i = 0; i < count; i++) copyFileSync(TRAEFIK_LOG, path.join(out, `traefik-7d9f8c6b5-p${String(i).padStart(2, '0')}xk.log`));
  return out;
}

before(async () => {
  const dist = path.join(ROOT, 'dist/cli/main.js');
  if (!existsSync(dist) || statSync(path.join(ROOT, 'src/cli/main.ts')).mtimeMs > statSync(dist).mtimeMs)
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  dir = mkdtempSync(path.join(tmpdir(), 'ld-reports-'));
  traefik40 = traefikPods('traefik40', 40);
  traefik30 = traefikPods('traefik30', 30);
});
after(() => rmSync(dir, { recursive: true, force: true }));

const json = (run: Run) => JSON.parse(run.stdout) as Report;

const EVERY_FORMAT = ['json', 'text', 'markdown', 'html', 'junit', 'sarif'] as const;
type Format = (typeof EVERY_FORMAT)[number];

/**
 * One launch writing each format to its own file (an --output goes with the --format beside it),
 * instead of one launch per format: the reports are the same, the CLI starts once.
 */
function everyFormat(args: string[], formats: readonly Format[] = EVERY_FORMAT): Run & { reports: Record<Format, string> } {
  const out = mkdtempSync(path.join(dir, 'formats-'));
  const run = cli([...args, ...formats.flatMap((format) => ['--format', format, '--output', path.join(out, `report.${format}`)])]);
  const reports = Object.fromEntries(formats.map((format) => [format, readFileSync(path.join(out, `report.${format}`), 'utf8')])) as Record<Format, string>;
  return { ...run, reports };
}

describe('folding many pods into one finding', () => {
  it('40 Traefik pods with the same logs give one finding per cause, naming the pods, and one headline', () => {
    const { reports } = everyFormat(['analyze', traefik40, '-q'], ['json', 'text', 'markdown']);
    const report = JSON.parse(reports.json) as Report;
    const bypass = report.findings.filter((f) => f.ruleId === 'ingress-pod-ip-bypass');
    assert.equal(bypass.length, 1);
    const [f] = bypass;
    assert.equal(f!.title, 'Traefik dials pod IPs directly (40 pods)');
    assert.deepEqual(f!.subject, { workload: 'traefik' });
    assert.match(f!.message, /^40 pods of traefik show the same finding; top 5 of 40 by endpoint targets without service: traefik-7d9f8c6b5-p00xk \(11\), /);
    const evidence = f!.evidence as { podsAffected: number; workloads: string[]; pods: { pod: string }[] };
    assert.equal(evidence.podsAffected, 40);
    assert.deepEqual(evidence.workloads, ['traefik']);
    assert.equal(new Set(evidence.pods.map((p) => p.pod)).size, 40, 'one evidence row per pod');
    for (const incident of report.incidents ?? []) assert.ok((incident.headline.match(/Traefik dials pod IPs directly/g) ?? []).length <= 1, incident.headline);

    const text = reports.text;
    assert.equal((text.match(/Traefik dials pod IPs directly/g) ?? []).length <= 3, true, 'title, answer; not 40 times');
    const markdown = reports.markdown;
    assert.ok(markdown.length < 65_536, `${markdown.length} characters`);
    assert.equal((markdown.match(/^\| .*ingress-pod-ip-bypass/gm) ?? []).length, 1);
  });

  it('markdown unfolded stays under the comment limit by truncating, with a pointer to the full report', () => {
    const markdown = cli(['analyze', traefik40, '--no-fold', '--format', 'markdown', '-q']).stdout;
    assert.ok(markdown.length < 65_536, `${markdown.length} characters`);
    assert.match(
      markdown,
      /_Not shown here to stay within GitHub's 65,536-character comment limit: .*details of \d+ of 40 finding\(s\); the full report is in the JSON, SARIF or HTML output/,
    );
  });

  it('keeps the fingerprint of the folded finding when pods come and go; --no-fold gives one finding per pod', () => {
    const fingerprint = (bundle: string) =>
      json(cli(['analyze', bundle, '--format', 'json', '-q'])).findings.find((f) => f.ruleId === 'ingress-pod-ip-bypass')!.fingerprint;
    assert.equal(fingerprint(traefik40), fingerprint(traefik30));
    const unfolded = json(cli(['analyze', traefik30, '--format', 'json', '-q', '--no-fold']));
    assert.equal(unfolded.findings.filter((f) => f.ruleId === 'ingress-pod-ip-bypass').length, 30);
  });

  it('a folded finding in a baseline stays unchanged when the pod count changes', () => {
    const baseline = path.join(dir, 'traefik-baseline.json');
    assert.equal(cli(['analyze', traefik30, '--write-baseline', baseline, '--format', 'json', '-q']).code, 0);
    const again = cli(['analyze', traefik40, '--baseline', baseline, '--fail-on', 'warning', '--format', 'json', '-q']);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(
      json(again).findings.map((f) => f.baseline?.state),
      ['unchanged'],
    );
  });

  it('--max-findings and --summary shorten every report', () => {
    const two = everyFormat(['analyze', STORM, '--max-findings', '1'], ['text', 'markdown']);
    assert.equal((two.reports.text.match(/^ERROR {3}/gm) ?? []).length, 1);
    assert.match(two.reports.text, /2 more finding\(s\) not shown \(--max-findings\)/);
    assert.equal(two.code, 1, 'the exit code still counts every finding');
    const md = two.reports.markdown;
    assert.equal((md.match(/^\| 🔴/gm) ?? []).length, 1);
    const summary = cli(['analyze', STORM, '--summary']).stdout;
    // Whole titles, one per finding; the rule tag where it fits beside the title.
    assert.equal((summary.match(/^ERROR {3}/gm) ?? []).length, 3);
    assert.match(summary, /\[LD1001 reconnect-storm\]/);
    assert.doesNotMatch(summary, /^ {2}fix /m);
  });
});

describe('text report laid out for the terminal', () => {
  for (const width of [50, 80, 200]) {
    it(`at COLUMNS=${width}: no line is longer than the width, default and --verbose, report and rules`, () => {
      for (const args of [['analyze', STORM], ['analyze', STORM, '--verbose'], ['analyze', traefik40], ['analyze', traefik40, '--verbose'], ['rules']]) {
        const run = cli(args, { env: { COLUMNS: String(width) } });
        const long = run.stdout.split('\n').filter((l) => [...l].length > width);
        assert.deepEqual(long, [], `${args.join(' ')}`);
      }
    });
  }

  it('uses the width it is given: wider terminals get longer lines', () => {
    const longest = (w: number) =>
      Math.max(
        ...cli(['analyze', STORM], { env: { COLUMNS: String(w) } })
          .stdout.split('\n')
          .map((l) => l.length),
      );
    assert.ok(longest(80) <= 80);
    assert.ok(longest(200) > 100, 'at 200 columns the paragraphs use the room');
    assert.ok(longest(200) <= 200);
  });

  it('ends with the answer: cause and first action are on the last screen of an 80x24 terminal', () => {
    const lines = cli(['analyze', STORM], { env: { COLUMNS: '80' } })
      .stdout.trimEnd()
      .split('\n');
    const lastScreen = lines.slice(-24).join('\n');
    assert.match(lastScreen, /^Probable cause: Destination controller saturated/m);
    assert.match(lastScreen, /^Do now: Relieve the destination controller now/m);
    assert.match(lastScreen, /^Summary: 3 error\(s\)/m);
    assert.doesNotMatch(lastScreen, /Version check/);
  });

  it('brief by default (title with rule code, subject, figures, fix, docs); --verbose shows the evidence', () => {
    const brief = cli(['analyze', STORM], { env: { COLUMNS: '120' } }).stdout;
    assert.match(brief, /^ERROR {3}Reconnect storm towards the destination controller \[LD1001 reconnect-storm\]$/m);
    assert.match(brief, /^ {2}total lines 18,064 · failed to connect 18,064 · pods affected 30/m);
    assert.match(brief, /^ {2}fix Upgrade the control plane/m);
    assert.match(brief, /^ {2}docs https:\/\/\S+reconnect-storm\.md/m);
    assert.doesNotMatch(brief, /\bpods \(top \d+ of/);
    const verbose = cli(['analyze', STORM, '--verbose'], { env: { COLUMNS: '120' } }).stdout;
    assert.match(verbose, /^ {2}pods \(top 5 of 30\)/m, 'the real total, not the cap of 10');
    assert.match(verbose, /^ {2}pods failing continuously +30$/m, 'one key, one row, in words');
    assert.doesNotMatch(verbose, /cluster run|Infinity/, 'no option name or unbounded edge as a label');
    const flowing = verbose.replace(/\s+/g, ' ');
    assert.match(flowing, /the 10 of 30 affected pods listed in this finding run v2\.210\.4/);
    assert.doesNotMatch(flowing, /the 10 pods named/);
    assert.match(verbose, /samples/);
  });

  it('wraps the incident headline', () => {
    const lines = cli(['analyze', STORM], { env: { COLUMNS: '80' } }).stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('1. Destination controller saturated'));
    assert.ok(at > 0);
    assert.match(lines[at + 1]!, /^ {3}\S/, 'the headline continues, indented, on the next line');
  });

  it('marks findings new, worse or unchanged against a baseline', async () => {
    const cwd = path.join(dir, 'baseline-marks');
    await writeBundle(path.join(cwd, 'before'), ONE_STORM);
    await writeBundle(path.join(cwd, 'after'), TWO_STORMS);
    assert.equal(cli(['analyze', 'before', '--write-baseline', 'b.json', '-q'], { cwd }).code, 0);
    const text = cli(['analyze', 'after', '--baseline', 'b.json'], { cwd, env: { COLUMNS: '160' } }).stdout;
    assert.match(text, /Reconnect storm towards the policy controller \[LD1001 reconnect-storm\] NEW$/m);
    assert.match(text, /Reconnect storm towards the destination controller \[LD1001 reconnect-storm\] unchanged$/m);
  });

  it('honours FORCE_COLOR and NO_COLOR when piped', () => {
    // eslint-disable-next-line no-control-regex
    const ansi = /\u001b\[/;
    assert.match(cli(['analyze', STORM], { env: { NO_COLOR: undefined, FORCE_COLOR: '1' } }).stdout, ansi);
    assert.doesNotMatch(cli(['analyze', STORM], { env: { NO_COLOR: undefined, FORCE_COLOR: '0' } }).stdout, ansi);
    assert.doesNotMatch(cli(['analyze', STORM], { env: { NO_COLOR: '1' } }).stdout, ansi);
    assert.doesNotMatch(cli(['analyze', STORM, '--no-color'], { env: { FORCE_COLOR: '1' } }).stdout, ansi);
  });
});

describe('no silent pass: an empty input set or a failed input is an error', () => {
  const layouts: [string, () => string, RegExp][] = [
    [
      'an empty directory',
      () => {
        mkdirSync(path.join(dir, 'empty'));
        return path.join(dir, 'empty');
      },
      /empty: no input files found/,
    ],
    [
      'a directory of only hidden and node_modules folders',
      () => {
        const root = path.join(dir, 'only-hidden');
        for (const sub of ['.git', '.cache/logs', 'node_modules/pkg']) mkdirSync(path.join(root, sub), { recursive: true });
        copyFileSync(TRAEFIK_LOG, path.join(root, '.cache/logs/proxy.log'));
        copyFileSync(TRAEFIK_LOG, path.join(root, 'node_modules/pkg/proxy.log'));
        return root;
      },
      /only-hidden: no input files found \(hidden entries and node_modules folders are skipped\)/,
    ],
    [
      'a tar of only directories',
      () => {
        mkdirSync(path.join(dir, 'tree/ns/pod'), { recursive: true });
        execFileSync('tar', ['-cf', 'dirs.tar', 'tree'], { cwd: dir });
        return path.join(dir, 'dirs.tar');
      },
      /dirs\.tar: the tar archive holds no regular files \(only 3 directory entries\)/,
    ],
  ];
  for (const [name, make, expected] of layouts) {
    it(`${name}: exit 2, one line naming what was searched`, () => {
      const input = make();
      const run = cli(['analyze', input, '--format', 'json']);
      assert.equal(run.code, 2);
      const lines = run.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0]!, expected);
      assert.ok(lines[0]!.includes(input), 'the line names the path as given');
      assert.equal(json(run).status, 'error');
      const text = cli(['analyze', input]).stdout;
      assert.match(text, /^Nothing was analysed: no input could be read\.$/m);
      assert.doesNotMatch(text, /No findings|Skipped rules/, 'nothing that reads like a pass, no list of every rule');
    });
  }

  it('a missing input next to a healthy bundle: status error, never pass, in every format', () => {
    const run = everyFormat(['analyze', path.join(dir, 'not-captured'), path.join(ROOT, 'fixtures/healthy'), '-q']);
    assert.equal(run.code, 2);
    assert.equal((JSON.parse(run.reports.json) as Report).status, 'error');
    const markdown = run.reports.markdown;
    assert.match(markdown, /^### linkerd-doctor \S+: ⚠️ \*\*ERROR\*\* · 1 input error\(s\)$/m);
    assert.doesNotMatch(markdown, /PASS|✅/);
    const html = run.reports.html;
    assert.match(html, /<span class="badge error">ERROR<\/span>/);
    assert.doesNotMatch(html, /class="badge pass"/);
    assert.match(run.reports.text, /^Summary: .* · ERROR · 1 input error\(s\)$/m);
    assert.match(run.reports.junit, /^<testsuites name="linkerd-doctor" tests="\d+" failures="0" errors="1"/m);
    const sarif = JSON.parse(run.reports.sarif) as { runs: { invocations: { executionSuccessful: boolean }[] }[] };
    assert.equal(sarif.runs[0]!.invocations[0]!.executionSuccessful, false);
  });
});

describe('rule codes in every report', () => {
  it('JSON, SARIF, JUnit, Markdown and HTML name LD1001', () => {
    const { reports } = everyFormat(['analyze', STORM, '-q']);
    assert.deepEqual([...new Set((JSON.parse(reports.json) as Report).findings.map((f) => f.code))].sort(), ['LD1001', 'LD1002']);
    const sarif = JSON.parse(reports.sarif) as {
      runs: { results: { properties: { code: string } }[]; tool: { driver: { rules: { properties: { code: string } }[] } } }[];
    };
    assert.ok(sarif.runs[0]!.results.every((r) => /^LD\d{4}$/.test(r.properties.code)));
    assert.match(reports.junit, /\[LD1001 reconnect-storm\]/);
    assert.match(reports.markdown, /\| \[`reconnect-storm`\]\([^)]+\) LD1001 \|/);
    assert.match(reports.html, /<code>reconnect-storm<\/code> <span class="muted">LD1001<\/span>/);
  });
});

describe('usage errors: one line on stderr, exit 2, with the nearest name', () => {
  const cases: [string[], RegExp][] = [
    [['export-rules'], /^linkerd-doctor: export-rules: --target is required \(one of: prometheus, loki\)/],
    [
      ['analyze', '-j', '0', STORM],
      /^linkerd-doctor: analyze: --jobs must be a whole number of at least 1 \(more than the \d+ CPU cores is capped\), got "0"$/,
    ],
    [
      ['analyze', '-j', 'abc', STORM],
      /^linkerd-doctor: analyze: --jobs must be a whole number of at least 1 \(more than the \d+ CPU cores is capped\), got "abc"$/,
    ],
    [['analyse', STORM], /^linkerd-doctor: unknown command analyse; did you mean analyze\? \(commands: /],
    [['analyze', '--formt', 'json', STORM], /^linkerd-doctor: analyze: unknown flag --formt; did you mean --format\?/],
    [
      ['analyze', '--format', 'jsn', STORM],
      /^linkerd-doctor: analyze: --format jsn: not one of text, json, sarif, junit, markdown, html; did you mean json\?$/,
    ],
    [
      ['parse', '--kind', 'foo', STORM],
      /^linkerd-doctor: parse: --kind foo: not one of proxy-log, metric-sample, metric-scrape-error, dns-query, dns-answer, coredns-query, coredns-message, pod-status, kube-event, linkerd-check, linkerd-cli-message, linkerd-cli-row, certificate-evidence, container-spec, dns-evidence$/,
    ],
    [['parse', '--kind', 'proxy-lg', STORM], /did you mean proxy-log\?$/],
    [['explain', 'reconect-storm'], /^linkerd-doctor: explain: unknown rule or signature "reconect-storm"; did you mean reconnect-storm\?/],
    [['analyze', STORM, '--suppress', 'reconect-storm'], /unknown rule "reconect-storm"; did you mean reconnect-storm\?/],
    [['help', 'analyse'], /^linkerd-doctor: help: unknown command analyse; did you mean analyze\?/],
    [['hepl'], /^linkerd-doctor: unknown command hepl; did you mean help\?/],
    [['-v'], /^linkerd-doctor: unknown flag -v; did you mean --version\? \(before a command only --help and --version; commands: analyze, /],
    [['--format', 'json', 'analyze', STORM], /^linkerd-doctor: unknown flag --format \(before a command only --help and --version; /],
    [['rules', 'extra'], /^linkerd-doctor: rules: unexpected argument extra \(see linkerd-doctor rules --help\)$/],
    [['analyze', '--max-findings', '0', STORM], /^linkerd-doctor: analyze: --max-findings must be a whole number of at least 1, got "0"$/],
    [['analyze', STORM, '--fail-on', 'warn'], /^linkerd-doctor: analyze: --fail-on warn: not one of error, warning, info, none; did you mean warning\?$/],
    [['export-rules', '--target', 'prom'], /^linkerd-doctor: export-rules: --target prom: not one of prometheus, loki; did you mean prometheus\?$/],
    [['rules', '--formt', 'json'], /^linkerd-doctor: rules: unknown flag --formt; did you mean --format\?/],
    [['explain', 'reconnect-storm', 'extra'], /^linkerd-doctor: explain: unexpected argument extra \(see linkerd-doctor explain --help\)$/],
    [['analyze', STORM, '--baseline-tolerance', 'ten'], /^linkerd-doctor: analyze: --baseline-tolerance must be a whole number of at least 0, got "ten"$/],
    [['check', '--output', 'yaml'], /^linkerd-doctor: check: --output yaml: not one of table, json, short$/],
    [
      ['analyze', STORM, '--format', 'jsn', '--output', 'a.json'],
      /^linkerd-doctor: analyze: --format jsn: not one of text, json, sarif, junit, markdown, html; did you mean json\?$/,
    ],
    [['analyze', STORM, '--format', 'json', '--format', 'sarif'], /--format json and --format sarif would all go to stdout/],
  ];
  for (const [args, expected] of cases) {
    it(args.map((a) => (a === STORM ? 'fixtures/storm' : a)).join(' '), () => {
      const run = cli(args);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stdout, '');
      const lines = run.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0]!, expected);
    });
  }

  it('--jobs above the CPU cores is capped with a notice, not silently', () => {
    const run = cli(['analyze', STORM, '--jobs', '99', '--format', 'json']);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /^linkerd-doctor: notice: --jobs 99 capped at \d+, the number of CPU cores$/m);
    assert.equal(json(run).findings.filter((f) => f.ruleId === 'reconnect-storm').length, 2);
  });

  it('help fits 80 columns for every command, and uses a wider COLUMNS', () => {
    for (const topic of ['', 'analyze', 'parse', 'rules', 'explain', 'export-rules', 'check', 'collect', 'install', 'uninstall']) {
      const help = cli(topic ? ['help', topic] : ['help']);
      assert.equal(help.code, 0, help.stderr);
      assert.deepEqual(
        help.stdout.split('\n').filter((l) => [...l].length > 80),
        [],
        `help ${topic}`,
      );
    }
    const wide = cli(['help', 'analyze'], { env: { COLUMNS: '140' } }).stdout;
    assert.ok(Math.max(...wide.split('\n').map((l) => l.length)) > 100, 'a wider terminal gets longer lines');
  });

  it('help is a command: help, help COMMAND', () => {
    const all = cli(['help']);
    assert.equal(all.code, 0);
    assert.match(all.stdout, /analyze/);
    assert.equal(cli(['help', 'help']).stdout, all.stdout);
    const one = cli(['help', 'analyze']);
    assert.equal(one.code, 0);
    assert.match(one.stdout, /--max-findings/);
  });
});

describe('--format and --output follow the command line', () => {
  it('an --output belongs to the --format before it; the format without one goes to stdout', () => {
    const cwd = path.join(dir, 'pairs');
    mkdirSync(cwd, { recursive: true });
    const run = cli(
      [
        'analyze',
        STORM,
        '--format',
        'text',
        '--format',
        'sarif',
        '--output',
        'a.sarif',
        '--format',
        'junit',
        '--output',
        'a.xml',
        '--format=markdown',
        '-o',
        'a.md',
        '-f',
        'json',
        '-oa.json',
      ],
      { cwd },
    );
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /^linkerd-doctor \S+ · /);
    assert.equal((JSON.parse(readFileSync(path.join(cwd, 'a.sarif'), 'utf8')) as { version: string }).version, '2.1.0');
    assert.match(readFileSync(path.join(cwd, 'a.xml'), 'utf8'), /^<\?xml/);
    assert.match(readFileSync(path.join(cwd, 'a.md'), 'utf8'), /^### linkerd-doctor/);
    assert.equal((JSON.parse(readFileSync(path.join(cwd, 'a.json'), 'utf8')) as Report).schemaVersion, 1);
  });

  it('--output - sends that format to stdout; an --output with no --format writes text', () => {
    const cwd = path.join(dir, 'pairs-2');
    mkdirSync(cwd, { recursive: true });
    const run = cli(['analyze', STORM, '--format', 'json', '--output', '-', '--format', 'text', '--output', 'r.txt', '-q'], { cwd });
    assert.equal(json(run).schemaVersion, 1);
    assert.match(readFileSync(path.join(cwd, 'r.txt'), 'utf8'), /^linkerd-doctor /);
    cli(['analyze', STORM, '--output', 'only.txt', '-q'], { cwd });
    assert.match(readFileSync(path.join(cwd, 'only.txt'), 'utf8'), /^linkerd-doctor /);
  });

  it('an --output alone writes the format its extension names; a pair may be written either way round (issue 28)', () => {
    const cwd = path.join(dir, 'pairs-3');
    mkdirSync(cwd, { recursive: true });
    const run = cli(['analyze', STORM, '-o', 'out.json', '-o', 'x.html', '-f', 'html', '-o', 'r.sarif.json', '-o', 'notes.md', '-q'], { cwd });
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stdout, '', 'every report went to its file');
    assert.equal((JSON.parse(readFileSync(path.join(cwd, 'out.json'), 'utf8')) as Report).schemaVersion, 1);
    assert.match(readFileSync(path.join(cwd, 'x.html'), 'utf8'), /^<!doctype html>/i);
    assert.equal((JSON.parse(readFileSync(path.join(cwd, 'r.sarif.json'), 'utf8')) as { version: string }).version, '2.1.0');
    assert.match(readFileSync(path.join(cwd, 'notes.md'), 'utf8'), /^### linkerd-doctor/);
    // An explicit --format beside the file wins over its name.
    cli(['analyze', STORM, '-f', 'json', '-o', 'named.txt', '-q'], { cwd });
    assert.equal((JSON.parse(readFileSync(path.join(cwd, 'named.txt'), 'utf8')) as Report).schemaVersion, 1);
  });
});

describe('the Linkerd CLI extension contract', () => {
  it('answers _extension-metadata with the JSON linkerd check parses, exit 0', () => {
    const run = cli(['_extension-metadata']);
    assert.equal(run.code, 0);
    assert.equal(run.stderr, '');
    assert.deepEqual(JSON.parse(run.stdout), { name: 'linkerd-doctor', checks: 'always' });
  });

  it("accepts and ignores Linkerd's global flags, with their values, on every command", () => {
    const globals = [
      '--context',
      'prod',
      '--kubeconfig=/tmp/k',
      '--as',
      'me',
      '--as-group',
      'ops',
      '--api-addr',
      'localhost:8085',
      '-L',
      'linkerd',
      '--linkerd-namespace=linkerd',
      '--verbose=false',
    ];
    const plain = cli(['analyze', STORM, '--format', 'json', '-q']);
    const withGlobals = cli(['analyze', ...globals, STORM, '--format', 'json', '-q']);
    assert.equal(withGlobals.code, plain.code, withGlobals.stderr);
    assert.deepEqual(
      json(withGlobals).findings.map((f) => f.fingerprint),
      json(plain).findings.map((f) => f.fingerprint),
    );
    // Before the command name too, as `linkerd check` passes them.
    assert.equal(cli([...globals, 'rules', '--format', 'json']).code, 0);
    assert.equal(cli(['explain', ...globals, 'LD1001']).code, 0);
    assert.equal(cli(['export-rules', '--target', 'prometheus', ...globals]).code, 0);
    const parse = cli(['parse', path.join(STORM, 'linkerd'), '--context', 'prod', '--kind', 'proxy-log']);
    assert.equal(parse.code, 0, parse.stderr);
    assert.ok(parse.stdout.length > 0);
    // --verbose (Linkerd's debug switch) means the full evidence on analyze.
    assert.match(cli(['--verbose', 'analyze', STORM]).stdout, /^ {2}pods \(top 5 of 30\)/m);
  });
});

describe('notices', () => {
  it('names the config file in effect, found or given', () => {
    const cwd = path.join(dir, 'with-config');
    mkdirSync(cwd, { recursive: true });
    writeFileSync(path.join(cwd, '.linkerd-doctor.yaml'), 'failOn: none\n');
    const found = cli(['analyze', STORM], { cwd });
    assert.equal(found.code, 0);
    assert.match(
      found.stderr,
      /^linkerd-doctor: notice: using config \.linkerd-doctor\.yaml \(found in the working directory; --config FILE to choose another\)$/m,
    );
    writeFileSync(path.join(dir, 'strict.yaml'), 'failOn: warning\n');
    assert.match(cli(['analyze', STORM, '--config', path.join(dir, 'strict.yaml')]).stderr, /notice: using config .*strict\.yaml$/m);
    assert.doesNotMatch(cli(['analyze', STORM, '-q'], { cwd }).stderr, /using config/);
  });
});

describe('progress line', () => {
  it('fits the width, and shows a bar only for a total it can count against', () => {
    const known = progressLine({ read: 512 << 20, lines: 1e6, total: 1 << 30, file: 'bundle/ns/pod/linkerd-proxy.log', seconds: 4 }, 80);
    assert.match(known, /█+░+ 50% \| 512\.0 MiB of 1\.0 GiB/);
    assert.ok(known.length < 80);
    const stdin = progressLine({ read: 3 << 20, lines: 1000, total: null, file: '-', seconds: 1 }, 80);
    assert.doesNotMatch(stdin, /%|█|░/);
    assert.match(stdin, /^ 3\.0 MiB read \| /);
    const narrow = progressLine({ read: 1, lines: 1, total: 10, file: 'a/very/long/path/'.repeat(10), seconds: 1 }, 50);
    assert.ok(narrow.length < 50, narrow);
    assert.ok(isCompressedPath('x/proxy-metrics.txt.gz') && isCompressedPath('b.tgz:ns/pod.log') && !isCompressedPath('x/proxy.log'));
    // cli-progress's estimate of the time left, only for a total it can count against.
    assert.match(
      progressLine({ read: 256 << 20, lines: 1, total: 1 << 30, file: 'x.log', seconds: 2, eta: 12 }, 100),
      /25% \| 256\.0 MiB of 1\.0 GiB, 12 s left \|/,
    );
    assert.doesNotMatch(progressLine({ read: 256 << 20, lines: 1, total: null, file: 'x.log', seconds: 2, eta: 12 }, 100), /left/);
    assert.doesNotMatch(progressLine({ read: 256 << 20, lines: 1, total: 1 << 30, file: 'x.log', seconds: 2, eta: Number.POSITIVE_INFINITY }, 100), /left/);
  });

  it('draws nothing when stderr is not a terminal, and no percentage while a .gz is read', async () => {
    const frames = (isTTY: boolean, file: string) => {
      const stream = Object.assign(new PassThrough(), { isTTY, columns: 80, cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
      let out = '';
      stream.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      const progress = createProgress(true, stream as unknown as NodeJS.WriteStream);
      // 1 MiB on disk decompressing to 20 MiB: a percentage of the size on disk would pass 100 %.
      progress?.start(1 << 20);
      progress?.file(file);
      for (let i = 0; i < 20; i++) progress?.bytes(1 << 20, 5000);
      progress?.stop();
      return { progress, out };
    };
    const piped = frames(false, 'bundle/proxy.log.gz');
    assert.equal(piped.progress, undefined);
    assert.equal(piped.out, '');
    const gz = frames(true, 'bundle/proxy.log.gz');
    assert.match(gz.out, /MiB read \|/);
    assert.doesNotMatch(gz.out, /%|█/);
    const plain = frames(true, 'bundle/proxy.log');
    assert.match(plain.out, /\d+% \| /, 'a plain file, whose size is what is counted, gets a percentage');
  });
});
