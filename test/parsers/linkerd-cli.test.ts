// The Linkerd CLI reader on every layout `linkerd check` prints (table with √ ‼ ×, the ASCII
// [ok]/[warn]/[FAIL], -o short, -o json, --pre, --proxy, extension sections, 2.2's [category]),
// with colour codes, spinner redraws, prompts and several runs in one paste, and on the `Error:`
// lines `linkerd top` and `linkerd upgrade` end with. The data is in test/data/linkerd-cli (its
// README cites the thread each file is shaped after).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { LdRecord, LinkerdCheckRecord, LinkerdCliMessageRecord, LinkerdCliRowRecord } from '../../src/core/types.js';
import { readEntry } from '../../src/engine/pipeline.js';
import { sniffKind } from '../../src/parsers/sniff.js';
import { cleanCliLine, linkerdCommandOf, parseCheckLine, parseHint } from '../../src/parsers/linkerd-cli.js';

const read = (name: string) => readFileSync(new URL(`../data/linkerd-cli/${name}`, import.meta.url), 'utf8');

async function parse(content: string, path = 'check.txt') {
  const records: LdRecord[] = [];
  const { stats } = await readEntry({ path, stream: Readable.from([Buffer.from(content)]), size: null }, { record: (r) => records.push(r) });
  return {
    stats,
    checks: records.filter((r): r is LinkerdCheckRecord => r.kind === 'linkerd-check'),
    messages: records.filter((r): r is LinkerdCliMessageRecord => r.kind === 'linkerd-cli-message'),
    rows: records.filter((r): r is LinkerdCliRowRecord => r.kind === 'linkerd-cli-row'),
  };
}

const FILES = [
  'check-table-two-runs.txt',
  'check-short-version-warnings.txt',
  'check-json-elided.txt',
  'check-2.2-brackets.txt',
  'check-ascii.txt',
  'check-detail-only.txt',
  'check-proxy-extension-mc.txt',
  'top-x509-error.txt',
  'upgrade-unknown-authority.txt',
  'viz-stat-failing.txt',
  'viz-stat-healthy.txt',
  'viz-routes-edges.txt',
  'viz-top-tap.txt',
  'diagnostics-endpoints-gateways.txt',
  'install-upgrade-errors.txt',
];

