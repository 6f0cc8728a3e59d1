// The planner starts a worker only where it pays. A metrics dump reads two to three times faster a
// byte than a proxy log, so an input set of dumps only stays on one thread up to a larger size;
// what is judged is the heads of the files (sizes here are sparse files: only the head is read).

import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { defaultRules } from '../../src/cli/run-analyze.js';
import { ANALYSIS_CATALOG } from '../../src/analysis/analyze.js';
import { parallelPlanFor } from '../../src/engine/plan.js';
import { discoverInputs } from '../../src/input/discover.js';

const MiB = 1 << 20;
const dir = mkdtempSync(path.join(tmpdir(), 'ld-plan-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const DUMP = 'fixtures/healthy-metrics/proxy-metrics.txt';
const LOG = 'fixtures/storm/ingress/traefik-mr9q65pc74-5kz6v/linkerd-proxy.log';

/** A folder of `count` copies of `source`, each made `size` bytes long (the tail a sparse hole). */
function folder(name: string, source: string, count: number, size: number): string {
  const sub = path.join(dir, name);
  mkdirSync(sub);
  for (let i = 0; i < count; i++) {
    const file = path.join(sub, `part-${i}${path.extname(source)}`);
    copyFileSync(source, file);
    truncateSync(file, size);
  }
  return sub;
}

const plan = async (input: string) =>
  parallelPlanFor(await discoverInputs([input]), { rules: defaultRules(), collectors: [] }, { jobs: 2, catalog: ANALYSIS_CATALOG });

describe('the planner by input kind', () => {
  it('keeps 120 MiB of metrics dumps on one thread, and splits 240 MiB across two', async () => {
    assert.equal(await plan(folder('dumps-120', DUMP, 3, 40 * MiB)), null);
    const big = await plan(folder('dumps-240', DUMP, 3, 80 * MiB));
    assert.ok(big, 'past 160 MiB of dumps, a second thread pays');
    assert.equal(big.splitMinBytes, 160 * MiB);
  });

  it('reads 120 MiB of proxy logs on two threads', async () => {
    const logs = await plan(folder('logs-120', LOG, 3, 40 * MiB));
    assert.ok(logs);
    assert.equal(logs.splitMinBytes, 64 * MiB);
  });

  it('treats a set with one log among the dumps as logs', async () => {
    const mixed = folder('mixed', DUMP, 3, 40 * MiB);
    copyFileSync(LOG, path.join(mixed, 'proxy.log'));
    truncateSync(path.join(mixed, 'proxy.log'), 50 * MiB);
    assert.ok(await plan(mixed));
  });

  it('reads the head the sniffer reads: a dump behind a byte-order mark is a dump', async () => {
    const sub = path.join(dir, 'bom');
    mkdirSync(sub);
    const file = path.join(sub, 'metrics.txt');
    writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(DUMP)]));
    truncateSync(file, 100 * MiB);
    assert.equal(await plan(sub), null);
  });
});
