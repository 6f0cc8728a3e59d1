// The engine hands a plain proxy-log record only to the rules whose lineInterest substrings it
// holds (and to the rules that declared none); what the parser always builds goes to every rule.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineRule, type LdRecord, type ProxyLogRecord } from '../../src/core/types.js';
import { RuleEngine } from '../../src/engine/engine.js';
import { createProxyLogParser } from '../../src/parsers/proxy-log.js';

/** A rule that notes the lines it was handed. */
function recorder(id: string, words: string[] | null) {
  return defineRule<object, { lines: number[] }>({
    meta: {
      id,
      code: 'LD0000',
      title: id,
      description: id,
      defaultSeverity: 'info',
      inputs: ['proxy-log'],
      ...(words ? { lineInterest: { 'proxy-log': words } } : {}),
      defaultOptions: {},
      optionSchema: {},
    },
    createState: () => ({ lines: [] }),
    visitors: { 'proxy-log': (state, record) => void state.lines.push(record.line) },
    merge: () => undefined,
    finish: () => [],
  });
}

function parsedLines(lines: string[]): ProxyLogRecord[] {
  const records: LdRecord[] = [];
  const parser = createProxyLogParser({ path: 'web.log', kind: 'proxy-log' }, { emit: (r) => records.push(r), unparsed: () => undefined }, {});
  lines.forEach((l, i) => parser.line(l, i + 1));
  parser.end();
  return records as ProxyLogRecord[];
}

const up = (s: number) => `[${s.toFixed(6).padStart(13)}s]`;

describe('the interest mask', () => {
  const lines = [
    `${up(0.002)}  INFO ThreadId(01) linkerd2_proxy: release 2.280.0 (abc1234) by linkerd on 2025-02-12T15:16:03Z`,
    `${up(10)}  WARN ThreadId(01) outbound:proxy{addr=10.0.0.1:80}:endpoint{addr=10.0.0.1:80}: linkerd_reconnect: Failed to connect error=Connection refused (os error 111)`,
    `${up(11)}  INFO ThreadId(01) outbound:proxy{addr=10.0.0.1:80}:service{ns=shop name=web port=80}: linkerd_proxy_balance_queue::worker: Unavailable; entering failfast timeout=3.0`,
    `${up(12)}  INFO ThreadId(01) inbound:server{port=4143}: linkerd_app_inbound::detect: Handling connection as opaque`,
    `${up(13)}  INFO ThreadId(02) \u001b[2moutbound:service\u001b[0m{ns=shop}: linkerd_app: colored`,
    `${up(1)}  INFO ThreadId(01) inbound:server{port=4143}: linkerd_app_inbound::detect: first line after a restart`,
    '{"timestamp":"[    14.000000s]","level":"INFO","fields":{"message":"json"},"target":"linkerd_app","spans":[{"name":"service","ns":"shop"}]}',
  ];
  const rules = [
    recorder('reconnects', ['linkerd_reconnect']),
    recorder('failfast', ['failfast']),
    recorder('entering', ['entering failfast', 'service{']),
    recorder('restarts', []),
    recorder('everything', null),
  ];

  it('hands each rule the lines holding its substrings, and every rule what the parser always builds', () => {
    const engine = new RuleEngine(rules.map((rule) => ({ rule, options: {} })));
    for (const record of parsedLines(lines)) engine.emit(record);
    const seen = engine.snapshot().map((s) => (s as { lines: number[] }).lines);
    // Lines 1 (a banner), 6 (the first after a restart) and 7 (JSON) go to every rule; the colored
    // line 5 is judged by its text without the color codes.
    assert.deepEqual(seen, [
      [1, 2, 6, 7],
      [1, 3, 6, 7],
      [1, 3, 5, 6, 7],
      [1, 2, 3, 4, 5, 6, 7],
      [1, 2, 3, 4, 5, 6, 7],
    ]);
  });

  it('judges a body once and still right for a second engine with other rules', () => {
    const records = parsedLines([
      lines[2]!,
      lines[2]!.replace('[     11.000000s]', '[     11.500000s]'),
      lines[2]!.replace('[     11.000000s]', '[     11.700000s]'),
    ]);
    assert.equal(records[2]!.fields, records[1]!.fields, 'the body is shared from its second sighting');
    const first = new RuleEngine([{ rule: rules[1]!, options: {} }]);
    const second = new RuleEngine([{ rule: rules[0]!, options: {} }]);
    for (const record of records) {
      first.emit(record);
      second.emit(record);
    }
    assert.deepEqual((first.snapshot()[0] as { lines: number[] }).lines, [1, 2, 3]);
    assert.deepEqual((second.snapshot()[0] as { lines: number[] }).lines, []);
  });
});
