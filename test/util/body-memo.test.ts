import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProxyLogRecord } from '../../src/core/types.js';
import { ParseContext } from '../../src/parsers/context.js';
import { parseProxyLogPayload } from '../../src/parsers/proxy-log.js';
import { perBody } from '../../src/util/body-memo.js';

const line = (up: string, addr: string) =>
  `[ ${up}s]  WARN ThreadId(01) outbound:proxy{addr=${addr}}:service{ns=shop name=cart port=8080}:endpoint{addr=${addr}}: linkerd_reconnect: Failed to connect error=Connection refused (os error 111)`;

/** One run's parse caches, as the engine hands them to the parsers. */
const context = new ParseContext();

function record(text: string): ProxyLogRecord {
  const parsed = parseProxyLogPayload(text, context);
  assert.ok(parsed);
  return { kind: 'proxy-log', path: 'p.log', line: 1, time: null, restart: 0, raw: text, ...parsed } as ProxyLogRecord;
}

describe('perBody', () => {
  it('derives once per shared body and again for a different body', () => {
    let calls = 0;
    const endpointOf = perBody((r) => {
      calls++;
      return r.spans.find((s) => s.name === 'endpoint')?.fields.addr ?? null;
    });
    // Different uptimes, same body: the parser caches a body from its second sighting and hands
    // every record from then on one shared body.
    assert.equal(endpointOf(record(line('12.000001', '10.0.0.1:8080'))), '10.0.0.1:8080');
    assert.equal(calls, 1);
    assert.equal(endpointOf(record(line('12.500001', '10.0.0.1:8080'))), '10.0.0.1:8080');
    assert.equal(endpointOf(record(line('12.700001', '10.0.0.1:8080'))), '10.0.0.1:8080');
    assert.equal(endpointOf(record(line('12.900001', '10.0.0.1:8080'))), '10.0.0.1:8080');
    assert.equal(calls, 2);
    assert.equal(endpointOf(record(line('13.000001', '10.0.0.2:8080'))), '10.0.0.2:8080');
    assert.equal(endpointOf(record(line('13.500001', '10.0.0.2:8080'))), '10.0.0.2:8080');
    assert.equal(endpointOf(record(line('13.700001', '10.0.0.2:8080'))), '10.0.0.2:8080');
    assert.equal(calls, 4);
  });

  it('derives every time for records whose body is not shared, and remembers null results', () => {
    let calls = 0;
    const never = perBody(() => {
      calls++;
      return null;
    });
    const built = { ...record(line('1.000001', '10.0.0.3:8080')), fields: { error: 'x' } };
    never(built);
    never(built);
    assert.equal(calls, 2, 'a fields object the parser did not share is not memoised');
    record(line('1.000001', '10.0.0.4:8080'));
    const shared = record(line('1.000001', '10.0.0.4:8080'));
    never(shared);
    never(shared);
    assert.equal(calls, 3);
  });

  it('keeps the memo out of the fields a report or `parse` prints', () => {
    const r = record(line('2.000001', '10.0.0.5:8080'));
    assert.deepEqual(Object.keys(r.fields), ['error']);
    assert.equal(JSON.stringify(r.fields), '{"error":"Connection refused (os error 111)"}');
  });
});
