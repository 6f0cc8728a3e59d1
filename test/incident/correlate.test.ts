import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { stormBundle, writeBundle } from '../../scripts/fixtures/incident-storm.js';
import { defaultRules } from '../../src/cli/run-analyze.js';
import type { Finding, Timeline } from '../../src/core/types.js';
import { analyzeInputs } from '../../src/analysis/analyze.js';
import { correlate, mergeTimelines } from '../../src/incident/correlate.js';
import { formatJson } from '../../src/report/formats/json.js';
import { formatText } from '../../src/report/formats/text.js';
import { buildReport } from '../../src/report/report.js';

const T0 = Date.parse('2025-03-04T03:12:00Z');
const iso = (offsetSeconds: number) => new Date(T0 + offsetSeconds * 1000).toISOString();

function finding(ruleId: string, over: Partial<Finding> & { start?: number; end?: number; perMinute?: number[] } = {}): Finding {
  const { start, end, perMinute, ...rest } = over;
  const evidence: Finding['evidence'] = { ...(rest.evidence ?? {}) };
  if (start !== undefined) evidence.window = { start: iso(start), end: iso(end ?? start + 60) };
  if (perMinute) evidence.timeline = { start: iso(start ?? 0), bucketSeconds: 60, counts: perMinute, label: `${ruleId} per minute` } satisfies Timeline;
  return {
    ruleId,
    severity: 'error',
    docsUrl: '',
    kind: 'test',
    title: `${ruleId} title`,
    message: '',
    subject: {},
    locations: [],
    remediation: `1. First step for ${ruleId}.\n2. Later.`,
    ...rest,
    evidence,
  };
}

const controller = (start: number) =>
  finding('control-plane-unavailable', {
    title: 'Destination controller unavailable to proxies',
    start,
    end: start + 240,
    perMinute: [300, 280, 310, 120],
    subject: { namespace: 'linkerd', workload: 'linkerd-destination', target: 'linkerd-dst-headless.linkerd.svc.cluster.local:8086' },
    evidence: { controller: 'destination', failures: 1010, distinctClients: 412, failureKinds: { 'service unavailable': 1010 } },
  });
const storm = (start: number) =>
  finding('reconnect-storm', {
    title: 'Reconnect storm towards the destination controller',
    start,
    end: start + 240,
    perMinute: [8_000_000, 8_500_000, 8_200_000, 8_300_000],
    subject: { namespace: 'ingress', target: 'linkerd-dst-headless.linkerd.svc.cluster.local:8086' },
    evidence: {
      podsAffected: 412,
      totalLines: 33_000_000,
      window: { start: iso(start), end: iso(start + 240), durationSeconds: 240 },
      pods: [{ pod: 'traefik-7d9f8c6b5d-x2x8k', lines: 9 }],
    },
  });

