// Fire and quiet cases for probe-failure. The events are shaped as kubectl prints them (the 1.19+
// default layout, headerless `--watch` rows, the pre-1.19 layout with SUBOBJECT, a describe's Events
// table) with the kubelet prober's own wording (pkg/kubelet/prober: `Readiness probe failed: HTTP
// probe failed with statuscode: 403`, `Get "http://…": dial tcp …: connect: connection refused`),
// the shape users paste in linkerd/linkerd2 threads (#8608: probes refused by policy); the data is in test/data/kubectl.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { RuleCases } from '../../../test/support/rule-cases.js';

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
const policy403 = read('test/data/kubectl/events-probe-403-default.txt');
const watchRefused = read('test/data/kubectl/events-probe-watch-noheader.txt');
const oldLayout = read('test/data/kubectl/events-probe-old-layout.txt');
const eventsYaml = read('test/data/kubectl/get-events-yaml-list.yaml');
const destination = read('fixtures/pod-restarts/describe-linkerd-destination.txt');
const healthyDescribe = read('fixtures/healthy-kubectl/describe-emoji.txt');
const healthyEvents = read('fixtures/healthy-kubectl/events-wide.txt');

export const cases: RuleCases = {
  fires: [
    {
      name: 'one 403 on the readiness probe of a meshed pod: refused by policy at the first event',
      expect: [{ severity: 'error', kind: 'policy-denied', subject: { workload: 'books', pod: 'books-6b9c7d8f5-k2m4p', target: 'books/app' } }],
      inputs: [{ path: 'events.txt', content: policy403 }],
      check: (findings) => {
        assert.match(findings[0]!.title, /refused by Linkerd authorization policy \(403\)/);
        assert.equal(findings[0]!.evidence.meshed, true);
        assert.match(findings[0]!.remediation, /AuthorizationPolicy/);
      },
    },
    {
      name: 'headerless --watch rows: liveness refused three times on 8080 and the container killed for it',
      expect: [{ severity: 'error', kind: 'refused/orders', subject: { workload: 'orders', pod: 'orders-7d9f8c6b5-x2x8k', target: 'orders/orders' } }],
      inputs: [{ path: 'watch.txt', content: watchRefused }],
      check: (findings) => {
        assert.equal(findings[0]!.evidence.port, '8080');
        assert.equal(findings[0]!.evidence.path, '/healthz');
        assert.equal(findings[0]!.evidence.failures, 3);
        assert.equal(findings[0]!.evidence.livenessKills, 1);
        assert.match(findings[0]!.title, /^Probes of container orders in orders: connection refused on the probe port$/);
      },
    },
    {
      name: 'pre-1.19 layout: SUBOBJECT names linkerd-proxy, 27 failed readiness probes: the proxy is not ready',
      expect: [
        { severity: 'warning', kind: 'proxy-not-ready/linkerd-proxy', subject: { workload: 'web', pod: 'web-5f6d7c8b9-m3n4p', target: 'web/linkerd-proxy' } },
      ],
      inputs: [{ path: 'events-old.txt', content: oldLayout }],
      check: (findings) => assert.equal(findings[0]!.evidence.failures, 27),
    },
    {
      name: 'describe of the destination pod: readiness on 9996 timing out 14 times is the destination controller not starting',
      expect: [
        {
          severity: 'error',
          kind: 'controller-not-ready/destination',
          subject: {
            namespace: 'linkerd',
            workload: 'linkerd-destination',
            pod: 'linkerd-destination-7c9d5b8f6-q2wzl',
            target: 'linkerd-destination/destination',
          },
        },
      ],
      inputs: [{ path: 'describe-linkerd-destination.txt', content: destination }],
      check: (findings) => assert.match(findings[0]!.title, /destination in linkerd\/linkerd-destination: the controller cannot start/),
    },
    {
      name: 'get events -o yaml: the fieldPath names the books container, refused with 403 twelve times',
      expect: [
        {
          severity: 'error',
          kind: 'policy-denied/books',
          subject: { namespace: 'booksapp', workload: 'books', pod: 'books-6b9c7d8f5-k2m4p', target: 'books/books' },
        },
      ],
      inputs: [{ path: 'events.yaml', content: eventsYaml }],
      check: (findings) => assert.equal(findings[0]!.evidence.failures, 12),
    },
  ],
  quiet: [
    {
      name: 'the healthy describe and events of fixtures/healthy-kubectl',
      inputs: [
        { path: 'describe.txt', content: healthyDescribe },
        { path: 'events.txt', content: healthyEvents },
      ],
    },
    {
      name: 'two readiness failures while a meshed pod starts',
      inputs: [
        {
          path: 'events.txt',
          content:
            policy403.replace(
              'HTTP probe failed with statuscode: 403',
              'Get "http://10.244.1.9:7002/ready": dial tcp 10.244.1.9:7002: connect: connection refused',
            ) +
            policy403
              .split('\n')[3]!
              .replace('HTTP probe failed with statuscode: 403', 'Get "http://10.244.1.9:7002/ready": dial tcp 10.244.1.9:7002: connect: connection refused') +
            '\n',
        },
      ],
    },
  ],
};
