import assert from 'node:assert/strict';
import type { RuleCases } from '../support/rule-cases.js';
import { endpoints, healthyDump, legacyEndpointDump, podSection, sampleMetrics } from './metrics-inputs.js';

const current = endpoints(6, { hash: 'aaaaaaaaaa', open: 2, statuses: ['200', '500'] });
const gone1 = endpoints(6, { hash: 'bbbbbbbbbb', open: 0, ipBase: 100, statuses: ['200', '500'] });
const gone2 = endpoints(6, { hash: 'cccccccccc', open: 0, ipBase: 200, statuses: ['200', '500'] });

export const cases: RuleCases = {
  fires: [
    {
      name: 'two ReplicaSet generations without connections still hold 696 series',
      inputs: [{ path: 'dump.txt', content: podSection('traefik-1', 1, 1, legacyEndpointDump([...current, ...gone1, ...gone2])) }],
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.equal(findings[0]!.keyFigure?.value, 12 * 58);
      },
    },
    {
      name: '30 pods of one generation referenced, 3 connected',
      inputs: [{ path: 'dump.txt', content: legacyEndpointDump([...endpoints(3, { hash: 'aaaaaaaaaa', open: 1 }), ...endpoints(30, { hash: 'aaaaaaaaaa', open: 0, ipBase: 50 })]) }],
    },
  ],
  quiet: [
    { name: 'a rollout in progress: the old generation still has connections', inputs: [{ path: 'd.txt', content: legacyEndpointDump([...current, ...endpoints(6, { hash: 'bbbbbbbbbb', open: 1, ipBase: 100 })]) }] },
    { name: 'one generation per workload in healthy and real dumps', inputs: [{ path: 'healthy.txt', content: healthyDump }, { path: 'sampleMetrics.txt', content: sampleMetrics }] },
  ],
};
