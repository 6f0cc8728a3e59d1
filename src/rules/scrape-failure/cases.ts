// Fire and quiet cases for scrape-failure: rows of Prometheus' targets page as users copy them
// (linkerd2 #7097) and `# ERROR:` sections of linkerd diagnostics proxy-metrics (cli/cmd/metrics.go);
// data in test/data/scrapes, each file citing its source in the README there.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { RuleCases } from '../../../test/support/rule-cases.js';
import { healthyDump } from '../../../test/support/metrics-inputs.js';

const read = (name: string) => readFileSync(new URL(`../../../test/data/scrapes/${name}`, import.meta.url), 'utf8');

export const cases: RuleCases = {
  fires: [
    {
      name: "Prometheus' targets page: the policy controller's admin port 9990 answers /metrics with 404 (before stable-2.13)",
      expect: [{ severity: 'warning', kind: 'scrape/no-metrics-endpoint', subject: { target: 'policy' } }],
      inputs: [{ path: 'targets.txt', content: read('targets-policy-404.txt') }],
      check: (findings) => {
        assert.match(findings[0]!.title, /serves no \/metrics there \(404\)/);
        assert.match(findings[0]!.remediation, /^1\. Upgrade Linkerd to stable-2\.13/);
        assert.equal(findings[0]!.evidence.httpStatus, '404');
      },
    },
    {
      name: 'two proxies DOWN on the targets page, one refused and one timed out; the UP row says nothing',
      expect: [
        { severity: 'warning', kind: 'scrape/refused', subject: { target: 'proxy' } },
        { severity: 'warning', kind: 'scrape/timed-out', subject: { target: 'proxy' } },
      ],
      inputs: [{ path: 'targets.txt', content: read('targets-proxy-refused-and-timeout.txt') }],
      check: (findings) => {
        assert.deepEqual(findings[0]!.evidence.targets, [{ target: 'http://10.244.1.17:4191/metrics' }]);
        assert.match(findings[1]!.message, /metric-cardinality/);
      },
    },
    {
      name: 'proxy-metrics could not port-forward to one pod: its section holds the error instead of metrics',
      expect: [{ severity: 'warning', kind: 'scrape/port-forward', subject: { target: 'web-7d9f8c6b5-x2x8k' } }],
      inputs: [{ path: 'proxy-metrics.txt', content: read('proxy-metrics-port-forward-error.txt') }],
    },
  ],
  quiet: [
    {
      name: 'a dump where one pod is not running (a canary scaled down: nothing to scrape) and the others answered, and targets-page rows that are all UP',
      inputs: [
        { path: 'proxy-metrics.txt', content: healthyDump },
        { path: 'targets.txt', content: read('targets-all-up.txt') },
      ],
    },
  ],
};
