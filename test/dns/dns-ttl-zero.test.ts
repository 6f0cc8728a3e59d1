// dns-ttl-zero over real dig output and small hand-made captures: control-plane names are errors
// in any namespace, other names warnings, healthy TTLs (including a cache counting down to 1) quiet.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import rule from '../../src/rules/dns-ttl-zero/index.js';
import { controlPlaneService, serviceSet } from '../../src/knowledge/control-plane-dns.js';
import { describeRuns } from '../../src/rules/dns-ttl-zero/index.js';
import { runRule } from '../support/rule-tester.js';
import { DATA } from './helpers.js';

const sample = (name: string) => readFileSync(join(DATA, 'dig-samples', name), 'utf8');
const DST = 'linkerd-dst-headless.linkerd.svc.cluster.local.';

/** `date` + `dig +noall +answer` loop output for one name with the given TTLs. */
function noallLoop(name: string, ttls: number[], type = 'SRV', data = '0 100 8086 10-42-0-12.linkerd-dst-headless.linkerd.svc.cluster.local.'): string {
  return ttls.map((ttl, i) => `Wed Dec  2 12:13:${String(10 + i).padStart(2, '0')} UTC 2026\n${name}\t${ttl} IN ${type} ${data}\n`).join('');
}

describe('dns-ttl-zero', () => {
  it('is an error for a control-plane name answered with TTL 0 (real dig 9.18 output)', async () => {
    const { findings } = await runRule(rule, [{ path: 'dig/01.txt', content: sample('01-srv-ttl0-default.out') }]);
    assert.equal(findings.length, 1);
    const f = findings[0]!;
    assert.equal(f.severity, 'error');
    assert.equal(f.subject.target, DST);
    assert.equal(f.subject.namespace, 'linkerd');
    assert.equal(f.evidence.controlPlaneService, 'linkerd-dst-headless');
    assert.equal(f.evidence.coreDnsStaleSignature, 0, 'the NS record in AUTHORITY had TTL 5: not every record was 0');
    assert.match(f.message, /single capture cannot tell/);
    assert.match(f.remediation, /keepttl/);
    assert.match(f.remediation, /serve_stale/);
    assert.match(f.remediation, /v2\.289\.0/);
    assert.match(f.remediation, /edge-25\.3\.4/);
    assert.match(f.remediation, /2\.18/);
    assert.deepEqual(f.locations, [{ path: 'dig/01.txt', line: 19 }]);
  });

  it('stays quiet on healthy TTLs: 30, 5, and a cache counting 30 down to 1', async () => {
    const inputs = ['02-srv-ttl30-default.out', '19-aaaa.out', '08-srv-ttlunits.out', '27-multi-yaml.out'].map((f) => ({ path: f, content: sample(f) }));
    inputs[3] = {
      path: 'policy-only.yaml',
      content: sample('27-multi-yaml.out')
        .split('- type: MESSAGE')
        .slice(2)
        .map((m) => `- type: MESSAGE${m}`)
        .join(''),
    };
    inputs.push({ path: 'countdown.txt', content: noallLoop(DST, [30, 20, 10, 4, 3, 2, 1, 30, 29]) });
    const { findings } = await runRule(rule, inputs);
    assert.deepEqual(findings, []);
  });

  it('shows the TTL sequence of a loop and calls 30 → 7 → 0 → 29 a stale cache', async () => {
    const { findings } = await runRule(rule, [{ path: 'loop.txt', content: noallLoop(DST, [30, 7, 0, 29]) }]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.evidence.ttlSequence, '30 → 7 → 0 → 29');
    assert.match(String(findings[0]!.evidence.verdict), /cache serving expired entries/);
    assert.equal(findings[0]!.keyFigure?.value, 1);
  });

  it('reads real dig loops (default, +noall with date, +yaml) against a stale-serving responder', async () => {
    const captured = (f: string) => ({ path: f, content: readFileSync(join(DATA, 'captured', f), 'utf8') });
    const { findings } = await runRule(rule, [captured('loop-stale-ttl.out'), captured('loop-stale-noall.out'), captured('loop-stale-yaml.out')]);
    assert.equal(findings.length, 1);
    const f = findings[0]!;
    assert.equal(f.severity, 'error');
    assert.equal(f.evidence.zeroTtlCaptures, 4);
    assert.deepEqual(
      (f.evidence.ttlSequences as { path: string; ttls: string }[]).map((s) => s.ttls),
      ['4 → … → 1 → 0 ×2 → 30 → 29', '4 → … → 1 → 0 ×2 → 30 → 29', '4 → … → 2'],
    );
    assert.match(String(f.evidence.verdict), /cache serving expired entries/);
  });

  it('says a zone TTL of 0 when every capture is 0', async () => {
    const { findings } = await runRule(rule, [{ path: 'loop.txt', content: noallLoop(DST, [0, 0, 0]) }]);
    assert.equal(findings[0]!.evidence.ttlSequence, '0 ×3');
    assert.match(String(findings[0]!.evidence.verdict), /zone itself hands out TTL 0/);
  });

  it('recognises control-plane Services in any namespace, and pod records under them', async () => {
    const services = serviceSet(rule.meta.defaultOptions.controlPlaneNames);
    assert.equal(controlPlaneService('linkerd-policy.mesh-system.svc.cluster.local.', services), 'linkerd-policy');
    assert.equal(controlPlaneService('LINKERD-IDENTITY-HEADLESS.linkerd.svc.example.org', services), 'linkerd-identity-headless');
    assert.equal(controlPlaneService('10-42-0-12.linkerd-dst-headless.linkerd.svc.cluster.local.', services), 'linkerd-dst-headless');
    assert.equal(controlPlaneService('linkerd-sp-validator.linkerd', services), 'linkerd-sp-validator');
    assert.equal(controlPlaneService('linkerd-policy.example.com.', services), null);
    assert.equal(controlPlaneService('web.linkerd.svc.cluster.local.', services), null);
    const { findings } = await runRule(rule, [{ path: 'x.txt', content: noallLoop('linkerd-policy.mesh-system.svc.cluster.local.', [0]) }]);
    assert.equal(findings[0]!.severity, 'error');
  });

  it('is a warning for other names, and honours a custom controlPlaneNames list', async () => {
    const content = noallLoop('web.emojivoto.svc.cluster.local.', [0, 0], 'A', '10.96.14.2');
    const plain = await runRule(rule, [{ path: 'web.txt', content }]);
    assert.equal(plain.findings[0]!.severity, 'warning');
    assert.match(plain.findings[0]!.remediation, /RFC 1035/);
    const custom = await runRule(rule, [{ path: 'web.txt', content }], { controlPlaneNames: 'web' });
    assert.equal(custom.findings[0]!.severity, 'error');
  });

  it('flags NXDOMAIN with a negative TTL of 0 for control-plane names only', async () => {
    const nx = sample('12-nxdomain.out')
      .replaceAll('nope.linkerd.svc.cluster.local.', 'linkerd-dst-headless.linkerd.svc.cluster.local.')
      .replace('cluster.local.\t\t5\tIN\tSOA', 'cluster.local.\t\t0\tIN\tSOA');
    const { findings } = await runRule(rule, [{ path: 'nx.txt', content: nx }]);
    assert.equal(findings.length, 1);
    assert.match(findings[0]!.title, /Negative answer/);
    assert.match(findings[0]!.message, /v2\.343\.0/);
    const quiet = await runRule(rule, [{ path: 'nx.txt', content: sample('12-nxdomain.out') }]);
    assert.deepEqual(quiet.findings, [], 'SOA minimum 5: negative TTL 5');
    const jc = await runRule(rule, [{ path: 'spamcop.txt', content: readFileSync(join(DATA, 'jc-dig/generic/dig-answer-spaces.out'), 'utf8') }]);
    assert.deepEqual(jc.findings, [], 'negative TTL 0 on an Internet name is not Linkerd’s business');
  });

  it('says it cannot judge +short output instead of passing it', async () => {
    const { findings } = await runRule(rule, [{ path: 'short.txt', content: sample('03-srv-short.out') }]);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.severity, 'info');
    assert.match(findings[0]!.message, /without a TTL/);
  });

  it('reports the CoreDNS signature when every record of an aa reply is 0', async () => {
    const allZero = sample('01-srv-ttl0-default.out').replaceAll('\t5\tIN', '\t0\tIN');
    const { findings } = await runRule(rule, [{ path: 'z.txt', content: allZero }]);
    assert.equal(findings[0]!.evidence.coreDnsStaleSignature, 1);
    assert.match(findings[0]!.message, /how CoreDNS writes a stale cache answer/);
  });

  it('merges states so that split runs equal one run', async () => {
    const a = { path: 'a.txt', content: noallLoop(DST, [30, 0, 29]) };
    const b = { path: 'b.txt', content: noallLoop('web.emojivoto.svc.cluster.local.', [0], 'A', '10.0.0.1') + noallLoop(DST, [0]) };
    const whole = await runRule(rule, [a, b]);
    const left = rule.createState(rule.meta.defaultOptions);
    const right = rule.createState(rule.meta.defaultOptions);
    const { RuleEngine } = await import('../../src/engine/engine.js');
    const { readEntry } = await import('../../src/engine/pipeline.js');
    const { Readable } = await import('node:stream');
    for (const [state, input] of [
      [left, a],
      [right, b],
    ] as const) {
      const engine = new RuleEngine([{ rule, options: rule.meta.defaultOptions }]);
      await readEntry({ path: input.path, stream: Readable.from([Buffer.from(input.content)]), size: null }, { record: (r) => engine.emit(r) });
      Object.assign(state, structuredClone(engine.snapshot()[0]));
    }
    rule.merge(left, right);
    const merged = rule.finish(left, { options: rule.meta.defaultOptions, inputs: whole.inputs });
    assert.deepEqual(
      merged.map((f) => [f.title, f.severity, f.evidence.ttlSequences]),
      whole.findings.map((f) => [f.title, f.severity, f.evidence.ttlSequences]),
    );
    assert.equal(merged.length, 2);
  });

  it('compresses TTL runs for display', () => {
    assert.equal(
      describeRuns(
        [
          { first: 30, last: 1, count: 30, kind: 'down' },
          { first: 0, last: 0, count: 2, kind: 'same' },
        ],
        4,
      ),
      '30 → … → 1 → 0 ×2 (… 4 more)',
    );
  });
});
