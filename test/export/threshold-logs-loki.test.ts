// The Loki twins of the threshold log rules on the line shapes the offline rules count (plain,
// JSON, legacy), and on the lines they must leave to other rules; thresholds come from the rules'
// options. LogQL validity is checked for every exported alert in loki-rules.test.ts.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AlertingRule } from '../../src/kit/export/types.js';
import { fleetGroups, overrides } from '../support/export-rules.js';
import { logqlProblems, runPipeline } from '../support/loki-ruler.js';

const rules = fleetGroups('loki').groups.flatMap((g) => g.rules);
const expr = (name: string, from: AlertingRule[] = rules) => {
  const found = from.find((r) => r.alert === name);
  assert.ok(found, name);
  return found.expr;
};
const kept = (name: string, line: string) => runPipeline(expr(name), line) !== null;

const OBTAIN =
  '[    11.5s] ERROR ThreadId(02) identity:identity{server.addr=linkerd-identity-headless.linkerd.svc.cluster.local:8080}: linkerd_proxy_identity_client::certify: Failed to obtain identity error=status: Unknown';
const CERTIFY_LEGACY = 'ERR! [    20.1s] linkerd2_proxy::app::identity Failed to certify identity: grpc-status: Unavailable';
const INVALID = '[  3001.2s]  WARN ThreadId(02) daemon:identity: linkerd_app_core::identity: Received invalid ceritficate: unknown issuer';
const UNKNOWN_ISSUER =
  '{"timestamp":"2025-12-12T19:55:11.333411Z","level":"WARN","fields":{"message":"Failed to connect","error":"endpoint 10.42.0.15:8086: invalid peer certificate: UnknownIssuer"},"target":"linkerd_reconnect","spans":[{"name":"dst"},{"addr":"linkerd-dst-headless.linkerd.svc.cluster.local:8086","name":"controller"}],"threadId":"ThreadId(1)"}';
const ACCESS_DENIED = (uptime: string) => `[${uptime}s]  WARN ThreadId(01) server{port=4191}: rustls::session: Sending fatal alert AccessDenied    `;
const WAITING = (uptime: string) => `[${uptime}s]  WARN ThreadId(01) linkerd_app: Waiting for identity to be initialized...`;

const ENTER_DATA =
  '[   603.1s]  INFO ThreadId(01) outbound:proxy{addr=10.96.12.7:80}:service{ns=shop name=web port=80}: linkerd_proxy_balance_queue::worker: Unavailable; entering failfast timeout=3.0';
const ENTER_CLIENT_POOL =
  '[   330.4s]  INFO ThreadId(01) dst:controller{addr=linkerd-dst-headless.linkerd.svc.cluster.local:8086}: linkerd_proxy_balance_queue::worker: Unavailable; entering failfast timeout=30.0';
const ENTER_CONTROLLER_INBOUND = '[950833.887787s]  WARN ThreadId(01) inbound:server{port=8086}: linkerd_stack::failfast: Service entering failfast after 1s';
const REFUSED =
  '[   604.2s]  INFO ThreadId(01) outbound:proxy{addr=10.96.12.7:80}:rescue{client.addr=10.42.3.7:51234}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=logical service web.shop.svc.cluster.local:80: service in fail-fast';
const ROUTER_CAPACITY =
  'inbound:accept{peer.addr=x.x.x.x:63058}:source{target.addr=x.x.x.x:8084}: linkerd2_app_core::errors: Failed to proxy request: router capacity reached (100)';

const NO_RECORD = (uptime: string) =>
  `[${uptime}s]  WARN ThreadId(02) identity:controller{addr=linkerd-identity-headless.linkerd.svc.cluster.local:8080}: linkerd_app_core::control: Failed to resolve control-plane component error=no record found for name: linkerd-identity-headless.linkerd.svc.cluster.local. type: SRV class: IN`;
const REFINE =
  'INFO outbound:accept{peer.addr=10.240.2.1:4100}:source{target.addr=10.240.5.1:80}:logical{addr=ppe.testhost.example.com:80}: linkerd2_proxy_http::canonicalize: DNS refinement timed out';
const REFINE_LEGACY = 'ERR! linkerd2_proxy::proxy::canonicalize failed to refine catalyst.elasticsearch.service.azure-west-us.consul: deadline has elapsed';

const DETECT_PLAIN = (port: number) =>
  `[   412.7s]  INFO ThreadId(01) outbound:proxy{addr=10.96.33.4:${port}}: linkerd_detect: Continuing after timeout: linkerd_proxy_http::version::Version protocol detection timed out after 10s`;
const DETECT_JSON =
  '{"timestamp":"[ 10132.943961s]","level":"INFO","fields":{"message":"Continuing after timeout: linkerd_proxy_http::version::Version protocol detection timed out after 10s"},"target":"linkerd_detect","spans":[{"name":"outbound"},{"addr":"10.163.70.5:9000","name":"proxy"}],"threadId":"ThreadId(2)"}';
const TLS_DETECT = '[ 68866.229000s]  INFO ThreadId(01) inbound:server{port=4143}: linkerd_app_core::serve: Connection closed error=TLS detection timed out';

const DENIED_2_11 =
  '[    54.614678s]  INFO ThreadId(01) inbound:server{port=55678}:rescue{client.addr=169.254.42.1:52388}: linkerd_app_core::errors::respond: Request failed error=unauthorized connection on server collector-opencensus';
