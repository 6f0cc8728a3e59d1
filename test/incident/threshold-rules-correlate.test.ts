// The new threshold rules in incidents, through the real rules: a bundle where identity-headless
// does not resolve and the same proxies fail certification reads as DNS → identity; the
// controller-unreachable link from reconnect-storm to failfast and the headless-DNS link are
// checked on findings shaped as the rules emit them.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Finding } from '../../src/core/types.js';
import { correlate } from '../../src/incident/correlate.js';
import { findRule } from '../../src/rules/index.js';
import { runRule } from '../support/rule-tester.js';
import { every, proxyLog, startup } from '../support/log-inputs.js';

const NO_IDENTITY_RECORD =
  'identity:controller{addr=linkerd-identity-headless.linkerd.svc.cluster.local:8080}: linkerd_app_core::control: Failed to resolve control-plane component error=no record found for name: linkerd-identity-headless.linkerd.svc.cluster.local. type: SRV class: IN';
const OBTAIN_FAILED =
  'identity:identity{server.addr=linkerd-identity-headless.linkerd.svc.cluster.local:8080}: linkerd_proxy_identity_client::certify: Failed to obtain identity error=failed to resolve linkerd-identity-headless.linkerd.svc.cluster.local:8080';

async function findingsOf(ids: string[], inputs: Parameters<typeof runRule>[1]): Promise<Finding[]> {
  const all: Finding[] = [];
  for (const id of ids) all.push(...(await runRule(findRule(id)!, inputs)).findings);
  return all;
}

describe('threshold rules in incidents', () => {
  it('identity-headless not resolving is the probable cause of proxies failing certification', async () => {
    const inputs = ['orders-7d9f8c6b5-x2x8k', 'orders-7d9f8c6b5-q7w2e', 'billing-5f6d7c8b9-m3n4p'].map((pod) =>
      proxyLog(
        `payments/${pod}/linkerd-proxy.log`,
        '2024-06-07T09:00:00Z',
        [
          ...startup(`${pod.split('-')[0]}.payments.serviceaccount.identity.linkerd.cluster.local`),
          ...every(0.004, 5.02, 13, 'WARN', NO_IDENTITY_RECORD),
          ...every(1.1, 10.2, 6, 'ERROR', OBTAIN_FAILED),
        ],
        2,
      ),
    );
    const findings = await findingsOf(['dns-resolution-failure', 'identity-failure'], inputs);
    assert.deepEqual(findings.map((f) => f.ruleId).sort(), ['dns-resolution-failure', 'identity-failure']);
    const [incident, ...rest] = correlate(findings);
    assert.equal(rest.length, 0);
    assert.equal(incident!.findings[0]!.ruleId, 'dns-resolution-failure');
    assert.equal(incident!.findings[0]!.role, 'probable cause');
    assert.equal(incident!.findings[1]!.role, 'effect');
    assert.match(incident!.headline, /cannot resolve the identity controller → 3 proxies failing to obtain a certificate/);
  });

  const base = { severity: 'error' as const, kind: 'test', docsUrl: '', message: '', locations: [], remediation: '1. Do it.' };
  const window = { start: '2024-06-07T09:05:00.000Z', end: '2024-06-07T09:09:00.000Z' };

  it('a reconnect storm of the same proxies explains a controller-unreachable fail-fast', () => {
    const storm: Finding = {
      ...base,
      ruleId: 'reconnect-storm',
      title: 'Reconnect storm',
      subject: { target: 'linkerd-dst-headless.linkerd.svc.cluster.local:8086' },
      evidence: { podsAffected: 3, totalLines: 900, window, pods: [{ pod: 'frontend-7d9f8c6b5-x2x8k', lines: 300 }] },
    };
    const failfast: Finding = {
      ...base,
      ruleId: 'failfast',
      severity: 'warning',
      title: 'web.shop:80 in fail-fast (controller unreachable)',
      subject: { namespace: 'shop', target: 'web.shop:80' },
      evidence: {
        service: 'web.shop:80',
        cause: 'controller unreachable',
        podsAffected: 3,
        window: { start: '2024-06-07T09:05:40.000Z', end: window.end },
        pods: [{ pod: 'frontend-7d9f8c6b5-x2x8k', lines: 9 }],
      },
    };
    const [incident] = correlate([failfast, storm]);
    assert.deepEqual(
      incident!.findings.map((f) => [f.ruleId, f.role]),
      [
        ['reconnect-storm', 'probable cause'],
        ['failfast', 'effect'],
      ],
    );
    assert.match(incident!.headline, /web\.shop:80 in fail-fast on 3 proxies \(controller unreachable\)/);
  });

  it('an identity controller refusing calls explains the DNS gap and the certification failures', () => {
    const controller: Finding = {
      ...base,
      ruleId: 'control-plane-unavailable',
      title: 'Identity controller unavailable to proxies',
      subject: { namespace: 'linkerd', target: 'linkerd-identity:8080' },
      evidence: { controller: 'identity', failures: 0, window },
    };
    const dns: Finding = {
      ...base,
      ruleId: 'dns-resolution-failure',
      title: 'DNS',
      subject: { target: 'linkerd-identity-headless:8080' },
      evidence: { controller: 'identity', podsAffected: 4, window },
    };
    const identity: Finding = {
      ...base,
      ruleId: 'identity-failure',
      title: 'Identity',
      subject: { target: 'linkerd-identity-headless:8080' },
      evidence: { controller: 'identity', failureKind: 'certify', podsAffected: 4, window },
    };
    const [incident] = correlate([identity, dns, controller]);
    assert.equal(incident!.findings[0]!.ruleId, 'control-plane-unavailable');
    assert.equal(incident!.findings[0]!.role, 'probable cause');
    assert.deepEqual(
      incident!.findings.slice(1).map((f) => f.role),
      ['effect', 'effect'],
    );
  });

  it('denied kubelet probes explain the restarts of the same workload, but not its OOM kills', () => {
    const denied: Finding = {
      ...base,
      ruleId: 'authorization-denied',
      severity: 'warning',
      title: 'Probe traffic denied by policy on collector-opencensus',
      subject: { namespace: 'observability', target: 'collector-opencensus' },
      evidence: { server: 'collector-opencensus', kind: 'probe flood', denials: 36, window, pods: [{ pod: 'otel-collector-6b9c8d7f5-k8s9t', lines: 18 }] },
    };
    const restarts = (problem: string): Finding => ({
      ...base,
      ruleId: 'pod-restarts',
      title: `otel-collector ${problem}`,
      subject: { namespace: 'observability', pod: 'otel-collector-6b9c8d7f5-k8s9t', workload: 'otel-collector' },
      evidence: { container: 'otel-collector', role: 'app', problem, restarts: 7, window },
    });
    const [incident] = correlate([restarts('crashloop'), denied]);
    assert.deepEqual(
      incident!.findings.map((f) => [f.ruleId, f.role]),
      [
        ['authorization-denied', 'probable cause'],
        ['pod-restarts', 'effect'],
      ],
    );
    assert.match(incident!.headline, /probes denied by policy on collector-opencensus \(36\)/);
    const [oom] = correlate([restarts('oom'), denied]);
    assert.notEqual(oom!.ordering.confidence, 'likely');
  });
});
