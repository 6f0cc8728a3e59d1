// Issue 17: "a 40 MB bundle gives one finding per signature, not one per line". Four pods' logs of
// 10 MB each, mostly healthy traffic lines with three known signatures repeated through them, read
// the way analyze reads them (lines outside the rules' interest skimmed), with known-signature.

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { InputStats } from '../../src/core/types.js';
import { RuleEngine } from '../../src/engine/engine.js';
import { readEntry } from '../../src/engine/pipeline.js';
import knownSignature from '../../src/rules/known-signature/index.js';

const POD_BYTES = 10 * 1024 * 1024;
const PODS = ['web-5d8f7c9b4-a1b2c', 'web-5d8f7c9b4-d3e4f', 'web-5d8f7c9b4-g5h6i', 'web-5d8f7c9b4-j7k8l'];
const START = Date.parse('2024-06-07T09:00:00Z');

// Real lines (linkerd2 #8608, #11156, #2322), the signature bodies after the uptime and level.
const SIGNATURE_BODIES: Record<string, string> = {
  'unauthorized-connection':
    'INFO ThreadId(01) inbound:server{port=55678}:rescue{client.addr=169.254.42.1:52388}: linkerd_app_core::errors::respond: Request failed error=unauthorized connection on server collector-opencensus',
  'trust-anchor-mismatch':
    'WARN ThreadId(02) identity:controller{addr=linkerd-identity-headless.linkerd.svc.cluster.local:8080}:endpoint{addr=10.129.192.22:8080}: linkerd_reconnect: Failed to connect error=endpoint 10.129.192.22:8080: invalid peer certificate: UnknownIssuer',
  'too-many-open-files': 'ERROR ThreadId(01) inbound: linkerd_app_core::serve: Connection closed error=Too many open files (os error 24)',
};
const HEALTHY_BODIES = [
  'INFO ThreadId(01) policy:controller{addr=linkerd-policy.linkerd.svc.cluster.local:8090}: linkerd_pool_p2c: Adding endpoint addr=10.42.0.17:8090',
  'DEBUG ThreadId(01) outbound:proxy{addr=10.96.12.4:80}:service{ns=shop name=orders port=80}: linkerd_proxy_http::client: method=GET uri=http://orders.shop.svc.cluster.local/ version=HTTP/1.1',
  'INFO ThreadId(01) inbound:server{port=8080}: linkerd_app_inbound::detect: Detected protocol protocol=Http1',
];
/** One signature line in this many lines. */
const SIGNATURE_EVERY = 50;

/** A pod's log of about POD_BYTES as `kubectl logs --timestamps` writes it, and how many lines of each signature it holds. */
function podLog(): { content: Buffer; counts: Map<string, number> } {
  const ids = Object.keys(SIGNATURE_BODIES);
  const counts = new Map(ids.map((id) => [id, 0]));
  const lines: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < POD_BYTES; i++) {
    let body: string;
    if (i % SIGNATURE_EVERY === 0) {
      const id = ids[(i / SIGNATURE_EVERY) % ids.length]!;
      counts.set(id, counts.get(id)! + 1);
      body = SIGNATURE_BODIES[id]!;
    } else {
      body = HEALTHY_BODIES[i % HEALTHY_BODIES.length]!;
    }
    const uptime = 10 + i * 0.01;
    const line = `${new Date(START + uptime * 1000).toISOString()} [${uptime.toFixed(6).padStart(13)}s] ${body}\n`;
    lines.push(line);
    bytes += line.length;
  }
  return { content: Buffer.from(lines.join('')), counts };
}

describe('known-signature on a 40 MB bundle', () => {
  it('gives one finding per signature, with the counts, pods, times and capped samples of all its lines', async () => {
    const { content, counts } = podLog();
    const engine = new RuleEngine([{ rule: knownSignature, options: knownSignature.meta.defaultOptions }]);
    const inputs: InputStats[] = [];
    for (const pod of PODS) {
      const path = `shop/${pod}/linkerd-proxy.log`;
      const result = await readEntry(
        { path, stream: Readable.from([content]), size: content.length },
        { record: (r) => engine.emit(r) },
        { interest: engine.lineInterest() },
        'proxy-log',
      );
      assert.equal(result.error, undefined);
      inputs.push(result.stats);
    }
    assert.ok(inputs.reduce((sum, i) => sum + i.bytes, 0) >= 40 * 1024 * 1024);
    const { findings, ruleFailures } = engine.finish(inputs);
    assert.deepEqual(ruleFailures, []);
    assert.deepEqual(findings.map((f) => f.evidence.signature).sort(), Object.keys(SIGNATURE_BODIES).sort());
    for (const f of findings) {
      const id = f.evidence.signature as string;
      assert.equal(f.severity, 'info');
      assert.equal(f.evidence.lines, counts.get(id)! * PODS.length, id);
      assert.equal(f.evidence.podsAffected, PODS.length, id);
      assert.deepEqual(
        (f.evidence.pods ?? []).map((p) => p.lines),
        PODS.map(() => counts.get(id)),
        id,
      );
      assert.equal((f.evidence.samples as unknown[]).length, 3, id);
      assert.ok(typeof f.evidence.firstTime === 'string' && typeof f.evidence.lastTime === 'string' && f.evidence.firstTime < f.evidence.lastTime, id);
    }
  });
});
