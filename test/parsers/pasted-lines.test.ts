// Proxy lines as people paste them, beyond the real samples in test/data/real: quoted, indented,
// behind collectors, with damaged uptimes; what kubectl prints around them; a sniff window that
// must look past a long preamble; and JSON nested deeper than a recursive walk survives.

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { LdRecord, ProxyLogRecord } from '../../src/core/types.js';
import { readEntry } from '../../src/engine/pipeline.js';
import { sniffKind } from '../../src/parsers/sniff.js';
import { createProxyLogParser } from '../../src/parsers/proxy-log.js';

async function parse(content: string, path = 'pasted.txt') {
  const records: LdRecord[] = [];
  const unparsed: { line: number; reason: string }[] = [];
  const { stats, error } = await readEntry(
    { path, stream: Readable.from([Buffer.from(content)]), size: null },
    { record: (r) => records.push(r), unparsed: (_s, line, reason) => unparsed.push({ line, reason }) },
  );
  return { records: records as ProxyLogRecord[], unparsed, stats, error };
}

// From linkerd/linkerd2#9812 and #11279 (real lines).
const PLAIN =
  '[    13.328926s]  WARN ThreadId(01) policy:watch{port=4191}:controller{addr=linkerd-policy.linkerd.svc.cluster.local:8090}:endpoint{addr=10.0.1.234:8090}: linkerd_reconnect: Failed to connect error=connect timed out after 1s';
const PLAIN_BODY =
  'policy:watch{port=4191}:controller{addr=linkerd-policy.linkerd.svc.cluster.local:8090}:endpoint{addr=10.0.1.234:8090}: linkerd_reconnect: Failed to connect error=connect timed out after 1s';
const JSON_LINE =
  '{"timestamp":"2025-12-12T19:55:11.333411Z","level":"WARN","fields":{"message":"Failed to connect","error":"connect timed out after 1s"},"target":"linkerd_reconnect","threadId":"ThreadId(1)"}';

function expectReconnect(r: ProxyLogRecord | undefined, uptime: number | null = 13.328926): void {
  assert.ok(r, 'a record');
  assert.equal(r.level, 'WARN');
  assert.equal(r.target, 'linkerd_reconnect');
  assert.equal(r.message, 'Failed to connect');
  assert.equal(r.fields.error, 'connect timed out after 1s');
  assert.equal(r.uptime, uptime);
}

