import assert from 'node:assert/strict';
import type { RuleCases } from '../../../test/support/rule-cases.js';
import { endpoints, healthyDump, legacyEndpointDump, podSection, sampleMetrics } from '../../../test/support/metrics-inputs.js';

export const cases: RuleCases = {
  fires: [
    {
      name: 'an ingress proxy holding 56,800 series, mostly latency buckets of 400 endpoints',
      expect: [{ severity: 'error', kind: 'series-count', subject: { pod: 'traefik-7d9f8c6b5-x2x8k', workload: 'traefik' } }],
      inputs: [
        {
          path: 'dump.txt',
          content: podSection('traefik-7d9f8c6b5-x2x8k', 1, 1, legacyEndpointDump(endpoints(400, { statuses: ['200', '304', '404', '500', '503'] }))),
        },
      ],
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.equal(findings[0]!.severity, 'error');
        assert.equal(findings[0]!.keyFigure?.value, 56_800);
      },
    },
    {
      name: 'two dumps: only the proxy above 10,000 series warns',
      expect: [{ severity: 'warning', kind: 'series-count', subject: { pod: 'ingress-a', workload: 'ingress-a' } }],
      inputs: [
        { path: 'a/ingress.txt', content: podSection('ingress-a', 1, 1, legacyEndpointDump(endpoints(100, { statuses: ['200', '500', '503', '404'] }))) },
        { path: 'b/web.txt', content: podSection('web-b', 1, 1, legacyEndpointDump(endpoints(20))) },
      ],
      check: (findings) => {
        assert.deepEqual(
          findings.map((f) => [f.subject.pod, f.severity]),
          [['ingress-a', 'warning']],
        );
      },
    },
  ],
  quiet: [
    { name: 'the real linkerd2 sample dump (199 series)', inputs: [{ path: 'sampleMetrics.txt', content: sampleMetrics }] },
    { name: 'four healthy 2.15+ proxies of ~2,000 series each', inputs: [{ path: 'healthy/proxy-metrics.txt', content: healthyDump }] },
  ],
};
