// The knowledge base of causes (src/knowledge/causes, docs/knowledge.md): every failure the
// inventory says Linkerd can log has causes with a source; every curated cause has a tell that
// names it and is not named by another cause's context; the known-signature finding says the
// likely cause, or what failed, never only the log line.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Inventory, InventoryEntry } from '../../scripts/inventory/extract.js';
import { VERDICT_RULES } from '../../scripts/inventory/verdicts.js';
import {
  CERTIFICATE_CONTEXTS,
  CERTIFICATE_KNOWLEDGE,
  CHECK_KNOWLEDGE,
  CURATED_KNOWLEDGE,
  KUBERNETES_CONTEXTS,
  KUBERNETES_KNOWLEDGE,
  knowledgeOf,
} from '../../src/knowledge/causes/index.js';
import knownSignature, { SIGNATURES } from '../../src/rules/known-signature/index.js';
import { compileKnowledge, likelyCause } from '../../src/rules/known-signature/causes.js';
import { actionProblem } from '../support/actions.js';
import { runRule } from '../support/rule-tester.js';

const INVENTORY = JSON.parse(readFileSync(fileURLToPath(new URL('../../data/inventory/inventory.json', import.meta.url)), 'utf8')) as Inventory;
const BY_ID = new Map(SIGNATURES.map((s) => [s.id, s]));
/** Where a cause may be established: Linkerd's docs, and the trackers of Linkerd's and CoreDNS's repositories. */
const TRUSTED = /^https:\/\/(?:linkerd\.io\/|github\.com\/(?:linkerd|coredns|kubernetes)\/)/;

const normalise = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/** The known-signature findings of these lines, read through the real pipeline as a pasted log. */
async function findingsOf(lines: string[]) {
  return (await runRule(knownSignature, [{ path: 'pasted.log', content: `${lines.join('\n')}\n` }])).findings;
}

