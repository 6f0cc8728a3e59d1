// Issue 45: the last look at every line no parser read. Each entry of the list has a source, a
// line that must fire and a close one that must stay quiet; the scan runs on what parsers leave,
// whatever the input's kind, and on inputs of no kind at all.

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { InputInfo, KubeEventRecord, LdRecord, PodStatusRecord } from '../../src/core/types.js';
import { readEntry } from '../../src/engine/pipeline.js';
import { FAILURE_WORDS, lastLook } from '../../src/parsers/last-look.js';
import { RULES } from '../../src/rules/index.js';
import { CERTIFICATE_KNOWLEDGE, KUBERNETES_KNOWLEDGE, knowledgeOf } from '../../src/knowledge/causes/index.js';
import { SIGNATURES } from '../../src/rules/known-signature/index.js';
import podRestarts from '../../src/rules/pod-restarts/index.js';
import { runRule } from '../support/rule-tester.js';

const input: InputInfo = { path: 'paste.txt', kind: 'unknown' };
/** The base's entries: Kubernetes and certificate knowledge, and every catalogue signature's (knowledgeOf). */
const BASE = new Map([...KUBERNETES_KNOWLEDGE, ...CERTIFICATE_KNOWLEDGE, ...SIGNATURES.map((s) => knowledgeOf(s))].map((k) => [k.signature, k]));

async function read(lines: readonly string[], path = 'paste.txt') {
  const records: LdRecord[] = [];
  const { stats } = await readEntry({ path, stream: Readable.from([Buffer.from(lines.join('\n') + '\n')]), size: null }, { record: (r) => records.push(r) });
  return { stats, records };
}

describe('the list of failure words', () => {
  for (const words of FAILURE_WORDS) {
    describe(words.id, () => {
      it('names its source upstream and the rule that owns it', () => {
        assert.ok(words.source.length > 40, 'a source that says where the words are printed');
        assert.ok(
          RULES.some((r) => r.meta.id === words.owner),
          `${words.owner} is a rule`,
        );
      });
      it('draws its causes from the knowledge base: each entry it names is there, with sourced causes', () => {
        assert.ok(words.knowledge.length > 0);
        for (const signature of words.knowledge) {
          const entry = BASE.get(signature);
          assert.ok(entry, `${signature} is in the knowledge base`);
          assert.ok(entry.causes.length > 0 && entry.causes.every((c) => c.sources.length > 0), `${signature}: sourced causes`);
        }
      });
      it('fires on its real-shaped line, as itself', () => {
        assert.ok(words.pattern.test(words.fires), 'its own pattern matches');
        const record = lastLook(input, 7, words.fires);
        assert.ok(record, 'the scan makes a record of the line');
        assert.equal(record.line, 7);
        // No earlier entry takes the line away from it.
        const first = FAILURE_WORDS.find((w) => w.pattern.test(words.fires) && lastLook(input, 7, words.fires) !== null);
        assert.equal(first?.id, words.id);
      });
      it('stays quiet on a close line without the failure', () => {
        assert.equal(lastLook(input, 7, words.quiet), null);
      });
    });
  }
});

describe('what a line becomes', () => {
  it('a probe failure is the Unhealthy event the kubelet would have printed, with the pod the line names', () => {
    const e = lastLook(
      input,
      1,
      'Liveness probe failed: Get "http://10.94.94.3:9990/live": context deadline exceeded (Client.Timeout exceeded while awaiting headers) | linkerd-destination-744c8f574c-vx95n',
    ) as KubeEventRecord;
    assert.deepEqual([e.kind, e.source, e.type, e.reason, e.pod], ['kube-event', 'last-look', 'Warning', 'Unhealthy', 'linkerd-destination-744c8f574c-vx95n']);
    assert.match(e.message, /^Liveness probe failed: Get "http:\/\/10\.94\.94\.3:9990\/live"/);
  });

  it('an OOM kill is a container status, the container named where the line names it', () => {
    const s = lastLook(input, 1, 'Warning BackOff: container "linkerd-proxy" was OOMKilled, exit code 137') as PodStatusRecord;
    assert.deepEqual([s.kind, s.source, s.container, s.lastReason], ['pod-status', 'last-look', 'linkerd-proxy', 'OOMKilled']);
  });

  it('a back-off names the container and the pod', () => {
    const e = lastLook(input, 1, FAILURE_WORDS.find((w) => w.id === 'back-off-restarting')!.fires) as KubeEventRecord;
    assert.deepEqual([e.reason, e.container, e.pod], ['BackOff', 'linkerd-network-validator', 'linkerd-destination-7d9f8c6b5-x2x8k']);
  });

  it('an API path names the namespace and the pod', () => {
    const e = lastLook(
      input,
      1,
      'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "20ec": plugin type="linkerd-cni" name="linkerd-cni" failed (add): Get "https://[172.20.0.1]:443/api/v1/namespaces/linkerd/pods/linkerd-identity-784744bbd9-fz4rb": Forbidden',
    ) as KubeEventRecord;
    assert.deepEqual([e.reason, e.namespace, e.pod], ['FailedCreatePodSandBox', 'linkerd', 'linkerd-identity-784744bbd9-fz4rb']);
  });

  it('a dial to something other than the API server is not the API server unreachable', () => {
    assert.equal(lastLook(input, 1, 'upstream: dial tcp 10.4.2.17:8080: connect: connection refused'), null);
  });
});

