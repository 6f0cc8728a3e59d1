import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { Finding, MetricSampleRecord, ProxyLogRecord } from '../../src/core/types.js';
import { analyzeInputs } from '../../src/analysis/analyze.js';
import { RuleEngine } from '../../src/engine/engine.js';
import { defaultRules } from '../../src/cli/run-analyze.js';
import { annotateFixStatus } from '../../src/incident/fix-status.js';
import { versionCollector } from '../../src/incident/versions.js';
import { KNOWN_FIXES, linkerdReleaseFor, parseProxyVersion } from '../../src/knowledge/fixes.js';
import { stormBundle, writeBundle } from '../../scripts/fixtures/incident-storm.js';

function banner(pod: string, release: string, namespace = 'ingress'): ProxyLogRecord {
  return {
    kind: 'proxy-log',
    path: `${namespace}/${pod}/linkerd-proxy.log`,
    line: 1,
    pod,
    namespace,
    format: 'plain',
    time: null,
    uptime: 0.002,
    restart: 0,
    level: 'INFO',
    thread: 1,
    spans: [],
    target: 'linkerd2_proxy',
    message: `release ${release} (b2e8623) by linkerd on 2025-02-12T15:16:03Z`,
    fields: {},
    raw: '',
  };
}

function buildInfo(section: string, labels: Record<string, string>): MetricSampleRecord {
  return {
    kind: 'metric-sample',
    path: 'dump.prom',
    line: 3,
    section,
    family: 'proxy_build_info',
    name: 'proxy_build_info',
    type: 'gauge',
    labels,
    value: 1,
    timestamp: null,
  };
}

function collect(records: (ProxyLogRecord | MetricSampleRecord)[]) {
  const engine = new RuleEngine([], [versionCollector]);
  for (const r of records) engine.emit(r);
  return engine.collected(versionCollector);
}

function storm(pods: string[]): Finding {
  return {
    ruleId: 'reconnect-storm',
    severity: 'error',
    docsUrl: '',
    kind: 'destination-storm',
    title: 'Reconnect storm towards the destination controller',
    message: '',
    subject: { target: 'linkerd-dst-headless.linkerd.svc.cluster.local:8086' },
    evidence: { pods: pods.map((pod) => ({ pod, lines: 100 })) },
    locations: [],
    remediation: '1. Do something.',
  };
}

describe('proxy versions', () => {
  it('maps proxy releases to Linkerd releases, exactly, by patch line, or as a range', () => {
    assert.equal(linkerdReleaseFor(parseProxyVersion('2.210.4')!), 'stable-2.14.8–2.14.10');
    assert.equal(linkerdReleaseFor(parseProxyVersion('v2.307.0')!), 'edge-25.7.2');
    assert.equal(linkerdReleaseFor(parseProxyVersion('v2.300.1')!), 'after Linkerd 2.18, before edge-25.7.1');
    assert.equal(linkerdReleaseFor(parseProxyVersion('2.100.0')!), 'before stable-2.9.0');
    assert.equal(parseProxyVersion('enterprise-2.16.0'), null);
  });

  it('reads versions from release banners and from proxy_build_info (version, or git_version before 2.15)', () => {
    const versions = collect([
      banner('traefik-7d9f8c6b5d-x2x8k', '2.210.4'),
      buildInfo('web-5c9f8d7b6c-abcde', { version: 'v2.280.0', git_sha: 'b2e8623' }),
      buildInfo('emoji-6f8d9c7b4f-qw2zl', { git_version: 'v2.175.0', git_sha: '279b301' }),
      // The same pod upgraded mid-capture: the newer version counts.
      banner('traefik-7d9f8c6b5d-x2x8k', '2.326.0'),
    ]);
    assert.equal(versions.byPod.get('traefik-7d9f8c6b5d-x2x8k')?.version, 'v2.326.0');
    assert.equal(versions.byPod.get('web-5c9f8d7b6c-abcde')?.version, 'v2.280.0');
    assert.deepEqual(versions.byPod.get('web-5c9f8d7b6c-abcde')?.sources, ['metrics']);
    assert.equal(versions.byPod.get('emoji-6f8d9c7b4f-qw2zl')?.linkerd, 'after stable-2.11.0, before stable-2.12.0');
  });

  it("merges like a rule's state: two halves merged equal one pass", () => {
    const records = [banner('a-7d9f8c6b5d-x2x8k', '2.210.4'), banner('b-7d9f8c6b5d-x2x8k', '2.307.0')];
    const whole = collect(records);
    const left = new RuleEngine([], [versionCollector]);
    const right = new RuleEngine([], [versionCollector]);
    left.emit(records[0]!);
    right.emit(records[1]!);
    left.absorb(right.snapshot());
    assert.deepEqual(left.collected(versionCollector), whole);
  });
});

