// The span-field scanner replaced a global regex on the hot path; it must split fields exactly
// as that regex did, for any text (property test against the regex as reference).

import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { parseProxyLogPayload } from '../../src/parsers/proxy-log.js';

const FIELD_KEY = /(?:^| )([A-Za-z_][\w.]*)=/g;

function reference(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  const keys: { key: string; valueStart: number; matchStart: number }[] = [];
  FIELD_KEY.lastIndex = 0;
  for (let m = FIELD_KEY.exec(text); m; m = FIELD_KEY.exec(text)) keys.push({ key: m[1]!, valueStart: m.index + m[0].length, matchStart: m.index });
  for (let i = 0; i < keys.length; i++) {
    const v = text.slice(keys[i]!.valueStart, i + 1 < keys.length ? keys[i + 1]!.matchStart : text.length);
    fields[keys[i]!.key] = v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v;
  }
  return fields;
}

it('span fields split like /(?:^| )([A-Za-z_][\\w.]*)=/g', () => {
  const alphabet = fc.constantFrom('a', 'b', 'Z', '_', '.', '=', ' ', '1', '"', 'x', '-', ':');
  fc.assert(
    fc.property(
      fc.array(alphabet, { maxLength: 40 }).map((a) => a.join('')),
      (inner) => {
        const parsed = parseProxyLogPayload(`[     1.000000s]  INFO ThreadId(01) span{${inner}}: linkerd_app: msg`);
        if (!parsed || parsed.spans.length === 0) return;
        assert.deepEqual(Object.entries(parsed.spans[0]!.fields), Object.entries(reference(inner)));
      },
    ),
    { numRuns: 5000 },
  );
  const real = parseProxyLogPayload(
    '[  1.5s]  WARN ThreadId(01) outbound:proxy{addr=10.0.0.1:80}:service{ns= name=service port=0}: linkerd_reconnect: Failed to connect',
  );
  assert.deepEqual(
    // Field objects have no prototype (names from the input are data, issue 44): compared as plain copies.
    real?.spans.map((s) => ({ ...s.fields })),
    [{}, { addr: '10.0.0.1:80' }, { ns: '', name: 'service', port: '0' }],
  );
});
