// The exported Loki ruler rules: LogQL checked with Grafana's LogQL grammar, the file checked
// against the ruler's shape, and the line filters / regexp stages applied to real line shapes.
// What this cannot show (no Loki here): query cost, and label_format semantics beyond the template.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { renderRuleFile } from '../../src/export/render.js';
import type { AlertingRule } from '../../src/export/types.js';
import { fleetGroups, overrides } from '../support/export-rules.js';
import { logqlProblems, rulerFileProblems } from '../support/loki-ruler.js';

const { groups, notices } = fleetGroups('loki');
const lokiRules = groups.flatMap((g) => g.rules);

function alertNamed(rules: AlertingRule[], name: string): AlertingRule {
  const found = rules.find((r) => r.alert === name);
  assert.ok(found, `no alert ${name}`);
  return found;
}

describe('exported Loki rules', () => {
  for (const rule of lokiRules) {
    test(`LogQL of ${rule.alert} parses without error nodes`, () => {
      assert.deepEqual(logqlProblems(rule.expr), [], rule.expr);
    });
  }

  test('the LogQL check can fail', () => {
    assert.notDeepEqual(logqlProblems('sum by (pod) (count_over_time({container="linkerd-proxy"} |= "x" [1m])'), []);
    assert.notDeepEqual(logqlProblems('count_over_time({container="linkerd-proxy"} |= )'), []);
  });

  test('the ruler file and the PrometheusRule spec have the ruler shape', () => {
    const file = parse(renderRuleFile(groups, { format: 'yaml', target: 'loki', source: null }));
    assert.deepEqual(rulerFileProblems(file), []);
    const resource = parse(renderRuleFile(groups, { format: 'prometheusrule', target: 'loki', source: null })) as { apiVersion: string; kind: string; spec: { groups: unknown } };
    assert.equal(resource.apiVersion, 'monitoring.coreos.com/v1');
    assert.equal(resource.kind, 'PrometheusRule');
    assert.deepEqual(rulerFileProblems({ groups: resource.spec.groups }), []);
    assert.notDeepEqual(rulerFileProblems({ groups: [{ name: 'a', rules: [{ alert: 'A', expr: 'x', for: '5 minutes', labels: {}, annotations: {} }] }, { name: 'a', rules: [] }] }), []);
  });

  test('metric-only rules are skipped with a notice naming them', () => {
    for (const id of ['metric-cardinality', 'fd-exhaustion', 'ingress-pod-ip-bypass', 'stale-endpoint-metrics']) {
      assert.ok(notices.some((n) => n.startsWith(`no loki rules for ${id}:`)), `${id}: ${notices.join(' | ')}`);
      assert.ok(!groups.some((g) => g.name.endsWith(id)));
    }
    assert.deepEqual(groups.map((g) => g.name), ['linkerd-doctor.reconnect-storm', 'linkerd-doctor.control-plane-unavailable', 'linkerd-doctor.dns-ttl-zero', 'linkerd-doctor.dns-query-storm']);
  });

  test('storm thresholds come from the reconnect-storm options', () => {
    const sustained = alertNamed(lokiRules, 'LinkerdProxyReconnectLoopSustained');
    assert.match(sustained.expr, /\[65s\]/);
    assert.equal(sustained.for, '95s', 'sustainSeconds 30 + maxGapSeconds 65');
    assert.match(alertNamed(lokiRules, 'LinkerdControlPlaneReconnectStorm').expr, /\) >= 5$/);
    assert.equal(alertNamed(lokiRules, 'LinkerdControlPlaneReconnectStorm').labels.severity, 'error');
    assert.equal(alertNamed(lokiRules, 'LinkerdReconnectStormManyPods').labels.severity, 'warning');
    assert.ok(!lokiRules.some((r) => r.alert === 'LinkerdControlPlaneReconnectStormStarting'), 'minPods == errorMinPods leaves no warning tier');

    const tuned = fleetGroups('loki', { overrides: overrides({ 'reconnect-storm': { maxGapSeconds: 120, sustainSeconds: 60, minPods: 3, errorMinPods: 10 } }) }).groups.flatMap((g) => g.rules);
    const tunedSustained = alertNamed(tuned, 'LinkerdProxyReconnectLoopSustained');
    assert.match(tunedSustained.expr, /\[2m\]/);
    assert.equal(tunedSustained.for, '3m');
    assert.match(alertNamed(tuned, 'LinkerdControlPlaneReconnectStorm').expr, /\) >= 10$/);
    assert.match(alertNamed(tuned, 'LinkerdControlPlaneReconnectStormStarting').expr, /\) >= 3 < 10$/);
    assert.match(alertNamed(tuned, 'LinkerdReconnectStormManyPods').expr, /\) >= 3$/);
    for (const r of tuned) assert.deepEqual(logqlProblems(r.expr), [], r.expr);
  });

  test('--namespace-label, --log-selector and --group-by reach the LogQL', () => {
    const custom = fleetGroups('loki', { settings: { namespaceLabel: 'k8s_namespace_name', podLabel: 'k8s_pod_name', logSelector: 'k8s_container_name="linkerd-proxy"', groupBy: ['cluster'] } }).groups.flatMap((g) => g.rules);
    const storm = alertNamed(custom, 'LinkerdControlPlaneReconnectStorm');
    assert.match(storm.expr, /\{k8s_container_name="linkerd-proxy"\}/);
    assert.match(storm.expr, /count by \(cluster, target\)/);
    assert.match(storm.expr, /sum by \(cluster, k8s_namespace_name, k8s_pod_name, target\)/);
    for (const r of custom) assert.deepEqual(logqlProblems(r.expr), [], r.expr);
  });
});

// ---------------------------------------------------------------- the pipeline on real line shapes