describe('knowledge base of causes', () => {
  it('gives every inventory message with a non-benign verdict causes with a trusted source', () => {
    const signaturesOf = (entry: InventoryEntry): string[] => {
      const rule = VERDICT_RULES.find((r) => r.components.includes(entry.component) && new RegExp(r.template).test(entry.template ?? ''));
      const verdict = rule?.verdict;
      if (!verdict) return [];
      if ('signature' in verdict && verdict.signature) return [verdict.signature];
      if ('cases' in verdict && verdict.cases) return verdict.cases.map((c) => c.signature);
      // benign, or a bare runtime error whose causes are those of the signature its text matches
      return [];
    };
    let checked = 0;
    const gaps: string[] = [];
    for (const entry of INVENTORY.entries) {
      for (const id of signaturesOf(entry)) {
        const signature = BY_ID.get(id);
        assert.ok(signature, `${entry.key}: unknown signature ${id}`);
        if (signature.family === 'benign') continue;
        checked++;
        const knowledge = knowledgeOf(signature);
        const sourced = knowledge.causes.filter((c) => c.sources.some((s) => TRUSTED.test(s.url)));
        if (sourced.length === 0) gaps.push(`${entry.key} → ${id}`);
      }
    }
    console.log(`# causes: ${checked} inventory verdicts checked, ${gaps.length} without a sourced cause`);
    assert.ok(checked > 250, `only ${checked} verdicts checked`);
    assert.deepEqual(gaps, []);
  });

  it('gives every linkerd check anchor causes with a source, the docs section of the anchor where linkerd.io has one', () => {
    const checks = JSON.parse(readFileSync(fileURLToPath(new URL('../../data/checks/checks.json', import.meta.url)), 'utf8')) as {
      checks: { anchor: string | null }[];
      remedies: { anchor: string }[];
    };
    const documented = new Set(checks.remedies.map((r) => r.anchor));
    const byAnchor = new Map(CHECK_KNOWLEDGE.map((k) => [k.signature.slice('check:'.length), k]));
    const anchors = [...new Set(checks.checks.flatMap((c) => (c.anchor ? [c.anchor] : [])))];
    const gaps = anchors.filter((a) => {
      const k = byAnchor.get(a);
      return !k || k.causes.length === 0 || !k.causes.every((c) => c.sources.some((s) => TRUSTED.test(s.url)));
    });
    console.log(
      `# causes: ${anchors.length} check anchors, ${anchors.filter((a) => documented.has(a)).length} with a linkerd.io section, ${gaps.length} without sourced causes`,
    );
    assert.deepEqual(gaps, []);
    for (const a of anchors.filter((x) => documented.has(x)))
      assert.ok(
        byAnchor.get(a)!.causes[0]!.sources.some((s) => s.url.endsWith(`/checks/#${a}`)),
        a,
      );
  });

  it('titles every failure in words that are not the log line', () => {
    const echoes = SIGNATURES.filter((s) => s.family !== 'benign').flatMap((s) => {
      const failure = normalise(knowledgeOf(s).failure);
      const echoed = s.match.literals.some((l) => normalise(l) === failure) || s.examples.some((e) => normalise(e.line).includes(failure));
      return echoed ? [s.id] : [];
    });
    assert.deepEqual(echoes, []);
  });

  it('certificate entries: unique ids, actions to take, trusted sources, tells the rule can test', () => {
    const contexts = new Set<string>(Object.values(CERTIFICATE_CONTEXTS));
    const ids = new Set(CURATED_KNOWLEDGE.flatMap((k) => k.causes.map((c) => c.id)));
    assert.ok(CERTIFICATE_KNOWLEDGE.length >= 6);
    for (const k of CERTIFICATE_KNOWLEDGE) {
      assert.match(k.signature, /^certificate:[a-z-]+$/);
      assert.ok(k.causes.length > 0, k.signature);
      const lineTells = k.causes.flatMap((c) => c.tells.filter((t) => t.line !== undefined));
      assert.ok(lineTells.length <= 31, `${k.signature}: one bit per line tell`);
      for (const c of k.causes) {
        assert.ok(!ids.has(c.id), `duplicate cause id ${c.id}`);
        ids.add(c.id);
        // `{rotation}` is filled with the rotation procedure for the setup, which starts with a verb.
        if (c.action !== '{rotation}') assert.equal(actionProblem(`${c.action.replace(/\{\w+\}/g, 'x')}.`), null, `${c.id}: ${c.action}`);
        assert.ok(c.sources.length > 0 && c.sources.every((s) => TRUSTED.test(s.url) && s.versions !== ''), `${c.id}: sources`);
        for (const tell of c.tells) {
          assert.ok(tell.line !== undefined || (tell.context !== undefined && contexts.has(tell.context)), `${c.id}: a tell with nothing to test`);
          if (tell.line !== undefined) assert.doesNotMatch(tell.line, /[*+?{}()[\]^$\\]/, `${c.id}: tell ${tell.line}`);
        }
      }
    }
  });

  it('Kubernetes entries: unique ids, actions to take, trusted sources (kubernetes.io docs too), tells the rules can test', () => {
    const contexts = new Set<string>(Object.values(KUBERNETES_CONTEXTS));
    const trusted = (url: string) => TRUSTED.test(url) || url.startsWith('https://kubernetes.io/docs/');
    const ids = new Set([...CURATED_KNOWLEDGE, ...CERTIFICATE_KNOWLEDGE].flatMap((k) => k.causes.map((c) => c.id)));
    assert.ok(KUBERNETES_KNOWLEDGE.length >= 10);
    for (const k of KUBERNETES_KNOWLEDGE) {
      assert.match(k.signature, /^(?:kubernetes|dns|scrape):[a-z-]+$/);
      assert.ok(k.causes.length > 0, k.signature);
      for (const c of k.causes) {
        assert.ok(!ids.has(c.id), `duplicate cause id ${c.id}`);
        ids.add(c.id);
        assert.equal(actionProblem(c.action.replace(/\{\w+\}/g, 'x')), null, `${c.id}: ${c.action}`);
        assert.ok(c.sources.length > 0 && c.sources.every((s) => trusted(s.url) && s.versions !== ''), `${c.id}: sources`);
        for (const tell of c.tells) {
          assert.ok(tell.line !== undefined || (tell.context !== undefined && contexts.has(tell.context)), `${c.id}: a tell with nothing to test`);
          if (tell.line !== undefined) assert.doesNotMatch(tell.line, /[*+?{}()[\]^$\\]/, `${c.id}: tell ${tell.line}`);
        }
      }
    }
  });

  it('curated entries: known signatures, unique ids, actions to take, trusted sources, linear literal tells', () => {
    const ids = new Set<string>();
    for (const k of CURATED_KNOWLEDGE) {
      assert.ok(BY_ID.has(k.signature), `${k.signature} is not a catalogue signature`);
      assert.ok(k.causes.length > 0 && k.causes.length <= 31, k.signature);
      for (const c of k.causes) {
        assert.ok(!ids.has(c.id), `duplicate cause id ${c.id}`);
        ids.add(c.id);
        assert.equal(actionProblem(c.action), null, `${c.id}: ${c.action}`);
        assert.ok(c.sources.length > 0 && c.sources.every((s) => TRUSTED.test(s.url) && s.versions !== ''), `${c.id}: sources`);
        for (const tell of c.tells) {
          assert.ok(tell.line !== undefined || tell.withSignature !== undefined, `${c.id}: a tell with nothing to test`);
          // Literal alternatives only: no quantifier, group, class or anchor can make it backtrack.
          if (tell.line !== undefined) assert.doesNotMatch(tell.line, /[*+?{}()[\]^$\\]/, `${c.id}: tell ${tell.line}`);
          if (tell.withSignature !== undefined) assert.ok(BY_ID.has(tell.withSignature), `${c.id}: ${tell.withSignature}`);
        }
      }
    }
  });
});

