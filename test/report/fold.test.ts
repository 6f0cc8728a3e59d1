// Folding never lends a cause across inputs: two unrelated pastes dropped into one folder (two
// incidents, two clusters) must each keep the cause their own lines show, in the rule's findings
// and after the report folds per-pod findings.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { defaultRules } from '../../src/cli/run-analyze.js';
import type { Finding, RuleAbsorbs } from '../../src/core/types.js';
import { analyzeInputs } from '../../src/analysis/analyze.js';
import { foldCoveredFindings, foldFindings, foldSharedCauses } from '../../src/report/fold.js';
import { assignFingerprints } from '../../src/report/fingerprint.js';
import { RULES } from '../../src/rules/index.js';
import { every, proxyLog } from '../support/log-inputs.js';

const DST_DOWN =
  'dst:controller{addr=linkerd-dst-headless.linkerd.svc.cluster.local:8086}:endpoint{addr=10.42.0.15:8086}: linkerd_reconnect: Failed to connect error=endpoint 10.42.0.15:8086: Connection refused (os error 111)';
const DST_FAILFAST =
  'dst:controller{addr=linkerd-dst-headless.linkerd.svc.cluster.local:8086}: linkerd_proxy_balance_queue::worker: Unavailable; entering failfast timeout=30.0';
const ENTER = (service: string) =>
  `outbound:proxy{addr=10.96.12.7:80}:service{ns=shop name=${service} port=80}: linkerd_proxy_balance_queue::worker: Unavailable; entering failfast timeout=3.0`;

const dir = mkdtempSync(join(tmpdir(), 'ld-fold-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Incident A lost its destination controller; incident B's backend was not ready. Same service name, nothing else shared. */
function writePastes(folder: string): void {
  mkdirSync(folder, { recursive: true });
  const a = proxyLog('a', '2024-06-07T09:00:00Z', [
    ...every(40.1, 2.5, 6, 'WARN', DST_DOWN),
    { uptime: 41, level: 'WARN', body: DST_FAILFAST },
    ...every(50.2, 20, 4, 'INFO', ENTER('web')),
  ]);
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
    for (const f of failfast)
      for (const pod of podsOf(f)) causeOf.set(pod, String(f.evidence.cause ?? (f.evidence.worstPod as { cause?: string } | undefined)?.cause));
    // B's proxy never lost its control plane: nothing may say it did.
    const b = [...causeOf.entries()].find(([pod]) => pod.includes('paste-from-thread-b'));
    if (b) assert.notEqual(b[1], 'controller unreachable', "paste B was given paste A's cause");
    for (const f of failfast) {
      if (f.evidence.cause === 'controller unreachable')
        assert.ok(
          podsOf(f).every((p) => !p.includes('paste-from-thread-b')),
          `${f.title} names paste B`,
        );
    }
  });

  it('does not fold findings of one kind whose causes differ', () => {
    const base = {
      ruleId: 'pod-restarts',
      severity: 'error' as const,
      docsUrl: '',
      kind: 'crashloop/linkerd-init',
      message: 'm',
      locations: [],
      remediation: 'r',
    };
    const one: Finding = { ...base, title: 'a', subject: { pod: 'web-1', target: 'web/linkerd-init' }, evidence: { initCause: 'capabilities' } };
    const two: Finding = { ...base, title: 'b', subject: { pod: 'web-2', target: 'web/linkerd-init' }, evidence: { initCause: 'cni-not-ready' } };
    assert.equal(foldFindings([one, two]).length, 2);
    assert.equal(foldFindings([one, { ...two, evidence: { initCause: 'capabilities' } }]).length, 1);
  });
});

function podFinding(pod: string, severity: Finding['severity'] = 'warning', value = 10): Finding {
  return {
    ruleId: 'reconnect-storm',
    severity,
    docsUrl: '',
    kind: 'storm',
    title: `Reconnect storm on ${pod}`,
    message: `${pod} reconnects`,
    subject: { pod, workload: 'web' },
    evidence: {},
    locations: [{ path: `${pod}.log`, line: 1 }],
    remediation: 'r',
    keyFigure: { name: 'reconnects', value },
  };
}

