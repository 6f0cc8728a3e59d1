// Issue 17's bar, over every real artifact in test/data/real with every rule at its defaults, as
// `analyze` runs them: a healthy artifact gets no warning or error, and every incident artifact
// gets at least one finding that names the failure the thread's maintainers diagnosed. And the
// committed healthy fixture bundles stay silent with every rule, the new threshold rules included.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { defaultRules } from '../../src/cli/run-analyze.js';
import type { Finding } from '../../src/core/types.js';
import { analyzeInputs } from '../../src/analysis/analyze.js';

const REAL = fileURLToPath(new URL('../data/real/', import.meta.url));

interface Expected {
  file: string;
  status: 'healthy' | 'incident-covered' | 'incident-uncovered' | 'unclear';
  note?: string;
}

const EXPECTED = JSON.parse(readFileSync(join(REAL, 'expected.json'), 'utf8')) as Expected[];

/**
 * Per incident artifact, the rule or signature ids any one of which names the diagnosed failure
 * (MANIFEST.md of the shared samples gives the diagnosis). A finding of another rule does not
 * count: it would be a finding, not a diagnosis.
 */
const NAMES_THE_FAILURE: Record<string, readonly string[]> = {
  'coredns-log/cd-1265-errors-plugin-2017.log': ['coredns-legacy-errors'],
  'coredns-log/cd-4724-log-plugin-noerror-timeout.log': ['coredns-no-response'],
  'policy-log/l2-10697-policy-kube-tls.log': ['kube-api-tls-verify-failed'],
  'policy-log/l2-8343-policy-watch-restart.log': ['policy-watch-failed', 'policy-watch-restarting'],
  'proxy-log/l2-10090-fragments-no-prefix.log': ['h2-connection-header-illegal'],
  'proxy-log/l2-11279-destination-failfast.log': ['control-plane-unavailable', 'failfast', 'control-plane-failfast'],
  'proxy-log/l2-12505-json-uptime-timestamp.log': ['protocol-detection-timeout'],
  'proxy-log/l2-15199-grpc-rescue-http2.log': ['h2-internal-error'],
  'proxy-log/l2-2069-legacy-canonicalize-no-uptime.log': ['dns-resolution-failure', 'dns-canonicalize-deadline'],
  'proxy-log/l2-2800-legacy-warn-autopath.log': ['destination-not-a-service'],
  'proxy-log/l2-2918-legacy-dbug-err.log': ['h2-unspecific-protocol-error'],
  'proxy-log/l2-4048-router-capacity-fragment.log': ['failfast', 'router-capacity-reached'],
  'proxy-log/l2-4168-timestamps-2.7-wrapped.log': ['h2-frame-invalid-size'],
  'proxy-log/l2-4899-describe-oom-2.8.1.log': ['pod-restarts'],
  'proxy-log/l2-4905-no-uptime-no-thread-masked.log': ['endpoint-connection-refused', 'dns-refinement-timeout', 'dns-resolution-failure'],
  'proxy-log/l2-5591-json-pretty-os-error-107.log': ['transport-endpoint-not-connected'],
  'proxy-log/l2-5662-accessdenied-wrapped.log': ['identity-failure', 'tls-no-server-certificate', 'tls-access-denied'],
  'proxy-log/l2-5672-kibana-json-elided-ts.log': ['admin-http-only', 'connection-closed-request-timed-out'],
  'proxy-log/l2-5881-json-could-not-fetch-profile.log': ['profile-fetch-failed'],
  'proxy-log/l2-5932-accessdenied-identity-srv.log': ['identity-failure', 'tls-access-denied'],
  'proxy-log/l2-8608-jaeger-unauthorized-flood.log': ['authorization-denied', 'unauthorized-connection'],
  'proxy-log/l2-pr399-conduit-glog-style.log': ['proxy-env-missing'],
  'proxy-log/p-18-legacy-err-no-uptime.log': ['h2-internal-error'],
};

/** The rule, and for known-signature the signature, a finding names. */
function namesOf(finding: Finding): string[] {
  const signature = finding.evidence.signature;
  return typeof signature === 'string' ? [finding.ruleId, signature] : [finding.ruleId];
}

async function findingsFor(file: string): Promise<Finding[]> {
  const result = await analyzeInputs([join(REAL, file)], defaultRules(), { jobs: 1 });
  assert.deepEqual(result.ruleFailures, [], file);
  return result.findings;
}

describe('every real artifact, every rule', () => {
  it('covers the samples: at least 10 healthy and 20 incident artifacts', () => {
    assert.ok(EXPECTED.filter((e) => e.status === 'healthy').length >= 10);
    assert.ok(EXPECTED.filter((e) => e.status.startsWith('incident-')).length >= 20);
  });

  it('gives no healthy artifact a warning or an error', async () => {
    for (const { file } of EXPECTED.filter((e) => e.status === 'healthy')) {
      const loud = (await findingsFor(file)).filter((f) => f.severity !== 'info');
      assert.deepEqual(
        loud.map((f) => `${f.ruleId} ${f.severity}`),
        [],
        file,
      );
    }
  });

  it('gives every incident artifact a finding that names its failure', async () => {
    for (const { file, status } of EXPECTED.filter((e) => e.status.startsWith('incident-'))) {
      const names = NAMES_THE_FAILURE[file];
      assert.ok(names, `${file} (${status}): add the ids that name its diagnosis to NAMES_THE_FAILURE`);
      const found = (await findingsFor(file)).flatMap(namesOf);
      assert.ok(
        found.some((id) => names.includes(id)),
        `${file}: findings ${JSON.stringify(found)} name none of ${names.join(', ')}`,
      );
    }
  });
});

/** The healthy fixture bundles: fixtures/healthy*, and dns-healthy. */
const HEALTHY_FIXTURES = readdirSync('fixtures')
  .filter((name) => /^healthy|-healthy$/.test(name))
  .sort();

describe('every healthy fixture bundle, every rule', () => {
  it('covers the healthy bundles of logs, metrics, kubectl output and DNS captures', () => {
    assert.deepEqual(HEALTHY_FIXTURES, ['dns-healthy', 'healthy', 'healthy-ingress', 'healthy-kubectl', 'healthy-metrics', 'healthy-rollout']);
  });

  for (const bundle of HEALTHY_FIXTURES) {
    it(`finds nothing in fixtures/${bundle}`, async () => {
      const result = await analyzeInputs([join('fixtures', bundle)], defaultRules(), { jobs: 1 });
      assert.deepEqual(result.ruleFailures, []);
      assert.deepEqual(
        result.findings.map((f) => `${f.ruleId} ${f.severity}: ${f.title}`),
        [],
      );
    });
  }
});