describe('fix status', () => {
  const pods = ['traefik-7d9f8c6b5d-x2x8k', 'traefik-7d9f8c6b5d-b4c5d'];
  const backoff = (f: Finding) => f.fixStatus!.find((s) => s.fix === 'connect-backoff-cap')!;

  it('says an old proxy lacks the backoff cap change, and names the release that has it', () => {
    const [f] = annotateFixStatus([storm(pods)], collect(pods.map((p) => banner(p, '2.210.4'))));
    assert.equal(backoff(f!).status, 'not-fixed');
    assert.match(
      f!.remediation,
      /Version check \(connect-backoff-cap\): Not fixed in this version: .* v2\.210\.4 \(stable-2\.14\.8–2\.14\.10\) on 2 pods, older than v2\.307\.0, edge-25\.7\.2 \/ Linkerd 2\.19/,
    );
  });

  it('says a fixed proxy already has it, so the cause lies elsewhere', () => {
    const [f] = annotateFixStatus([storm(pods)], collect(pods.map((p) => banner(p, '2.326.0'))));
    assert.equal(backoff(f!).status, 'fixed');
    assert.match(f!.remediation, /Already fixed/);
  });

  it('reports a mix, and says "unknown" when the bundle has no version at all', () => {
    const mixed = annotateFixStatus([storm(pods)], collect([banner(pods[0]!, '2.210.4'), banner(pods[1]!, '2.307.0')]))[0]!;
    assert.equal(backoff(mixed).status, 'mixed');
    const unknown = annotateFixStatus([storm(pods)], collect([]))[0]!;
    assert.equal(backoff(unknown).status, 'unknown');
    assert.match(unknown.remediation, /Version unknown/);
  });

  it('judges a control-plane fix by the controller pods, and only trusts newer data-plane proxies as a lower bound', () => {
    const dst = 'linkerd-destination-7d9f8c6b5d-q2w3e';
    const streamLimit = (f: Finding) => f.fixStatus!.find((s) => s.fix === 'destination-stream-limit')!;
    const byController = annotateFixStatus([storm(pods)], collect([banner(dst, '2.246.0', 'linkerd'), ...pods.map((p) => banner(p, '2.210.4'))]))[0]!;
    assert.equal(streamLimit(byController).status, 'fixed');
    const newDataPlane = annotateFixStatus([storm(pods)], collect(pods.map((p) => banner(p, '2.246.0'))))[0]!;
    assert.equal(streamLimit(newDataPlane).status, 'fixed');
    const oldDataPlane = annotateFixStatus([storm(pods)], collect(pods.map((p) => banner(p, '2.210.4'))))[0]!;
    assert.equal(streamLimit(oldDataPlane).status, 'unknown');
    assert.match(oldDataPlane.remediation, /Control-plane version unknown/);
  });

  it('has a version check for every rule with a known fix, and a "no release changes this" line for the others', () => {
    const f = annotateFixStatus([{ ...storm(pods), ruleId: 'stale-endpoint-metrics' }], collect([]))[0]!;
    assert.deepEqual(f.fixStatus, []);
    assert.match(f.remediation, /Version check: no release changes this/);
    for (const fix of KNOWN_FIXES) assert.ok(parseProxyVersion(fix.fixedInProxy), fix.id);
    const dns = annotateFixStatus([{ ...storm(pods), ruleId: 'dns-query-storm' }], collect(pods.map((p) => banner(p, '2.294.0'))))[0]!;
    assert.equal(dns.fixStatus![0]!.fix, 'dns-min-ttl');
    assert.equal(dns.fixStatus![0]!.status, 'fixed');
  });
});