describe('correlate', () => {
  it('ties controller unavailability to the reconnect storm it caused, with the reasoning and the first action', () => {
    const incidents = correlate([storm(20), controller(0)]);
    assert.equal(incidents.length, 1);
    const inc = incidents[0]!;
    assert.equal(inc.ordering.confidence, 'likely');
    assert.deepEqual(
      inc.findings.map((f) => [f.ruleId, f.role]),
      [
        ['control-plane-unavailable', 'probable cause'],
        ['reconnect-storm', 'effect'],
      ],
    );
    assert.equal(
      inc.headline,
      'Destination controller saturated (1,010 failed calls from 412 clients) → 412 traefik proxies in a reconnect storm to destination (33 M lines in 4 min)',
    );
    assert.match(inc.ordering.reasoning[0]!, /The cause was logged 20 s before the effect/);
    assert.equal(inc.firstAction, 'First step for control-plane-unavailable.');
    assert.equal(inc.timeline?.series.length, 2);
    assert.equal(inc.window?.start, iso(0));
  });

  it('explains three pairs per mechanism and counts the rest, so 200 storms stay one readable incident', () => {
    const storms = Array.from({ length: 200 }, (_, i) => ({
      ...storm(20),
      title: `Reconnect storm ${i}`,
      subject: { namespace: 'ingress', pod: `traefik-7d9f8c6b5d-p${i}`, target: 'linkerd-dst-headless.linkerd.svc.cluster.local:8086' },
    }));
    const controllers = [0, 1].map((k) => ({ ...controller(0), title: `Destination controller ${k}` }));
    const inc = correlate([...storms, ...controllers])[0]!;
    assert.equal(inc.findings.length, 202);
    // 2 causes × 200 effects = 400 pairs: three explained, one line for the other 397.
    assert.equal(inc.ordering.reasoning.filter((r) => r.includes(' → Reconnect storm ')).length, 3);
    assert.ok(
      inc.ordering.reasoning.includes('… and 397 more control-plane-unavailable → reconnect-storm pairs by the same mechanism.'),
      inc.ordering.reasoning.join('\n'),
    );
    assert.ok(inc.ordering.reasoning.length < 10);
    assert.match(inc.headline, /; 196 more$/);
  });

  it('ties a policy storm to the destination pod too (same pod, same proxy), as a second effect in the headline', () => {
    const policyStorm = {
      ...storm(20),
      title: 'Reconnect storm towards the policy controller',
      subject: { namespace: 'ingress', target: 'linkerd-policy.linkerd.svc.cluster.local:8090' },
    };
    const inc = correlate([storm(20), policyStorm, controller(0)])[0]!;
    assert.deepEqual(
      inc.findings.map((f) => f.role),
      ['probable cause', 'effect', 'effect'],
    );
    assert.match(
      inc.headline,
      /^Destination controller saturated \([^)]*\) → 412 traefik proxies in a reconnect storm to destination \([^)]*\); 412 traefik proxies in a reconnect storm to policy/,
    );
    assert.match(inc.ordering.reasoning.join(' '), /same linkerd-destination pod/);
    const labels = inc.timeline!.series.map((x) => x.label);
    assert.equal(new Set(labels).size, 3, labels.join(', '));
    // Identity lives in its own pod: an identity outage explains no policy storm.
    const identity = {
      ...controller(0),
      evidence: { ...controller(0).evidence, controller: 'identity' as const },
      subject: { target: 'linkerd-identity-headless.linkerd.svc.cluster.local:8080' },
    };
    const apart = correlate([policyStorm, identity])[0]!;
    assert.ok(apart.findings.every((f) => f.role === 'related'));
  });

  it('says "unclear" when the effect was logged well before its supposed cause', () => {
    const inc = correlate([storm(0), controller(300)])[0]!;
    assert.equal(inc.ordering.confidence, 'unclear');
    assert.match(inc.headline, /^Order unclear: /);
    assert.match(inc.ordering.reasoning.join(' '), /effect was logged first/);
    assert.match(inc.firstAction, /^Start with the earliest signal .*, since the order is unclear: /);
  });

  it('groups signals that only overlap in time, without claiming a cause', () => {
    const dns = finding('dns-query-storm', { title: 'DNS query storm', start: 30, end: 200, subject: { target: 'linkerd-policy.linkerd.svc.cluster.local' } });
    const inc = correlate([storm(0), dns])[0]!;
    assert.equal(inc.findings.length, 2);
    assert.equal(inc.ordering.confidence, 'unclear');
    assert.ok(inc.findings.every((f) => f.role === 'related'));
    assert.match(inc.ordering.reasoning.join(' '), /No known mechanism/);
    assert.match(inc.links.join(' '), /overlapping time windows/);
  });

  it('keeps unrelated findings apart', () => {
    const a = finding('metric-cardinality', {
      subject: { pod: 'traefik-7d9f8c6b5d-x2x8k', workload: 'traefik' },
      keyFigure: { name: 'series', value: 114_906 },
    });
    const b = finding('fd-exhaustion', { subject: { pod: 'web-5c9f8d7b6c-abcde' } });
    const incidents = correlate([a, b]);
    assert.equal(incidents.length, 2);
    assert.ok(incidents.every((i) => i.findings.length === 1 && i.timeline === null));
  });

  it('puts the ingress pod-IP bypass before the cardinality it explains, on the same workload', () => {
    const card = finding('metric-cardinality', {
      subject: { pod: 'traefik-7d9f8c6b5d-x2x8k', workload: 'traefik' },
      keyFigure: { name: 'series', value: 114_906 },
    });
    const bypass = finding('ingress-pod-ip-bypass', {
      title: 'Ingress sends to pod IPs',
      severity: 'warning',
      subject: { pod: 'traefik-7d9f8c6b5d-b4c5d', workload: 'traefik' },
    });
    const inc = correlate([card, bypass])[0]!;
    assert.deepEqual(
      inc.findings.map((f) => f.ruleId),
      ['ingress-pod-ip-bypass', 'metric-cardinality'],
    );
    assert.equal(inc.ordering.confidence, 'likely');
    assert.match(inc.headline, /Ingress sends to pod IPs → traefik metric cardinality 115 k series/);
  });

  it('merges timelines onto one per-minute axis (finer buckets summed, coarser spread)', () => {
    const perSecond = finding('reconnect-storm', { evidence: { timeline: { start: iso(30), bucketSeconds: 1, counts: new Array(60).fill(2) } } });
    const fiveMinutes = finding('dns-query-storm', { evidence: { timeline: { start: iso(0), bucketSeconds: 300, counts: [500] } } });
    const merged = mergeTimelines([perSecond, fiveMinutes])!;
    assert.equal(merged.start, iso(0));
    assert.equal(merged.bucketSeconds, 60);
    assert.deepEqual(merged.series[0]!.counts, [60, 60, 0, 0, 0]);
    assert.deepEqual(merged.series[1]!.counts, [100, 100, 100, 100, 100]);
  });
});

