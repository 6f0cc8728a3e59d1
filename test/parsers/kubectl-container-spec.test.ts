// A pod's spec read for how each container may run (container-spec records): from a whole Pod, a
// Deployment's pod template, and the fragment users paste, cut from `kubectl get pod -o yaml`
// above `initContainers:` (linkerd/linkerd2#6254, AKS: a policy added `drop: [NET_RAW]` to
// linkerd-init, whose template adds NET_ADMIN and NET_RAW).

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { LdRecord } from '../../src/core/types.js';
import type { ContainerSpecRecord } from '../../src/core/container-spec.js';
import { readEntry } from '../../src/engine/pipeline.js';

async function specs(content: string, path = 'pod.yaml') {
  const records: LdRecord[] = [];
  const { stats } = await readEntry({ path, stream: Readable.from([Buffer.from(content)]), size: null }, { record: (r) => records.push(r) });
  return { stats, specs: records.filter((r): r is ContainerSpecRecord => r.kind === 'container-spec') };
}

const INIT = [
  '  initContainers:',
  '  - args:',
  '    - --incoming-proxy-port',
  '    - "4143"',
  '    - --inbound-ports-to-ignore',
  '    - 4190,4191',
  '    image: bcentralcontrolplane.azurecr.io/linkerd/proxy-init:v1.3.9',
  '    imagePullPolicy: IfNotPresent',
  '    name: linkerd-init',
  '    resources:',
  '      limits:',
  '        cpu: 100m',
  '        memory: 50Mi',
  '    securityContext:',
  '      allowPrivilegeEscalation: false',
  '      capabilities:',
  '        add:',
  '        - NET_ADMIN',
  '        - NET_RAW',
  '        drop:',
  '        - NET_RAW',
  '      privileged: false',
  '      readOnlyRootFilesystem: true',
  '      runAsNonRoot: false',
  '      runAsUser: 0',
  '    terminationMessagePolicy: FallbackToLogsOnError',
];
const FRAGMENT = [
  '    - mountPath: /var/run/secrets/kubernetes.io/serviceaccount',
  '      name: default-token-n7hss',
  '      readOnly: true',
  '  dnsPolicy: ClusterFirst',
  '  enableServiceLinks: true',
  ...INIT,
  '  nodeName: aks-nodepool-23343765-vmss000000',
  '',
].join('\n');
const WHOLE = [
  'apiVersion: v1',
  'kind: Pod',
  'metadata:',
  '  name: web-5d8f9c7b6-k2x8p',
  '  namespace: shop',
  'spec:',
  '  containers:',
  '  - image: nginx:1.25',
  '    name: web',
  ...INIT,
  'status:',
  '  phase: Pending',
  '',
].join('\n');

const fields = (s: ContainerSpecRecord) => [
  s.container,
  s.containerKind,
  s.image,
  s.privileged,
  s.capabilitiesAdd,
  s.capabilitiesDrop,
  s.runAsUser,
  s.runAsNonRoot,
];

describe('container-spec records', () => {
  it('a spec fragment from initContainers: on gives the record the whole Pod gives', async () => {
    const fragment = await specs(FRAGMENT);
    const whole = await specs(WHOLE);
    assert.equal(fragment.stats.kind, 'kubectl');
    assert.deepEqual(fragment.specs.map(fields), [
      ['linkerd-init', 'init', 'bcentralcontrolplane.azurecr.io/linkerd/proxy-init:v1.3.9', false, ['NET_ADMIN', 'NET_RAW'], ['NET_RAW'], 0, false],
    ]);
    assert.deepEqual(whole.specs.filter((s) => s.container === 'linkerd-init').map(fields), fragment.specs.map(fields));
    assert.deepEqual(
      whole.specs.map((s) => [s.pod, s.namespace, s.container]),
      [
        ['web-5d8f9c7b6-k2x8p', 'shop', 'web'],
        ['web-5d8f9c7b6-k2x8p', 'shop', 'linkerd-init'],
      ],
    );
    assert.equal(fragment.specs[0]!.line, 7);
  });

  it("a Deployment's pod template is named by the workload, capabilities normalised", async () => {
    const deployment = JSON.stringify(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'shop' },
        spec: {
          template: {
            spec: { initContainers: [{ name: 'linkerd-init', securityContext: { capabilities: { add: ['net_admin', 'CAP_NET_RAW'], drop: ['all'] } } }] },
          },
        },
      },
      null,
      2,
    );
    const { specs: got } = await specs(deployment, 'deploy.json');
    assert.deepEqual(
      got.map((s) => [s.workload, s.namespace, s.pod, s.capabilitiesAdd, s.capabilitiesDrop]),
      [['deployment/web', 'shop', undefined, ['NET_ADMIN', 'NET_RAW'], ['ALL']]],
    );
  });

  it("describe's Containers: section is not a spec", async () => {
    const { specs: got } = await specs(
      'Name:         web-0\nNamespace:    shop\nContainers:\n  web:\n    Image:          nginx\n    State:          Running\n',
      'describe.txt',
    );
    assert.deepEqual(got, []);
  });
});