describe('fold: per-pod findings of one cause', () => {
  it('folds exactly 2 pods into one finding naming both', () => {
    const folded = foldFindings([podFinding('web-1'), podFinding('web-2', 'warning', 30)]);
    assert.equal(folded.length, 1);
    assert.equal(folded[0]!.evidence.podsAffected, 2);
    assert.deepEqual(podsOf(folded[0]!), ['web-2', 'web-1'], 'worst pod first');
    assert.match(folded[0]!.title, /\(2 pods\)$/);
  });

  it('folds 3 pods into one, and leaves a single pod alone', () => {
    assert.equal(foldFindings([podFinding('web-1'), podFinding('web-2'), podFinding('web-3')]).length, 1);
    const single = foldFindings([podFinding('web-1')]);
    assert.equal(single.length, 1);
    assert.equal(single[0]!.subject.pod, 'web-1', 'a cause on one pod keeps its per-pod finding');
  });

  it('keeps severities apart: an error and a warning of the same cause are two findings', () => {
    const folded = foldFindings([podFinding('web-1', 'error'), podFinding('web-2', 'warning'), podFinding('web-3', 'error')]);
    assert.deepEqual(
      folded.map((f) => [f.severity, f.subject.pod ?? null, f.evidence.podsAffected ?? 1]),
      [
        ['error', null, 2],
        ['warning', 'web-2', 1],
      ],
    );
  });

  it('keeps the rule code on the folded finding', () => {
    const folded = foldFindings([
      { ...podFinding('web-1'), code: 'LD1001' },
      { ...podFinding('web-2'), code: 'LD1001' },
    ]);
    assert.equal(folded[0]!.code, 'LD1001');
  });
});

function ruleFinding(ruleId: string, foldsInto?: string[]): Finding {
  return {
    ruleId,
    kind: 'k',
    severity: 'warning',
    docsUrl: '',
    title: `${ruleId} title`,
    message: 'm',
    subject: {},
    evidence: {},
    locations: [],
    remediation: 'r',
    ...(foldsInto ? { foldsInto } : {}),
  };
}

describe('fold: one cause reported by several rules', () => {
  it('chains: known-signature folds into failfast, failfast into reconnect-storm — reconnect-storm is kept and lists both', () => {
    const folded = foldCoveredFindings([
      ruleFinding('reconnect-storm'),
      ruleFinding('failfast', ['reconnect-storm']),
      ruleFinding('known-signature', ['failfast']),
    ]);
    assert.deepEqual(
      folded.map((f) => f.ruleId),
      ['reconnect-storm'],
    );
    assert.deepEqual(folded[0]!.evidence.alsoMatched, [
      { ruleId: 'failfast', title: 'failfast title' },
      { ruleId: 'known-signature', title: 'known-signature title' },
    ]);
  });

  it('chains in any input order, and lists a rule folded by two paths once', () => {
    const folded = foldCoveredFindings([
      ruleFinding('known-signature', ['failfast', 'reconnect-storm']),
      ruleFinding('failfast', ['reconnect-storm']),
      ruleFinding('reconnect-storm'),
    ]);
    assert.deepEqual(
      folded.map((f) => f.ruleId),
      ['reconnect-storm'],
    );
    assert.deepEqual(
      (folded[0]!.evidence.alsoMatched as { ruleId: string }[]).map((m) => m.ruleId),
      ['known-signature', 'failfast'],
    );
  });

  it('a rule with one kept and one folded finding absorbs what folds into it, and passes it on', () => {
    const folded = foldCoveredFindings([
      ruleFinding('reconnect-storm'),
      ruleFinding('failfast'),
      ruleFinding('failfast', ['reconnect-storm']),
      ruleFinding('known-signature', ['failfast']),
    ]);
    assert.deepEqual(
      folded.map((f) => f.ruleId),
      ['reconnect-storm', 'failfast'],
    );
    assert.deepEqual(
      (folded[0]!.evidence.alsoMatched as { ruleId: string }[]).map((m) => m.ruleId),
      ['failfast', 'known-signature'],
    );
    assert.deepEqual(
      (folded[1]!.evidence.alsoMatched as { ruleId: string }[]).map((m) => m.ruleId),
      ['known-signature'],
    );
  });

  it('a cycle with no way out keeps its findings rather than dropping every one', () => {
    const folded = foldCoveredFindings([ruleFinding('known-signature', ['failfast']), ruleFinding('failfast', ['known-signature'])]);
    assert.deepEqual(
      folded.map((f) => f.ruleId),
      ['known-signature', 'failfast'],
    );
    assert.ok(folded.every((f) => !('foldsInto' in f) && f.evidence.alsoMatched === undefined));
  });

  it('a cycle with a way out folds into it', () => {
    const folded = foldCoveredFindings([
      ruleFinding('known-signature', ['failfast']),
      ruleFinding('failfast', ['known-signature', 'reconnect-storm']),
      ruleFinding('reconnect-storm'),
    ]);
    assert.deepEqual(
      folded.map((f) => f.ruleId),
      ['reconnect-storm'],
    );
    assert.deepEqual(
      (folded[0]!.evidence.alsoMatched as { ruleId: string }[]).map((m) => m.ruleId),
      ['failfast', 'known-signature'],
    );
  });
});

