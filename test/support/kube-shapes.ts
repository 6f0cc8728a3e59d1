// Kubernetes output as kubectl prints it, generated for the third hostile-input audit's tests
// (issue 44) at any size: `kubectl describe pod` sections, `kubectl get events` rows, and pod
// objects as `kubectl get pod -o yaml` / `-o json` write them. The layouts follow kubectl's
// printers: k8s.io/kubectl/pkg/describe/describe.go (describePod, describeContainerState: a
// two-space indent per level, labels padded to a column) and the events table of
// k8s.io/kubectl/pkg/cmd/events (NAMESPACE LAST SEEN TYPE REASON OBJECT MESSAGE); the objects
// are core/v1 Pod with status.containerStatuses[].lastState.terminated as the API returns it.

export interface PodShape {
  name: string;
  namespace: string;
  /** The proxy was OOMKilled (last state) and restarted this many times. */
  oomRestarts?: number;
}

/** One pod of `kubectl describe pods -A`: linkerd-init completed, linkerd-proxy and an app container. */
export function describePod(p: PodShape): string {
  const proxyState =
    p.oomRestarts === undefined
      ? ['    State:          Running', '      Started:      Mon, 07 Dec 2026 01:02:03 +0000', '    Ready:          True', '    Restart Count:  0']
      : [
          '    State:          Running',
          '      Started:      Mon, 07 Dec 2026 01:12:03 +0000',
          '    Last State:     Terminated',
          '      Reason:       OOMKilled',
          '      Exit Code:    137',
          '      Started:      Mon, 07 Dec 2026 01:02:03 +0000',
          '      Finished:     Mon, 07 Dec 2026 01:12:01 +0000',
          '    Ready:          True',
          `    Restart Count:  ${p.oomRestarts}`,
        ];
  return [
    `Name:             ${p.name}`,
    `Namespace:        ${p.namespace}`,
    'Priority:         0',
    'Service Account:  default',
    'Node:             worker-1/10.0.0.11',
    'Status:           Running',
    'IP:               10.244.1.17',
    'Init Containers:',
    '  linkerd-init:',
    '    Image:          cr.l5d.io/linkerd/proxy-init:v2.4.1',
    '    State:          Terminated',
    '      Reason:       Completed',
    '      Exit Code:    0',
    '    Ready:          True',
    '    Restart Count:  0',
    'Containers:',
    '  linkerd-proxy:',
    '    Image:          cr.l5d.io/linkerd/proxy:stable-2.14.10',
    '    Ports:          4143/TCP, 4191/TCP',
    ...proxyState,
    '    Limits:',
    '      memory:  250Mi',
    '  app:',
    '    Image:          ghcr.io/example/web:1.4.2',
    '    State:          Running',
    '      Started:      Mon, 07 Dec 2026 01:02:05 +0000',
    '    Ready:          True',
    '    Restart Count:  0',
    'Conditions:',
    '  Type              Status',
    '  Ready             True',
    'Events:            <none>',
    '',
    '',
  ].join('\n');
}

export const EVENTS_HEADER = 'NAMESPACE   LAST SEEN   TYPE      REASON      OBJECT                          MESSAGE';

/** A `kubectl get events -A` row. */
export function eventRow(namespace: string, pod: string, reason: string, message: string, type = 'Warning'): string {
  return `${namespace.padEnd(12)}${'5m'.padEnd(12)}${type.padEnd(10)}${reason.padEnd(12)}${`pod/${pod}`.padEnd(32)}${message}`;
}

/** A start-up readiness blip, as the kubelet words it while the app is not listening yet. */
export const READINESS_REFUSED = 'Readiness probe failed: Get "http://10.244.1.17:8080/ready": dial tcp 10.244.1.17:8080: connect: connection refused';
/** The probe that policy refuses: the proxy answers 403 (default-deny inbound policy). */
export const READINESS_403 = 'Readiness probe failed: HTTP probe failed with statuscode: 403';

/** A core/v1 Pod as the API returns it: the proxy OOMKilled when `oom`, healthy otherwise. */
export function podObject(name: string, namespace: string, oom: boolean): Record<string, unknown> {
  const proxyStatus = {
    name: 'linkerd-proxy',
    image: 'cr.l5d.io/linkerd/proxy:stable-2.14.10',
    ready: true,
    restartCount: oom ? 4 : 0,
    started: true,
    state: { running: { startedAt: '2026-12-07T01:12:03Z' } },
    lastState: oom ? { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: '2026-12-07T01:02:03Z', finishedAt: '2026-12-07T01:12:01Z' } } : {},
  };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      labels: { app: 'web', 'linkerd.io/control-plane-ns': 'linkerd', 'linkerd.io/proxy-deployment': 'web' },
      annotations: { 'linkerd.io/inject': 'enabled', 'config.linkerd.io/proxy-memory-limit': '250Mi' },
      uid: '3c1f6f1e-5b8e-4d1a-9a51-0c5e0e3f7a10',
    },
    spec: {
      initContainers: [{ name: 'linkerd-init', image: 'cr.l5d.io/linkerd/proxy-init:v2.4.1', args: ['--incoming-proxy-port', '4143'] }],
      containers: [
        {
          name: 'linkerd-proxy',
          image: 'cr.l5d.io/linkerd/proxy:stable-2.14.10',
          env: Array.from({ length: 40 }, (_, i) => ({ name: `LINKERD2_PROXY_SETTING_${i}`, value: `value-${i}` })),
          ports: [
            { containerPort: 4143, name: 'linkerd-proxy' },
            { containerPort: 4191, name: 'linkerd-admin' },
          ],
          resources: { limits: { memory: '250Mi' }, requests: { cpu: '100m', memory: '20Mi' } },
        },
        { name: 'app', image: 'ghcr.io/example/web:1.4.2', ports: [{ containerPort: 8080 }] },
      ],
    },
    status: {
      phase: 'Running',
      podIP: '10.244.1.17',
      initContainerStatuses: [
        { name: 'linkerd-init', ready: true, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } }, lastState: {} },
      ],
      containerStatuses: [proxyStatus, { name: 'app', ready: true, restartCount: 0, state: { running: { startedAt: '2026-12-07T01:02:05Z' } }, lastState: {} }],
    },
  };
}
