// The exported Loki ruler rules: LogQL checked with Grafana's LogQL grammar, the file checked
// against the ruler's shape, and the line filters / regexp stages applied to real line shapes.
// What this cannot show (no Loki here): query cost, and label_format semantics beyond the template.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { renderRuleFile } from '../../src/export/render.js';
import type { AlertingRule } from '../../src/kit/export/types.js';
import { fleetGroups, overrides } from '../support/export-rules.js';
import { logqlProblems, rulerFileProblems, runPipeline } from '../support/loki-ruler.js';
import { controlPlaneService, DEFAULT_CONTROL_PLANE_NAMES, serviceSet } from '../../src/knowledge/control-plane-dns.js';
import { EXPORTERS } from '../../src/rules/index.js';
import { controlPlaneNameRegex } from '../../src/rules/dns-query-storm/export.js';
import { parser } from '@grafana/lezer-logql';

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
    const resource = parse(renderRuleFile(groups, { format: 'prometheusrule', target: 'loki', source: null })) as {
      apiVersion: string;
      kind: string;
      spec: { groups: unknown };
    };
    assert.equal(resource.apiVersion, 'monitoring.coreos.com/v1');
    assert.equal(resource.kind, 'PrometheusRule');
    assert.deepEqual(rulerFileProblems({ groups: resource.spec.groups }), []);
    assert.notDeepEqual(
      rulerFileProblems({
        groups: [
          { name: 'a', rules: [{ alert: 'A', expr: 'x', for: '5 minutes', labels: {}, annotations: {} }] },
          { name: 'a', rules: [] },
        ],
      }),
      [],
    );
  });

  // Which rules have a Loki twin is the registry's to say; this holds the build to it.
  const withLoki = EXPORTERS.filter((e) => e.loki).map((e) => e.ruleId);
  const withoutLoki = EXPORTERS.filter((e) => !e.loki).map((e) => e.ruleId);

  test('metric-only rules are skipped with a notice naming them', () => {
    assert.ok(withoutLoki.length > 0 && withLoki.length > 0);
    for (const id of withoutLoki) {
      assert.ok(
        notices.some((n) => n.startsWith(`no loki rules for ${id}:`)),
        `${id}: ${notices.join(' | ')}`,
      );
      assert.ok(!groups.some((g) => g.name.endsWith(id)));
    }
    assert.deepEqual(
      groups.map((g) => g.name),
      withLoki.map((id) => `linkerd-doctor.${id}`),
    );
  });

  test('storm thresholds come from the reconnect-storm options', () => {
    const sustained = alertNamed(lokiRules, 'LinkerdProxyReconnectLoopSustained');
    assert.match(sustained.expr, /\[65s\]/);
    assert.equal(sustained.for, '95s', 'sustainSeconds 30 + maxGapSeconds 65');
    assert.match(alertNamed(lokiRules, 'LinkerdControlPlaneReconnectStorm').expr, /\) >= 5$/);
    assert.equal(alertNamed(lokiRules, 'LinkerdControlPlaneReconnectStorm').labels.severity, 'critical');
    assert.equal(alertNamed(lokiRules, 'LinkerdReconnectStormManyPods').labels.severity, 'warning');
    assert.ok(!lokiRules.some((r) => r.alert === 'LinkerdControlPlaneReconnectStormStarting'), 'minPods == errorMinPods leaves no warning tier');

    const tuned = fleetGroups('loki', {
      overrides: overrides({ 'reconnect-storm': { maxGapSeconds: 120, sustainSeconds: 60, minPods: 3, errorMinPods: 10 } }),
    }).groups.flatMap((g) => g.rules);
    const tunedSustained = alertNamed(tuned, 'LinkerdProxyReconnectLoopSustained');
    assert.match(tunedSustained.expr, /\[2m\]/);
    assert.equal(tunedSustained.for, '3m');
    assert.match(alertNamed(tuned, 'LinkerdControlPlaneReconnectStorm').expr, /\) >= 10$/);
    assert.match(alertNamed(tuned, 'LinkerdControlPlaneReconnectStormStarting').expr, /\) >= 3 < 10$/);
    assert.match(alertNamed(tuned, 'LinkerdReconnectStormManyPods').expr, /\) >= 3$/);
    for (const r of tuned) assert.deepEqual(logqlProblems(r.expr), [], r.expr);
  });

  test('--namespace-label, --log-selector and --group-by reach the LogQL', () => {
    const custom = fleetGroups('loki', {
      settings: { namespaceLabel: 'k8s_namespace_name', podLabel: 'k8s_pod_name', logSelector: 'k8s_container_name="linkerd-proxy"', groupBy: ['cluster'] },
    }).groups.flatMap((g) => g.rules);
    const storm = alertNamed(custom, 'LinkerdControlPlaneReconnectStorm');
    assert.match(storm.expr, /\{k8s_container_name="linkerd-proxy"\}/);
    assert.match(storm.expr, /count by \(cluster, target\)/);
    assert.match(storm.expr, /sum by \(cluster, k8s_namespace_name, k8s_pod_name, target\)/);
    for (const r of custom) assert.deepEqual(logqlProblems(r.expr), [], r.expr);
  });
});

