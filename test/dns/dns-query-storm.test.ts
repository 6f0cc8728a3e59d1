// dns-query-storm on synthetic CoreDNS query logs with their own shapes (not the fixture's):
// loops fire, lock-step fires, a shared cache expiring for hundreds of clients at once stays quiet.

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { RuleEngine } from '../../src/engine/engine.js';
import { readEntry } from '../../src/engine/pipeline.js';
import rule from '../../src/rules/dns-query-storm/index.js';
import { runRule, type TestInput } from '../support/rule-tester.js';

const T0 = Date.UTC(2026, 5, 1, 10, 0, 0);
const POLICY = 'linkerd-policy.linkerd.svc.cluster.local.';

interface Q {
  at: number;
  client: string;
  name: string;
  type?: string;
}

function log(queries: Q[], timestamps = true): string {
  return (
    [...queries]
      .sort((a, b) => a.at - b.at)
      .map((q, i) => {
        const line = `[INFO] ${q.client}:${40000 + (i % 20000)} - ${i % 65536} "${q.type ?? 'SRV'} IN ${q.name} udp 80 false 1232" NOERROR qr,aa,rd 300 0.0001s`;
        return timestamps ? `${new Date(q.at).toISOString()} ${line}` : line;
      })
      .join('\n') + '\n'
  );
}

const clients = (n: number) => Array.from({ length: n }, (_, i) => `10.1.${Math.floor(i / 200)}.${(i % 200) + 2}`);

/** Every `period` s, each client asks `repeats` times within `spread` s. */
function loops(name: string, n: number, repeats: number, period: number, bursts: number, spread = 1): Q[] {
  const out: Q[] = [];
  for (let b = 0; b < bursts; b++) {
    for (const [ci, client] of clients(n).entries()) {
      for (let k = 0; k < repeats; k++)
        out.push({ at: T0 + (b * period + (((ci * 7 + k * 13) % 100) / 100) * spread * 0.5 + (k / repeats) * spread * 0.5) * 1000, client, name });
    }
  }
  return out;
}

describe('dns-query-storm', () => {
  it('fires as an error when proxies loop on a control-plane name', async () => {
    const { findings } = await runRule(rule, [{ path: 'coredns.log', content: log(loops(POLICY, 20, 8, 15, 8)) }]);
    assert.equal(findings.length, 1);
    const f = findings[0]!;
    assert.equal(f.severity, 'error');
    assert.equal(f.evidence.distinctClients, 20);
    assert.equal(f.evidence.queries, 20 * 8 * 8);
    const largest = f.evidence.largestBurst as { queries: number; clients: number };
    assert.equal(largest.queries, 160);
    assert.equal(largest.clients, 20);
    assert.equal(f.evidence.periodSeconds, 15);
    assert.equal(f.evidence.periodicBursts, 8);
    assert.match(f.message, /8 bursts recur every ~15 s/);
    assert.ok(f.evidence.timeline, 'per-minute timeline');
  });

  it('fires as a warning for a single big burst on an application name', async () => {
    const { findings } = await runRule(rule, [{ path: 'coredns.log', content: log(loops('payments-db.prod.svc.cluster.local.', 3, 60, 0, 1, 2)) }]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.severity, 'warning');
    assert.equal(findings[0]!.evidence.periodSeconds, null);
    assert.match(findings[0]!.message, /1 burst of 100\+ queries within 2 s/);
  });

  it('fires on lock-step loop bursts below burstQueries, as a warning', async () => {
    const { findings } = await runRule(rule, [{ path: 'coredns.log', content: log(loops(POLICY, 4, 5, 20, 5)) }]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.severity, 'warning');
    assert.equal(findings[0]!.evidence.burstsOverThreshold, 0);
    assert.equal(findings[0]!.evidence.periodicBursts, 5);
  });

  it('stays quiet when a shared cache expires for 600 clients at once, every 30 s', async () => {
    const { findings } = await runRule(rule, [{ path: 'coredns.log', content: log(loops(POLICY, 600, 1, 30, 6)) }]);
    assert.deepEqual(findings, []);
  });

  it('stays quiet on steady refreshes and busy application traffic', async () => {
    const queries: Q[] = [];
    for (const [i, client] of clients(150).entries()) {
      for (let t = (i % 30) / 3; t < 300; t += 30) queries.push({ at: T0 + t * 1000, client, name: POLICY });
      for (let t = (i % 10) / 2; t < 300; t += 6) queries.push({ at: T0 + t * 1000, client, name: 'web.shop.svc.cluster.local.', type: 'A' });
    }
    const { findings } = await runRule(rule, [{ path: 'coredns.log', content: log(queries) }]);
    assert.deepEqual(findings, []);
  });

  it('reads its thresholds from the options', async () => {
    const content = log(loops(POLICY, 20, 8, 15, 8));
    const strict = await runRule(rule, [{ path: 'c.log', content }], { burstQueries: 1000, minPeriodicBursts: 20 });
    assert.deepEqual(strict.findings, []);
    // Each of 40 clients asks twice, 1.5 s apart, every 30 s: a loop if TTLs are ≥ 5 s, fine if 1 s TTLs are healthy.
    const twice: Q[] = [];
    for (let b = 0; b < 6; b++)
      for (const [i, client] of clients(40).entries()) for (const dt of [0, 1.5]) twice.push({ at: T0 + (b * 30 + dt + i / 100) * 1000, client, name: POLICY });
    assert.equal((await runRule(rule, [{ path: 'c.log', content: log(twice) }])).findings.length, 1);
    assert.deepEqual((await runRule(rule, [{ path: 'c.log', content: log(twice) }], { minHealthyTtlSeconds: 1 })).findings, []);
  });

  it('without timestamps, says so and reports counts only', async () => {
    const { findings } = await runRule(rule, [{ path: 'coredns.log', content: log(loops(POLICY, 20, 8, 15, 8), false) }]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.severity, 'info');
    assert.match(findings[0]!.message, /no wall time/);
    assert.equal(findings[0]!.evidence.clock, 'none (line order only)');
  });

  it('gives the same findings for two CoreDNS replicas read in parallel or in sequence', async () => {
    const all = loops(POLICY, 30, 6, 30, 5);
    const inputs: TestInput[] = [
      { path: 'coredns-a.log', content: log(all.filter((_, i) => i % 2 === 0)) },
      { path: 'coredns-b.log', content: log(all.filter((_, i) => i % 2 === 1)) },
    ];
    const sequential = await runRule(rule, inputs);
    const states = [];
    for (const input of inputs) {
      const engine = new RuleEngine([{ rule, options: rule.meta.defaultOptions }]);
      await readEntry({ path: input.path, stream: Readable.from([Buffer.from(input.content as string)]), size: null }, { record: (r) => engine.emit(r) });
      states.push(structuredClone(engine.snapshot()[0]));
    }
    const merged = rule.createState(rule.meta.defaultOptions);
    for (const s of states) rule.merge(merged, s as typeof merged);
    const parallel = rule.finish(merged, { options: rule.meta.defaultOptions, inputs: sequential.inputs });
    assert.equal(sequential.findings.length, 1);
    assert.deepEqual(
      parallel.map((f) => f.evidence),
      sequential.findings.map((f) => f.evidence),
    );
  });
});