describe('pasted proxy lines', () => {
  it('reads lines quoted with `> ` (nested too) or indented', async () => {
    const { records, unparsed } = await parse([`> ${PLAIN}`, `> > ${PLAIN}`, `    ${PLAIN}`, `\t${PLAIN}`].join('\n'));
    assert.deepEqual(unparsed, []);
    assert.equal(records.length, 4);
    for (const r of records) expectReconnect(r);
    assert.deepEqual(
      records[0]!.spans.map((s) => s.name),
      ['policy', 'watch', 'controller', 'endpoint'],
    );
  });

  it('reads a quoted line behind a kubectl timestamp, and JSON behind stern and kubectl prefixes', async () => {
    const { records, unparsed } = await parse(
      [
        `> 2024-06-06T11:01:39.532896292Z ${PLAIN}`,
        `web-5d8f7c9b4-abcde linkerd-proxy ${JSON_LINE}`,
        `web-5d8f7c9b4-abcde linkerd-proxy 2025-12-12T19:55:11.5Z ${JSON_LINE}`,
        `2025-12-12T19:55:11.5Z ${JSON_LINE}`,
      ].join('\n'),
    );
    assert.deepEqual(unparsed, []);
    assert.equal(records.length, 4);
    expectReconnect(records[0]);
    assert.equal(records[0]!.time, Date.parse('2024-06-06T11:01:39.532Z') + 0.896292);
    for (const r of records.slice(1)) {
      expectReconnect(r, null);
      assert.equal(r.format, 'json');
    }
    assert.equal(records[1]!.pod, 'web-5d8f7c9b4-abcde');
    assert.equal(records[1]!.container, 'linkerd-proxy');
    assert.equal(records[2]!.pod, 'web-5d8f7c9b4-abcde');
  });

  it('reads an uptime that lost a bracket', async () => {
    const { records, unparsed } = await parse(
      [
        `[    13.328926s  WARN ThreadId(01) ${PLAIN_BODY}`,
        `    13.328926s]  WARN ThreadId(01) ${PLAIN_BODY}`,
        `[    13.328926  WARN ThreadId(01) ${PLAIN_BODY}`,
      ].join('\n'),
    );
    assert.deepEqual(unparsed, []);
    assert.equal(records.length, 3);
    for (const r of records) expectReconnect(r);
  });

  it('reads the legacy layout with and without uptime and contexts, and the Conduit glog layout', async () => {
    const { records, unparsed } = await parse(
      [
        'TRCE [     1.002000s] proxy={server=out listen=127.0.0.1:4140} linkerd2_proxy::proxy::http::router routing',
        'WARN admin={bg=resolver} linkerd2_proxy::control::destination::background::destination_set Destination.Get stream errored',
        'INFO [     0.003173s] linkerd2_proxy::app::main: routing on V4(127.0.0.1:4140)',
        'W    proxy/src/telemetry/mod.rs:42] conduit_proxy::telemetry: metrics server failed',
      ].join('\n'),
    );
    assert.deepEqual(unparsed, []);
    assert.deepEqual(
      records.map((r) => [r.format, r.level, r.target, r.message, r.uptime]),
      [
        ['legacy', 'TRACE', 'linkerd2_proxy::proxy::http::router', 'routing', 1.002],
        ['legacy', 'WARN', 'linkerd2_proxy::control::destination::background::destination_set', 'Destination.Get stream errored', null],
        ['legacy', 'INFO', 'linkerd2_proxy::app::main', 'routing on V4(127.0.0.1:4140)', 0.003173],
        ['legacy', 'WARN', 'conduit_proxy::telemetry', 'metrics server failed', null],
      ],
    );
    assert.deepEqual(structuredClone(records[0]!.spans), [{ name: 'proxy', fields: { server: 'out', listen: '127.0.0.1:4140' } }]);
    assert.deepEqual(structuredClone(records[1]!.spans), [{ name: 'admin', fields: { bg: 'resolver' } }]);
  });

  it('reads a fragment without level as INFO marked levelAbsent, and keeps prose and describe lines out', async () => {
    const { records, unparsed } = await parse(
      [
        PLAIN_BODY,
        'ThreadId(01) linkerd_app_core::errors::respond: Request failed error=unauthorized connection on server web',
        'Reason: OOMKilled',
        'note: this happens every few minutes',
        'Last State:    Terminated',
      ].join('\n'),
    );
    assert.equal(records.length, 2);
    for (const r of records) {
      assert.equal(r.level, 'INFO');
      assert.equal(r.levelAbsent, true);
    }
    assert.equal(records[0]!.target, 'linkerd_reconnect');
    assert.equal(records[1]!.thread, 1);
    assert.equal(records[1]!.fields.error, 'unauthorized connection on server web');
    // `Reason: OOMKilled` is a describe line the kubectl reader takes; a lone `Last State:` says nothing.
    assert.deepEqual(
      unparsed.map((u) => u.line),
      [4, 5],
    );
  });

  it('marks no line of a complete proxy line levelAbsent', async () => {
    const { records } = await parse(`${PLAIN}\n${JSON_LINE}\n`);
    assert.ok(records.every((r) => r.levelAbsent === undefined));
  });

  it('skips kubectl and stern chatter without counting it as unparsed', async () => {
    const { records, unparsed, stats } = await parse(
      [
        '$ kubectl logs -n linkerd deploy/linkerd-destination -c linkerd-proxy --since=1h',
        'Found 2 pods, using pod/linkerd-destination-68947cb4b6-zv7f2',
        'Defaulted container "linkerd-proxy" out of: linkerd-proxy, destination, sp-validator, policy, linkerd-init (init)',
        "Use 'kubectl describe pod/linkerd-destination-68947cb4b6-zv7f2 -n linkerd' to see all of the containers in this pod.",
        '+ linkerd linkerd-destination-68947cb4b6-zv7f2 › linkerd-proxy',
        PLAIN,
      ].join('\n'),
    );
    assert.equal(stats.kind, 'proxy-log');
    assert.deepEqual(unparsed, []);
    assert.equal(records.length, 1);
    assert.equal(records[0]!.line, 6);
  });

  it('does not take an unrelated line after a long record for the rest of a wrapped line', async () => {
    const { records, unparsed } = await parse(`${PLAIN}\nnote: run with \`RUST_BACKTRACE=1\` environment variable to display a backtrace\n`);
    assert.equal(records.length, 1);
    assert.equal(records[0]!.fields.error, 'connect timed out after 1s');
    assert.deepEqual(
      unparsed.map((u) => u.line),
      [2],
    );
  });
});