// ---------------------------------------------------------------- the pipeline on real line shapes

const PLAIN_CP =
  '[  1203.426853s]  WARN ThreadId(01) dst:controller{addr=linkerd-dst-headless.linkerd.svc.cluster.local:8086}:endpoint{addr=10.42.0.15:8086}: linkerd_reconnect: Failed to connect error=Connection refused (os error 111)';
const JSON_CP =
  '{"timestamp":"2025-12-12T19:55:11.333411Z","level":"WARN","fields":{"message":"Failed to connect","error":"connect timed out after 1s"},"target":"linkerd_reconnect",' +
  '"spans":[{"name":"policy"},{"addr":"linkerd-policy.linkerd.svc.cluster.local:8090","name":"controller"},{"addr":"10.42.0.16:8090","name":"endpoint"}],"threadId":"ThreadId(1)"}';
const PLAIN_DATA_PLANE =
  '[   300.104512s]  WARN ThreadId(02) outbound:proxy{addr=10.96.0.20:80}:service{ns=shop name=web port=80}:endpoint{addr=10.42.1.7:8080}: linkerd_reconnect: Failed to connect error=endpoint 10.42.1.7:8080: Connection refused (os error 111)';
const UNRELATED =
  '[   300.2s]  INFO ThreadId(01) outbound:proxy{addr=10.96.0.20:80}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=Failed to connect to upstream';
const CONTROLLER_SHED =
  '[ 73137.020135s]  INFO ThreadId(01) inbound:server{port=8086}:rescue{client.addr=10.2.118.24:47634}: linkerd_app_core::errors::respond: gRPC request failed error=client 10.2.118.24:47634: server: 10.2.24.49:8086: server 10.2.24.49:8086: service linkerd-dst-headless.linkerd.svc.cluster.local:8086: service unavailable';
const CONTROLLER_SHED_JSON =
  '{"timestamp":"2025-12-12T19:55:11.333411Z","level":"INFO","fields":{"message":"gRPC request failed","error":"server 10.2.24.49:8090: service linkerd-policy.linkerd.svc.cluster.local:8090: service unavailable"},"target":"linkerd_app_core::errors::respond",' +
  '"spans":[{"name":"inbound"},{"port":8090,"name":"server"},{"client.addr":"10.2.7.9:40112","name":"rescue"}],"threadId":"ThreadId(1)"}';
const CONTROLLER_FAILFAST = '[   410.5s]  WARN ThreadId(01) inbound:server{port=8090}: linkerd_stack::failfast: Service entering failfast after 3s';
/** A client proxy's failed request to the destination controller: reconnect-storm's side, not this rule's. */
const CLIENT_OUTBOUND =
  '[   120.0s]  INFO ThreadId(01) outbound:proxy{addr=10.2.24.49:8086}:rescue{client.addr=10.2.7.9:40112}: linkerd_app_core::errors::respond: gRPC request failed error=service linkerd-dst-headless.linkerd.svc.cluster.local:8086: service unavailable';