const DENIED_POLICY =
  '[   800.2s]  INFO ThreadId(01) inbound:server{port=8080}:http: linkerd_app_inbound::policy::http: Request denied server.group=policy.linkerd.io server.kind=server server.name=payments-http route.group= route.kind=default route.name=default client.tls=None(NoClientHello) client.ip=10.42.5.20';

describe('Loki twins of the threshold log rules', () => {
  test('identity-failure: every certification wording, UnknownIssuer in JSON, TLS alerts only after the grace', () => {
    for (const line of [OBTAIN, CERTIFY_LEGACY, INVALID]) assert.ok(kept('LinkerdProxyIdentityCertificationFailing', line), line);
    assert.ok(kept('LinkerdProxyTrustAnchorMismatch', UNKNOWN_ISSUER));
    assert.ok(kept('LinkerdProxyRefusingTlsHandshakes', ACCESS_DENIED('    23.609332')));
    assert.ok(!kept('LinkerdProxyRefusingTlsHandshakes', ACCESS_DENIED('     4.391103')), 'start-up noise');
    assert.ok(kept('LinkerdProxyWaitingForIdentity', WAITING('    75.000000')));
    assert.ok(!kept('LinkerdProxyWaitingForIdentity', WAITING('    15.000000')));
    assert.match(expr('LinkerdProxyIdentityCertificationFailing'), /\) >= 3$/);
    assert.match(expr('LinkerdProxyTrustAnchorMismatch'), /\) >= 2$/);
  });

  test("failfast: data-plane entries and refusals count, the controllers' own fail-fast does not", () => {
    assert.ok(kept('LinkerdProxyServiceFailfastRepeated', ENTER_DATA));
    for (const line of [ENTER_CLIENT_POOL, ENTER_CONTROLLER_INBOUND]) assert.ok(!kept('LinkerdProxyServiceFailfastRepeated', line), line);
    for (const line of [REFUSED, ROUTER_CAPACITY]) assert.ok(kept('LinkerdProxyRequestsRefused', line), line);
    assert.ok(!kept('LinkerdProxyRequestsRefused', ENTER_DATA));
    const tuned = fleetGroups('loki', { overrides: overrides({ failfast: { minEpisodes: 4, minRefusedRequests: 50 } }) }).groups.flatMap((g) => g.rules);
    assert.match(expr('LinkerdProxyServiceFailfastRepeated', tuned), /\) >= 4$/);
    assert.match(expr('LinkerdProxyRequestsRefused', tuned), /\) >= 50$/);
  });

  test('dns-resolution-failure: control-plane lookups after the grace, refinement timeouts in both wordings', () => {
    assert.ok(kept('LinkerdProxyCannotResolveControlPlane', NO_RECORD('    25.008354')));
    assert.ok(!kept('LinkerdProxyCannotResolveControlPlane', NO_RECORD('     0.003857')), 'start-up race');
    assert.ok(
      !kept('LinkerdProxyCannotResolveControlPlane', '[ 25.0s]  WARN ThreadId(01) linkerd_dns: no record found for name: web.shop.svc.cluster.local. type: A'),
      'not a control-plane name',
    );
    for (const line of [REFINE, REFINE_LEGACY]) assert.ok(kept('LinkerdProxyDnsRefinementTimingOut', line), line);
  });

  test('protocol-detection-timeout: the port comes from plain and JSON spans; known ports use their own threshold', () => {
    assert.deepEqual(runPipeline(expr('LinkerdProtocolDetectionTimeoutKnownPort'), DETECT_PLAIN(3306)), { port: '3306' });
    assert.equal(runPipeline(expr('LinkerdProtocolDetectionTimeoutKnownPort'), DETECT_PLAIN(9000)), null);
    assert.deepEqual(runPipeline(expr('LinkerdProtocolDetectionTimeout'), DETECT_JSON), { port: '9000' });
    assert.equal(runPipeline(expr('LinkerdProtocolDetectionTimeout'), TLS_DETECT), null, 'TLS detection timeouts are not counted');
    assert.match(expr('LinkerdProtocolDetectionTimeoutKnownPort'), /\) >= 1$/);
    assert.match(expr('LinkerdProtocolDetectionTimeout'), /\) >= 3$/);
  });

  test('authorization-denied: the server name from the 2.11 error text and from the policy fields', () => {
    assert.deepEqual(runPipeline(expr('LinkerdAuthorizationDenials'), DENIED_2_11), { server: 'collector-opencensus' });
    assert.deepEqual(runPipeline(expr('LinkerdAuthorizationDenials'), DENIED_POLICY), { server: 'payments-http' });
    assert.equal(runPipeline(expr('LinkerdAuthorizationDenials'), REFUSED), null);
    assert.match(expr('LinkerdAuthorizationDenials'), /\) >= 1$/);
  });

  test('every twin is valid LogQL with tuned options too', () => {
    const tuned = fleetGroups('loki', {
      overrides: overrides({
        'identity-failure': { startupGraceSeconds: 45, maxIdentityWaitSeconds: 120 },
        'dns-resolution-failure': { startupGraceSeconds: 0 },
      }),
    }).groups.flatMap((g) => g.rules);
    for (const r of tuned) assert.deepEqual(logqlProblems(r.expr), [], r.expr);
    assert.doesNotMatch(expr('LinkerdProxyCannotResolveControlPlane', tuned), /uptime/);
  });
});
