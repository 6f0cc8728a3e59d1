// Fire and quiet cases for pod-restarts, on kubectl output shaped like what users attach
// (fixtures/pod-restarts, fixtures/healthy-kubectl) and on two real describe pastes
// (test/data/kubectl, from linkerd2#4899 and linkerd2#10643).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { RuleCases } from '../../../test/support/rule-cases.js';

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
const destination = read('fixtures/pod-restarts/describe-linkerd-destination.txt');
const web = read('fixtures/pod-restarts/describe-web.txt');
const events = read('fixtures/pod-restarts/events.txt');
const pods = read('fixtures/pod-restarts/get-pods.txt');
const real4899 = read('test/data/kubectl/l2-4899-describe-oom-2.8.1.log');
const real10643 = read('test/data/kubectl/l2-10643-describe-crashloop-policy.log');
const healthyDescribe = read('fixtures/healthy-kubectl/describe-emoji.txt');
const healthyPods = read('fixtures/healthy-kubectl/get-pods.txt');
const healthyEvents = read('fixtures/healthy-kubectl/events-wide.txt');
const podsYaml = read('test/data/kubectl/get-pods-yaml-oom.yaml');
const initCrashLoop = read('test/data/kubectl/get-pods-init-crashloop.txt');
const initNftDenied = read('test/data/go-logs/linkerd-init-nft-denied.log');
const validatorFailed = read('test/data/go-logs/network-validator-failed.log');
const podJsonInit = read('test/data/kubectl/get-pod-json-init-crashloop.json');
const cniSandbox = read('test/data/kubectl/events-cni-sandbox-failed.txt');

/**
 * Fragments as pasted in linkerd/linkerd2 threads (issue 45: read like the whole document, or by
 * the last look at failure words): sandbox events of the linkerd-cni plugin with each of its API
 * failures (#12573 AKS Unauthorized, #11286 a bare Forbidden from the nodes' HTTP proxy, #10413
 * OKE cannotconnect, #4807 a chained plugin returning nothing), a validator back-off (#11228), a
 * describe cut at Last State (#14605) and a container status cut out of a pod YAML (#10386).
 */
/** A container status cut out of a pod's YAML without the container's name (test/data/kubectl/README.md). */
const UNNAMED_STATUS = read('test/data/kubectl/status-fragment-unnamed-oom.yaml');

const sandboxRow = (tail: string) =>
  `  Warning  FailedCreatePodSandBox  6m12s                 kubelet            Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "7fa7d2fb8f5f": ${tail}\n`;
const cniUnauthorized = sandboxRow('plugin type="linkerd-cni" name="linkerd-cni" failed (add): Unauthorized');
const cniViaProxy =
  'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "20ecb2f55eed": plugin type="linkerd-cni" name="linkerd-cni" failed (add): Get "https://[172.20.0.1]:443/api/v1/namespaces/linkerd/pods/linkerd-identity-784744bbd9-fz4rb": Forbidden\n';
const cniCannotConnect = sandboxRow(
  'plugin type="linkerd-cni" name="linkerd-cni" failed (add): Get "https://[10.96.0.1]:443/api/v1/namespaces/cert-manager/pods/cert-manager-59bf757d77-kszm7": cannotconnect',
);
const cniNoResult =
  '  Warning  FailedCreatePodSandBox  6m36s                  kubelet, ip-172-21-16-20  Failed to create pod sandbox: rpc error: code = Unknown desc = failed to set up sandbox container "c58be342dd56" network for pod "coredns-66bff467f8-8ssn8": networkPlugin cni failed to set up pod "coredns-66bff467f8-8ssn8_kube-system" network: unexpected end of JSON input\n';
const otherCni =
  '  Warning  FailedCreatePodSandBox  2m                     kubelet            Failed to create pod sandbox: rpc error: code = Unknown desc = failed to set up sandbox container "9a1f" network for pod "web-0": networkPlugin cni failed to set up pod "web-0_default" network: stat /var/lib/calico/nodename: no such file or directory\n';
