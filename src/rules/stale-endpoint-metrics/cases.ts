import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { RuleCases } from '../../../test/support/rule-cases.js';
import { endpoints, healthyDump, legacyEndpointDump, podSection, sampleMetrics } from '../../../test/support/metrics-inputs.js';

const fixture = (path: string) => readFileSync(new URL(`../../../fixtures/${path}`, import.meta.url));
/** Traefik whose connection pool holds connections to every old generation (scripts/fixtures/metrics.ts). */
const traefikPooled = gunzipSync(fixture('traefik-pooled/proxy-metrics.txt.gz'));
const healthyRollout = fixture('healthy-rollout/proxy-metrics.txt');
/** Four generations of one workload, every one of them still connected: a pooling client. */
const pooled = ['aaaaaaaaaa', 'bbbbbbbbbb', 'cccccccccc', 'dddddddddd'].flatMap((hash, g) =>
  endpoints(6, { hash, open: 1, ipBase: g * 100, statuses: ['200', '500'] }),
);

const current = endpoints(6, { hash: 'aaaaaaaaaa', open: 2, statuses: ['200', '500'] });
const gone1 = endpoints(6, { hash: 'bbbbbbbbbb', open: 0, ipBase: 100, statuses: ['200', '500'] });
const gone2 = endpoints(6, { hash: 'cccccccccc', open: 0, ipBase: 200, statuses: ['200', '500'] });

export const cases: RuleCases = {
  fires: [
    {
      name: 'two ReplicaSet generations without connections still hold 696 series',
      expect: [{ severity: 'warning', kind: 'stale-endpoints', subject: { pod: 'traefik-1', workload: 'traefik', target: 'deployment/shop/checkout' } }],
      inputs: [{ path: 'dump.txt', content: podSection('traefik-1', 1, 1, legacyEndpointDump([...current, ...gone1, ...gone2])) }],
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.equal(findings[0]!.keyFigure?.value, 12 * 58);
      },
    },
    {
      name: 'four generations, all with open connections: two are beyond what a rollout leaves',
      expect: [{ severity: 'warning', kind: 'stale-endpoints', subject: { pod: 'traefik-1', workload: 'traefik', target: 'deployment/shop/checkout' } }],
      inputs: [{ path: 'dump.txt', content: podSection('traefik-1', 1, 1, legacyEndpointDump(pooled)) }],
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.equal(findings[0]!.keyFigure?.value, 12 * 58);
        const roles = (findings[0]!.evidence.generations as { role: string }[]).map((g) => g.role);
        assert.deepEqual(roles.slice(1), [
          'older, still connected (rollout)',
          'beyond what a rollout leaves, connections held open',
          'beyond what a rollout leaves, connections held open',
        ]);
      },
    },
    {
      name: 'the same, from a proxy without dst_pod_template_hash: generations read from the pod names',
      expect: [{ severity: 'warning', kind: 'stale-endpoints', subject: { target: 'deployment/shop/checkout' } }],
      inputs: [{ path: 'dump.txt', content: legacyEndpointDump(pooled).replace(/,dst_pod_template_hash="[^"]*"/g, '') }],
      check: (findings) => assert.equal((findings[0]!.evidence.workloads as { templateHashes: number }[])[0]!.templateHashes, 4),
    },
    {
      name: 'Traefik pooling connections to old generations of five backends (fixtures/traefik-pooled)',
      expect: [
        { severity: 'warning', kind: 'stale-endpoints', subject: { pod: 'traefik-58f6d9c7b-m4k7w', workload: 'traefik', target: 'deployment/shop/search' } },
      ],
      inputs: [{ path: 'proxy-metrics.txt', content: traefikPooled }],
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.equal(findings[0]!.subject.pod, 'traefik-58f6d9c7b-m4k7w');
        assert.match(findings[0]!.message, /holds them open to pods that no longer exist/);
      },
    },
    {
      name: '30 pods of one generation referenced, 3 connected',
      expect: [{ severity: 'warning', kind: 'stale-endpoints', subject: { target: 'deployment/shop/checkout' } }],
      inputs: [
        {
          path: 'dump.txt',
          content: legacyEndpointDump([...endpoints(3, { hash: 'aaaaaaaaaa', open: 1 }), ...endpoints(30, { hash: 'aaaaaaaaaa', open: 0, ipBase: 50 })]),
        },
      ],
    },
  ],
  quiet: [
    {
      name: 'a rollout in progress: the old generation still has connections',
      inputs: [{ path: 'd.txt', content: legacyEndpointDump([...current, ...endpoints(6, { hash: 'bbbbbbbbbb', open: 1, ipBase: 100 })]) }],
    },
    {
      name: 'a rollout in progress behind a Service: two generations, two old pods gone (fixtures/healthy-rollout)',
      inputs: [{ path: 'rollout.txt', content: healthyRollout }],
    },
    {
      name: 'one generation per workload in healthy and real dumps',
      inputs: [
        { path: 'healthy.txt', content: healthyDump },
        { path: 'sampleMetrics.txt', content: sampleMetrics },
      ],
    },
  ],
};
