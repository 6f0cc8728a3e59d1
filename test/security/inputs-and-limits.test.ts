// Smaller hostile-input cases of issue 21, through the built CLI: baselines and configs with a
// byte order mark, a baseline entry without a title, a YAML alias bomb, an oversized config, a
// colon in a file name in SARIF, invalid decompression limits, a closed stdout, and a proxy log
// behind a preamble longer than the sniff window.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BIN, cli, scratch, STORM_LOG, STORM_PODS } from './hostile.js';

const BOM = '\ufeff';

function assertOneLine(stderr: string, pattern: RegExp): void {
  const lines = stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, stderr);
  assert.match(lines[0]!, pattern);
}

describe('baselines and configs', () => {
  const dir = scratch('limits');
  const bundle = path.join(dir, 'ingress');
  mkdirSync(bundle);
  for (const pod of ['traefik-84f22pthm6-9jxm9', 'traefik-26wbfcwvjm-wq6xj']) {
    mkdirSync(path.join(bundle, pod));
    copyFileSync(path.join(STORM_PODS, pod, 'linkerd-proxy.log'), path.join(bundle, pod, 'linkerd-proxy.log'));
  }

  it('a baseline with a BOM is read, and an entry without a title neither crashes markdown nor costs later outputs', () => {
    const baseline = path.join(dir, 'baseline.json');
    const written = cli(['analyze', bundle, '--write-baseline', baseline, '--format', 'json', '--no-progress']);
    assert.equal(written.stderr.includes('wrote baseline'), true, written.stderr);
    const data = JSON.parse(readFileSync(baseline, 'utf8')) as { findings: Record<string, unknown>[] };
    for (const entry of data.findings) delete entry.title;
    data.findings.push({ fingerprint: 'no-longer-there', ruleId: 'reconnect-storm', severity: 'warning' });
    writeFileSync(baseline, BOM + JSON.stringify(data, null, 2));
    const md = path.join(dir, 'report.md');
    const sarif = path.join(dir, 'report.sarif');
    const run = cli([
      'analyze',
      bundle,
      '--baseline',
      baseline,
      '--format',
      'markdown',
      '--output',
      md,
      '--format',
      'sarif',
      '--output',
      sarif,
      '--no-progress',
      '--quiet',
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, '');
    assert.match(readFileSync(md, 'utf8'), /1 fixed \(reconnect-storm finding\)/);
    assert.equal(JSON.parse(readFileSync(sarif, 'utf8')).version, '2.1.0');
  });

  it('a baseline that is not JSON is one line', () => {
    const bad = path.join(dir, 'bad-baseline.json');
    writeFileSync(bad, '{\n  "schemaVersion": 1,\n  oops\n}\n');
    const run = cli(['analyze', bundle, '--baseline', bad, '--no-progress']);
    assert.equal(run.status, 2);
    assertOneLine(run.stderr, /--baseline .*bad-baseline\.json: not JSON/);
  });

  it('a config with a BOM is read', () => {
    const config = path.join(dir, 'bom.yaml');
    writeFileSync(config, `${BOM}failOn: none\n`);
    const run = cli(['analyze', bundle, '--config', config, '--fail-on', 'warning', '--no-progress']);
    assert.equal(run.status, 1, run.stderr);
    const none = cli(['analyze', bundle, '--config', config, '--no-progress']);
    assert.equal(none.status, 0, none.stderr);
  });

  it('a YAML alias bomb is a one-line error naming the file', () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++)
      lines.push(
        `a${i}: &a${i} [${Array(9)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    const config = path.join(dir, 'bomb.yaml');
    writeFileSync(config, lines.join('\n') + '\n');
    const run = cli(['analyze', bundle, '--config', config, '--no-progress']);
    assert.equal(run.status, 2);
    assertOneLine(run.stderr, /bomb\.yaml: refused: more than 100 YAML alias expansions/);
  });

  it('a config over 256 KiB is refused before parsing, in one line', () => {
    const config = path.join(dir, 'huge.yaml');
    const entry = '  - { rule: reconnect-storm, subject: "ns/pod-%", reason: accepted }\n';
    writeFileSync(config, 'suppress:\n' + Array.from({ length: 20_000 }, (_, i) => entry.replace('%', String(i))).join(''));
    const run = cli(['analyze', bundle, '--config', config, '--no-progress']);
    assert.equal(run.status, 2);
    assertOneLine(run.stderr, /huge\.yaml: config is 1\d{3} KiB, more than the 256 KiB a config may have/);
  });
});

describe('SARIF artifact uri', () => {
  it('a colon in a file name is percent-encoded, not split as an archive member', () => {
    const dir = scratch('colon');
    const pod = path.join(dir, 'ingress', 'traefik-84f22pthm6-9jxm9');
    mkdirSync(pod, { recursive: true });
    copyFileSync(STORM_LOG, path.join(pod, 'proxy:4191.log'));
    const run = cli(['analyze', '.', '--format', 'sarif', '--fail-on', 'none', '--no-progress'], { cwd: dir });
    assert.equal(run.status, 0, run.stderr);
    const uris = (
      JSON.parse(run.stdout) as { runs: { results: { locations: { physicalLocation: { artifactLocation: { uri: string }; properties?: unknown } }[] }[] }[] }
    ).runs[0]!.results.flatMap((r) => r.locations.map((l) => l.physicalLocation));
    assert.ok(uris.length > 0);
    for (const l of uris) {
      assert.equal(l.artifactLocation.uri, 'ingress/traefik-84f22pthm6-9jxm9/proxy%3A4191.log');
      assert.equal(l.properties, undefined);
    }
  });
});

describe('environment and stdout', () => {
  it('an invalid decompression limit is one usage error up front, even without compressed input', () => {
    for (const [name, value] of [
      ['LINKERD_DOCTOR_MAX_DECOMPRESSED_BYTES', 'lots'],
      ['LINKERD_DOCTOR_MAX_DECOMPRESSION_RATIO', '-3'],
    ] as const) {
      for (const command of ['analyze', 'parse']) {
        const run = cli([command, STORM_LOG, '--no-progress'].slice(0, command === 'parse' ? 2 : 3), { env: { ...process.env, NO_COLOR: '1', [name]: value } });
        assert.equal(run.status, 2, `${command} ${name}: ${run.stderr}`);
        assertOneLine(run.stderr, new RegExp(`${name}=${value} is not a non-negative number`));
        assert.equal(run.stdout, '');
      }
    }
  });

  it('a stdout closed before the report is written says so on stderr, in one line', async () => {
    const child = spawn(process.execPath, [BIN, 'analyze', 'fixtures/storm', '--no-progress'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    await new Promise((resolve) => child.on('close', resolve));
    assert.match(stderr, /^linkerd-doctor: stdout: closed before the report was fully written \(EPIPE\)/m);
    assert.ok(existsSync(BIN));
  });
});

describe('a proxy log behind a long preamble, beside a recognised input', () => {
  const dir = scratch('preamble');
  const bundle = path.join(dir, 'bundle');
  mkdirSync(bundle);
  writeFileSync(path.join(bundle, 'metrics.prom'), '# TYPE process_open_fds gauge\nprocess_open_fds 3\nprocess_max_fds 1024\n');
  // Not kubectl chatter the sniffer skips (that case is read: test/parsers/pasted-lines.test.ts) but
  // 300 lines of anything else, then the storm: the kind cannot be told from the head.
  const preamble = Array.from({ length: 300 }, (_, i) => `collected by capture.sh step ${i}`).join('\n');
  writeFileSync(path.join(bundle, 'proxy.log'), `${preamble}\n${readFileSync(STORM_LOG, 'utf8')}`);
  writeFileSync(path.join(bundle, 'README.md'), 'Captured during the outage.\n');

  for (const jobs of ['1', '2']) {
    it(`is named in a notice, not skipped silently (--jobs ${jobs}); a short unknown file is not`, () => {
      const run = cli(['analyze', bundle, '--no-progress', '--jobs', jobs]);
      assert.equal(run.status, 0, run.stderr);
      assertOneLine(run.stderr, /^linkerd-doctor: notice: .*bundle\/proxy\.log: not analysed: no known input kind in the first 64 lines/);
      assert.doesNotMatch(run.stderr, /README/);
      assert.equal(cli(['analyze', bundle, '--no-progress', '--quiet']).stderr, '');
    });
  }
});
