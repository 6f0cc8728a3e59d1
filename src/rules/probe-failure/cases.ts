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

/**
 * Probe failures pasted as fragments (issue 45): event messages copied with the pod after a pipe
 * (linkerd/linkerd2#12895), rows of a log UI with their timestamp (#9602) and a describe's
 * Events row on its own (#10037).
 */
const policyLiveness = [
  'Liveness probe failed: Get "http://10.94.94.3:9990/live": context deadline exceeded (Client.Timeout exceeded while awaiting headers) | linkerd-destination-744c8f574c-vx95n',
  'Liveness probe failed: Get "http://10.94.69.218:9990/live": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
  '',
].join('\n');
const logUi = [
  'Oct 12, 2022 @ 04:16:35.751\tReadiness probe failed: Get "http://172.16.36.138:9990/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
  'Oct 12, 2022 @ 04:02:25.744\tLiveness probe failed: Get "http://172.16.36.138:9990/live": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
  '',
].join('\n');
/** linkerd/linkerd2#4624: control-plane pods half ready, proxies' readiness failing on 4191 and with 503 (test/data/kubectl/README.md). */
const halfReady = read('test/data/kubectl/l2-4624-get-pods-half-ready-probe-4191-503.txt');
const halfReadyEvents = halfReady.slice(halfReady.indexOf('  Warning'));
const describeRow = '  Warning  Unhealthy  13m (x4 over 14m)    kubelet            Liveness probe failed: HTTP probe failed with statuscode: 502\n';

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
    {
      name: "event messages only: the policy controller's liveness probe on 9990 times out (pod named after a pipe)",
      // The second line names no pod: its port alone says a controller's, a finding of its own.
      expect: [
        { severity: 'error', kind: 'controller-timeout', subject: { target: 'pod/app' } },
        {
          severity: 'error',
          kind: 'controller-timeout/policy',
          subject: { workload: 'linkerd-destination', pod: 'linkerd-destination-744c8f574c-vx95n', target: 'linkerd-destination/policy' },
        },
      ],
      inputs: [{ path: 'messages.txt', content: policyLiveness }],
      check: (findings) => {
        const policy = findings.find((f) => f.kind === 'controller-timeout/policy')!;
        assert.match(policy.message, /Liveness probe failures of policy in linkerd-destination: 1 \(\/live on port 9990\)/);
        assert.match(policy.message, /timeout \(timeoutSeconds, 1 s/);
        assert.match(policy.remediation, /timeoutSeconds/);
      },
    },
    {
      name: "log UI rows, no pod: a liveness timeout on 9990's /live is a Linkerd controller's",
      expect: [{ severity: 'error', kind: 'controller-timeout', subject: { target: 'pod/app' } }],
      inputs: [{ path: 'ui.txt', content: logUi }],
      check: (findings) => assert.match(findings[0]!.title, /a Linkerd controller \(admin port 9990\)/),
    },
    {
      name: "a describe's Events row alone: the liveness probe failed 4 times, enough to restart the container",
      expect: [{ severity: 'error', kind: 'proxy-cannot-reach-app', subject: { target: 'pod/app' } }],
      inputs: [{ path: 'row.txt', content: describeRow }],
      check: (findings) => assert.match(findings[0]!.message, /4 of the liveness probe, enough for the kubelet to restart it/),
    },
    {
      name: 'real: linkerd2#4624 every control-plane pod 1/2 ready, proxies failing /ready (4191, 503): the control plane is degraded',
      expect: [{ severity: 'warning', kind: 'proxy-not-ready/linkerd-proxy', subject: { target: 'pod/linkerd-proxy' } }],
      inputs: [{ path: 'pods.txt', content: halfReady }],
      check: (findings) => {
        assert.match(findings[0]!.title, /the proxy is not ready, the control plane is degraded$/);
        assert.match(findings[0]!.message, /All 5 Linkerd control-plane pods in the input are not ready themselves/);
        // The row without a URL is the same readiness probe as the one on 4191: 1 + 15.
        assert.equal(findings[0]!.evidence.failures, 16);
        assert.match(findings[0]!.remediation, /^1\. Bring the control plane back first/);
      },
    },
    {
      name: 'the same probe rows with the control plane ready: the proxy is not ready, no word of the control plane',
      expect: [{ severity: 'warning', kind: 'proxy-not-ready/linkerd-proxy', subject: { target: 'pod/linkerd-proxy' } }],
      inputs: [{ path: 'pods.txt', content: halfReady.replace(/ 1\/2 /g, ' 2/2 ') }],
      check: (findings) => {
        assert.doesNotMatch(findings[0]!.message, /degraded/);
        assert.match(findings[0]!.remediation, /Read the proxy log/);
      },
    },
  ],
  quiet: [
    {
      name: 'one readiness failure of the proxy on 4191 beside half-ready control-plane pods: a start-up blip',
      inputs: [{ path: 'pods.txt', content: halfReady.slice(0, halfReady.indexOf('  Warning')) + halfReadyEvents.split('\n')[0]! + '\n' }],
    },
    {
      name: "one readiness timeout on a controller's admin port while it starts",
      inputs: [{ path: 'ui.txt', content: logUi.split('\n')[0]! + '\n' }],
    },
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
