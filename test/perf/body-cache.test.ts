// The parsed-body cache steps aside while bodies do not repeat. A fresh cache must not be taken
// for such a case: its first probe always sees mostly new bodies, even in a storm.
// Cached bodies are frozen and shared; parsed ones are not, which is what these tests observe.
// Both cases read through one run's cache (a ParseContext), in order.

import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ParseContext } from '../../src/parsers/context.js';
import { parseProxyLogPayload } from '../../src/parsers/proxy-log.js';

const line = (addr: string) =>
  `[  1.5s]  WARN ThreadId(01) outbound:proxy{addr=${addr}:80}:service{ns=web name=api port=80}:endpoint{addr=${addr}:80}: linkerd_reconnect: Failed to connect error=connect timed out`;
const addressOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const context = new ParseContext();
const shared = (text: string) => Object.isFrozen(parseProxyLogPayload(text, context)!.fields);

it('a cold cache that fails its first probe is tried again soon, and then serves a storm', () => {
  // 600 new bodies: the first probe (512 lookups) hits nothing.
  for (let i = 0; i < 600; i++) parseProxyLogPayload(line(addressOf(i)), context);
  // Then the storm repeats 20 bodies. A bypass of 65,536 would leave every one of these unshared.
  let sharedLines = 0;
  for (let i = 0; i < 4000; i++) if (shared(line(addressOf(1_000 + (i % 20))))) sharedLines++;
  assert.ok(sharedLines > 3000, `only ${sharedLines} of 4000 repeated lines came from the cache`);
});

it('bodies that never repeat end up bypassing the cache for long stretches', () => {
  let sharedLines = 0;
  const total = 200_000;
  for (let i = 0; i < total; i++) if (shared(line(addressOf(100_000 + i)))) sharedLines++;
  // Probes cost 512 entries each; with the bypass doubling to 65,536 they are a small share.
  assert.ok(sharedLines < total * 0.05, `${sharedLines} of ${total} never-repeating bodies went through the cache`);
  assert.ok(!shared(line(addressOf(400_000))), 'the cache is being bypassed');
});
