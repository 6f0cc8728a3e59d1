// Count, then judge: lines that only rules judging counts read reach them as counted records. The
// counts must stand for exactly the lines (how many, when, which samples), never span what a rule
// tells apart (minute, level, restart, an uptime edge), and the findings of every rule must be the
// same as from the lines one by one.

import { strict as assert } from 'node:assert';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { LdRecord, ProxyLogRecord } from '../../src/core/types.js';
import { RuleEngine } from '../../src/engine/engine.js';
import { readEntry } from '../../src/engine/pipeline.js';
import type { ParserOptions } from '../../src/parsers/parser.js';
import { RULES } from '../../src/rules/index.js';
import { withRunCaches } from '../../src/util/run-caches.js';
import { writeProxyLog } from '../../scripts/bench/generate.js';

const COUNTED = 'outbound:proxy{addr=10.42.5.7:8080}:service{ns=shop name=web port=8080}: linkerd_pool_p2c: Adding endpoint addr=10.42.5.7:8080';
/** Read one by one by reconnect-storm: never counted. */
const BUILT =
  'outbound:proxy{addr=10.42.5.7:8080}:service{ns=shop name=web port=8080}:endpoint{addr=10.42.5.7:8080}: linkerd_reconnect: Failed to connect error=Connection refused (os error 111)';

const line = (uptime: number, body: string, level = 'INFO', prefix = '') => `${prefix}[${uptime.toFixed(6).padStart(12)}s]  ${level} ThreadId(01) ${body}`;
const stamped = (ms: number) => `${new Date(ms).toISOString()} `;

async function read(content: string, mode: 'counted' | 'lines' = 'counted', file = 'shop/web-7d9f8c6b5-x2x8k/linkerd-proxy.log') {
  const engine = RuleEngine.of({ rules: RULES.map((rule) => ({ rule, options: rule.meta.defaultOptions })), collectors: [] });
  const options: ParserOptions = mode === 'counted' ? engine.readerInterest() : { interest: engine.lineInterest() };
  const records: LdRecord[] = [];
  const result = await withRunCaches(() =>
    readEntry(
      { path: file, stream: Readable.from([Buffer.from(content)]), size: null },
      { record: (r) => (records.push(r), engine.emit(r)) },
      options,
      'proxy-log',
    ),
  );
  return { records: records.filter((r): r is ProxyLogRecord => r.kind === 'proxy-log'), stats: result.stats, engine };
}