/**
 * One file per pasted format, made of nothing else: each must be sniffed as a proxy log (a file
 * sniffed `unknown` is skipped without a word) and every line read with its level and target.
 * Lines from test/data/real unless marked otherwise.
 */
const SINGLE_FORMAT_FILES: { format: string; lines: string[]; level: string; target: string }[] = [
  {
    format: 'legacy ERR! with uptime and proxy={…}',
    level: 'ERROR',
    target: 'linkerd2_proxy::app::errors',
    lines: [
      'ERR! [   388.710816s] proxy={server=in listen=0.0.0.0:4143 remote=10.24.23.122:35662} linkerd2_proxy::app::errors unexpected error: http2 error: protocol error: unspecific protocol error detected',
    ],
  },
  {
    format: 'legacy ERR! without uptime',
    level: 'ERROR',
    target: 'linkerd2_proxy',
    lines: [
      'ERR! proxy={server=in listen=0.0.0.0:4143 remote=127.0.0.1:57416} linkerd2_proxy turning Error caused by underlying HTTP/2 error: protocol error: unexpected internal error encountered into 500',
    ],
  },
  {
    format: 'legacy WARN with admin={bg=resolver}',
    level: 'WARN',
    target: 'linkerd2_proxy::control::destination::background::destination_set',
    lines: [
      'WARN [  1355.573770s] admin={bg=resolver} linkerd2_proxy::control::destination::background::destination_set Destination.Get stream errored for NameAddr { name: "linkerd-prometheus.linkerd.svc.cluster.local", port: 9090 }: Grpc(Status { code: InvalidArgument })',
    ],
  },
  {
    format: 'legacy INFO',
    level: 'INFO',
    target: 'linkerd2_proxy::app::main',
    lines: [
      'INFO [     0.003167s] linkerd2_proxy::app::main using identity service at Name(NameAddr { name: "linkerd-identity.linkerd.svc.cluster.local", port: 8080 })',
    ],
  },
  {
    format: 'legacy DBUG',
    level: 'DEBUG',
    target: 'linkerd2_proxy::proxy::http::h2',
    lines: [
      'DBUG [   388.710739s] proxy={client=in dst=10.24.26.128:9090 proto=Http2} linkerd2_proxy::proxy::http::h2 http2 conn error: http2 error: protocol error: unspecific protocol error detected',
    ],
  },
  {
    format: 'legacy TRCE (constructed)',
    level: 'TRACE',
    target: 'linkerd2_proxy::proxy::http::router',
    lines: ['TRCE [     1.002000s] proxy={server=out listen=127.0.0.1:4140} linkerd2_proxy::proxy::http::router routing'],
  },
  {
    format: 'wall-clock tracing, padded level',
    level: 'INFO',
    target: 'linkerd_policy_controller_k8s_api::watch',
    lines: ['2022-04-26T18:59:51.572722Z  INFO serverauthorizations: linkerd_policy_controller_k8s_api::watch: Restarting'],
  },
  {
    format: 'pretty-printed JSON',
    level: 'INFO',
    target: 'linkerd_app_core::serve',
    lines: [
      '{',
      '  "timestamp": "[ 96886.162669s]",',
      '  "level": "INFO",',
      '  "fields": {',
      '    "message": "Connection closed",',
      '    "error": "connection error: Transport endpoint is not connected (os error 107)"',
      '  },',
      '  "target": "linkerd_app_core::serve",',
      '  "threadId": "ThreadId(1)"',
      '}',
    ],
  },
  {
    format: 'JSON behind stern and a kubectl timestamp',
    level: 'DEBUG',
    target: 'linkerd_proxy_transport::tls::client',
    lines: [
      'prometheus-c68bc7bdb-8dl4p linkerd-proxy 2021-04-21T08:22:39.466803177Z {"timestamp":"[   537.524656s]","level":"DEBUG","fields":{"message":"Initiating TLS connection","server.id":"foo-service.dev.serviceaccount.identity.linkerd.cluster.local"},"target":"linkerd_proxy_transport::tls::client","spans":[],"threadId":"ThreadId(1)"}',
    ],
  },
  {
    format: 'JSON behind stern --all-namespaces',
    level: 'WARN',
    target: 'linkerd_reconnect',
    lines: [`linkerd linkerd-destination-68947cb4b6-zv7f2 linkerd-proxy ${JSON_LINE}`],
  },
  { format: 'JSON behind kubectl --timestamps', level: 'WARN', target: 'linkerd_reconnect', lines: [`2025-12-12T19:55:11.5Z ${JSON_LINE}`] },
  { format: 'kubectl logs --prefix', level: 'WARN', target: 'linkerd_reconnect', lines: [`[pod/web-5d8f7c9b4-abcde/linkerd-proxy] ${PLAIN}`] },
  {
    format: 'JSON behind kubectl logs --prefix --timestamps',
    level: 'WARN',
    target: 'linkerd_reconnect',
    lines: [`[pod/web-5d8f7c9b4-abcde/linkerd-proxy] 2025-12-12T19:55:11.5Z ${JSON_LINE}`],
  },
  {
    format: "behind Kibana's time column (linkerd2 #6058)",
    level: 'INFO',
    target: 'linkerd_app_core::serve',
    lines: [
      'Apr 27, 2021 @ 10:25:52.507[ 16767.292578s]  INFO ThreadId(01) inbound:accept{client.addr=10.244.78.84:46080 target.addr=10.244.42.122:80}: linkerd_app_core::serve: Connection closed error=TLS detection timeout',
    ],
  },
  {
    format: "JSON behind a Grafana/Loki export's time column and a tab",
    level: 'WARN',
    target: 'linkerd_reconnect',
    lines: [`2025-12-12 19:55:11.333\t${JSON_LINE}`],
  },
  { format: '`> ` quoted', level: 'WARN', target: 'linkerd_reconnect', lines: [`> ${PLAIN}`] },
  { format: '`>` quoted without its space', level: 'WARN', target: 'linkerd_reconnect', lines: [`>${PLAIN}`] },
  { format: 'leading spaces', level: 'WARN', target: 'linkerd_reconnect', lines: [`    ${PLAIN}`] },
  { format: 'uptime missing its `]`', level: 'WARN', target: 'linkerd_reconnect', lines: [`[    13.328926s  WARN ThreadId(01) ${PLAIN_BODY}`] },
];