/** Line filters (`|= "x"`, `|~ "re"`) and regexp stages of a LogQL pipeline, run the way Loki runs them. */
function runPipeline(expr: string, line: string): Record<string, string> | null {
  const labels: Record<string, string> = {};
  for (const m of expr.matchAll(/\|= "([^"]*)"|\|~ "([^"]*)"|\| regexp `([^`]*)`/g)) {
    if (m[1] !== undefined && !line.includes(m[1])) return null;
    if (m[2] !== undefined && !new RegExp(m[2]).test(line)) return null;
    if (m[3] !== undefined) {
      // RE2 named groups `(?P<name>…)` are JS `(?<name>…)`; a regexp stage that does not match keeps the line.
      const found = new RegExp(m[3].replace(/\(\?P</g, '(?<')).exec(line);
      if (found?.groups) Object.assign(labels, found.groups);
    }
  }
  return labels;
}

const PLAIN_CP = '[  1203.426853s]  WARN ThreadId(01) dst:controller{addr=linkerd-dst-headless.linkerd.svc.cluster.local:8086}:endpoint{addr=10.42.0.15:8086}: linkerd_reconnect: Failed to connect error=Connection refused (os error 111)';
const JSON_CP =
  '{"timestamp":"2025-12-12T19:55:11.333411Z","level":"WARN","fields":{"message":"Failed to connect","error":"connect timed out after 1s"},"target":"linkerd_reconnect",' +
  '"spans":[{"name":"policy"},{"addr":"linkerd-policy.linkerd.svc.cluster.local:8090","name":"controller"},{"addr":"10.42.0.16:8090","name":"endpoint"}],"threadId":"ThreadId(1)"}';
const PLAIN_DATA_PLANE = '[   300.104512s]  WARN ThreadId(02) outbound:proxy{addr=10.96.0.20:80}:service{ns=shop name=web port=80}:endpoint{addr=10.42.1.7:8080}: linkerd_reconnect: Failed to connect error=endpoint 10.42.1.7:8080: Connection refused (os error 111)';
const UNRELATED = '[   300.2s]  INFO ThreadId(01) outbound:proxy{addr=10.96.0.20:80}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=Failed to connect to upstream';
const COREDNS = '[INFO] 10.42.0.9:40620 - 45219 "SRV IN linkerd-dst-headless.linkerd.svc.cluster.local. udp 62 false 512" NOERROR qr,aa,rd 351 0.000202852s';

describe('Loki pipelines on real line shapes', () => {
  const sustained = alertNamed(lokiRules, 'LinkerdProxyReconnectLoopSustained').expr;

  test('plain and JSON control-plane reconnect lines yield the controller and endpoint', () => {
    assert.deepEqual(runPipeline(sustained, PLAIN_CP), { controller: 'linkerd-dst-headless.linkerd.svc.cluster.local:8086', endpoint: '10.42.0.15:8086' });
    assert.deepEqual(runPipeline(sustained, JSON_CP), { controller: 'linkerd-policy.linkerd.svc.cluster.local:8090', endpoint: '10.42.0.16:8090' });
  });

  test('a data-plane loop has no controller, so its target is the endpoint', () => {
    assert.deepEqual(runPipeline(sustained, PLAIN_DATA_PLANE), { endpoint: '10.42.1.7:8080' });
  });

  test('a request error that mentions "Failed to connect" is not a reconnect line', () => {
    assert.equal(runPipeline(sustained, UNRELATED), null);
  });

  test('the control-plane address regex is the offline rule\'s: linkerd-* or loopback on 8086/8090/8080', () => {
    const cp = /target=~"([^"]+)"/.exec(alertNamed(lokiRules, 'LinkerdControlPlaneReconnectStorm').expr)![1]!;
    const anchored = new RegExp(`^(?:${cp})$`);
    for (const addr of ['linkerd-dst-headless.linkerd.svc.cluster.local:8086', 'linkerd-policy.linkerd.svc.cluster.local:8090', 'localhost:8086', '127.0.0.1:8090', 'linkerd-identity-headless.linkerd.svc.cluster.local:8080']) assert.ok(anchored.test(addr), addr);
    for (const addr of ['10.42.1.7:8080', 'web.shop.svc.cluster.local:8086', 'linkerd-dst-headless.linkerd.svc.cluster.local:443']) assert.ok(!anchored.test(addr), addr);
  });

  test('control-plane failure lines match, ordinary warnings do not', () => {
    const expr = alertNamed(lokiRules, 'LinkerdProxyControlPlaneUnavailable').expr;
    const lines = [
      '[     3.1s]  WARN ThreadId(01) linkerd_app_core::control: Failed to resolve control-plane component error=failed SRV and A record lookups',
      '[    60.0s]  WARN ThreadId(01) watch{port=8080}: linkerd_app_inbound::policy::api: Unexpected policy controller response; retrying with a backoff grpc.status=Deadline expired before operation could complete',
      '[    10.0s] ERROR ThreadId(02) identity:identity{server.addr=linkerd-identity-headless.linkerd.svc.cluster.local:8080}: linkerd_proxy_identity_client::certify: Failed to obtain identity error=status: Unavailable',
    ];
    for (const line of lines) assert.notEqual(runPipeline(expr, line), null, line);
    assert.equal(runPipeline(expr, PLAIN_DATA_PLANE), null);
  });

  test('the CoreDNS query-log regexp extracts the name and type', () => {
    const expr = alertNamed(lokiRules, 'CoreDNSQueryBurstForOneName').expr;
    assert.deepEqual(runPipeline(expr, COREDNS), { qtype: 'SRV', qname: 'linkerd-dst-headless.linkerd.svc.cluster.local.' });
    assert.match(expr, /\[2s\]\)\) >= 50$/);
  });
});
