// Folding never lends a cause across inputs: two unrelated pastes dropped into one folder (two
// incidents, two clusters) must each keep the cause their own lines show, in the rule's findings
// and after the report folds per-pod findings.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { defaultRules } from '../../src/cli/run-analyze.js';
import type { Finding } from '../../src/core/types.js';
import { analyzeInputs } from '../../src/analysis/analyze.js';
import { foldFindings } from '../../src/report/fold.js';
import { every, proxyLog } from '../rule-cases/log-inputs.js';

const DST_DOWN =
  'dst:controller{addr=linkerd-dst-headless.linkerd.svc.cluster.local:8086}:endpoint{addr=10.42.0.15:8086}: linkerd_reconnect: Failed to connect error=endpoint 10.42.0.15:8086: Connection refused (os error 111)';
const DST_FAILFAST = 'dst:controller{addr=linkerd-dst-headless.linkerd.svc.cluster.local:8086}: linkerd_proxy_balance_queue::worker: Unavailable; entering failfast timeout=30.0';
const ENTER = (service: string) => `outbound:proxy{addr=10.96.12.7:80}:service{ns=shop name=${service} port=80}: linkerd_proxy_balance_queue::worker: Unavailable; entering failfast timeout=3.0`;

const dir = mkdtempSync(join(tmpdir(), 'ld-fold-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Incident A lost its destination controller; incident B's backend was not ready. Same service name, nothing else shared. */
function writePastes(folder: string): void {
  mkdirSync(folder, { recursive: true });
  const a = proxyLog('a', '2024-06-07T09:00:00Z', [...every(40.1, 2.5, 6, 'WARN', DST_DOWN), { uptime: 41, level: 'WARN', body: DST_FAILFAST }, ...every(50.2, 20, 4, 'INFO', ENTER('web'))]);
  const b = proxyLog('b', '2025-02-11T14:00:00Z', every(900.4, 20, 4, 'INFO', ENTER('web')));
  writeFileSync(join(folder, 'paste-from-thread-a.log'), a.content);
  writeFileSync(join(folder, 'paste-from-thread-b.log'), b.content);
}

function podsOf(f: Finding): string[] {
  const pods = f.evidence.pods;
  return Array.isArray(pods) ? pods.map((p) => String((p as { pod: string }).pod)) : f.subject.pod ? [f.subject.pod] : [];
}

describe('fold: files from different pods never lend each other a cause', () => {
  it('two unrelated pastes failing fast on the same service keep their own causes, folded or not', async () => {
    const folder = join(dir, 'two-pastes');
    writePastes(folder);
    const result = await analyzeInputs([folder], defaultRules(), { jobs: 1 });
    const failfast = foldFindings(result.findings).filter((f) => f.ruleId === 'failfast');
    assert.ok(failfast.length > 0, 'the pastes fail fast');
    const causeOf = new Map<string, string>();
    for (const f of failfast) for (const pod of podsOf(f)) causeOf.set(pod, String(f.evidence.cause ?? (f.evidence.worstPod as { cause?: string } | undefined)?.cause));
    // B's proxy never lost its control plane: nothing may say it did.
    const b = [...causeOf.entries()].find(([pod]) => pod.includes('paste-from-thread-b'));
    if (b) assert.notEqual(b[1], 'controller unreachable', 'paste B was given paste A\'s cause');
    for (const f of failfast) {
      if (f.evidence.cause === 'controller unreachable') assert.ok(podsOf(f).every((p) => !p.includes('paste-from-thread-b')), `${f.title} names paste B`);
    }
  });

  it('does not fold findings of one kind whose causes differ', () => {
    const base = { ruleId: 'pod-restarts', severity: 'error' as const, docsUrl: '', kind: 'crashloop/linkerd-init', message: 'm', locations: [], remediation: 'r' };
    const one: Finding = { ...base, title: 'a', subject: { pod: 'web-1', target: 'web/linkerd-init' }, evidence: { initCause: 'capabilities' } };
    const two: Finding = { ...base, title: 'b', subject: { pod: 'web-2', target: 'web/linkerd-init' }, evidence: { initCause: 'cni-not-ready' } };
    assert.equal(foldFindings([one, two]).length, 2);
    assert.equal(foldFindings([one, { ...two, evidence: { initCause: 'capabilities' } }]).length, 1);
  });
});