describe('counted proxy-log lines', () => {
  it('stand for every line: the count, the earliest and latest times, the first lines as samples', async () => {
    const start = Date.UTC(2026, 10, 27, 3, 12, 0);
    const lines = Array.from({ length: 40 }, (_, i) => line(100 + i, COUNTED, 'INFO', stamped(start + i * 1000)));
    const { records, stats } = await read(lines.join('\n') + '\n');
    const counted = records.filter((r) => r.repeats !== undefined);
    const single = records.filter((r) => r.repeats === undefined);
    // The first sighting is built (a body seen once is not remembered), and so is the first line of
    // the minute once it is; the rest is counted.
    assert.equal(single.length, 2);
    assert.equal(stats.records, 40);
    assert.equal(counted.reduce((n, r) => n + r.repeats!, 0) + single.length, 40);
    // The lines are all in one wall-clock minute: one count.
    assert.deepEqual(
      counted.map((r) => r.repeats),
      [38],
    );
    const [first] = counted;
    assert.equal(first!.line, 3);
    assert.equal(first!.time, start + 2000);
    assert.equal(first!.lastTime, start + 39_000);
    assert.equal(first!.uptime, 102);
    assert.equal(first!.lastUptime, 139);
    assert.equal(first!.raw, lines[2]!.slice(lines[2]!.indexOf('[')));
    assert.ok(first!.repeatSamples!.length >= 3, 'as many further lines as the counting rules keep samples');
    assert.deepEqual(
      first!.repeatSamples!.map((s) => s.line),
      Array.from({ length: first!.repeatSamples!.length }, (_, i) => 4 + i),
    );
    assert.equal(first!.message, 'Adding endpoint');
    assert.equal(first!.fields.addr, '10.42.5.7:8080');
  });

  it('never span a level, a restart or an uptime edge a rule compares with', async () => {
    const lines = [
      ...Array.from({ length: 6 }, (_, i) => line(5 + i, COUNTED)),
      // known-signature's start-up gate (10 s) and the start-up graces (10 s, 20 s) are edges.
      ...Array.from({ length: 6 }, (_, i) => line(12 + i, COUNTED)),
      ...Array.from({ length: 4 }, (_, i) => line(21 + i, COUNTED, 'WARN')),
      // The proxy restarts: uptime goes back.
      line(1, 'linkerd2_proxy: release v2.300.0 (abcdef) by linkerd on 2025-01-01T00:00:00Z'),
      ...Array.from({ length: 4 }, (_, i) => line(2 + i, COUNTED)),
    ];
    const { records } = await read(lines.join('\n') + '\n');
    const counted = records.filter((r) => r.repeats !== undefined);
    for (const r of counted) {
      assert.ok(r.uptime! >= 20 || r.lastUptime! < 20, `a count spans uptime 20: ${r.uptime}..${r.lastUptime}`);
      assert.ok(r.uptime! >= 10 || r.lastUptime! < 10, `a count spans uptime 10: ${r.uptime}..${r.lastUptime}`);
    }
    assert.deepEqual(
      counted.map((r) => [r.level, r.restart, r.repeats]),
      [
        // 5 s is built (seen once), 6 s too (the first of its minute); 7-9 s before the 10 s edge.
        // Past each edge, level change and restart, the first line is built again.
        ['INFO', 0, 3],
        ['INFO', 0, 6],
        ['WARN', 0, 3],
        ['INFO', 1, 3],
      ],
    );
  });

  it('leave a line some rule reads one by one a record of its own', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => line(100 + i, BUILT, 'WARN'));
    const { records } = await read(lines.join('\n') + '\n');
    assert.equal(records.length, 30);
    assert.ok(records.every((r) => r.repeats === undefined));
  });

  it('give every rule the findings the lines give, on a storm with and without timestamps', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ld-counts-'));
    try {
      const file = path.join(dir, 'storm.log');
      writeProxyLog(file, { bytes: 3 << 20, seed: 11, pods: 40, linesPerSecond: 300 });
      const { createReadStream } = await import('node:fs');
      const findingsOf = async (mode: 'counted' | 'lines') => {
        const engine = RuleEngine.of({ rules: RULES.map((rule) => ({ rule, options: rule.meta.defaultOptions })), collectors: [] });
        const options: ParserOptions = mode === 'counted' ? engine.readerInterest() : { interest: engine.lineInterest() };
        let counted = 0;
        const result = await withRunCaches(() =>
          readEntry(
            { path: 'ingress/traefik-5d8f7c9b4-abcde/linkerd-proxy.log', stream: createReadStream(file), size: null },
            { record: (r) => (r.kind === 'proxy-log' && r.repeats !== undefined && counted++, engine.emit(r)) },
            options,
            'proxy-log',
          ),
        );
        return { findings: engine.finish([result.stats]).findings, counted, records: result.stats.records };
      };
      const byLine = await findingsOf('lines');
      const byCount = await findingsOf('counted');
      assert.ok(byCount.counted > 50, `the storm's repeated bodies are counted (${byCount.counted} counts)`);
      assert.ok(byLine.findings.length >= 3, `${byLine.findings.length} findings`);
      assert.equal(byCount.records, byLine.records);
      assert.deepEqual(byCount.findings, byLine.findings);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('give every rule the findings the lines give, on every log of the fixtures', async () => {
    const root = path.resolve(import.meta.dirname, '../../fixtures');
    const logs: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.log')) logs.push(full);
      }
    };
    walk(root);
    assert.ok(logs.length >= 5);
    const { readFileSync } = await import('node:fs');
    for (const log of logs) {
      const content = readFileSync(log, 'utf8');
      const relative = path.relative(root, log);
      const byLine = await read(content, 'lines', relative);
      const byCount = await read(content, 'counted', relative);
      assert.equal(byCount.stats.records, byLine.stats.records, relative);
      assert.deepEqual(byCount.engine.finish([byCount.stats]).findings, byLine.engine.finish([byLine.stats]).findings, relative);
    }
  });
});

describe('the body table', () => {
  it('pauses counting while candidate lines do not repeat, longer after each failed check, and resumes', async () => {
    const { BodyTable } = await import('../../src/parsers/proxy-log-templates.js');
    const table = new BodyTable(['linkerd_reconnect'], ['Adding endpoint']);
    assert.equal(table.useOf(line(1, COUNTED)), 'counted');
    assert.equal(table.useOf(line(1, BUILT, 'WARN')), 'built');
    assert.equal(table.useOf(line(1, 'linkerd_app_inbound::detect: Handling connection as opaque')), 'skipped');
    const pauseAfterFailedWindow = () => {
      for (let i = 0; i < 4096; i++) table.counted(false);
      let paused = 0;
      while (!table.counting()) paused++;
      return paused;
    };
    assert.equal(pauseAfterFailedWindow(), 4096);
    assert.equal(pauseAfterFailedWindow(), 8192);
    // A window where a quarter or more is counted resets the pause.
    for (let i = 0; i < 4096; i++) table.counted(i % 2 === 0);
    assert.equal(table.counting(), true);
    assert.equal(pauseAfterFailedWindow(), 4096);
  });

  it('remembers a counted body from its second sighting, parsed as the full reader parses it', async () => {
    const { BodyTable } = await import('../../src/parsers/proxy-log-templates.js');
    const table = new BodyTable(['linkerd_reconnect'], ['Adding endpoint']);
    const text = line(1, COUNTED);
    const from = text.indexOf('outbound');
    assert.equal(table.remember(text, from), null);
    const remembered = table.remember(line(2, COUNTED), from);
    assert.ok(remembered);
    assert.equal(remembered.parsed.target, 'linkerd_pool_p2c');
    assert.deepEqual(
      remembered.parsed.spans.map((s) => s.name),
      ['outbound', 'proxy', 'service'],
    );
    assert.equal(remembered.parsed.spans[2]!.fields.name, 'web');
    assert.equal(table.remember(line(3, COUNTED), from), remembered);
  });
});