/**
 * From the mechanism: for each curated cause with a line tell, a line of its signature carrying
 * the tell's words must be titled with that cause, and the same line carrying another cause's
 * words (or none) must not. Lines are real-shaped, each citing the thread it comes from.
 */
const TELL_CASES: { signature: string; line: string; cause: string | null; source: string }[] = [
  {
    signature: 'connection-closed-before-message-completed',
    line: '[   318.223076s]  INFO ThreadId(01) inbound:server{port=9996}:rescue{client.addr=10.112.65.83:54968}: linkerd_app_core::errors::respond: Request failed error=connection closed before message completed',
    cause: 'app-closes-idle-keepalive',
    source: 'https://github.com/linkerd/linkerd2/issues/9800',
  },
  {
    signature: 'connection-closed-before-message-completed',
    line: '[   213.771212s]  INFO ThreadId(01) linkerd_app_core::serve: Connection closed error=connection closed before message completed',
    cause: null,
    source: 'https://github.com/linkerd/linkerd2/issues/6249',
  },
  {
    signature: 'connection-closed-before-message-completed',
    line: '[   213.771212s]  INFO ThreadId(01) outbound: linkerd_app_core::serve: Connection closed error=connection closed before message completed (ingress mode, no l5d-dst-override)',
    cause: 'ingress-mode-without-dst-override',
    source: 'https://github.com/linkerd/linkerd2/issues/6249 (the words added)',
  },
  {
    signature: 'connection-closed-before-message-completed',
    line: 'ERR! [  1236.631544s] linkerd2_app_core::errors unexpected error: connection closed before message completed: message head is too large',
    cause: 'request-line-too-long',
    source: 'https://github.com/linkerd/linkerd2/issues/4322 (the reason added)',
  },
  {
    signature: 'h2-protocol-error',
    line: 'linkerd2_app_core::errors: Failed to proxy request: http2 error: user error: header too big',
    cause: 'h2-header-too-big',
    source: 'https://github.com/linkerd/linkerd2/issues/6164',
  },
  {
    signature: 'h2-protocol-error',
    line: '[   512.120000s]  INFO ThreadId(01) inbound:server{port=8080}:rescue{client.addr=10.4.26.79:49978}: linkerd_app_core::errors::respond: HTTP/2.0 request failed error=http2 error error.sources=[stream error received: refused stream before processing any application logic]',
    cause: 'h2-peer-reset',
    source: 'linkerd2-proxy linkerd/app/core/src/errors/respond.rs (built from the call site)',
  },
  {
    signature: 'destination-endpoint-untranslatable',
    line: 'time="2022-12-13T10:26:31Z" level=error msg="Unable to create new address:unable to fetch pod production/gatekeeper-789c7d94bf-bz67w: pod \\"gatekeeper-789c7d94bf-bz67w\\" not found" addr=":8086" component=service-publisher ns=production port=80 svc=gatekeeper',
    cause: 'destination-endpoints-drift',
    source: 'https://github.com/linkerd/linkerd2/issues/10003',
  },
  {
    signature: 'destination-endpoint-untranslatable',
    line: 'time="2026-12-04T10:00:01Z" level=error msg="failed to get emojivoto/web service opaque ports annotation: invalid port range 80-" addr=":8086" component=opaque-ports-watcher',
    cause: 'opaque-ports-annotation-invalid',
    source: 'linkerd2 controller/api/destination/watcher/opaque_ports_watcher.go (built from the call site)',
  },
  {
    signature: 'destination-endpoint-untranslatable',
    line: 'time="2026-12-04T10:00:01Z" level=error msg="failed to create Selector: key: Invalid value: \\"app/\\": name part must be non-empty" addr=":8086" component=server-watcher',
    cause: 'server-selector-invalid',
    source: 'linkerd2 controller/api/destination/watcher (built from the call site)',
  },
  {
    signature: 'h2-protocol-error',
    line: '[  1020.114519s]  WARN ThreadId(01) inbound:server{port=8080}:rescue{client.addr=10.4.26.79:49978}: linkerd_app_core::errors::respond: HTTP/2.0 request failed error=http2 error: protocol error: malformed headers',
    cause: 'h2-peer-violates-protocol',
    source: 'linkerd2-proxy linkerd/app/core/src/errors/respond.rs (built from the call site with an h2 reason)',
  },
  {
    signature: 'controller-kube-api-lost',
    line: '{"level":"info","msg":"pkg/mod/k8s.io/client-go@v0.29.0/tools/cache/reflector.go:229: failed to list *v1.Job: Get \\"https://10.96.0.1:443/apis/batch/v1/jobs?resourceVersion=803143\\": dial tcp 10.96.0.1:443: i/o timeout","time":"2024-04-19T08:16:28Z"}',
    cause: null,
    source: 'https://github.com/linkerd/linkerd2/issues/12469',
  },
  {
    signature: 'network-validator-failed',
    line: '2023-08-15T14:52:27.798011Z ERROR linkerd_network_validator: Failed to validate networking configuration. Please ensure iptables rules are rewriting traffic as expected. timeout=10s',
    cause: 'validator-connect-address-unroutable',
    source: 'https://github.com/linkerd/linkerd2/issues/11250',
  },
  {
    signature: 'network-validator-failed',
    line: 'ERROR linkerd_network_validator: Unable to connect to validator. Please ensure iptables rules are rewriting traffic as expected error=Connection refused (os error 111)',
    cause: 'cni-not-ready-when-pod-started',
    source: 'https://github.com/linkerd/linkerd2/issues/12490',
  },
  {
    signature: 'service-mirror-link-status-rejected',
    line: 'level=error msg="Failed to patch link status linkerd-multicluster/c1: Link.multicluster.linkerd.io \\"c1\\" is invalid: [status.federatedServices[1].conditions[0].localRef.name: Required value, status.federatedServices[1].conditions[0].localRef.namespace: Required value]" cluster=c1',
    cause: 'mirror-namespace-missing-no-local-ref',
    source: 'https://github.com/linkerd/linkerd2/issues/14433',
  },
  {
    signature: 'service-mirror-link-status-rejected',
    line: 'time="2026-12-04T10:00:01Z" level=error msg="Failed to patch link status linkerd-multicluster/east: .status.federatedServices: field not declared in schema" cluster=east',
    cause: 'mirror-link-crd-outdated',
    source: "linkerd2 multicluster/service-mirror/cluster_watcher.go (built from the call site with the API server's schema error)",
  },
  {
    signature: 'service-mirror-link-status-rejected',
    line: 'time="2026-12-04T10:00:01Z" level=error msg="Failed to patch link status linkerd-multicluster/east: links.multicluster.linkerd.io \\"east\\" is forbidden: User \\"system:serviceaccount:linkerd-multicluster:linkerd-service-mirror-east\\" cannot patch resource \\"links/status\\"" cluster=east',
    cause: 'mirror-rbac-link-status',
    source: 'linkerd2 multicluster/service-mirror/cluster_watcher.go (built from the call site with an RBAC refusal)',
  },
  {
    signature: 'identity-issuer-unusable',
    line: 'time="2019-09-10T10:58:08Z" level=fatal msg="Failed to read trust anchors: not a PEM certificate"',
    cause: 'trust-anchors-not-pem',
    source: 'https://github.com/linkerd/linkerd2/issues/3414',
  },
  {
    signature: 'identity-issuer-unusable',
    line: 'time="2019-11-22T15:25:53Z" level=fatal msg="Failed to read CA from /var/run/linkerd/identity/issuer: x509: failed to parse EC private key: asn1: structure error: tags don\'t match"',
    cause: 'issuer-key-not-ecdsa',
    source: 'https://github.com/linkerd/linkerd2/issues/3754',
  },
  {
    signature: 'identity-issuer-unusable',
    line: 'time="2020-01-23T21:12:23Z" level=error msg="could not process CSR because of CA cert validation failure: x509: certificate has expired or is not yet valid"',
    cause: 'issuer-expired-or-missing',
    source: 'https://github.com/linkerd/linkerd2/issues/3980',
  },
  {
    signature: 'identity-issuer-unusable',
    line: 'time="2021-06-01T10:00:00Z" level=error msg="could not process CSR because of CA cert validation failure: x509: certificate signed by unknown authority - CSR Identity : web.shop.serviceaccount.identity.linkerd.cluster.local"',
    cause: 'issuer-not-signed-by-anchor',
    source: 'linkerd2 pkg/identity/service.go (built from the call site with the x509 error)',
  },
];

