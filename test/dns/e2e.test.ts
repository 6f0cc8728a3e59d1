// The built CLI on the committed DNS bundles (`npm test` builds first), and the generator that
// wrote them.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { dnsFixtures } from '../../scripts/fixtures/dns.js';

const BIN = path.resolve('bin/run.js');

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, NO_COLOR: '1' } });
  return { status: r.status, stdout: String(r.stdout), stderr: String(r.stderr) };
}

interface Report {
  status: string;
  inputs: { path: string; kind: string; records: number }[];
  findings: { ruleId: string; severity: string; subject: Record<string, string>; evidence: Record<string, unknown> }[];
  errors: unknown[];
}

describe('CLI on the DNS bundles', () => {
  before(() => assert.ok(existsSync('dist/commands/analyze.js'), 'run `npm run build` first'));

  it('TTL-zero bundle: dns-ttl-zero errors for both control-plane names, a query storm, exit 1', () => {
    const run = cli(['analyze', 'fixtures/dns-ttl-zero', '--format', 'json']);
    assert.equal(run.status, 1, run.stderr);
    const report = JSON.parse(run.stdout) as Report;
    assert.deepEqual(report.errors, []);
    assert.deepEqual(report.inputs.map((i) => i.kind).sort(), ['coredns-log', 'dig', 'dig']);
    const ttl = report.findings.filter((f) => f.ruleId === 'dns-ttl-zero');
    assert.deepEqual(ttl.map((f) => [f.severity, f.subject.target]).sort(), [
      ['error', 'linkerd-dst-headless.linkerd.svc.cluster.local.'],
      ['error', 'linkerd-policy.linkerd.svc.cluster.local.'],
    ]);
    for (const f of ttl) assert.match(String(f.evidence.ttlSequence), /→ 0( ×\d)? → (30|29)/, 'the sequence shows the jump back after a zero');
    const storms = report.findings.filter((f) => f.ruleId === 'dns-query-storm');
    assert.equal(storms.length, 2);
    for (const s of storms) {
      assert.equal(s.severity, 'error');
      assert.equal(s.evidence.periodSeconds, 30);
      assert.ok((s.evidence.largestBurst as { queries: number }).queries >= 100);
      assert.equal(s.evidence.distinctClients, 50);
    }
  });

  it('text report names the rules and the TTL sequence', () => {
    const run = cli(['analyze', 'fixtures/dns-ttl-zero', '--verbose']);
    assert.equal(run.status, 1);
    assert.match(run.stdout, /Linkerd linkerd-dst-headless answered with TTL 0/);
    assert.match(run.stdout, /DNS query storm for Linkerd linkerd-policy/);
    assert.match(run.stdout, /ttl sequence/);
  });

  it('healthy bundle: no warning or error, exit 0 even with --fail-on warning', () => {
    const run = cli(['analyze', 'fixtures/dns-healthy', '--format', 'json', '--fail-on', 'warning']);
    assert.equal(run.status, 0, run.stderr);
    const report = JSON.parse(run.stdout) as Report;
    assert.deepEqual(
      report.findings.filter((f) => f.severity !== 'info'),
      [],
    );
    assert.ok(report.inputs.every((i) => i.records > 0));
  });

  it('`parse` prints dig records as NDJSON', () => {
    const run = cli(['parse', 'test/dns/data/dig-samples/01-srv-ttl0-default.out']);
    assert.equal(run.status, 0, run.stderr);
    const records = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; ttl?: number; srv?: unknown });
    assert.deepEqual(
      records.map((r) => r.kind),
      ['dns-query', ...new Array(6).fill('dns-answer')],
    );
    assert.deepEqual(records[1]!.srv, { priority: 0, weight: 50, port: 8086, target: '10-42-1-7.linkerd-dst-headless.linkerd.svc.cluster.local.' });
  });
});

describe('DNS fixture generator', () => {
  it('is deterministic and matches the committed fixtures', () => {
    const generated = dnsFixtures();
    assert.deepEqual(dnsFixtures(), generated);
    const committed = ['dns-ttl-zero', 'dns-healthy'].flatMap((dir) => readdirSync(path.join('fixtures', dir)).map((f) => `${dir}/${f}`)).sort();
    assert.deepEqual(Object.keys(generated).sort(), committed);
    for (const [file, content] of Object.entries(generated)) assert.equal(readFileSync(path.join('fixtures', file), 'utf8'), content, file);
  });

  it('a different seed gives different data of the same shape', () => {
    const other = dnsFixtures(7);
    assert.notEqual(other['dns-ttl-zero/node-local-dns-query.log'], dnsFixtures()['dns-ttl-zero/node-local-dns-query.log']);
    assert.match(other['dns-ttl-zero/dig-loop-dst-headless.txt']!, /\t0 IN SRV/);
    assert.doesNotMatch(other['dns-healthy/dig-loop-dst-headless.txt']!, /\t0 IN SRV/);
  });
});
