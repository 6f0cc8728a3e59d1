import assert from 'node:assert/strict';
import type { RuleCases } from '../../../test/support/rule-cases.js';
import { fds, healthyDump, podSection, sampleMetrics } from '../../../test/support/metrics-inputs.js';

const emfile =
  '[  4012.003212s]  WARN ThreadId(01) inbound:accept{client.addr=10.42.0.1:3322}: linkerd_app_core::serve: Server failed to accept connection error=Too many open files (os error 24)\n';

export const cases: RuleCases = {
  fires: [
    {
      name: '850 of 1024 descriptors open',
      expect: [{ severity: 'warning', kind: 'exhausted', subject: { pod: 'web-5d8f7c9b4-abcde', workload: 'web' } }],
      inputs: [{ path: 'dump.txt', content: podSection('web-5d8f7c9b4-abcde', 1, 1, fds(850, 1024)) }],
      check: (findings) => assert.equal(findings[0]!.severity, 'warning'),
    },
    {
      name: 'the same pod near its limit in metrics and logging os error 24',
      expect: [{ severity: 'error', kind: 'exhausted', subject: { pod: 'web-5d8f7c9b4-abcde', workload: 'web' } }],
      inputs: [
        { path: 'dump.txt', content: podSection('web-5d8f7c9b4-abcde', 1, 1, fds(1000, 1024)) },
        { path: 'web-5d8f7c9b4-abcde.log', content: emfile.repeat(3) },
      ],
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.equal(findings[0]!.severity, 'error');
        assert.equal(findings[0]!.evidence.emfileLogLines, 3);
      },
    },
  ],
  quiet: [
    { name: 'process_max_fds 0 means unlimited', inputs: [{ path: 'dump.txt', content: fds(50_000, 0) }] },
    {
      name: 'healthy and real dumps',
      inputs: [
        { path: 'healthy.txt', content: healthyDump },
        { path: 'sampleMetrics.txt', content: sampleMetrics },
      ],
    },
  ],
};
