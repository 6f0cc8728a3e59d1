// Runs the built CLI as a user would (`npm test` builds first).

import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';

const BIN = path.resolve('bin/run.js');
const STORM = 'fixtures/storm';
const HEALTHY = 'fixtures/healthy';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], options: SpawnSyncOptions = {}): Run {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, NO_COLOR: '1' }, ...options });
  return { status: r.status, stdout: String(r.stdout), stderr: String(r.stderr) };
}

function json(run: Run) {
  return JSON.parse(run.stdout) as {
    schemaVersion: number;
    status: string;
    inputs: { path: string; kind: string; records: number; unparsed: number; pod?: string }[];
    findings: {
      ruleId: string;
      severity: string;
      subject: Record<string, string>;
      evidence: Record<string, unknown>;
      locations: { path: string; line: number }[];
      docsUrl: string;
    }[];
    skippedRules: { ruleId: string; reason: string }[];
    errors: { path: string; message: string }[];
    summary: Record<string, number>;
  };
}

function assertOneLineError(run: Run, mentions: string) {
  assert.equal(run.status, 2, `exit code; stderr: ${run.stderr}`);
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${run.stderr}`);
  assert.ok(lines[0]!.includes(mentions), `"${lines[0]}" names ${mentions}`);
  assert.doesNotMatch(run.stderr, /\n\s+at |Error: /, 'no stack trace');
}

describe('analyze: the storm bundle', () => {
  before(() => assert.ok(existsSync('dist/commands/analyze.js'), 'run `npm run build` first'));

  it('prints a reconnect-storm finding and exits 1 (the README command)', () => {
    const run = cli(['analyze', STORM, '--verbose']);
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stdout, /Reconnect storm towards the destination controller/);
    assert.match(run.stdout, /Reconnect storm towards the policy controller/);
    assert.match(run.stdout, /reconnect failures per minute/);
    assert.match(run.stdout, /Destination controller unavailable to proxies/);
    assert.match(run.stdout, /1 INCIDENT/);
    assert.match(run.stdout, /Summary: 3 error/);
  });

  it('reads every format in the bundle: kubectl, CRI, JSON, plain, .gz and the tarball', () => {
    const report = json(cli(['analyze', STORM, '--format', 'json']));
    assert.equal(report.schemaVersion, 1);
    assert.equal(report.status, 'fail');
    const logs = report.inputs.filter((i) => i.kind === 'proxy-log');
    assert.equal(logs.length, 32);
    assert.ok(logs.some((i) => i.path.endsWith('.gz')));
    assert.equal(logs.filter((i) => i.path.includes('.tgz:')).length, 8);
    assert.ok(logs.filter((i) => i.path.includes('var/log/pods/')).length >= 5);
    assert.ok(
      logs.every((i) => i.unparsed === 0 && i.records > 0),
      'every line of every format parsed',
    );
    const dst = report.findings.find((f) => f.ruleId === 'reconnect-storm' && f.subject.target === 'linkerd-dst-headless.linkerd.svc.cluster.local:8086')!;
    assert.equal(dst.severity, 'error');
    assert.equal(dst.evidence.podsAffected, 30);
    assert.equal(dst.evidence.loops, 60);
    assert.match(dst.docsUrl, /docs\/rules\/reconnect-storm\.md$/);
    assert.ok(dst.locations.every((l) => l.line >= 1 && l.path.startsWith(STORM)));
    assert.equal(report.summary.error, 3);
    assert.equal(report.summary.warning, 0);
  });

  it('gives the same findings for `cat storm.log | analyze -` as for the file path', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ld-e2e-'));
    const file = path.join(dir, 'storm.log');
    const pods = ['ingress', 'var/log/pods'].flatMap((d) => {
      const root = path.join(STORM, d);
      return spawnSync('find', [root, '-name', '*.log', '-type', 'f'], { encoding: 'utf8' }).stdout.trim().split('\n').sort().slice(0, 3);
    });
    writeFileSync(file, pods.map((p) => readFileSync(p, 'utf8')).join(''));
    const fromFile = json(cli(['analyze', file, '--format', 'json']));
    const fromStdin = json(cli(['analyze', '-', '--format', 'json'], { input: readFileSync(file) }));
    const normalise = (r: ReturnType<typeof json>) => JSON.stringify(r.findings).replaceAll(file, '-');
    assert.ok(fromFile.findings.length >= 1);
    assert.equal(normalise(fromStdin), normalise(fromFile));
    const piped = json(cli(['analyze', '--format', 'json'], { input: readFileSync(file) }));
    assert.equal(normalise(piped), normalise(fromFile), 'no PATH with piped stdin reads stdin');
  });

  it('lets --fail-on decide the exit code, whatever the format', () => {
    assert.equal(cli(['analyze', STORM, '--fail-on', 'none', '--format', 'json']).status, 0);
    assert.equal(cli(['analyze', STORM, '--fail-on', 'none']).status, 0);
    assert.equal(cli(['analyze', STORM, '--fail-on', 'error', '--format', 'json']).status, 1);
    const hidden = cli(['analyze', STORM, '--min-severity', 'error', '--format', 'json']);
    assert.equal(hidden.status, 1);
  });

  it('writes the report to --output and keeps stdout empty', () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'ld-e2e-')), 'report.json');
    const run = cli(['analyze', STORM, '--format', 'json', '--output', out]);
    assert.equal(run.status, 1);
    assert.equal(run.stdout, '');
    assert.equal(json({ ...run, stdout: readFileSync(out, 'utf8') }).findings.filter((f) => f.ruleId !== 'known-signature').length, 3);
  });

  it('lists rules whose inputs are missing as skipped', () => {
    const report = json(cli(['analyze', STORM, '--format', 'json']));
    const skipped = report.skippedRules.map((s) => s.ruleId);
    // A logs-only bundle: every metrics and DNS rule must say it did not run.
    for (const id of ['metric-cardinality', 'stale-endpoint-metrics', 'dns-ttl-zero', 'dns-query-storm'])
      assert.ok(skipped.includes(id), `${id} listed as skipped`);
    for (const s of report.skippedRules) assert.match(s.reason, /^no /);
    assert.ok(!skipped.includes('reconnect-storm'));
  });
});

describe('analyze: the healthy bundle', () => {
  it('exits 0 with no warning or error findings', () => {
    const run = cli(['analyze', HEALTHY, '--format', 'json', '--fail-on', 'warning']);
    assert.equal(run.status, 0, run.stderr);
    const report = json(run);
    assert.equal(report.status, 'pass');
    assert.equal((report.summary.error ?? 0) + (report.summary.warning ?? 0), 0);
    assert.ok(report.inputs.filter((i) => i.kind === 'proxy-log').length >= 20);
  });
});

describe('analyze: bad input exits 2 with one line naming the file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ld-bad-'));
  const line = readFileSync(path.join(HEALTHY, spawnSync('find', ['.', '-name', '*.log'], { cwd: HEALTHY, encoding: 'utf8' }).stdout.split('\n')[0]!), 'utf8');

  it('a truncated gzip', () => {
    const gz = gzipSync(line.repeat(50));
    writeFileSync(path.join(dir, 'cut.log.gz'), gz.subarray(0, gz.length - 30));
    const run = cli(['analyze', path.join(dir, 'cut.log.gz'), '--format', 'json']);
    assertOneLineError(run, 'cut.log.gz');
    assert.match(run.stderr, /truncated gzip/);
    assert.ok(json(run).inputs[0]!.records > 0, 'what was read is still reported');
  });

  it('a broken tar', () => {
    const tarball = Buffer.alloc(1536);
    tarball.write('ns/pod-abcde/linkerd-proxy.log', 0);
    tarball.write('ustar', 257);
    writeFileSync(path.join(dir, 'broken.tar'), tarball);
    assertOneLineError(cli(['analyze', path.join(dir, 'broken.tar')]), 'broken.tar');
  });

  it('a missing path', () => {
    const run = cli(['analyze', path.join(dir, 'nope.log')]);
    assertOneLineError(run, 'nope.log');
    assert.match(run.stderr, /no such file/);
  });

  it('a directory with nothing recognisable in it', () => {
    const empty = path.join(dir, 'notes');
    mkdirSync(empty);
    writeFileSync(path.join(empty, 'todo.txt'), 'call the on-call engineer\nthen check the mesh\n');
    const run = cli(['analyze', empty]);
    assertOneLineError(run, 'notes');
    assert.match(run.stderr, /nothing recognisable/);
  });

  it('a Pod manifest without its status is read, but never a plain pass: nothing in it was judged', () => {
    const manifests = path.join(dir, 'manifests');
    mkdirSync(manifests);
    writeFileSync(path.join(manifests, 'pod.yaml'), 'apiVersion: v1\nkind: Pod\n');
    const run = cli(['analyze', manifests, '--no-fail-on-unread']);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout.replace(/\n/g, ' '), /INCOMPLETE · 1 input not understood/);
    assert.equal(cli(['analyze', manifests, '--fail-on-unread']).status, 1);
  });

  // root reads anything, so as root the CLI runs as user nobody, who must be able to reach the
  // checkout (a clone inside a mktemp -d folder or under /root is out of its reach).
  const asRoot = process.getuid?.() === 0;
  const asUser = asRoot ? { uid: 65534, gid: 65534 } : {};
  const nobodyCanRun = !asRoot || spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(BIN)}, 4)`], asUser).status === 0;

  it('permission denied', { skip: !nobodyCanRun && 'running as root, and user nobody cannot read this checkout' }, () => {
    const locked = path.join(dir, 'locked.log');
    writeFileSync(locked, line);
    chmodSync(locked, 0o000);
    chmodSync(dir, 0o755);
    const run = cli(['analyze', locked], asUser);
    assertOneLineError(run, 'locked.log');
    assert.match(run.stderr, /permission denied/);
  });

  it('still analyses the inputs that could be read', () => {
    const run = cli(['analyze', path.join(dir, 'nope.log'), STORM, '--format', 'json']);
    assertOneLineError(run, 'nope.log');
    assert.equal(json(run).findings.filter((f) => f.ruleId !== 'known-signature').length, 3);
  });
});

describe('parse', () => {
  it('prints records as NDJSON with the documented fields', () => {
    const file = path.join(STORM, 'linkerd');
    const run = cli(['parse', file]);
    assert.equal(run.status, 0, run.stderr);
    const records = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(records.length > 100);
    for (const key of [
      'kind',
      'path',
      'line',
      'pod',
      'namespace',
      'format',
      'time',
      'uptime',
      'restart',
      'level',
      'thread',
      'spans',
      'target',
      'message',
      'fields',
    ]) {
      assert.ok(key in records[0]!, `field ${key}`);
    }
    assert.ok(records.some((r) => r.message === 'gRPC request failed'));
  });
});

describe('fixtures', () => {
  it('are what the seeded generator writes', async () => {
    const { buildStorm, buildHealthy } = await import('../../scripts/fixtures/storm.js');
    for (const [dir, bundle] of [
      [STORM, await buildStorm()],
      [HEALTHY, buildHealthy()],
    ] as const) {
      for (const [file, content] of bundle.files) {
        assert.ok(Buffer.from(content).equals(readFileSync(path.join(dir, file))), `${dir}/${file} is stale: run npm run fixtures:storm`);
      }
    }
  });
});
