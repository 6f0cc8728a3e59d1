// End to end with the built CLI (`npm run build` first; `npm test` does), the way SREs run it.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = `${ROOT}bin/run.js`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], stdinFile?: string): Promise<Run> {
  assert.ok(existsSync(`${ROOT}dist/commands/analyze.js`), 'dist/ is missing: run `npm run build` before the CLI tests');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    if (stdinFile) createReadStream(`${ROOT}${stdinFile}`).pipe(child.stdin);
    else child.stdin.end();
  });
}

interface JsonFinding {
  ruleId: string;
  severity: string;
  title: string;
  keyFigure?: { name: string; value: number };
}

function findingsOf(r: Run): JsonFinding[] {
  return (JSON.parse(r.stdout) as { findings: JsonFinding[] }).findings;
}

const essence = (fs: JsonFinding[]) => fs.map((f) => `${f.ruleId} ${f.severity} ${f.title} ${f.keyFigure?.name}=${f.keyFigure?.value}`).sort();

describe('linkerd-doctor analyze on metrics dumps', () => {
  it('exits 1 on the Traefik incident with cardinality (error), pod-IP bypass and stale endpoints', async () => {
    const r = await run(['analyze', 'fixtures/traefik-cardinality', '--format', 'json']);
    assert.equal(r.code, 1, r.stderr);
    const findings = findingsOf(r);
    const byRule = new Map(findings.map((f) => [f.ruleId, f]));
    assert.equal(byRule.get('metric-cardinality')?.severity, 'error');
    assert.ok((byRule.get('metric-cardinality')?.keyFigure?.value ?? 0) > 100_000);
    assert.ok(byRule.has('ingress-pod-ip-bypass'));
    assert.ok(byRule.has('stale-endpoint-metrics'));
    assert.ok(!byRule.has('fd-exhaustion'));
  });

  it('gives the same findings for `cat dump | linkerd-doctor analyze -`', async () => {
    const fromFile = await run(['analyze', 'fixtures/traefik-cardinality/proxy-metrics.txt.gz', '--format', 'json']);
    const fromStdin = await run(['analyze', '-', '--format', 'json'], 'fixtures/traefik-cardinality/proxy-metrics.txt.gz');
    assert.equal(fromStdin.code, 1, fromStdin.stderr);
    assert.deepEqual(essence(findingsOf(fromStdin)), essence(findingsOf(fromFile)));
    assert.deepEqual(new Set(findingsOf(fromStdin).map((f) => f.ruleId)), new Set(['metric-cardinality', 'ingress-pod-ip-bypass', 'stale-endpoint-metrics']));
  });

  for (const path of ['fixtures/healthy-metrics', 'fixtures/healthy-ingress', 'fixtures/healthy-rollout', 'fixtures/healthy-kubectl', 'test/data/linkerd2']) {
    it(`exits 0 with no warning or error on ${path}`, async () => {
      const r = await run(['analyze', path, '--format', 'json']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(
        findingsOf(r).filter((f) => f.severity !== 'info'),
        [],
      );
    });
  }

  it('healthy dump from stdin, as text: exits 0', async () => {
    const r = await run(['analyze', '-'], 'fixtures/healthy-metrics/proxy-metrics.txt');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /No findings/);
  });
});

describe('linkerd-doctor parse on metrics dumps', () => {
  it('prints one NDJSON record per sample, with section, family, type and labels, plus scrape errors', async () => {
    const file = 'fixtures/healthy-metrics/proxy-metrics.txt';
    const text = readFileSync(`${ROOT}${file}`, 'utf8');
    const sampleLines = text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;
    const errorLines = text.split('\n').filter((l) => l.startsWith('# ERROR')).length;
    const r = await run(['parse', file]);
    assert.equal(r.code, 0, r.stderr);
    const records = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(records.filter((x) => x.kind === 'metric-sample').length, sampleLines);
    assert.equal(records.filter((x) => x.kind === 'metric-scrape-error').length, errorLines);
    const cpu = records.find((x) => x.name === 'process_cpu_seconds_total')!;
    assert.equal(cpu.family, 'process_cpu_seconds');
    assert.equal(cpu.type, 'counter');
    assert.equal(typeof cpu.section, 'string');
    assert.ok(typeof cpu.labels === 'object');
  });

  it('parse --strict exits 2 on a legacy (non-OpenMetrics) body and names the file and line', async () => {
    const r = await run(['parse', '--strict', 'test/data/linkerd2/obfuscate-diagnostics-proxy-metrics.golden']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /obfuscate-diagnostics-proxy-metrics\.golden:3: OpenMetrics: /);
  });

  it('parse --strict exits 0 on a valid OpenMetrics case', async () => {
    const r = await run(['parse', '--strict', 'test/data/openmetrics/cases/simple_histogram/metrics']);
    assert.equal(r.code, 0, r.stderr);
  });
});
