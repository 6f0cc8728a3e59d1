// Every fixture bundle and every real artifact, through the built CLI, in every report format,
// compared byte for byte with the reports committed under test/golden/reports/. A refactor must
// leave them unchanged; a deliberate change of output regenerates them with
// `UPDATE_GOLDEN=1 npm run test:unit -- test/golden/` and shows up in review as a diff.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';

const BIN = path.resolve('bin/run.js');
const GOLDEN = path.resolve('test/golden/reports');
const UPDATE = process.env.UPDATE_GOLDEN === '1';
/**
 * SARIF names the checkout as its source root (`originalUriBaseIds.SRCROOT`); the reports are
 * stored with a placeholder so they match in any clone, worktree or CI directory.
 */
const CHECKOUT_URI = pathToFileURL(path.resolve('.')).href + '/';
const CHECKOUT_PLACEHOLDER = 'file:///CHECKOUT/';
const portable = (report: string) => report.split(CHECKOUT_URI).join(CHECKOUT_PLACEHOLDER);

const BUNDLE_FORMATS = ['json', 'text', 'markdown', 'sarif', 'junit', 'html'] as const;
const ARTIFACT_FORMATS = ['json', 'text'] as const;
const EXTENSION: Record<string, string> = { json: 'json', text: 'txt', markdown: 'md', sarif: 'sarif', junit: 'xml', html: 'html' };

interface Case {
  name: string;
  input: string;
  formats: readonly string[];
}

function cases(): Case[] {
  const bundles = readdirSync('fixtures')
    .filter((entry) => statSync(path.join('fixtures', entry)).isDirectory())
    .sort()
    .map((entry) => ({ name: `fixtures-${entry}`, input: `fixtures/${entry}`, formats: BUNDLE_FORMATS }));
  const realRoot = 'test/data/real';
  const artifacts = readdirSync(realRoot)
    .filter((kind) => statSync(path.join(realRoot, kind)).isDirectory())
    .sort()
    .flatMap((kind) =>
      readdirSync(path.join(realRoot, kind))
        .sort()
        .map((file) => ({ name: `real-${kind}-${file}`, input: `${realRoot}/${kind}/${file}`, formats: ARTIFACT_FORMATS })),
    );
  return [...bundles, ...artifacts];
}

const scratch = mkdtempSync(path.join(tmpdir(), 'ld-golden-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

// Fixed width, no colour and no config from the working directory, so the reports depend only on
// the code and the input.
function runCase(c: Case): Promise<{ status: number | null; stderr: string; outputs: Map<string, string> }> {
  const outDir = path.join(scratch, c.name);
  mkdirSync(outDir, { recursive: true });
  const args = [BIN, 'analyze', c.input, '--quiet', '--jobs', '1', '--config', path.resolve('test/golden/empty-config.yaml')];
  for (const format of c.formats) args.push('--format', format, '--output', path.join(outDir, `report.${EXTENSION[format]}`));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      // CI=true would turn --fail-on-unread on (the report's failOnUnread): the goldens are of the default.
      env: { ...process.env, NO_COLOR: '1', COLUMNS: '100', FORCE_COLOR: '0', SOURCE_DATE_EPOCH: '1700000000', CI: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => {
      const outputs = new Map<string, string>();
      for (const format of c.formats) {
        const file = path.join(outDir, `report.${EXTENSION[format]}`);
        if (existsSync(file)) outputs.set(format, portable(readFileSync(file, 'utf8')));
      }
      resolve({ status, stderr, outputs });
    });
  });
}

async function inPairs<T, R>(items: T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all([lane(), lane()]);
  return results;
}

describe('golden reports', () => {
  const all = cases();

  it('covers every fixture bundle and every real artifact', () => {
    assert.ok(all.filter((c) => c.name.startsWith('fixtures-')).length >= 10);
    assert.ok(all.filter((c) => c.name.startsWith('real-')).length >= 40);
  });

  it('are byte-identical to the committed reports, in every format', async () => {
    const runs = await inPairs(all, runCase);
    const mismatches: string[] = [];
    const expectedFiles = new Set<string>();
    all.forEach((c, i) => {
      const run = runs[i]!;
      assert.ok(run.status === 0 || run.status === 1, `${c.input}: exit ${run.status}: ${run.stderr}`);
      const dir = path.join(GOLDEN, c.name);
      const exitFile = path.join(dir, 'exit-code');
      expectedFiles.add(c.name);
      if (UPDATE) {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir, { recursive: true });
        writeFileSync(exitFile, `${run.status}\n`);
      } else if (!existsSync(exitFile) || readFileSync(exitFile, 'utf8') !== `${run.status}\n`) {
        mismatches.push(`${c.name}/exit-code`);
      }
      for (const format of c.formats) {
        const file = path.join(dir, `report.${EXTENSION[format]}`);
        const actual = run.outputs.get(format);
        assert.ok(actual !== undefined, `${c.input}: no ${format} report written`);
        if (UPDATE) writeFileSync(file, actual);
        else if (!existsSync(file) || readFileSync(file, 'utf8') !== actual) mismatches.push(`${c.name}/report.${EXTENSION[format]}`);
      }
    });
    if (UPDATE) {
      for (const stale of readdirSync(GOLDEN)) if (!expectedFiles.has(stale)) rmSync(path.join(GOLDEN, stale), { recursive: true, force: true });
    }
    assert.deepEqual(mismatches, [], `reports differ from test/golden/reports (regenerate with UPDATE_GOLDEN=1 if the change is deliberate)`);
  });
});