const validatorBackOff = 'Back-off restarting failed container linkerd-network-validator in pod\n';
/** The same container in a Deployment's pod template, a mutation having replaced the drop list with ALL (test/data/kubectl/README.md). */
const deploymentDropAll = read('test/data/kubectl/get-deployment-json-init-drop-all.json');
/** linkerd/linkerd2#2554: one of three HA controller replicas crash-looping, three Prometheus pods evicted (test/data/kubectl/README.md). */
const haPods = read('test/data/kubectl/l2-2554-get-pods-ha-crashloop-evicted.txt');
/** linkerd/linkerd2#6254 (AKS): a pod spec fragment whose linkerd-init adds NET_RAW and drops it (test/data/kubectl/README.md). */
const initDropsNetRaw = read('test/data/kubectl/l2-6254-pod-spec-fragment-init-drop-net-raw.yaml');
const proxyOomCut = read('test/data/kubectl/describe-cut-last-state-proxy-oom.txt');
const injectorStatusCut = read('test/data/kubectl/status-fragment-injector-oom.yaml');

/** The describe of a proxy restarted once, with reason Error, days before the listing. */
const onceLongAgo = web
  .replace('Reason:       OOMKilled', 'Reason:       Error')
  .replace('Exit Code:    137', 'Exit Code:    1')
  .replace('Restart Count:  4', 'Restart Count:  1');