describe("a proxy line behind a log UI's columns", () => {
  it('takes the wall time only from a column that states its zone', async () => {
    const zoned = await parse(`2024-06-06T11:01:39.532Z\t${PLAIN}\n`);
    const local = await parse(`2024-06-06 11:01:39.532\t${PLAIN}\n`);
    assert.deepEqual([zoned.records[0]!.time, local.records[0]!.time], [Date.parse('2024-06-06T11:01:39.532Z'), null]);
    for (const r of [...zoned.records, ...local.records]) expectReconnect(r);
  });

  it('does not take a proxy line quoted far inside another message', async () => {
    const quoted = `support ticket 4711: the customer reports that every request fails and attaches this line from the proxy: ${PLAIN}`;
    const { records } = await parse(`${PLAIN}\n${quoted}\n`);
    assert.deepEqual(
      records.map((r) => r.line),
      [1],
    );
  });
});

describe('a file made only of one pasted format', () => {
  for (const { format, lines, level, target } of SINGLE_FORMAT_FILES) {
    it(`is sniffed as a proxy log and read: ${format}`, async () => {
      const file = [...lines, ...lines, ...lines].join('\n');
      assert.equal(sniffKind(file.split('\n')), 'proxy-log');
      const { records, unparsed, stats } = await parse(file);
      assert.equal(stats.kind, 'proxy-log');
      assert.deepEqual(unparsed, []);
      assert.deepEqual(
        records.map((r) => [r.level, r.target]),
        [
          [level, target],
          [level, target],
          [level, target],
        ],
      );
    });
  }
});