describe('storm bundle report', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('opens with one incident tying the controller unavailability to the reconnect storm, with the timeline', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ld-incident-'));
    dirs.push(dir);
    writeBundle(dir, stormBundle());
    const report = buildReport(await analyzeInputs([dir], defaultRules()), 'error');
    const multi = report.incidents!.filter((i) => i.findings.length > 1);
    assert.equal(multi.length, 1);
    assert.deepEqual(
      multi[0]!.findings.map((f) => f.ruleId),
      ['control-plane-unavailable', 'reconnect-storm'],
    );
    assert.equal(multi[0]!.ordering.confidence, 'likely');
    assert.ok(multi[0]!.timeline!.series.every((s) => s.counts.some((c) => c > 0)));

    const text = formatText(report, { color: false, findings: report.findings, failOn: 'error', width: 200 });
    const incidentAt = text.indexOf('1 INCIDENT');
    assert.ok(incidentAt > 0 && incidentAt < text.indexOf('2 ERRORS'), 'incident summary comes before the findings');
    assert.match(text, /1\. Destination controller saturated \(450 failed calls from \d+ clients\) → 6 traefik proxies in a reconnect storm to destination/);
    assert.match(text, /do now Relieve the destination controller now/);

    const json = JSON.parse(formatJson(report, { color: false, findings: report.findings, failOn: 'error' })) as {
      incidents: unknown[];
      proxyVersions: { version: string }[];
    };
    assert.equal(json.incidents.length, 1);
    assert.deepEqual(
      json.proxyVersions.map((v) => v.version),
      ['v2.210.4'],
    );
  });

  it('a storm with no controller logs is its own incident, and nothing is invented about its cause', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ld-incident-'));
    dirs.push(dir);
    writeBundle(dir, stormBundle({ withController: false }));
    const report = buildReport(await analyzeInputs([dir], defaultRules()), 'error');
    assert.deepEqual(
      report.incidents!.map((i) => i.findings.map((f) => f.role)),
      [['related']],
    );
    assert.doesNotMatch(formatText(report, { color: false, findings: report.findings, failOn: 'error' }), /INCIDENT/);
  });

  it('the generator is deterministic', () => {
    assert.deepEqual(stormBundle({ seed: 3 }), stormBundle({ seed: 3 }));
    assert.notDeepEqual(stormBundle({ seed: 3 }), stormBundle({ seed: 4 }));
  });
});

