// "Adding a rule touches its folder and one registry line", proved: the repository is copied to a
// temporary folder (the files git tracks, as they are now; node_modules linked), a throw-away rule
// is scaffolded there (bursts of "No route to host (os error 113)" per pod: a reducer, its entry,
// one firing and two quiet cases, its docs page, and an overlap it claims from known-signature),
// one line is added to the registry, `npm run generate` is run, and the meta-tests and harnesses
// that hold every rule to the conventions run in the copy. Then git in the copy must show, by hand,
// only the folder and the registry; every other change is a file that `npm run generate` wrote.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ID = 'no-route-bursts';

const RULE = `// Throw-away rule written by test/meta/scaffold.test.ts: bursts of "No route to host" per pod.
import { keepSample } from '../../core/evidence.js';
import { stateCap } from '../../core/state-cap.js';
import { defineRule, type FindingDraft, type SampleLine } from '../../core/types.js';
import { keepTop } from '../../util/stats.js';

interface Options {
  minLines: number;
}
interface PodBurst {
  pod: string;
  namespace: string | undefined;
  lines: number;
  samples: SampleLine[];
}
interface State {
  pods: Map<string, PodBurst>;
  untracked: number;
}

const MAX_PODS = stateCap(1_000);

export default defineRule<Options, State>({
  meta: {
    id: '${ID}',
    code: 'LD1099',
    title: 'Proxy dialling hosts with no route',
    description: 'Bursts of "No route to host (os error 113)" from one proxy: it keeps dialling endpoints that are gone.',
    defaultSeverity: 'warning',
    inputs: ['proxy-log'],
    lineInterest: { 'proxy-log': ['os error 113'] },
    defaultOptions: { minLines: 3 },
    optionSchema: { minLines: { type: 'integer', minimum: 1, description: 'Lines from one pod that make a burst.' } },
    absorbs: [{ rule: 'known-signature', targets: ['endpoint-no-route-to-host'] }],
  },
  createState: () => ({ pods: new Map(), untracked: 0 }),
  visitors: {
    'proxy-log'(state, record) {
      if (!record.raw.includes('os error 113')) return;
      const key = record.pod ?? record.path;
      let p = state.pods.get(key);
      if (!p) {
        state.untracked += keepTop(state.pods, MAX_PODS, (b) => b.lines);
        p = { pod: key, namespace: record.namespace, lines: 0, samples: [] };
        state.pods.set(key, p);
      }
      p.lines++;
      keepSample(p.samples, 3, record.path, record.line, record.raw);
    },
  },
  merge(into, from) {
    for (const [key, p] of from.pods) {
      const mine = into.pods.get(key);
      if (!mine) into.pods.set(key, p);
      else {
        mine.lines += p.lines;
        mine.samples.push(...p.samples.slice(0, 3 - mine.samples.length));
      }
    }
    into.untracked += from.untracked + keepTop(into.pods, MAX_PODS, (b) => b.lines);
  },
  finish(state, { options }) {
    const findings: FindingDraft[] = [];
    for (const p of state.pods.values()) {
      if (p.lines < options.minLines) continue;
      findings.push({
        severity: 'warning',
        kind: 'no-route-burst',
        title: \`No route to host from \${p.pod}\`,
        message: \`\${p.pod} logged \${p.lines} "No route to host (os error 113)" lines: it dials endpoints that are gone.\`,
        subject: { pod: p.pod, ...(p.namespace ? { namespace: p.namespace } : {}) },
        evidence: { lines: p.lines, samples: p.samples },
        locations: p.samples.map((s) => ({ path: s.path, line: s.line })),
        remediation: '1. Compare the dialled IPs with kubectl get endpointslices; restart the destination controller if it serves gone IPs (fixed in stable-2.14.2).',
        keyFigure: { name: 'lines', value: p.lines },
        // A reconnect loop dialling such an address is reconnect-storm's stale endpoint: one cause, one finding.
        foldsInto: ['reconnect-storm'],
      });
    }
    return findings;
  },
});
`;

const ENTRY = `import type { RuleEntry } from '../../kit/rule-entry.js';
import rule from './index.js';

export default { rule } satisfies RuleEntry;
`;

const CASES = `import type { RuleCases } from '../../../test/support/rule-cases.js';
import { every, healthyLogs, proxyLog } from '../../../test/support/log-inputs.js';

const NO_ROUTE = 'outbound:proxy{addr=10.96.0.20:8080}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=error trying to connect: No route to host (os error 113)';

export const cases: RuleCases = {
  fires: [
    {
      name: 'one proxy dials a gone pod IP again and again',
      expect: [{ severity: 'warning', kind: 'no-route-burst', subject: { namespace: 'shop', pod: 'web-5d8f7c9b4-abcde' } }],
      inputs: [proxyLog('shop/web-5d8f7c9b4-abcde/linkerd-proxy.log', '2024-06-07T09:00:00Z', every(300.1, 0.8, 5, 'WARN', NO_ROUTE))],
    },
  ],
  quiet: [
    { name: 'two lines are no burst', inputs: [proxyLog('shop/web-5d8f7c9b4-abcde/linkerd-proxy.log', '2024-06-07T09:00:00Z', every(300.1, 0.8, 2, 'WARN', NO_ROUTE))] },
    { name: 'healthy fixture logs', inputs: healthyLogs() },
  ],
};
`;