describe('fold: an overlap claimed by the absorbing rule (meta.absorbs)', () => {
  const claimant = (absorbs: RuleAbsorbs[]) => ({
    ...RULES.find((r) => r.meta.id === 'reconnect-storm')!,
    meta: { ...RULES.find((r) => r.meta.id === 'reconnect-storm')!.meta, absorbs },
  });
  const signature = (target: string): Finding => ({ ...ruleFinding('known-signature'), subject: { target } });

  it("folds the claimed rule's finding with a listed target into the claimant, and leaves other targets alone", () => {
    const rules = [claimant([{ rule: 'known-signature', targets: ['endpoint-no-route-to-host'] }])];
    const folded = foldCoveredFindings([ruleFinding('reconnect-storm'), signature('endpoint-no-route-to-host'), signature('tls-access-denied')], rules);
    assert.deepEqual(
      folded.map((f) => [f.ruleId, f.subject.target ?? null]),
      [
        ['reconnect-storm', null],
        ['known-signature', 'tls-access-denied'],
      ],
    );
    assert.deepEqual(
      (folded[0]!.evidence.alsoMatched as { ruleId: string }[]).map((m) => m.ruleId),
      ['known-signature'],
    );
  });

  it('claims nothing when the claimant did not report', () => {
    const rules = [claimant([{ rule: 'known-signature' }])];
    assert.equal(foldCoveredFindings([signature('endpoint-no-route-to-host')], rules).length, 1);
  });
});

/** A failfast finding on one service, shaped as the rule reports it. */
function serviceFinding(
  target: string,
  lines: number,
  opts: { cause?: string; severity?: Finding['severity']; minute?: number; pods?: string[] } = {},
): Finding {
  const minute = opts.minute ?? 0;
  const start = new Date(Date.UTC(2024, 5, 7, 9, minute)).toISOString();
  const pods = opts.pods ?? ['web-1', 'web-2'];
  return {
    ruleId: 'failfast',
    severity: opts.severity ?? 'error',
    docsUrl: '',
    kind: 'failfast/controller-unreachable',
    title: `Requests to ${target} fail: the calling proxies lost their control plane`,
    message: `m ${target}`,
    subject: { namespace: 'shop', target },
    evidence: {
      service: target,
      cause: opts.cause ?? 'controller unreachable',
      podsAffected: pods.length + 1,
      pods: pods.map((pod) => ({ pod, lines: lines / 2 })),
      window: { start, end: new Date(Date.parse(start) + 90_000).toISOString(), durationSeconds: 90, clock: 'wall' },
      timeline: { start, bucketSeconds: 60, counts: [lines - 1, 1], label: `fail-fast ${target} per minute` },
      samples: [{ path: 'a.log', line: 1, text: target }],
    },
    locations: [{ path: `${target}.log`, line: 3 }],
    remediation: 'Restore the control plane first',
    keyFigure: { name: 'lines', value: lines },
    code: 'LD1004',
  };
}