describe('version advice end to end on a storm bundle', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const analyse = async (proxyVersion: string) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ld-versions-'));
    dirs.push(dir);
    writeBundle(dir, stormBundle({ proxyVersion, ingressPods: 5, stormSeconds: 40, controllerLeadSeconds: 5 }));
    return analyzeInputs([dir], defaultRules());
  };

  it('an old bundle (2.210.4) lacks both the stream-limit and the backoff fixes', async () => {
    const result = await analyse('2.210.4');
    const storm = result.findings.find((f) => f.ruleId === 'reconnect-storm')!;
    assert.deepEqual(
      storm.fixStatus!.map((s) => [s.fix, s.status]),
      [
        ['destination-stream-limit', 'not-fixed'],
        ['connect-backoff-cap', 'not-fixed'],
      ],
    );
  });

  it('a 2.300 bundle has the stream-limit fix but still the 500 ms backoff', async () => {
    const result = await analyse('2.300.0');
    const storm = result.findings.find((f) => f.ruleId === 'reconnect-storm')!;
    assert.deepEqual(
      storm.fixStatus!.map((s) => [s.fix, s.status]),
      [
        ['destination-stream-limit', 'fixed'],
        ['connect-backoff-cap', 'not-fixed'],
      ],
    );
    assert.equal(result.versions.byPod.size, 6);
  });
});

function runningVersion(pod: string, release: string, namespace: string): ProxyLogRecord {
  return { ...banner(pod, '0.0.0', namespace), format: 'logfmt', target: '', message: `running version ${release}` };
}

describe('Linkerd releases logged by Go components', () => {
  const pods = ['traefik-7d9f8c6b5d-x2x8k'];
  const dst = 'linkerd-destination-7d9f8c6b5d-q2w3e';
  const status = (f: Finding, id: string) => f.fixStatus!.find((s) => s.fix === id)!;

  it("judge the stream-limit fix by the controller's own release, on both channels", () => {
    const old = annotateFixStatus([storm(pods)], collect([runningVersion(dst, 'stable-2.14.9', 'linkerd')]))[0]!;
    assert.equal(status(old, 'destination-stream-limit').status, 'not-fixed');
    assert.match(status(old, 'destination-stream-limit').note, /stable-2\.14\.9 on 1 pod/);
    const edge = annotateFixStatus([storm(pods)], collect([runningVersion(dst, 'edge-24.5.3', 'linkerd'), banner(dst, '2.210.4', 'linkerd')]))[0]!;
    assert.equal(status(edge, 'destination-stream-limit').status, 'fixed');
    const enterprise = annotateFixStatus([storm(pods)], collect([runningVersion(dst, 'enterprise-2.16.1', 'linkerd')]))[0]!;
    assert.equal(status(enterprise, 'destination-stream-limit').status, 'fixed');
  });

  it('date old proxies that print no release banner (their start-up wrapper logs the release)', () => {
    const f = annotateFixStatus([storm(pods)], collect([runningVersion(pods[0]!, 'stable-2.10.0', 'ingress')]))[0]!;
    assert.equal(status(f, 'connect-backoff-cap').status, 'not-fixed');
  });
});

describe('fix applicability', () => {
  it('applies the destination stream-limit fix to destination storms, not to policy ones', () => {
    const policy = { ...storm(['traefik-7d9f8c6b5d-x2x8k']), subject: { target: 'linkerd-policy.linkerd.svc.cluster.local:8090' } };
    const [dst, pol] = annotateFixStatus([storm(['traefik-7d9f8c6b5d-x2x8k']), policy], collect([]));
    assert.deepEqual(
      dst!.fixStatus!.map((s) => s.fix),
      ['destination-stream-limit', 'connect-backoff-cap'],
    );
    assert.deepEqual(
      pol!.fixStatus!.map((s) => s.fix),
      ['connect-backoff-cap'],
    );
  });
});