export const cases: RuleCases = {
  fires: [
    {
      name: "a container status cut out of a pod's YAML without the container's name: the OOM kill is named, not passed",
      expect: [{ severity: 'warning', kind: 'unnamed-container', subject: {} }],
      inputs: [{ path: 'paste.txt', content: UNNAMED_STATUS }],
      check: (findings) => {
        assert.match(findings[0]!.title, /^A container OOMKilled; the paste does not say which container$/);
        assert.match(findings[0]!.remediation, /^1\. Find which container it is/);
        assert.deepEqual(findings[0]!.evidence.exitCodes, [137]);
      },
    },
    {
      name: 'get pods -o yaml: the destination controller OOMKilled at 250Mi and now in CrashLoopBackOff',
      expect: [
        {
          severity: 'error',
          kind: 'oom/destination',
          subject: {
            namespace: 'linkerd',
            workload: 'linkerd-destination',
            pod: 'linkerd-destination-7d9f8c6b5-x2x8k',
            target: 'linkerd-destination/destination',
          },
        },
      ],
      inputs: [{ path: 'pods.yaml', content: podsYaml }],
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.deepEqual([findings[0]!.severity, findings[0]!.evidence.container, findings[0]!.evidence.role], ['error', 'destination', 'controller']);
        assert.equal(findings[0]!.subject.pod, 'linkerd-destination-7d9f8c6b5-x2x8k');
      },
    },
    {
      name: 'the destination controller OOMKilled at 250Mi, 6 restarts, BackOff events',
      expect: [
        {
          severity: 'error',
          kind: 'oom/destination',
          subject: {
            namespace: 'linkerd',
            workload: 'linkerd-destination',
            pod: 'linkerd-destination-7c9d5b8f6-q2wzl',
            target: 'linkerd-destination/destination',
          },
        },
      ],
      inputs: [{ path: 'describe-linkerd-destination.txt', content: destination }],
      check: (findings) => {
        assert.equal(findings.length, 1);
        const f = findings[0]!;
        assert.equal(f.severity, 'error');
        assert.equal(f.evidence.problem, 'oom');
        assert.equal(f.evidence.controller, 'destination');
        assert.equal(f.subject.workload, 'linkerd-destination');
        assert.match(f.message, /250Mi/);
      },
    },
    {
      name: 'a data-plane proxy OOMKilled 4 times is an error',
      expect: [
        {
          severity: 'error',
          kind: 'oom/linkerd-proxy',
          subject: { namespace: 'shop', workload: 'web', pod: 'web-6d9c7f8b5-2lqzk', target: 'web/linkerd-proxy' },
        },
      ],
      inputs: [{ path: 'describe-web.txt', content: web }],
      check: (findings) => {
        assert.deepEqual(
          findings.map((f) => [f.severity, f.evidence.container, f.evidence.problem]),
          [['error', 'linkerd-proxy', 'oom']],
        );
      },
    },
    {
      name: 'get pods: a destination replica in CrashLoopBackOff, another restarted 6 times 16 minutes ago',
      expect: [
        {
          severity: 'error',
          kind: 'crashloop/destination',
          subject: { workload: 'linkerd-destination', pod: 'linkerd-destination-7c9d5b8f6-xk4pd', target: 'linkerd-destination/destination' },
        },
        {
          severity: 'warning',
          kind: 'restarts/destination',
          subject: { workload: 'linkerd-destination', pod: 'linkerd-destination-7c9d5b8f6-q2wzl', target: 'linkerd-destination/destination' },
        },
      ],
      inputs: [{ path: 'get-pods.txt', content: pods }],
      check: (findings) => {
        const problems = findings.map((f) => `${f.severity} ${f.evidence.problem}`).sort();
        assert.deepEqual(problems, ['error crashloop', 'warning restarts']);
      },
    },
    {
      name: 'get events: BackOff for destination and a node OOM kill of linkerd2-proxy',
      expect: [
        {
          severity: 'error',
          kind: 'crashloop/destination',
          subject: { workload: 'linkerd-destination', pod: 'linkerd-destination-7c9d5b8f6-q2wzl', target: 'linkerd-destination/destination' },
        },
        { severity: 'warning', kind: 'oom/linkerd-proxy', subject: { target: 'linkerd-proxy' } },
      ],
      inputs: [{ path: 'events.txt', content: events }],
      options: { minBackOffEvents: 1 },
      check: (findings) => {
        assert.deepEqual(findings.map((f) => `${f.severity} ${f.evidence.container} ${f.evidence.problem}`).sort(), [
          'error destination crashloop',
          'warning linkerd-proxy oom',
        ]);
      },
    },
    {
      name: 'real: linkerd2#4899 proxy OOMKilled once (describe pasted with its log tail)',
      expect: [{ severity: 'warning', kind: 'oom/linkerd-proxy', subject: { target: 'linkerd-proxy' } }],
      inputs: [{ path: 'l2-4899-describe-oom-2.8.1.log', content: real4899 }],
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.equal(findings[0]!.severity, 'warning');
        assert.equal(findings[0]!.evidence.problem, 'oom');
      },
    },
    {
      name: 'real: linkerd2#10643 proxy in CrashLoopBackOff',
      expect: [{ severity: 'error', kind: 'crashloop/linkerd-proxy', subject: { target: 'linkerd-proxy' } }],
      inputs: [{ path: 'l2-10643-describe-crashloop-policy.log', content: real10643 }],
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.equal(findings[0]!.severity, 'error');
        assert.equal(findings[0]!.evidence.problem, 'crashloop');
      },
    },
    {
      name: 'the two real pastes together, neither naming its pod, stay two findings',
      expect: [
        { severity: 'error', kind: 'crashloop/linkerd-proxy', subject: { target: 'linkerd-proxy' } },
        { severity: 'warning', kind: 'oom/linkerd-proxy', subject: { target: 'linkerd-proxy' } },
      ],
      inputs: [
        { path: 'l2-4899-describe-oom-2.8.1.log', content: real4899 },
        { path: 'l2-10643-describe-crashloop-policy.log', content: real10643 },
      ],
      check: (findings) =>
        assert.deepEqual(
          findings.map((f) => `${f.severity} ${f.evidence.problem}`),
          ['error crashloop', 'warning oom'],
        ),
    },
    {
      name: 'describe, events and pods of one incident in separate files',
      expect: [
        {
          severity: 'error',
          kind: 'crashloop/destination',
          subject: { workload: 'linkerd-destination', pod: 'linkerd-destination-7c9d5b8f6-xk4pd', target: 'linkerd-destination/destination' },
        },
        {
          severity: 'error',
          kind: 'oom/destination',
          subject: {
            namespace: 'linkerd',
            workload: 'linkerd-destination',
            pod: 'linkerd-destination-7c9d5b8f6-q2wzl',
            target: 'linkerd-destination/destination',
          },
        },
        { severity: 'warning', kind: 'oom/linkerd-proxy', subject: { target: 'linkerd-proxy' } },
      ],
      inputs: [
        { path: 'describe-linkerd-destination.txt', content: destination },
        { path: 'events.txt', content: events },
        { path: 'get-pods.txt', content: pods },
      ],
    },
    {
      name: 'get pods: Init:CrashLoopBackOff and Init:Error of control-plane pods are their init container, not the controllers',
      expect: [
        {
          severity: 'error',
          kind: 'crashloop/linkerd-init',
          subject: { workload: 'linkerd-destination', pod: 'linkerd-destination-6d9f8c7b5-p4k2m', target: 'linkerd-destination/linkerd-init' },
        },
        {
          severity: 'warning',
          kind: 'restarts/linkerd-init',
          subject: { workload: 'linkerd-identity', pod: 'linkerd-identity-7c8d9f6b5-t6w8q', target: 'linkerd-identity/linkerd-init' },
        },
      ],
      inputs: [{ path: 'pods.txt', content: initCrashLoop }],
      check: (findings) => {
        assert.ok(findings.every((f) => f.evidence.role === 'init'));
        assert.ok(!findings.some((f) => /controller/.test(f.title)));
      },
    },
    {
      name: "the crash loop and linkerd-init's own log: iptables-nft refused for lack of NET_ADMIN",
      expect: [
        {
          severity: 'error',
          kind: 'crashloop/linkerd-init',
          subject: {
            namespace: 'linkerd',
            workload: 'linkerd-destination',
            pod: 'linkerd-destination-6d9f8c7b5-p4k2m',
            target: 'linkerd-destination/linkerd-init',
          },
        },
      ],
      inputs: [
        { path: 'pods.txt', content: initCrashLoop.split('\n').slice(0, 2).join('\n') + '\n' },
        { path: 'linkerd/linkerd-destination-6d9f8c7b5-p4k2m/linkerd-init.log', content: initNftDenied },
      ],
      check: (findings) => {
        assert.equal(findings[0]!.evidence.initCause, 'capabilities');
        assert.match(findings[0]!.message, /NET_ADMIN\/NET_RAW/);
        assert.match(findings[0]!.remediation, /NET_ADMIN and NET_RAW/);
        assert.equal(
          findings[0]!.title,
          'linkerd-init init container in CrashLoopBackOff in linkerd/linkerd-destination: iptables refused, NET_ADMIN/NET_RAW missing',
        );
      },
    },
    {
      name: "the network validator's log alone: linkerd-cni has not configured the node",
      expect: [
        {
          severity: 'error',
          kind: 'init-failed/linkerd-network-validator',
          subject: { namespace: 'shop', workload: 'web', pod: 'web-7d9f8c6b5-x2x8k', target: 'web/linkerd-network-validator' },
        },
      ],
      inputs: [{ path: 'shop/web-7d9f8c6b5-x2x8k/linkerd-network-validator.log', content: validatorFailed }],
      check: (findings) =>
        assert.equal(findings[0]!.title, 'linkerd-network-validator init container failed in shop/web: linkerd-cni has not configured the node'),
    },
    {
      name: 'get pod -o json: linkerd-init in CrashLoopBackOff, its termination message the iptables-nft refusal',
      expect: [
        {
          severity: 'error',
          kind: 'crashloop/linkerd-init',
          subject: { namespace: 'booksapp', workload: 'books', pod: 'books-6b9c7d8f5-k2m4p', target: 'books/linkerd-init' },
        },
      ],
      inputs: [{ path: 'pod.json', content: podJsonInit }],
      check: (findings) => {
        assert.equal(findings[0]!.evidence.initCause, 'capabilities');
        assert.match(findings[0]!.message, /NET_ADMIN/);
      },
    },
    {
      name: 'FailedCreatePodSandBox from the linkerd-cni plugin (Unauthorized): the plugin is named, not a container',
      expect: [{ severity: 'error', kind: 'init-failed/linkerd-cni', subject: { workload: 'web', pod: 'web-7d9f8c6b5-x2x8k', target: 'web/linkerd-cni' } }],
      inputs: [{ path: 'events.txt', content: cniSandbox }],
      check: (findings) => {
        assert.equal(findings[0]!.evidence.initCause, 'cni-api-unauthorized');
        assert.equal(findings[0]!.title, 'linkerd-cni plugin failed in web: the pod network could not be set up: its API token is stale (Unauthorized)');
      },
    },
    {
      name: "a describe's sandbox row alone: linkerd-cni Unauthorized, its token copied to the node is stale",
      expect: [{ severity: 'error', kind: 'init-failed/linkerd-cni', subject: { target: 'linkerd-cni' } }],
      inputs: [{ path: 'events.txt', content: cniUnauthorized }],
      check: (findings) => {
        assert.equal(findings[0]!.evidence.initCause, 'cni-api-unauthorized');
        assert.match(findings[0]!.title, /token is stale/);
        assert.match(findings[0]!.remediation, /rollout restart ds\/linkerd-cni/);
      },
    },
    {
      name: "the event's message alone: a bare Forbidden is the nodes' HTTP proxy answering, not RBAC",
      expect: [
        {
          severity: 'error',
          kind: 'init-failed/linkerd-cni',
          subject: { namespace: 'linkerd', workload: 'linkerd-identity', pod: 'linkerd-identity-784744bbd9-fz4rb', target: 'linkerd-identity/linkerd-cni' },
        },
      ],
      inputs: [{ path: 'message.txt', content: cniViaProxy }],
      check: (findings) => {
        assert.equal(findings[0]!.evidence.initCause, 'cni-api-via-proxy');
        assert.match(findings[0]!.message, /NO_PROXY/);
      },
    },
    {
      name: 'sandbox rows without header: the plugin cannot connect to the API service IP from the node',
      expect: [{ severity: 'error', kind: 'init-failed/linkerd-cni', subject: { target: 'linkerd-cni' } }],
      inputs: [{ path: 'events.txt', content: cniCannotConnect + cniCannotConnect }],
      check: (findings) => assert.equal(findings[0]!.evidence.initCause, 'cni-api-unreachable'),
    },
    {
      name: 'a sandbox row whose CNI chain returned no result (unexpected end of JSON input)',
      expect: [{ severity: 'error', kind: 'init-failed/linkerd-cni', subject: { target: 'linkerd-cni' } }],
      inputs: [{ path: 'events.txt', content: cniNoResult }],
      check: (findings) => assert.equal(findings[0]!.evidence.initCause, 'cni-no-result'),
    },
    {
      name: 'the network validator backed off once (the event message alone): the pod cannot start',
      expect: [{ severity: 'error', kind: 'crashloop/linkerd-network-validator', subject: { target: 'linkerd-network-validator' } }],
      inputs: [{ path: 'message.txt', content: validatorBackOff }],
      check: (findings) => assert.match(findings[0]!.message, /ordering race/),
    },
    {
      name: "a describe cut at Last State: OOMKilled, its message the proxy's JSON log: the proxy",
      expect: [{ severity: 'warning', kind: 'oom/linkerd-proxy', subject: { target: 'linkerd-proxy' } }],
      inputs: [{ path: 'describe.txt', content: proxyOomCut }],
    },
    {
      name: 'a container status cut out of a pod YAML: the proxy-injector OOMKilled',
      expect: [{ severity: 'error', kind: 'oom/proxy-injector', subject: { target: 'proxy-injector' } }],
      inputs: [{ path: 'status.yaml', content: injectorStatusCut }],
    },
    {
      name: 'get pods of a Linkerd 2.x control plane: a linkerd-controller replica in CrashLoopBackOff is its public API',
      expect: [
        {
          severity: 'error',
          kind: 'crashloop/public-api',
          subject: { workload: 'linkerd-controller', pod: 'linkerd-controller-695dcbdcf7-9bsvp', target: 'linkerd-controller/public-api' },
        },
      ],
      inputs: [
        {
          path: 'pods.txt',
          content: [
            'NAME                                  READY     STATUS             RESTARTS   AGE',
            'linkerd-controller-695dcbdcf7-8ssrn   4/4       Running            0          15h',
            'linkerd-controller-695dcbdcf7-9bsvp   1/4       CrashLoopBackOff   292        21h',
            '',
          ].join('\n'),
        },
      ],
    },
    {
      name: 'real: linkerd2#6254 pod spec fragment: linkerd-init adds NET_RAW and drops it, the drop wins',
      expect: [{ severity: 'error', kind: 'init-failed/linkerd-init', subject: { target: 'linkerd-init' } }],
      inputs: [{ path: 'pod.yaml', content: initDropsNetRaw }],
      check: (findings) => {
        assert.match(findings[0]!.title, /NET_RAW dropped from its capabilities/);
        assert.match(findings[0]!.message, /adds NET_RAW but also drops NET_RAW/);
        assert.equal(findings[0]!.evidence.initCause, 'capabilities-dropped');
      },
    },
    {
      name: "a Deployment's pod template whose linkerd-init drops ALL: both capabilities are gone, named by the workload",
      expect: [{ severity: 'error', kind: 'init-failed/linkerd-init', subject: { namespace: 'shop', target: 'linkerd-init' } }],
      inputs: [{ path: 'deploy.json', content: deploymentDropAll }],
      check: (findings) => {
        assert.match(findings[0]!.title, /in shop\/deployment\/web: NET_ADMIN and NET_RAW dropped/);
        assert.match(findings[0]!.message, /drops NET_ADMIN \(by ALL\) and NET_RAW \(by ALL\)/);
      },
    },
    {
      name: 'real: linkerd2#2554 get pods: one of three controller replicas crash-looping, Prometheus pods evicted',
      expect: [
        {
          severity: 'error',
          kind: 'crashloop/public-api',
          subject: { workload: 'linkerd-controller', pod: 'linkerd-controller-695dcbdcf7-9bsvp', target: 'linkerd-controller/public-api' },
        },
        {
          severity: 'warning',
          kind: 'restarts/public-api',
          subject: { workload: 'linkerd-controller', pod: 'linkerd-controller-695dcbdcf7-8ssrn', target: 'linkerd-controller/public-api' },
        },
        { severity: 'warning', kind: 'evicted/linkerd-prometheus', subject: { workload: 'linkerd-prometheus', target: 'linkerd-prometheus' } },
      ],
      inputs: [{ path: 'pods.txt', content: haPods }],
      check: (findings) => {
        assert.match(findings[0]!.message, /One of the 3 replicas is crash-looping while the other 2 run/);
        assert.match(findings[2]!.message, /^3 linkerd-prometheus pods were evicted/);
        assert.equal(findings[2]!.evidence.evicted, 3);
      },
    },
    {
      name: 'an Evicted event of a linkerd-viz pod names what the node ran short of',
      expect: [
        {
          severity: 'warning',
          kind: 'evicted/prometheus',
          subject: { namespace: 'linkerd-viz', workload: 'prometheus', pod: 'prometheus-7bd8bd4b6c-x5k2p', target: 'prometheus' },
        },
      ],
      inputs: [
        {
          path: 'events.txt',
          content:
            'linkerd-viz   12m   Warning   Evicted   pod/prometheus-7bd8bd4b6c-x5k2p   The node was low on resource: memory. Threshold quantity: 100Mi, available: 91300Ki. Container prometheus was using 1811964Ki, request is 0, has larger consumption of memory.\n',
        },
      ],
      check: (findings) => assert.match(findings[0]!.message, /ran short of memory/),
    },
  ],
  quiet: [
    {
      name: "the same status naming its container (the application): not Linkerd's, not this rule's",
      // kubectl sorts a status's keys: `name:` comes after `lastState:`.
      inputs: [{ path: 'paste.txt', content: UNNAMED_STATUS.replace('      ready: true', '      name: web\n      ready: true') }],
    },
    {
      name: "linkerd-init as Linkerd's template writes it: NET_ADMIN and NET_RAW added, nothing dropped",
      inputs: [{ path: 'pod.yaml', content: initDropsNetRaw.replace('        drop:\n        - NET_RAW\n', '') }],
    },
    {
      name: 'a privileged linkerd-init that drops ALL keeps every capability',
      inputs: [{ path: 'pod.yaml', content: initDropsNetRaw.replace('- NET_RAW\n      privileged: false', '- ALL\n      privileged: true') }],
    },
    {
      name: "an application container dropping ALL, and an evicted pod that is not Linkerd's",
      inputs: [
        { path: 'deploy.json', content: deploymentDropAll.replace('"linkerd-init"', '"setup"') },
        { path: 'pods.txt', content: 'NAME                   READY   STATUS    RESTARTS   AGE\nweb-6f44484f65-29629   0/1     Evicted   0          20h\n' },
      ],
    },
    { name: 'a sandbox failure of another CNI plugin (Calico not ready on the node)', inputs: [{ path: 'events.txt', content: otherCni }] },
    {
      name: 'an image pull back-off of the network validator is no crash',
      inputs: [
        { path: 'events.txt', content: '  Normal   BackOff    2m (x3 over 4m)   kubelet   Back-off pulling image "cr.l5d.io/linkerd/proxy:stable-2.14.10"\n' },
      ],
    },
    { name: 'a healthy describe: 0 restarts, linkerd-init Completed, Normal events only', inputs: [{ path: 'describe-emoji.txt', content: healthyDescribe }] },
    { name: 'get pods -A -o wide: one control-plane restart 12 days ago, a Completed job', inputs: [{ path: 'get-pods.txt', content: healthyPods }] },
    { name: 'get events -o wide with Normal events only', inputs: [{ path: 'events-wide.txt', content: healthyEvents }] },
    { name: 'a proxy that restarted once with reason Error', inputs: [{ path: 'describe-web.txt', content: onceLongAgo }] },
  ],
};