const EMFILE = '[  8812.4s]  WARN ThreadId(01) inbound: linkerd_app_core::serve: Failed to accept connection error=Too many open files (os error 24)';
/** The second line of the panic (linkerd2#14954); the first names control.rs. */
const PANIC = '`period` must be non-zero.';
const COREDNS_V6 = '[INFO] [::1]:50759 - 29008 "A IN example.org. udp 41 false 4096" NOERROR qr,rd,ra,ad 68 0.037990251s';
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

  test("the control-plane address regex is the offline rule's: linkerd-* or loopback on 8086/8090/8080", () => {
    const cp = /target=~"([^"]+)"/.exec(alertNamed(lokiRules, 'LinkerdControlPlaneReconnectStorm').expr)![1]!;
    const anchored = new RegExp(`^(?:${cp})$`);
    for (const addr of [
      'linkerd-dst-headless.linkerd.svc.cluster.local:8086',
      'linkerd-policy.linkerd.svc.cluster.local:8090',
      'localhost:8086',
      '127.0.0.1:8090',
      'linkerd-identity-headless.linkerd.svc.cluster.local:8080',
    ])
      assert.ok(anchored.test(addr), addr);
    for (const addr of ['10.42.1.7:8080', 'web.shop.svc.cluster.local:8086', 'linkerd-dst-headless.linkerd.svc.cluster.local:443'])
      assert.ok(!anchored.test(addr), addr);
  });

  test("controller proxies' failed inbound requests match with their port, client-side and data-plane lines do not", () => {
    const failing = alertNamed(lokiRules, 'LinkerdControllerFailingProxyRequests');
    assert.equal(failing.labels.severity, 'critical');
    assert.match(failing.expr, /pod=~"linkerd-\(destination\|identity\)-\.\+"/);
    assert.match(failing.expr, /\[5m\]\)\n\) >= 20$/, 'minFailures 20');
    assert.deepEqual(runPipeline(failing.expr, CONTROLLER_SHED), { port: '8086', uptime: '73137' });
    assert.deepEqual(runPipeline(failing.expr, CONTROLLER_SHED_JSON), { port: '8090' });
    for (const line of [CLIENT_OUTBOUND, PLAIN_DATA_PLANE, PLAIN_CP]) assert.equal(runPipeline(failing.expr, line), null, line);
    // The port filter keeps only the controller ports, as CONTROLLER_PORTS offline.
    assert.match(failing.expr, /\| port=~"\(8080\|8086\|8090\)"/);
  });

  test("failures in the controller proxy's first startupGraceSeconds are left out", () => {
    const expr = alertNamed(lokiRules, 'LinkerdControllerFailingProxyRequests').expr;
    const below = /\| uptime!~"([^"]+)"/.exec(expr)![1]!;
    const startup = new RegExp(`^(?:${below})$`);
    for (const uptime of ['0', '3', '9']) assert.ok(startup.test(uptime), uptime);
    for (const uptime of ['10', '11', '73137']) assert.ok(!startup.test(uptime), uptime);
    const tuned = fleetGroups('loki', { overrides: overrides({ 'control-plane-unavailable': { startupGraceSeconds: 45.5, minFailures: 5 } }) }).groups.flatMap(
      (g) => g.rules,
    );
    const tunedExpr = alertNamed(tuned, 'LinkerdControllerFailingProxyRequests').expr;
    const tunedBelow = new RegExp(`^(?:${/\| uptime!~"([^"]+)"/.exec(tunedExpr)![1]!})$`);
    assert.ok(tunedBelow.test('45') && !tunedBelow.test('46'));
    assert.match(tunedExpr, /\) >= 5$/);
    const noGrace = fleetGroups('loki', { overrides: overrides({ 'control-plane-unavailable': { startupGraceSeconds: 0 } }) }).groups.flatMap((g) => g.rules);
    assert.doesNotMatch(alertNamed(noGrace, 'LinkerdControllerFailingProxyRequests').expr, /uptime/);
  });

  test('fail-fast entries of a controller proxy match, with minFailfastEpisodes', () => {
    const failfast = alertNamed(lokiRules, 'LinkerdControllerInFailfast');
    assert.equal(failfast.labels.severity, 'critical');
    assert.match(failfast.expr, /\) >= 2$/);
    assert.deepEqual(runPipeline(failfast.expr, CONTROLLER_FAILFAST), { port: '8090' });
    assert.equal(runPipeline(failfast.expr, CONTROLLER_SHED), null);
  });

  test('"Too many open files" proxy lines are an fd-exhaustion error', () => {
    const emfile = alertNamed(lokiRules, 'LinkerdProxyTooManyOpenFiles');
    assert.equal(emfile.labels.severity, 'critical');
    assert.notEqual(runPipeline(emfile.expr, EMFILE), null);
    assert.equal(runPipeline(emfile.expr, UNRELATED), null);
  });

  test('the CoreDNS query-log regexp extracts the client, name and type; bursts use burstQueries and burstWindowSeconds', () => {
    const cp = alertNamed(lokiRules, 'CoreDNSQueryBurstForLinkerdControlPlane').expr;
    const other = alertNamed(lokiRules, 'CoreDNSQueryBurstForOneName').expr;
    assert.deepEqual(runPipeline(cp, COREDNS), { client: '10.42.0.9', qtype: 'SRV', qname: 'linkerd-dst-headless.linkerd.svc.cluster.local.' });
    assert.equal(runPipeline(cp, COREDNS_V6), null, 'not a control-plane name');
    assert.deepEqual(runPipeline(other, COREDNS_V6), { client: '[::1]', qtype: 'A', qname: 'example.org.' });
    assert.equal(runPipeline(other, COREDNS), null, "control-plane names are the error alert's");
    for (const expr of [cp, other]) {
      assert.match(expr, /\[2s\]\)\) >= 100\nand\n/);
      assert.match(expr, />= 2 \* count by \(qname, qtype\) \(sum by \(qname, qtype, client\)/, 'at least half the queries are repeats');
    }
    assert.equal(alertNamed(lokiRules, 'CoreDNSQueryBurstForLinkerdControlPlane').labels.severity, 'critical');
    assert.equal(alertNamed(lokiRules, 'CoreDNSQueryBurstForOneName').labels.severity, 'warning');
    const tuned = fleetGroups('loki', { overrides: overrides({ 'dns-query-storm': { burstQueries: 40, burstWindowSeconds: 1.5 } }) }).groups.flatMap(
      (g) => g.rules,
    );
    assert.match(alertNamed(tuned, 'CoreDNSQueryBurstForOneName').expr, /\[1500ms\]\)\) >= 40\n/);
  });

  // Issue 27: a newline in controlPlaneNames was written raw inside a quoted LogQL string.
  test('every character of a config value round-trips through LogQL string escaping', () => {
    const hostile = 'dst\nx, a"b, c\\d, e`f, g\th\r, ctl\u0001\u001b[31m\u007f\u009b, sep\u2028\u2029, lone\ud800, pair\u{1F600}, ü';
    const expr = alertNamed(
      fleetGroups('loki', { overrides: overrides({ 'dns-query-storm': { controlPlaneNames: hostile } }) }).groups.flatMap((g) => g.rules),
      'CoreDNSQueryBurstForLinkerdControlPlane',
    ).expr;
    assert.deepEqual(logqlProblems(expr), [], expr);
    // eslint-disable-next-line no-control-regex -- no raw control character may reach the rule file
    assert.doesNotMatch(expr, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/);
    // Every string literal the grammar finds uses only escapes Go's strconv.Unquote and JSON share.
    const literals: string[] = [];
    parser.parse(expr).iterate({ enter: (node) => void (node.type.name === 'String' && literals.push(expr.slice(node.from, node.to))) });
    // Raw (backtick) strings hold only the exporter's own regexp stages: no config value goes there.
    for (const raw of literals.filter((l) => l.startsWith('`'))) assert.ok(!raw.includes('e`f') && !raw.includes('dst'), raw);
    literals.splice(0, literals.length, ...literals.filter((l) => l.startsWith('"')));
    assert.ok(literals.length > 0);
    for (const literal of literals) assert.match(literal, /^"(?:[^"\\\n]|\\["\\nrt]|\\u[0-9a-f]{4})*"$/, literal);
    const names = literals.map((l) => JSON.parse(l) as string);
    const expected = controlPlaneNameRegex(hostile.replace('\ud800', '\ufffd'));
    assert.ok(names.includes(expected!), `no literal reads back as ${JSON.stringify(expected)}`);
  });

  test('controlPlaneNames becomes an escaped name regex that grades names as offline', () => {
    const names = (expr: string, op: string) => JSON.parse(new RegExp(`\\| qname${op}("(?:[^"\\\\]|\\\\.)*")`).exec(expr)![1]!) as string;
    const cp = alertNamed(lokiRules, 'CoreDNSQueryBurstForLinkerdControlPlane').expr;
    const other = alertNamed(lokiRules, 'CoreDNSQueryBurstForOneName').expr;
    assert.equal(names(cp, '=~'), names(other, '!~'));
    // RE2's (?i) is JavaScript's i flag; label regexes are anchored.
    const matches = (regex: string, name: string) => new RegExp(`^(?:${regex.replace(/^\(\?i\)/, '')})$`, 'i').test(name);
    const services = serviceSet(DEFAULT_CONTROL_PLANE_NAMES);
    for (const name of [
      'linkerd-dst-headless.linkerd.svc.cluster.local.',
      'LINKERD-POLICY.linkerd.svc.cluster.local.',
      'linkerd-identity-headless.linkerd',
      '10-42-0-12.linkerd-dst-headless.linkerd.svc.cluster.local.',
      'web.shop.svc.cluster.local.',
      'linkerd-dst-headless.example.com.',
      'linkerd-dstx.linkerd.svc.cluster.local.',
      'api.linkerd-policy.example.com.',
    ]) {
      assert.equal(matches(names(cp, '=~'), name), controlPlaneService(name, services) !== null, name);
    }
    // Names are literals: regex characters in the option are escaped, and reach the engine as a valid string.
    const custom = fleetGroups('loki', { overrides: overrides({ 'dns-query-storm': { controlPlaneNames: 'mesh.dst, dst+x' } }) }).groups.flatMap(
      (g) => g.rules,
    );
    const customExpr = alertNamed(custom, 'CoreDNSQueryBurstForLinkerdControlPlane').expr;
    assert.deepEqual(logqlProblems(customExpr), []);
    const customRegex = names(customExpr, '=~');
    assert.ok(matches(customRegex, 'dst+x.linkerd.svc.cluster.local.') && matches(customRegex, 'mesh.dst.linkerd.svc.cluster.local.'));
    assert.ok(!matches(customRegex, 'dsttx.linkerd.svc.cluster.local.') && !matches(customRegex, 'meshxdst.linkerd.svc.cluster.local.'));
    // No control-plane names: every storm is a warning.
    const none = fleetGroups('loki', { overrides: overrides({ 'dns-query-storm': { controlPlaneNames: '' } }) }).groups.flatMap((g) => g.rules);
    assert.ok(!none.some((r) => r.alert === 'CoreDNSQueryBurstForLinkerdControlPlane'));
    assert.doesNotMatch(alertNamed(none, 'CoreDNSQueryBurstForOneName').expr, /qname[=!]~/);
  });

  test('dns-ttl-zero: the zero-negative-TTL panic is an error (it happens only for control-plane lookups)', () => {
    const panic = alertNamed(lokiRules, 'LinkerdProxyPanicOnZeroNegativeTtl');
    assert.equal(panic.labels.severity, 'critical');
    assert.notEqual(runPipeline(panic.expr, PANIC), null);
  });
});