const README = `# ${ID} (LD1099)

A throw-away rule the scaffold test writes: bursts of "No route to host (os error 113)" per pod.

## What it means

The proxy dials an endpoint address that no host answers for, again and again: the pod behind it
is gone while the proxy (or the destination controller) still lists it.

## Evidence

- \`lines\`: lines of the pod that carry the error; the key figure.
- \`samples\`: the first three such lines with their file and line.

## How to fix it

Compare the dialled IPs with \`kubectl get endpointslices\`; before stable-2.14.2 upgrade (stale
endpoint fixes), on every version restart the destination controller if it serves gone IPs.

## False positives

A node being drained can give a few such lines; the threshold (3 lines) keeps one-offs quiet.

## References

- linkerd2 #3441, linkerd2-proxy #2484 and #2486.
`;

const scratch = mkdtempSync(path.join(tmpdir(), 'ld-scaffold-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=scaffold', '-c', 'user.email=scaffold@example.invalid', ...args], { cwd, encoding: 'utf8' });

/** The working tree as it is now (tracked and new files, not ignored ones), committed in a fresh repository. */
function copyRepository(into: string): void {
  const files = git(ROOT, 'ls-files', '-z', '--cached', '--others', '--exclude-standard').split('\0').filter(Boolean);
  for (const file of files) {
    try {
      mkdirSync(path.dirname(path.join(into, file)), { recursive: true });
      cpSync(path.join(ROOT, file), path.join(into, file));
    } catch (err) {
      // A file deleted in the working tree but still in the index.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(into, 'node_modules'), 'dir');
  git(into, 'init', '-q');
  git(into, 'add', '-A');
  git(into, 'commit', '-q', '-m', 'base');
}

describe('adding a rule', () => {
  it('touches its folder and one registry line; everything else is generated, and the meta-tests pass', { timeout: 240_000 }, () => {
    const copy = path.join(scratch, 'repo');
    copyRepository(copy);
    const folder = path.join(copy, 'src/rules', ID);
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'index.ts'), RULE);
    writeFileSync(path.join(folder, 'entry.ts'), ENTRY);
    writeFileSync(path.join(folder, 'cases.ts'), CASES);
    writeFileSync(path.join(folder, 'README.md'), README);
    const registry = path.join(copy, 'src/rules/index.ts');
    const before = readFileSync(registry, 'utf8');
    const after = before.replace("  'probe-failure',\n", `  'probe-failure',\n  '${ID}',\n`);
    assert.notEqual(after, before, 'the registry lists its folders one per line');
    writeFileSync(registry, after);

    const byHand = git(copy, 'status', '--porcelain', '--untracked-files=all')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(3))
      .sort();
    assert.deepEqual(byHand, ['src/rules/index.ts', ...['README.md', 'cases.ts', 'entry.ts', 'index.ts'].map((f) => `src/rules/${ID}/${f}`)].sort());

    const generate = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/generate.ts'], { cwd: copy, encoding: 'utf8' });
    assert.equal(generate.status, 0, generate.stderr);
    const generatedPaths = new Set([
      'README.md',
      `docs/rules/${ID}.md`,
      'docs/schema/report.schema.json',
      'docs/schema/config.schema.json',
      'docs/signatures.md',
    ]);
    const changed = git(copy, 'status', '--porcelain', '--untracked-files=all')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(3));
    const unexpected = changed.filter((f) => !byHand.includes(f) && !generatedPaths.has(f));
    assert.deepEqual(unexpected, [], 'files changed that are neither the folder, the registry, nor generated');
    assert.ok(changed.includes(`docs/rules/${ID}.md`), 'the page was published');

    const tests = [
      'test/meta/rules.test.ts',
      'test/meta/generated.test.ts',
      'test/meta/rule-references.test.ts',
      'test/engine/harness.test.ts',
      'test/engine/state-bounds.test.ts',
    ];
    // Without NODE_TEST_CONTEXT: a runner that inherits it from this test skips its files and passes.
    const { NODE_TEST_CONTEXT: _inherited, ...env } = process.env;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', ...tests], { cwd: copy, encoding: 'utf8', env });
    const counted = /^# pass (\d+)$/m.exec(run.stdout);
    assert.ok(counted && Number(counted[1]) > 50, `the meta-tests did not run in the copy:\n${run.stdout.slice(-2000)}`);
    assert.equal(
      run.status,
      0,
      `meta-tests failed in the copy:\n${run.stdout
        .split('\n')
        .filter((l) => /^\s*(not ok|error:)|AssertionError|^\s+[+-] /.test(l))
        .slice(0, 40)
        .join('\n')}\n${run.stderr.slice(-2000)}`,
    );
    const lint = spawnSync(
      process.execPath,
      [path.join(copy, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'), `src/rules/${ID}`, '--config', '.dependency-cruiser.json'],
      { cwd: copy, encoding: 'utf8' },
    );
    assert.equal(lint.status, 0, `the new folder breaks a layer rule:\n${lint.stdout}${lint.stderr}`);
  });
});