describe('sniffing an input behind a long preamble', () => {
  const preamble = Array.from({ length: 70 }, (_, i) =>
    i % 2 === 0 ? `Defaulted container "linkerd-proxy" out of: linkerd-proxy, web, linkerd-init (init)` : `kubectl logs web-5d8f7c9b4-${i} -c linkerd-proxy`,
  );

  it('reads 70 lines of kubectl chatter followed by proxy lines as a proxy log', async () => {
    const { records, unparsed, stats } = await parse([...preamble, PLAIN, PLAIN, PLAIN].join('\n'));
    assert.equal(stats.kind, 'proxy-log');
    assert.equal(records.length, 3);
    assert.deepEqual(
      records.map((r) => r.line),
      [71, 72, 73],
    );
    assert.deepEqual(unparsed, []);
  });

  it('decides from the telling lines, not the first 64 physical ones', () => {
    assert.equal(sniffKind([...preamble, PLAIN]), 'proxy-log');
    assert.equal(sniffKind(preamble), 'unknown');
  });

  it('still gives up on an input of nothing but chatter, having buffered a bounded window', async () => {
    const { records, stats } = await parse(Array.from({ length: 10_000 }, () => preamble[0]).join('\n'));
    assert.equal(stats.kind, 'unknown');
    assert.equal(records.length, 0);
  });
});

describe('JSON nested deeper than a recursive walk survives (issue 21)', () => {
  const DEPTH = 5000;
  const deep = `{"timestamp":"[     1.000000s]","level":"WARN","fields":{"message":"nested","payload":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}},"target":"linkerd_app","threadId":"ThreadId(1)"}`;
  const deepSpans = `{"timestamp":"[     1.000001s]","level":"WARN","fields":{"message":"spans"},"target":"linkerd_app","spans":[{"name":"outbound","deep":${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}}],"threadId":"ThreadId(1)"}`;

  it('reads the line, bounds the rendered depth, and keeps reading the rest of the file', async () => {
    const { records, unparsed, error } = await parse([JSON_LINE, deep, deepSpans, JSON_LINE].join('\n'));
    assert.equal(error, undefined);
    assert.deepEqual(unparsed, []);
    assert.deepEqual(
      records.map((r) => r.line),
      [1, 2, 3, 4],
    );
    const payload = records[1]!.fields.payload!;
    assert.ok(payload.length < 100, payload);
    assert.ok(payload.includes('…'));
    assert.ok(records[2]!.spans[0]!.fields.deep!.length < 100);
  });

  it('survives a pretty-printed record nested that deep too', async () => {
    const pretty = [
      '{',
      '  "level": "WARN",',
      '  "target": "linkerd_app",',
      `  "fields": {"message": "deep", "x": ${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`,
      '}',
    ].join('\n');
    const { records, error } = await parse(`${pretty}\n${JSON_LINE}\n`);
    assert.equal(error, undefined);
    assert.deepEqual(
      records.map((r) => [r.line, r.message]),
      [
        [1, 'deep'],
        [6, 'Failed to connect'],
      ],
    );
  });

  it('names the line of a JSON record that is not a log record', async () => {
    const unparsed: number[] = [];
    const records: LdRecord[] = [];
    const parser = createProxyLogParser({ path: 'x.log', kind: 'proxy-log' }, { emit: (r) => records.push(r), unparsed: (line) => unparsed.push(line) }, {});
    parser.line(JSON_LINE, 1);
    parser.line(`{"deep":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`, 2);
    parser.line(JSON_LINE, 3);
    parser.end();
    assert.equal(records.length, 2);
    assert.deepEqual(unparsed, [2]);
  });
});

describe('pretty-printed JSON that is not a log record', () => {
  it('is read line by line, each line reported under its own number', async () => {
    const { records, unparsed } = await parse(['{', '  "kind": "Pod",', '  "spec": {}', '}', JSON_LINE].join('\n'));
    assert.deepEqual(
      records.map((r) => r.line),
      [5],
    );
    assert.deepEqual(
      unparsed.map((u) => u.line),
      [1, 2, 3, 4],
    );
  });
});