describe('incident markdown', () => {
  it('renders linked incidents with roles, timeline, reasoning and first action, and nothing otherwise', async () => {
    const { incidentBlocks, incidentsHeading } = await import('../../src/report/formats/incident-markdown.js');
    // As the Markdown formatter puts them together: a heading, then one block per linked incident.
    const incidentsMarkdown = (incidents: Parameters<typeof incidentBlocks>[0]) => {
      const blocks = incidentBlocks(incidents);
      return blocks.length === 0 ? '' : [incidentsHeading(blocks.length), ...blocks].join('\n');
    };
    const text = incidentsMarkdown(correlate([storm(20), controller(0)]));
    assert.match(text, /^## Incidents \(1\)\n\n### 1\. Destination controller saturated/);
    assert.match(text, /\| probable cause \| Destination controller unavailable to proxies \| `control-plane-unavailable` \|/);
    assert.match(text, /\*\*Do now:\*\* First step for control-plane-unavailable\./);
    assert.match(text, /```\n.*per minute +[▁▂▃▄▅▆▇█ ]+\n/);
    assert.equal(incidentsMarkdown(correlate([storm(0)])), '');
  });
});

describe('pod restarts in incidents', () => {
  const oomKilled = (over: Partial<Finding> & { evidence: Finding['evidence'] }) =>
    finding('pod-restarts', { title: 'destination controller OOMKilled in linkerd/linkerd-destination', ...over });
  const destinationOom = oomKilled({
    subject: { namespace: 'linkerd', workload: 'linkerd-destination', pod: 'linkerd-destination-7c9d5b8f6-q2wzl', target: 'linkerd-destination/destination' },
    evidence: {
      container: 'destination',
      role: 'controller',
      problem: 'oom',
      controller: 'destination',
      restarts: 6,
      pods: [{ pod: 'linkerd-destination-7c9d5b8f6-q2wzl' }],
    },
  });
  const cardinality = finding('metric-cardinality', {
    title: 'Metric cardinality in traefik-7d9f8c6b5-x2x8k',
    subject: { namespace: 'traefik', workload: 'traefik', pod: 'traefik-7d9f8c6b5-x2x8k' },
    keyFigure: { name: 'series', value: 134_464 },
  });
  const proxy = (problem: string) =>
    finding('pod-restarts', {
      title: `linkerd-proxy ${problem} in traefik/traefik`,
      severity: 'warning',
      subject: { namespace: 'traefik', workload: 'traefik', pod: 'traefik-7d9f8c6b5-x2x8k', target: 'traefik/linkerd-proxy' },
      evidence: { container: 'linkerd-proxy', role: 'proxy', problem, restarts: 3, pods: [{ pod: 'traefik-7d9f8c6b5-x2x8k' }] },
    });

  it('makes a destination OOM kill the probable cause of the reconnect storm towards destination', () => {
    const inc = correlate([storm(20), destinationOom])[0]!;
    assert.deepEqual(
      inc.findings.map((f) => [f.ruleId, f.role]),
      [
        ['pod-restarts', 'probable cause'],
        ['reconnect-storm', 'effect'],
      ],
    );
    assert.equal(inc.ordering.confidence, 'likely');
    assert.match(
      inc.headline,
      /^Destination controller of linkerd-destination OOMKilled \(6 restarts\) → 412 traefik proxies in a reconnect storm to destination/,
    );
    assert.match(inc.ordering.reasoning[0]!, /drops every proxy's stream at once/);
  });

  it('puts the OOM kill before the controller outage it causes, and both before the storm', () => {
    const inc = correlate([storm(20), controller(0), destinationOom])[0]!;
    assert.deepEqual(
      inc.findings.map((f) => [f.ruleId, f.role]),
      [
        ['pod-restarts', 'probable cause'],
        ['control-plane-unavailable', 'effect'],
        ['reconnect-storm', 'effect'],
      ],
    );
  });

  it('reads cardinality as the cause of a proxy OOM kill of the same pod, but not of other restarts', () => {
    const oom = correlate([proxy('oom'), cardinality])[0]!;
    assert.deepEqual(
      oom.findings.map((f) => [f.ruleId, f.role]),
      [
        ['metric-cardinality', 'probable cause'],
        ['pod-restarts', 'effect'],
      ],
    );
    assert.match(oom.ordering.reasoning[0]!, /OOMKilled \(linkerd2#12916\)/);
    const crash = correlate([proxy('crashloop'), cardinality])[0]!;
    assert.equal(crash.findings.length, 2, 'still grouped by the shared pod');
    assert.equal(crash.ordering.confidence, 'unclear');
  });
});

describe('correlate: incidents bounded in time and never joined by generic names (issue 28)', () => {
  it('keeps signals 2.5 years apart in separate incidents, however much they share', () => {
    const longAgo = -Math.round(2.5 * 365 * 86_400);
    const incidents = correlate([controller(0), storm(20), { ...controller(longAgo), title: 'An old outage' }]);
    const sizes = incidents.map((i) => i.findings.length).sort();
    assert.deepEqual(sizes, [1, 2]);
    const together = incidents.find((i) => i.findings.length === 2)!;
    assert.equal(together.window!.start.slice(0, 10), together.window!.end.slice(0, 10));
  });

  it('splits at a gap longer than the spell itself, and joins a gap shorter than it', () => {
    assert.equal(correlate([controller(0), storm(0 + 240 + 3600)]).length, 2, 'an hour after a 4-minute spell');
    assert.equal(correlate([controller(0), storm(0 + 240 + 120)]).length, 1, 'two minutes after a 4-minute spell');
  });

  it('does not link two pastes through the linkerd-proxy container or a placeholder pod', () => {
    const paste = (title: string) =>
      finding('pod-restarts', { title, subject: { target: 'linkerd-proxy' }, evidence: { pods: [{ pod: '(not named in the paste)' }] } });
    assert.equal(correlate([paste('linkerd-proxy in CrashLoopBackOff'), paste('linkerd-proxy OOMKilled')]).length, 2);
  });

  it("links a storm naming a file's proxy as (path) to a fail-fast naming it by its path, and not a stale endpoint's", () => {
    const file = 'bundle/ingress-proxy.log';
    const ownStorm = { ...storm(0), evidence: { ...storm(0).evidence, pods: [{ pod: `(${file})`, lines: 9 }] } };
    const failfast = finding('failfast', {
      title: 'Requests to 12 services fail: the calling proxies lost their control plane',
      start: 5,
      end: 200,
      evidence: { cause: 'controller unreachable', targetsAffected: 12, pods: [{ pod: file, lines: 40 }] },
    });
    const [incident] = correlate([ownStorm, failfast]);
    assert.equal(incident!.findings.find((f) => f.ruleId === 'failfast')!.role, 'effect', 'the storm is the likely cause');
    assert.match(incident!.headline, /12 services in fail-fast/);
    const stale = { ...ownStorm, kind: 'stale-endpoint', title: '3 stale endpoints', subject: {} };
    const [unlinked] = correlate([stale, failfast]);
    assert.notEqual(unlinked!.findings.find((f) => f.ruleId === 'failfast')!.role, 'effect', 'a stale endpoint does not take discovery away');
  });
});