describe('linkerd-cli input', () => {
  it('sniffs every layout as linkerd-cli', () => {
    for (const f of FILES) assert.equal(sniffKind(read(f).split('\n')), 'linkerd-cli', f);
  });

  it('reads the table: sections, categories, colour codes, spinner redraws, details, hint and runs', async () => {
    const { checks, stats } = await parse(read('check-table-two-runs.txt'));
    assert.equal(stats.kind, 'linkerd-cli');
    assert.equal(stats.unparsed, 0);
    const anchors = checks.find((c) => c.description === 'trust anchors are within their validity period')!;
    assert.deepEqual(
      {
        run: anchors.run,
        command: anchors.command,
        category: anchors.category,
        status: anchors.status,
        hint: anchors.hint,
        hintVersion: anchors.hintVersion,
        details: anchors.details,
      },
      {
        run: 1,
        command: 'linkerd check',
        category: 'linkerd-identity',
        status: 'fail',
        hint: 'l5d-identity-trustAnchors-are-time-valid',
        hintVersion: '2.10',
        details: ['Invalid anchors:', '* 1 identity.linkerd.cluster.local not valid anymore. Expired on 2021-03-05T08:14:00Z'],
      },
    );
    assert.equal(checks.find((c) => c.description === 'can initialize the client')?.status, 'ok');
    const tap = checks.find((c) => c.description === 'tap API service is running')!;
    assert.deepEqual([tap.run, tap.command, tap.category, tap.status], [2, 'linkerd viz check', 'linkerd-viz', 'ok']);
    const pods = checks.find((c) => c.description === 'viz extension pods are running')!;
    assert.deepEqual([pods.status, pods.details, pods.hint], ['warn', ['grafana-6d9c8b7f5-q4x2z status is Pending'], 'l5d-viz-pods-running']);
    assert.equal(checks.length, 7);
  });

  it('reads -o short with tab-indented lists', async () => {
    const { checks, stats } = await parse(read('check-short-version-warnings.txt'));
    assert.equal(stats.unparsed, 0);
    assert.deepEqual(
      checks.map((c) => [c.category, c.status, c.hint]),
      [
        ['linkerd-version', 'warn', 'l5d-version-cli'],
        ['control-plane-version', 'warn', 'l5d-version-control'],
        ['linkerd-control-plane-proxy', 'warn', 'l5d-cp-proxy-version'],
      ],
    );
    assert.equal(checks[2]!.details.length, 3);
  });

  it('reads -o json key by key, elided parts and a second document included', async () => {
    const { checks, stats } = await parse(read('check-json-elided.txt'));
    assert.equal(stats.kind, 'linkerd-cli');
    assert.equal(checks.length, 3);
    const webhook = checks[1]!;
    assert.deepEqual(
      [webhook.category, webhook.description, webhook.status, webhook.hint, webhook.hintVersion, webhook.details, webhook.run],
      [
        'linkerd-webhooks-and-apisvc-tls',
        'proxy-injector webhook has valid cert',
        'fail',
        'l5d-proxy-injector-webhook-cert-valid',
        '2.11',
        ['certificate not valid anymore. Expired on 2022-06-01T10:00:00Z'],
        1,
      ],
    );
    assert.deepEqual([checks[2]!.category, checks[2]!.run], ['linkerd-viz', 2]);
  });

  it('reads 2.2-era [category] checks and their unindented error', async () => {
    const { checks } = await parse(read('check-2.2-brackets.txt'));
    const prom = checks[2]!;
    assert.deepEqual(
      [prom.category, prom.description, prom.status, prom.hint, prom.hintVersion],
      ['prometheus', 'control plane can talk to Prometheus', 'fail', 'l5d-api-control-api', null],
    );
    assert.match(prom.details[0]!, /no such host$/);
  });

  it('reads the ASCII statuses and a PowerShell prompt', async () => {
    const { checks } = await parse(read('check-ascii.txt'));
    assert.deepEqual(
      checks.map((c) => [c.command, c.category, c.status]),
      [
        ['linkerd check --pre', 'pre-kubernetes-setup', 'ok'],
        ['linkerd check --pre', 'pre-kubernetes-setup', 'ok'],
        ['linkerd check --pre', 'pre-kubernetes-setup', 'warn'],
        ['linkerd check --pre', 'pre-kubernetes-capability', 'fail'],
      ],
    );
  });

  it('keeps the details and hint of a paste that starts below the check line, status unknown', async () => {
    const { checks } = await parse(read('check-detail-only.txt'));
    assert.equal(checks.length, 1);
    assert.deepEqual([checks[0]!.status, checks[0]!.description, checks[0]!.hint], ['unknown', '', 'l5d-tap-api']);
    assert.match(checks[0]!.details[0]!, /^FailedDiscoveryCheck: /);
  });

  it('reads --proxy and the extension section, with deep-indented details', async () => {
    const { checks } = await parse(read('check-proxy-extension-mc.txt'));
    const failed = checks.filter((c) => c.status === 'fail');
    assert.deepEqual(
      failed.map((c) => [c.category, c.hint]),
      [
        ['linkerd-data-plane', 'l5d-identity-data-plane-proxies-certs-match-ca'],
        ['linkerd-multicluster', 'l5d-smc-target-clusters-access'],
        ['linkerd-multicluster', 'l5d-multicluster-gateways-endpoints'],
      ],
    );
    assert.equal(failed[0]!.details.length, 3);
    assert.equal(checks[0]!.command, 'linkerd check --proxy -n shop');
  });

  it('reads the Error: a command ends with, its continuation, and not the Usage: block', async () => {
    const { messages, checks } = await parse(read('top-x509-error.txt'));
    assert.equal(checks.length, 0);
    assert.equal(messages.length, 1);
    assert.equal(messages[0]!.command, 'linkerd top deployment/web --namespace shop');
    assert.match(messages[0]!.message, /^Error: HTTP error, status Code \[503\].*x509: certificate signed by unknown authority.*Trying to reach: /);
  });

  it('reads linkerd upgrade`s × line as a failed step of that command', async () => {
    const { checks } = await parse(read('upgrade-unknown-authority.txt'));
    assert.equal(checks.length, 1);
    assert.equal(checks[0]!.command, 'linkerd upgrade --identity-trust-anchors-file=new-ca.crt');
    assert.match(checks[0]!.description, /^Failed to build upgrade configuration: invalid issuer credentials: x509/);
  });

  it('tells commands from other lines', () => {
    assert.equal(linkerdCommandOf('$ linkerd check -o short'), 'linkerd check -o short');
    assert.equal(linkerdCommandOf('inkerd check -o short'), 'linkerd check -o short');
    assert.equal(linkerdCommandOf('➜ bin/linkerd upgrade --identity-trust-anchors-file=ca.crt'), 'linkerd upgrade --identity-trust-anchors-file=ca.crt');
    assert.equal(linkerdCommandOf('  linkerd top [flags] (RESOURCE)'), null);
    assert.equal(linkerdCommandOf('the linkerd check said'), null);
    assert.equal(linkerdCommandOf('linkerd-identity'), null);
  });

  it('reads check lines, hints and cleaned lines', () => {
    assert.deepEqual(parseCheckLine('× control plane replica sets are ready'), { status: 'fail', description: 'control plane replica sets are ready' });
    assert.deepEqual(parseCheckLine('[warn] cli is up-to-date'), { status: 'warn', description: 'cli is up-to-date' });
    assert.equal(parseCheckLine('×not a check'), null);
    assert.deepEqual(parseHint('see https://linkerd.io/2.14/checks/#l5d-i'), { anchor: 'l5d-i', version: '2.14' });
    assert.deepEqual(parseHint('see https://linkerd.io/2/checks/#l5d-cluster-networks-cidr for hints'), { anchor: 'l5d-cluster-networks-cidr', version: '2' });
    assert.equal(cleanCliLine('\x1b[31;1m×\x1b[0m x\r'), '× x');
  });

  it('reads viz stat rows by their header, and routes whose names hold spaces', async () => {
    const stat = await parse(read('viz-stat-failing.txt'));
    assert.equal(stat.stats.unparsed, 0);
    assert.deepEqual(
      stat.rows.map((r) => [r.table, r.cells.NAME, r.cells.SUCCESS, r.cells.TCP_CONN]),
      [
        ['stat', 'emoji', '100.00%', '3'],
        ['stat', 'vote-bot', '-', '-'],
        ['stat', 'voting', '83.33%', '3'],
        ['stat', 'web', '91.53%', '3'],
      ],
    );
    const { rows } = await parse(read('viz-routes-edges.txt'));
    assert.deepEqual(rows[1]!.cells.ROUTE, 'POST /books');
    assert.deepEqual(rows[1]!.cells.SUCCESS, '52.63%');
    const unsecured = rows.find((r) => r.table === 'edges' && r.cells.SRC === 'traffic')!;
    assert.equal(unsecured.cells.SECURED, 'Not Provided By Remote');
    assert.equal(unsecured.run, 2);
  });

  it('reads viz top rows and tap events', async () => {
    const { rows } = await parse(read('viz-top-tap.txt'));
    const top = rows.filter((r) => r.table === 'top');
    assert.deepEqual(top[1]!.cells['Success Rate'], '0.00%');
    assert.equal(top[1]!.cells.Count, '25');
    const tap = rows.filter((r) => r.table === 'tap');
    assert.equal(tap.length, 6);
    assert.deepEqual([tap[4]!.cells.event, tap[4]!.cells[':status'], tap[4]!.cells.id], ['rsp', '503', '3:1']);
  });

  it('reads diagnostics endpoints, its empty answer, and multicluster gateways', async () => {
    const { rows, messages } = await parse(read('diagnostics-endpoints-gateways.txt'));
    assert.deepEqual(
      rows.map((r) => [r.table, r.cells.POD ?? r.cells.CLUSTER, r.cells.ALIVE ?? r.cells.PORT]),
      [
        ['endpoints', 'web-6d8d8c6b6-2q6m8', '8080'],
        ['gateways', 'east', 'True'],
        ['gateways', 'west', 'False'],
      ],
    );
    assert.deepEqual(
      messages.map((m) => [m.message, m.command]),
      [['No endpoints found.', 'linkerd diagnostics endpoints books.booksapp.svc.cluster.local:7002']],
    );
  });

  it('reads what install and upgrade print right after the command, with or without Error:', async () => {
    const { messages, stats } = await parse(read('install-upgrade-errors.txt'));
    assert.equal(stats.unparsed, 0);
    assert.deepEqual(
      messages.map((m) => [m.run, m.message.slice(0, 40)]),
      [
        [1, 'Linkerd CRDs must be installed first. Ru'],
        [2, 'Error: You are attempting to use an issu'],
      ],
    );
    assert.match(messages[1]!.message, /\* emojivoto\/voting-5f5b555dff-p5w8x These pods do not have the current trust bundle/);
  });
});