describe('the scan in the pipeline', () => {
  it('reads the lines of an input of no known kind (linkerd/linkerd2#12895: event messages copied from a dashboard)', async () => {
    const { stats, records } = await read([
      'Liveness probe failed: Get "http://10.94.94.3:9990/live": context deadline exceeded (Client.Timeout exceeded while awaiting headers) | linkerd-destination-744c8f574c-vx95n',
      'Liveness probe failed: Get "http://10.94.69.218:9990/live": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
    ]);
    assert.equal(records.length, 2);
    assert.ok(records.every((r) => r.kind === 'kube-event' && r.reason === 'Unhealthy'));
    assert.equal(stats.records, 2);
  });

  it('reads what a parser left: a describe excerpt whose last lines are not describe', async () => {
    const { records } = await read([
      '    Last State:      Terminated',
      '      Reason:        Error',
      '      Exit Code:     1',
      'Warning  BackOff  pod/linkerd-destination-5d8f9c7b4-k2x9q  Back-off restarting failed container policy in pod linkerd-destination-5d8f9c7b4-k2x9q_linkerd(9a1f)',
    ]);
    assert.ok(records.some((r) => r.kind === 'kube-event' && r.reason === 'BackOff'));
  });

  it('leaves the lines a parser read alone: a proxy log line is not scanned', async () => {
    const { records } = await read([
      '[     0.002172s]  INFO ThreadId(01) linkerd2_proxy::rt: Using single-threaded proxy runtime',
      '[    12.337000s]  WARN ThreadId(01) outbound:proxy{addr=10.96.0.1:443}: linkerd_reconnect: Failed to connect error=dial tcp 10.96.0.1:443: i/o timeout',
    ]);
    assert.ok(records.every((r) => r.kind === 'proxy-log'));
  });

  it("leaves a bundle's README alone: documentation that names failures is no evidence", async () => {
    const { stats, records } = await read([
      '# Pod restarts',
      '',
      'Shaped after linkerd/linkerd2#4899 (proxy OOMKilled, `Last State: Terminated / Reason: OOMKilled`) and',
      'linkerd/linkerd2#10643 (destination pod in CrashLoopBackOff).',
    ]);
    assert.equal(records.length, 0);
    assert.equal(stats.unparsed, 0);
  });

  it('counts what the last look did not take as unread in an input of no known kind', async () => {
    const { stats } = await read(['a note about the cluster', 'the injector restarted twice', 'Back-off restarting failed container proxy-injector in pod x']);
    assert.equal(stats.kind, 'unknown');
    assert.equal(stats.records, 1);
    assert.equal(stats.unparsed, 2);
  });
});

describe('the rule that owns the words raises the finding', () => {
  it('a FailedMount of the identity issuer Secret, pasted alone (kubelet event message): the pod cannot start', async () => {
    const run = await runRule(podRestarts, [
      {
        path: 'paste.txt',
        content:
          'Warning  FailedMount  2m (x12 over 20m)  kubelet  MountVolume.SetUp failed for volume "identity-issuer" : secret "linkerd-identity-issuer" not found | linkerd-identity-6c86f797-4b59v\n',
      },
    ]);
    assert.deepEqual(
      run.findings.map((f) => [f.severity, f.kind, f.subject.workload]),
      [['error', 'mount-failed/identity-issuer', 'linkerd-identity']],
    );
    assert.match(run.findings[0]!.title, /Secret linkerd-identity-issuer does not exist/);
  });

  it('an Evicted line of a Linkerd pod in a chat paste: evicted under node pressure', async () => {
    const run = await runRule(podRestarts, [
      { path: 'paste.txt', content: 'fyi linkerd-prometheus-6f44484f65-29629 got Evicted again: The node was low on resource: memory.\n' },
    ]);
    assert.deepEqual(
      run.findings.map((f) => [f.severity, f.kind]),
      [['warning', 'evicted/linkerd-prometheus']],
    );
    assert.match(run.findings[0]!.message, /ran short of memory/);
  });

  it("a FailedMount of an application volume is not Linkerd's", async () => {
    const run = await runRule(podRestarts, [
      { path: 'paste.txt', content: 'MountVolume.SetUp failed for volume "data" : configmap "web-config" not found | web-7d9f8c6b5-x2x8k\n' },
    ]);
    assert.deepEqual(run.findings, []);
  });
});
