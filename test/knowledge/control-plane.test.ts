import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONTROLLER_ADDRESS_REGEX, controlPlaneLocation, controllerOfAddress, splitAddress } from '../../src/knowledge/control-plane.js';

// The addresses the three former classifiers disagreed on, and the cases around them, each
// decided by mechanism: the port names the API, the host says whether it is a controller.
const CASES: readonly [string, ReturnType<typeof controllerOfAddress>][] = [
  // The policy Service fronts the destination pod; on 8086 it is the destination API.
  ['linkerd-policy.linkerd.svc.cluster.local:8086', 'destination'],
  ['linkerd-policy.linkerd.svc.cluster.local:8090', 'policy'],
  // A controller pod's proxy reaches its own containers on loopback, IPv6 too.
  ['[::1]:8090', 'policy'],
  ['127.0.0.1:8086', 'destination'],
  ['localhost:8080', 'identity'],
  // `linkerd-` is not a controller: an app called linkerd-web serving HTTP on 8080.
  ['linkerd-web.shop.svc.cluster.local:8080', null],
  ['linkerd-dst-headless.linkerd.svc.cluster.local:8086', 'destination'],
  ['10-42-0-12.linkerd-dst-headless.linkerd.svc.cluster.local:8086', 'destination'],
  ['linkerd-identity-headless.linkerd.svc.cluster.local:8080', 'identity'],
  ['linkerd-destination-5d8f9c7b4-abcde:8090', 'policy'],
  // A port alone says nothing: every app may listen on 8080.
  ['10.42.0.12:8080', null],
  ['web.shop.svc.cluster.local:8086', null],
  // A controller name on a port no controller serves (the policy webhook, admin) is not its API.
  ['linkerd-policy-validator.linkerd.svc:443', null],
  ['linkerd-identity.linkerd.svc.cluster.local:9990', null],
  // Bare names (DNS questions) are classified by the name.
  ['linkerd-dst-headless.linkerd.svc.cluster.local', 'destination'],
  ['linkerd-web.shop.svc.cluster.local', null],
];

describe('controllerOfAddress', () => {
  for (const [address, expected] of CASES) {
    it(`${address} → ${expected ?? 'not a controller'}`, () => assert.equal(controllerOfAddress(address), expected));
  }

  it('is undecided without an address', () => assert.equal(controllerOfAddress(undefined), null));

  it('splits IPv6 and bare names', () => {
    assert.deepEqual(splitAddress('[::1]:8090'), { host: '[::1]', port: '8090' });
    assert.deepEqual(splitAddress('linkerd-policy'), { host: 'linkerd-policy', port: null });
  });
});

describe('CONTROLLER_ADDRESS_REGEX, anchored as PromQL and LogQL label matchers anchor it', () => {
  const anchored = new RegExp(`^(?:${CONTROLLER_ADDRESS_REGEX})$`);
  for (const [address, expected] of CASES) {
    if (!/:\d+$/.test(address)) continue;
    it(`${expected ? 'matches' : 'rejects'} ${address}, as the offline classifier decides`, () => assert.equal(anchored.test(address), expected !== null));
  }

  it('has no backslash, which a double-quoted PromQL or LogQL string would take as an escape', () => assert.ok(!CONTROLLER_ADDRESS_REGEX.includes('\\')));
});

describe('controlPlaneLocation', () => {
  it('reads the namespace and cluster domain the proxies looked up', () => {
    const line =
      'WARN ThreadId(01) outbound:controller{addr=linkerd-dst-headless.mesh-system.svc.corp.example:8086}: linkerd_reconnect: Failed to connect error=connect timed out';
    assert.deepEqual(controlPlaneLocation(['unrelated line', line]), { namespace: 'mesh-system', clusterDomain: 'corp.example', known: true });
    assert.deepEqual(controlPlaneLocation(['linkerd-identity-headless.linkerd.svc.cluster.local.']), {
      namespace: 'linkerd',
      clusterDomain: 'cluster.local',
      known: true,
    });
  });

  it("falls back to Linkerd's install defaults, and is not fooled by an app named linkerd-web", () => {
    assert.deepEqual(controlPlaneLocation(['linkerd-web.shop.svc.cluster.local:8080']), { namespace: 'linkerd', clusterDomain: 'cluster.local', known: false });
    assert.deepEqual(controlPlaneLocation([]), { namespace: 'linkerd', clusterDomain: 'cluster.local', known: false });
  });
});