describe('findings name the likely cause, given the context', () => {
  for (const c of TELL_CASES) {
    it(`${c.signature}: ${c.cause ?? 'no tell, so what failed'} (${c.source})`, async () => {
      const findings = await findingsOf([c.line]);
      const finding = findings.find((f) => f.evidence.signature === c.signature);
      assert.ok(finding, `no ${c.signature} finding: ${findings.map((f) => f.evidence.signature).join(', ')}`);
      const knowledge = knowledgeOf(BY_ID.get(c.signature)!);
      const cause = knowledge.causes.find((x) => x.id === c.cause);
      if (c.cause === null) {
        assert.equal(finding.title, knowledge.failure);
        assert.equal(finding.evidence.likelyCause, undefined);
      } else {
        assert.ok(cause, `unknown cause ${c.cause}`);
        assert.equal(finding.title, cause.title);
        assert.equal(finding.evidence.likelyCause, c.cause);
        assert.ok(finding.remediation.startsWith(cause.action.slice(0, 40)), finding.remediation);
      }
      // Every cause is listed in the message, in order, whatever was decided.
      for (const other of knowledge.causes) assert.ok(finding.message.includes(other.title), `${other.id} missing from the message`);
    });
  }

  it('names the cause another signature in the run points at (withSignature)', async () => {
    const findings = await findingsOf([
      'level=warning msg="Skipping mirroring of service bar/foo: namespace bar does not exist" cluster=c1',
      'level=error msg="Failed to patch link status linkerd-multicluster/c1: Link.multicluster.linkerd.io \\"c1\\" is invalid: [status.federatedServices[1].conditions[0]: Required value]" cluster=c1',
    ]);
    const status = findings.find((f) => f.evidence.signature === 'service-mirror-link-status-rejected');
    assert.equal(status?.evidence.likelyCause, 'mirror-namespace-missing-no-local-ref');
    assert.match(status.message, /the same run shows the mirror skipping a service whose namespace does not exist/);
    const alone = await findingsOf([
      'level=error msg="Failed to patch link status linkerd-multicluster/c1: Link.multicluster.linkerd.io \\"c1\\" is invalid: [status.federatedServices[1].conditions[0]: Required value]" cluster=c1',
    ]);
    assert.equal(alone.find((f) => f.evidence.signature === 'service-mirror-link-status-rejected')?.evidence.likelyCause, undefined);
  });

  it('names the tell that matched, when a cause has several line tells', () => {
    const knowledge = compileKnowledge(BY_ID.get('connection-closed-before-message-completed')!).knowledge;
    const tells = [
      { says: 'first', line: 'alpha' },
      { says: 'second', line: 'beta' },
    ];
    const compiled = {
      knowledge: { ...knowledge, causes: [{ ...knowledge.causes[0]!, tells }] },
      lineTells: tells.map((tell) => ({ tell, pattern: new RegExp(tell.line, 'i') })),
    };
    assert.equal(likelyCause(compiled, 0b10, new Set())?.tell.says, 'second');
    assert.equal(likelyCause(compiled, 0b01, new Set())?.tell.says, 'first');
    assert.equal(likelyCause(compiled, 0, new Set()), null);
  });

  it('covers every curated cause that has a line tell with a case that names it', () => {
    const named = new Set(TELL_CASES.map((c) => c.cause));
    const untested = CURATED_KNOWLEDGE.flatMap((k) => k.causes.filter((c) => c.tells.some((t) => t.line !== undefined) && !named.has(c.id)).map((c) => c.id));
    assert.deepEqual(untested, []);
  });
});