describe('fold: one cause on many targets (meta.sharedCauses)', () => {
  it('folds the services that fail fast for want of a control plane into one finding that lists them', () => {
    const folded = foldSharedCauses([
      serviceFinding('web.shop:80', 40),
      serviceFinding('cart.shop:80', 100, { severity: 'warning', minute: 2 }),
      serviceFinding('ads.shop:80', 7),
    ]);
    assert.equal(folded.length, 1);
    const f = folded[0]!;
    assert.equal(f.title, 'Requests to 3 services fail: the calling proxies lost their control plane');
    assert.equal(f.severity, 'error', 'the worst severity of the group');
    assert.deepEqual(f.subject, { namespace: 'shop' }, 'no single target; the namespace they share');
    assert.deepEqual(f.keyFigure, { name: 'lines', value: 147 }, 'the lines of every service');
    assert.equal(f.evidence.targetsAffected, 3);
    assert.deepEqual(
      (f.evidence.targets as { target: string; lines: number }[]).map((t) => [t.target, t.lines]),
      [
        ['cart.shop:80', 100],
        ['web.shop:80', 40],
        ['ads.shop:80', 7],
      ],
      'worst first',
    );
    assert.equal(f.evidence.cause, 'controller unreachable');
    assert.equal((f.evidence.worstTarget as { target: string }).target, 'cart.shop:80');
    assert.match(
      f.message,
      /^3 services show the same cause; top 3 by lines: cart\.shop:80 \(100\), web\.shop:80 \(40\), ads\.shop:80 \(7\)\. Worst, cart\.shop:80: m cart/,
    );
    // Two pods listed in each, three counted: the union is a lower bound, and says so.
    assert.equal(f.evidence.podsAffected, 3);
    assert.equal(f.evidence.podsAffectedIsLowerBound, true);
    assert.deepEqual(f.evidence.pods, [
      { pod: 'web-1', lines: 73.5 },
      { pod: 'web-2', lines: 73.5 },
    ]);
    assert.deepEqual(f.evidence.window, { start: '2024-06-07T09:00:00.000Z', end: '2024-06-07T09:03:30.000Z', durationSeconds: 210, clock: 'wall' });
    assert.deepEqual(f.evidence.timeline, {
      start: '2024-06-07T09:00:00.000Z',
      bucketSeconds: 60,
      counts: [39 + 6, 1 + 1, 99, 1],
      label: 'fail-fast 3 services per minute',
    });
    assert.equal(f.code, 'LD1004');
    assert.deepEqual(
      f.locations.map((l) => l.path),
      ['cart.shop:80.log', 'web.shop:80.log', 'ads.shop:80.log'],
    );
  });

  it('gives a target that comes twice (an error and a warning of it, on other pods) one row with both figures', () => {
    const f = foldSharedCauses([
      serviceFinding('web.shop:80', 40),
      serviceFinding('cart.shop:80', 30, { severity: 'warning', pods: ['web-9'] }),
      serviceFinding('cart.shop:80', 20, { pods: ['web-7', 'web-8'] }),
    ])[0]!;
    assert.equal(f.title, 'Requests to 2 services fail: the calling proxies lost their control plane');
    assert.deepEqual(
      (f.evidence.targets as { target: string; lines: number; podsAffected: number }[]).map((t) => [t.target, t.lines, t.podsAffected]),
      [
        ['cart.shop:80', 50, 5],
        ['web.shop:80', 40, 3],
      ],
    );
    assert.match(f.message, /^2 services show the same cause; top 2 by lines: cart\.shop:80 \(50\), web\.shop:80 \(40\)\. /);
  });

  it("reads each finding's target a bounded number of times, however many services fail", () => {
    // A storm's stale endpoints are thousands of findings of one cause: asking whether the group
    // folds once per member made the fold quadratic in them.
    const reads = (services: number) => {
      let count = 0;
      const findings = Array.from({ length: services }, (_, i) => {
        const f = serviceFinding(`svc-${i}.shop:80`, 10 + i);
        const subject = f.subject;
        return {
          ...f,
          get subject() {
            count++;
            return subject;
          },
        };
      });
      const folded = foldSharedCauses(findings);
      assert.equal(folded.length, 1);
      assert.equal(folded[0]!.evidence.targetsAffected, services);
      return count;
    };
    const perFinding = reads(100) / 100;
    assert.ok(reads(1_000) / 1_000 <= perFinding * 1.5, 'the reads per finding do not grow with the group');
  });

  it('keeps its fingerprint when services come and go, so a baseline still knows it', () => {
    const one = foldSharedCauses([serviceFinding('web.shop:80', 40), serviceFinding('cart.shop:80', 100)]);
    const two = foldSharedCauses([serviceFinding('ads.shop:80', 9), serviceFinding('web.shop:80', 40), serviceFinding('books.shop:80', 1)]);
    assert.deepEqual(assignFingerprints(one), assignFingerprints(two));
  });

  it('folds only one cause: services without endpoints stay apart from those without a control plane', () => {
    const folded = foldSharedCauses([
      serviceFinding('web.shop:80', 40),
      serviceFinding('cart.shop:80', 100),
      { ...serviceFinding('ads.shop:80', 7, { cause: 'no endpoints' }), kind: 'failfast/no-endpoints' },
      { ...serviceFinding('books.shop:80', 7, { cause: 'no endpoints' }), kind: 'failfast/no-endpoints' },
    ]);
    assert.deepEqual(
      folded.map((f) => f.subject.target ?? `${f.evidence.targetsAffected} targets`),
      ['2 targets', 'ads.shop:80', 'books.shop:80'],
      'a kind the rule does not declare shared keeps a finding per service',
    );
  });

  it('leaves a single service alone, and kinds of rules that declare nothing', () => {
    const single = foldSharedCauses([serviceFinding('web.shop:80', 40)]);
    assert.equal(single[0]!.subject.target, 'web.shop:80');
    const other = (target: string) => ({ ...serviceFinding(target, 3), ruleId: 'identity-failure', kind: 'failfast/controller-unreachable' });
    assert.equal(foldSharedCauses([other('a:1'), other('b:1')]).length, 2);
  });

  it('keeps the worst window and timeline when the others are not on the wall clock', () => {
    const uptime = serviceFinding('cart.shop:80', 3);
    uptime.evidence = {
      ...uptime.evidence,
      window: { start: null, end: null, durationSeconds: 30, clock: 'uptime' },
      timeline: { start: null, bucketSeconds: 60, counts: [3] },
    };
    const f = foldSharedCauses([serviceFinding('web.shop:80', 40), uptime])[0]!;
    assert.equal(f.evidence.window?.start, '2024-06-07T09:00:00.000Z');
    assert.deepEqual(f.evidence.timeline?.counts, [39, 1]);
  });

  it('gives a bundle whose proxies lost the destination controller one failfast finding, not one per service', async () => {
    const folder = join(dir, 'many-services');
    mkdirSync(folder, { recursive: true });
    const services = ['web', 'cart', 'ads', 'books', 'search', 'voting'];
    for (const pod of ['ingress-1', 'ingress-2', 'ingress-3']) {
      const log = proxyLog(pod, '2024-06-07T09:00:00Z', [
        ...every(40.1, 2.5, 30, 'WARN', DST_DOWN),
        ...services.flatMap((svc, i) => every(42 + i, 10, 4, 'INFO', ENTER(svc))),
      ]);
      mkdirSync(join(folder, 'shop', pod), { recursive: true });
      writeFileSync(join(folder, 'shop', pod, 'linkerd-proxy.log'), log.content);
    }
    const result = await analyzeInputs([folder], defaultRules(), { jobs: 1 });
    const perService = result.findings.filter((f) => f.ruleId === 'failfast');
    assert.equal(perService.length, services.length, 'the rule judges each service');
    assert.ok(perService.every((f) => f.evidence.cause === 'controller unreachable'));
    const failfast = foldSharedCauses(foldFindings(result.findings)).filter((f) => f.ruleId === 'failfast');
    assert.equal(failfast.length, 1);
    assert.equal(failfast[0]!.title, 'Requests to 6 services fail: the calling proxies lost their control plane');
    assert.match(failfast[0]!.message, /^6 services show the same cause; top 5 by lines: .+ and 1 more\. Worst, /);
    assert.equal(failfast[0]!.evidence.podsAffected, 3);
    assert.equal(failfast[0]!.evidence.podsAffectedIsLowerBound, undefined, 'every pod was listed');
  });
});
