import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podsOfFinding } from '../../src/core/evidence.js';
import type { Finding } from '../../src/core/types.js';
import { fixesFor } from '../../src/incident/fix-status.js';

const finding = (ruleId: string, over: Partial<Finding> = {}): Finding => ({
  ruleId,
  severity: 'error',
  docsUrl: '',
  kind: 'test',
  title: ruleId,
  message: '',
  subject: {},
  evidence: {},
  locations: [],
  remediation: '1. Fix it.',
  ...over,
});
const fixIds = (f: Finding) => fixesFor(f).map((x) => x.id);

describe('fix links declared by the rule folders', () => {
  it('gives a negative TTL-0 answer the negative-TTL floor as well, and a positive one only the 5 s floor', () => {
    assert.deepEqual(fixIds(finding('dns-ttl-zero', { kind: 'negative-answer' })), ['dns-min-ttl', 'dns-negative-min-ttl']);
    assert.deepEqual(fixIds(finding('dns-ttl-zero', { kind: 'control-plane-answer', evidence: { note: 'not a negative answer' } })), ['dns-min-ttl']);
  });

  it('ties the inbound authority fix to inbound authority series, not to any authority label', () => {
    assert.deepEqual(fixIds(finding('metric-cardinality', { evidence: { inboundAuthoritySeries: 120 } })), ['inbound-authority-label']);
    assert.deepEqual(
      fixIds(finding('metric-cardinality', { evidence: { perEndpointLabels: ['authority'], topLabels: [{ label: 'authority', values: 3 }] } })),
      [],
    );
  });

  it('ties the duplicate-series fix to duplicated sample lines', () => {
    assert.deepEqual(fixIds(finding('metric-cardinality', { evidence: { duplicateLines: 4 } })), ['duplicate-series']);
    assert.deepEqual(fixIds(finding('metric-cardinality', { evidence: { duplicateLines: 0 } })), []);
  });

  it('keeps the stream-limit fix to the destination and identity controllers', () => {
    assert.deepEqual(fixIds(finding('control-plane-unavailable', { evidence: { controller: 'policy' } })), ['connect-backoff-cap']);
    assert.deepEqual(fixIds(finding('reconnect-storm', { subject: { target: 'linkerd-policy.linkerd.svc.cluster.local:8086' } })), [
      'destination-stream-limit',
      'connect-backoff-cap',
    ]);
    assert.deepEqual(fixIds(finding('reconnect-storm', { subject: { target: 'web.shop.svc.cluster.local:8080' } })), ['connect-backoff-cap']);
  });

  it('names no fix for a rule without one', () => assert.deepEqual(fixIds(finding('authorization-denied')), []));
});

describe('podsOfFinding', () => {
  it('reads the subject pod and the pods the evidence names, once each', () => {
    const f = finding('reconnect-storm', {
      subject: { pod: 'web-1' },
      evidence: {
        pods: [
          { pod: 'web-1', lines: 4 },
          { pod: 'web-2', lines: 2 },
        ],
        topTargets: [{ endpoint: '10.0.0.1:8086', pod: 'not-a-pod-list' }],
      },
    });
    assert.deepEqual(podsOfFinding(f), ['web-1', 'web-2']);
  });
});
