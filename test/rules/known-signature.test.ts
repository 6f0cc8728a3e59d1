import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { renderCatalogueEntryDocs } from '../../src/cli/run-rules.js';
import type { CorednsMessageRecord, Finding, LdRecord, ProxyLogRecord, SampleLine } from '../../src/core/types.js';
import { foldCoveredFindings } from '../../src/report/fold.js';
import { KNOWN_FIXES } from '../../src/knowledge/fixes.js';
import { RULES } from '../../src/rules/index.js';
import knownSignature, { compileSignaturePattern, EXCERPT_MAX_LINES, SIGNATURES, proxyLineText } from '../../src/rules/known-signature/index.js';
import { runRule, runRuleMerged } from '../support/rule-tester.js';
import { SAMPLE_TEXT_MAX } from '../../src/core/evidence.js';

const REAL = fileURLToPath(new URL('../data/real/', import.meta.url));
const DOCS = fileURLToPath(new URL('../../docs/signatures.md', import.meta.url));

/** Threshold rules other branches add (issue 17); coveredBy may name them before they are merged. */
type Visit = (state: unknown, record: LdRecord) => void;

/**
 * A record built straight from a pasted line, the way a parser that only knows the message would
 * see it: the text is the line as printed. Lines today's parser cannot read still get checked.
 */
function lineAsProxyRecord(line: string, uptime: number | null = null): ProxyLogRecord {
  return {
    kind: 'proxy-log',
    path: 'pasted.log',
    line: 1,
    format: 'legacy',
    time: null,
    uptime,
    restart: 0,
    level: 'INFO',
    thread: null,
    spans: [],
    target: '',
    message: line,
    fields: {},
    raw: line,
  };
}

function lineAsCorednsRecord(line: string): CorednsMessageRecord {
  const level = /\[(INFO|WARNING|ERROR|FATAL)\]/.exec(line)?.[1] ?? null;
  const plugin = /plugin\/(\w+):/.exec(line)?.[1] ?? null;
  return { kind: 'coredns-message', path: 'coredns.log', line: 1, time: null, level, plugin, message: line, raw: line };
}

/** Signature ids the rule tallies for these records, via its visitors and finish. */
function signaturesOf(records: LdRecord[]): string[] {
  const state = knownSignature.createState(knownSignature.meta.defaultOptions);
  const visitors = knownSignature.visitors as Record<string, Visit | undefined>;
  for (const r of records) visitors[r.kind]?.(state, r);
  return knownSignature.finish(state, { options: knownSignature.meta.defaultOptions, inputs: [] }).map((f) => f.evidence.signature as string);
}

function physicalLines(file: string): string[] {
  return readFileSync(`${REAL}${file}`, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
}

interface Expected {
  file: string;
  status: string;
}
const EXPECTED = JSON.parse(readFileSync(`${REAL}expected.json`, 'utf8')) as Expected[];
const signatureFiles = EXPECTED.filter((e) => /^(proxy-log|policy-log|coredns-log)\//.test(e.file));

describe('signature catalogue', () => {
  it('holds at least 40 signatures with unique kebab-case ids, each with a real example', () => {
    assert.ok(SIGNATURES.length >= 40, `${SIGNATURES.length} signatures`);
    const ids = SIGNATURES.map((s) => s.id);
    assert.equal(new Set(ids).size, ids.length, 'duplicate ids');
    for (const s of SIGNATURES) {
      assert.match(s.id, /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/, s.id);
      assert.ok(s.examples.length > 0, `${s.id}: no example line`);
      for (const e of s.examples) assert.match(e.source, /https:\/\//, `${s.id}: example without a source`);
      assert.ok(s.causes.length > 0 && s.fix.length > 0 && s.meaning.length > 20, `${s.id}: meaning, causes and fix are required`);
      assert.ok(s.references.length > 0 && s.references.every((r) => r.startsWith('https://')), `${s.id}: references must be URLs`);
      assert.ok(s.match.literals.length > 0 && s.match.literals.every((l) => l.length >= 5), `${s.id}: literals must be specific`);
      assert.doesNotThrow(() => compileSignaturePattern(s.match.pattern), s.id);
    }
  });

  it('is plain data: it survives a JSON round trip unchanged', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(SIGNATURES)), SIGNATURES);
  });

  it('names only rules and known fixes that exist (or are planned in issue 17)', () => {
    const ruleIds = new Set(RULES.map((r) => r.meta.id));
    for (const s of SIGNATURES) {
      for (const r of s.coveredBy ?? []) assert.ok(ruleIds.has(r), `${s.id}: coveredBy ${r} is no rule`);
      if (s.knownFix)
        assert.ok(
          KNOWN_FIXES.some((f) => f.id === s.knownFix),
          `${s.id}: knownFix ${s.knownFix} is not in fixes.ts`,
        );
    }
  });

  it('has a literal in every example, so the prefilter and lineInterest never hide a match', () => {
    for (const s of SIGNATURES)
      for (const e of s.examples)
        assert.ok(
          s.match.literals.some((l) => e.line.includes(l)),
          `${s.id}: no literal in ${e.line}`,
        );
  });
});

describe('known-signature on the real lines of the catalogue', () => {
  for (const s of SIGNATURES) {
    it(`${s.id}: every example gives this signature`, async () => {
      for (const e of s.examples) {
        if (s.match.records.includes('coredns-message') || s.match.records.includes('coredns-query')) {
          if (s.match.records.includes('coredns-message')) assert.deepEqual(signaturesOf([lineAsCorednsRecord(e.line)]), [s.id], e.line);
          // Through the CoreDNS parser: query lines only match as the query records it builds.
          const run = await runRule(knownSignature, [{ path: 'coredns.log', content: `${e.line}\n`, kind: 'coredns-log' }]);
          assert.deepEqual(
            run.findings.map((f) => f.evidence.signature),
            [s.id],
            `parsed: ${e.line}`,
          );
          continue;
        }
        const uptime = s.match.maxUptimeSeconds !== undefined ? 0 : null;
        assert.deepEqual(signaturesOf([lineAsProxyRecord(e.line, uptime)]), [s.id], e.line);
        // And through the real pipeline, where today's parser reads the line.
        const run = await runRule(knownSignature, [{ path: 'pasted.log', content: `${e.line}\n`, kind: 'proxy-log' }]);
        if (run.inputs[0]!.records > 0)
          assert.deepEqual(
            run.findings.map((f) => f.evidence.signature),
            [s.id],
            `parsed: ${e.line}`,
          );
      }
    });
  }
});

describe('known-signature on the real samples', () => {
  it('matches no line of any healthy sample, as proxy or CoreDNS text', async () => {
    const healthy = signatureFiles.filter((e) => e.status === 'healthy');
    assert.ok(healthy.length >= 8);
    for (const { file } of healthy) {
      const lines = physicalLines(file);
      assert.deepEqual(signaturesOf(lines.map((l) => lineAsProxyRecord(l))), [], file);
      assert.deepEqual(signaturesOf(lines.map(lineAsCorednsRecord)), [], file);
      const kind = file.startsWith('coredns-log/') ? 'coredns-log' : 'proxy-log';
      const run = await runRule(knownSignature, [{ path: file, content: readFileSync(`${REAL}${file}`), kind }]);
      assert.deepEqual(run.findings, [], file);
    }
  });

  // What the maintainers diagnosed, as the signature that names it. cd-4724 is a slow query in
  // the query log (a coredns-query record), not a message line; pod-restarts reads the OOMKilled of
  // l2-4899, this rule its connect timeouts.
  const DIAGNOSED: Record<string, string[]> = {
    'proxy-log/l2-10090-fragments-no-prefix.log': ['h2-connection-header-illegal', 'remote-proxy-app-connect-timeout'],
    'proxy-log/l2-12505-json-uptime-timestamp.log': ['protocol-detection-timeout'],
    'proxy-log/l2-15199-grpc-rescue-http2.log': ['h2-internal-error'],
    'proxy-log/l2-2069-legacy-canonicalize-no-uptime.log': ['dns-canonicalize-deadline'],
    'proxy-log/l2-2800-legacy-warn-autopath.log': ['destination-not-a-service'],
    'proxy-log/l2-2918-legacy-dbug-err.log': ['h2-unspecific-protocol-error'],
    'proxy-log/l2-4048-router-capacity-fragment.log': ['router-capacity-reached'],
    'proxy-log/l2-4168-timestamps-2.7-wrapped.log': ['h2-frame-invalid-size'],
    'proxy-log/l2-4899-describe-oom-2.8.1.log': ['endpoint-connect-timeout'],
    'proxy-log/l2-4905-no-uptime-no-thread-masked.log': ['dns-refinement-timeout', 'endpoint-connection-refused'],
    'proxy-log/l2-5591-json-pretty-os-error-107.log': ['transport-endpoint-not-connected'],
    'proxy-log/l2-5662-accessdenied-wrapped.log': ['tls-no-server-certificate', 'tls-access-denied'],
    'proxy-log/l2-5672-kibana-json-elided-ts.log': ['admin-http-only', 'connection-closed-request-timed-out'],
    'proxy-log/l2-5881-json-could-not-fetch-profile.log': ['profile-fetch-failed'],
    'proxy-log/l2-5932-accessdenied-identity-srv.log': ['tls-access-denied', 'control-plane-dns-failed'],
    'proxy-log/l2-8608-jaeger-unauthorized-flood.log': ['unauthorized-connection'],
    'proxy-log/l2-pr399-conduit-glog-style.log': ['proxy-env-missing'],
    'proxy-log/p-18-legacy-err-no-uptime.log': ['h2-internal-error'],
    'proxy-log/l2-11279-destination-failfast.log': ['control-plane-failfast', 'endpoint-connection-refused', 'reconnect-service-failed'],
    'policy-log/l2-10697-policy-kube-tls.log': ['kube-api-tls-verify-failed'],
    'policy-log/l2-8343-policy-watch-restart.log': ['policy-watch-failed', 'policy-watch-restarting'],
    'coredns-log/cd-1265-errors-plugin-2017.log': ['coredns-legacy-errors'],
  };
  const NOT_A_MESSAGE_LINE = new Set(['coredns-log/cd-4724-log-plugin-noerror-timeout.log']);

  it('names the diagnosed failure of every incident sample', () => {
    const incidents = signatureFiles.filter((e) => e.status.startsWith('incident-') && !NOT_A_MESSAGE_LINE.has(e.file));
    assert.ok(incidents.length >= 20);
    for (const { file } of incidents) {
      assert.ok(DIAGNOSED[file], `${file}: add its diagnosis to DIAGNOSED`);
      const lines = physicalLines(file);
      const found = file.startsWith('coredns-log/') ? signaturesOf(lines.map(lineAsCorednsRecord)) : signaturesOf(lines.map((l) => lineAsProxyRecord(l, null)));
      assert.deepEqual([...found].sort(), [...DIAGNOSED[file]!].sort(), file);
    }
  });

  it('aggregates a flood into one finding per signature (l2-5932, parsed)', async () => {
    const file = 'proxy-log/l2-5932-accessdenied-identity-srv.log';
    const run = await runRule(knownSignature, [{ path: file, content: readFileSync(`${REAL}${file}`) }]);
    const bySignature = new Map(run.findings.map((f) => [f.evidence.signature, f]));
    assert.deepEqual([...bySignature.keys()], ['tls-access-denied', 'control-plane-dns-failed']);
    const denied = bySignature.get('tls-access-denied')!;
    assert.equal(denied.severity, 'info');
    assert.equal(denied.evidence.lines, 10);
    assert.equal((denied.evidence.samples as unknown[]).length, 3);
    assert.deepEqual(denied.evidence.coveredBy, ['identity-failure']);
    assert.match(denied.message, /identity-failure/);
    assert.match(denied.remediation, /explain tls-access-denied/);
    assert.equal(denied.subject.target, 'tls-access-denied');
  });
});

describe('known-signature matching', () => {
  const refused =
    '[   %UPTIME%s]  WARN ThreadId(01) policy:watch{port=8090}:controller{addr=localhost:8090}:endpoint{addr=127.0.0.1:8090}: linkerd_reconnect: Failed to connect error=Connection refused (os error 111)';

  it('tells the start-up race from a local controller that stays down', () => {
    assert.deepEqual(signaturesOf([lineAsProxyRecord(refused, 0.002)]), ['control-plane-startup-race']);
    assert.deepEqual(signaturesOf([lineAsProxyRecord(refused, 145.6)]), ['control-plane-connect-refused']);
    assert.deepEqual(signaturesOf([lineAsProxyRecord(refused, null)]), ['control-plane-connect-refused']);
  });

  it('reads the same failure in JSON as in the plain layout', () => {
    const json: ProxyLogRecord = {
      ...lineAsProxyRecord(''),
      format: 'json',
      level: 'WARN',
      spans: [
        { name: 'identity', fields: {} },
        { name: 'controller', fields: { addr: 'linkerd-identity-headless.linkerd.svc.cluster.local:8080' } },
        { name: 'endpoint', fields: { addr: '10.129.192.22:8080' } },
      ],
      target: 'linkerd_reconnect',
      message: 'Failed to connect',
      fields: { error: 'endpoint 10.129.192.22:8080: invalid peer certificate contents: invalid peer certificate: UnknownIssuer' },
      raw: '{"level":"WARN"}',
    };
    assert.equal(
      proxyLineText(json),
      'identity:controller{addr=linkerd-identity-headless.linkerd.svc.cluster.local:8080}:endpoint{addr=10.129.192.22:8080}: linkerd_reconnect: Failed to connect error=endpoint 10.129.192.22:8080: invalid peer certificate contents: invalid peer certificate: UnknownIssuer',
    );
    assert.deepEqual(signaturesOf([json]), ['trust-anchor-mismatch']);
  });

  // Wordings the proxy source has printed for the same failure, beyond the catalogue's pasted lines:
  // a pattern must follow the mechanism, not the release a thread happened to paste.
  const WORDINGS: [string, string, string][] = [
    // linkerd2-proxy#3720 (v2.286): detection timeouts print only the duration.
    ['protocol-detection-timeout', 'outbound v2.286+', 'outbound:proxy{addr=10.96.33.4:3306}: linkerd_app_outbound::protocol: Continuing after timeout: 10s'],
    [
      'protocol-detection-timeout',
      'inbound v2.286+',
      'inbound:server{port=4222}: linkerd_app_inbound::detect: Handling connection as opaque due to policy timeout=10s',
    ],
    [
      'protocol-detection-timeout',
      'inbound v2.286+, HTTP/1 hint',
      'inbound:server{port=8080}: linkerd_app_inbound::detect: Handling connection as HTTP/1 due to policy timeout=10s',
    ],
    // linkerd2-proxy#1677 (v2.178): `on <kind>/<name>`; before it, `on unknown port <n>` too.
    [
      'unauthorized-connection',
      'v2.178+, a Server',
      'inbound:server{port=9090}:rescue{client.addr=10.42.3.7:51840}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=unauthorized connection on server/prometheus-admin',
    ],
    [
      'unauthorized-connection',
      'v2.178+, a default policy',
      'inbound:server{port=8080}:rescue{client.addr=10.42.0.1:40312}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=unauthorized connection on default/all-authenticated',
    ],
    [
      'unauthorized-connection',
      '2.11, an undocumented port',
      'inbound:server{port=7000}:rescue{client.addr=10.42.0.1:40312}: linkerd_app_core::errors::respond: Request failed error=unauthorized connection on unknown port 7000',
    ],
    // rustls ≤ 0.19 (Linkerd ≤ 2.10) on a peer's certificate; the proxy's own certificate is another signature.
    [
      'trust-anchor-mismatch',
      'rustls 0.19',
      'outbound:accept{client.addr=10.42.0.9:41234}: linkerd_reconnect: Failed to connect error=invalid certificate: UnknownIssuer',
    ],
    [
      'identity-invalid-certificate',
      '2.10 (linkerd2#6428)',
      'daemon:identity: linkerd_proxy_identity::certify: Received invalid certificate: invalid certificate: UnknownIssuer',
    ],
    // Certification failures before and after the identity client was rewritten.
    [
      'identity-certify-failed',
      'current',
      'identity:identity{server.addr=linkerd-identity-headless.linkerd.svc.cluster.local:8080}:controller{addr=linkerd-identity-headless.linkerd.svc.cluster.local:8080}: linkerd_proxy_identity_client::certify: Failed to obtain identity error=status: Unavailable',
    ],
  ];
  for (const [id, release, line] of WORDINGS) {
    it(`recognises ${id} as ${release} proxies print it`, () => {
      assert.deepEqual(signaturesOf([lineAsProxyRecord(line)]), [id], line);
    });
  }

  it('stays silent on lines that match nothing', () => {
    const lines = [
      '[     0.002738s]  INFO ThreadId(01) linkerd2_proxy: release 2.210.4 (5a910be) by linkerd on 2023-11-22T17:01:46Z',
      '[ 32130.028431s]  INFO ThreadId(01) policy:controller{addr=linkerd-policy.linkerd.svc.cluster.local:8090}: linkerd_pool_p2c: Adding endpoint addr=172.31.116.194:8090',
      '[   217.698149s] TRACE ThreadId(01) h2::proto::streams::recv: release_capacity; size=482',
    ];
    assert.deepEqual(signaturesOf(lines.map((l) => lineAsProxyRecord(l))), []);
  });

  it('lists the top pods of many, with counts, times and capped samples', async () => {
    const t0 = Date.parse('2024-06-06T11:00:00Z');
    const line = (i: number) =>
      `${new Date(t0 + i * 1000).toISOString()} [    ${(10 + i).toFixed(6)}s]  INFO ThreadId(01) inbound:server{port=55678}:rescue{client.addr=169.254.42.1:52388}: linkerd_app_core::errors::respond: Request failed error=unauthorized connection on server collector-opencensus\n`;
    const inputs = [
      { path: 'collector-6d4b9c7f8-aaaaa.log', content: [0, 1, 2, 3, 4].map(line).join('') },
      { path: 'collector-6d4b9c7f8-bbbbb.log', content: [5, 6, 7].map(line).join('') },
      { path: 'collector-6d4b9c7f8-ccccc.log', content: [8].map(line).join('') },
    ];
    const run = await runRule(knownSignature, inputs, { topPods: 2, samples: 2 });
    assert.equal(run.findings.length, 1);
    const f = run.findings[0]!;
    assert.equal(f.evidence.lines, 9);
    assert.equal(f.evidence.podsAffected, 3);
    assert.deepEqual(f.evidence.pods, [
      { pod: 'collector-6d4b9c7f8-aaaaa', lines: 5 },
      { pod: 'collector-6d4b9c7f8-bbbbb', lines: 3 },
    ]);
    assert.equal(f.evidence.podsNote, 'top 2 of 3 sources');
    assert.equal(f.evidence.firstTime, '2024-06-06T11:00:00.000Z');
    assert.equal(f.evidence.lastTime, '2024-06-06T11:00:08.000Z');
    assert.equal((f.evidence.samples as unknown[]).length, 2);
    assert.equal(f.subject.pod, undefined, 'several pods: no single pod subject');
    assert.equal(f.keyFigure?.value, 9);
  });

  it('counts a pod seen by both threads as one, whatever number each thread gave it', async () => {
    const line = (i: number) =>
      `[    ${(10 + i).toFixed(6)}s]  INFO ThreadId(01) inbound:server{port=55678}:rescue{client.addr=169.254.42.1:52388}: linkerd_app_core::errors::respond: Request failed error=unauthorized connection on server collector-opencensus\n`;
    const lines = (n: number) => Array.from({ length: n }, (_, i) => line(i)).join('');
    // The first thread numbers aaaaa 0 and bbbbb 1; the second numbers ccccc 0 and aaaaa 1.
    const inputs = [
      { path: 'collector-6d4b9c7f8-aaaaa.log', content: lines(5) },
      { path: 'collector-6d4b9c7f8-bbbbb.log', content: lines(3) },
      { path: 'collector-6d4b9c7f8-ccccc.log', content: lines(1) },
      { path: 'collector-6d4b9c7f8-aaaaa.log', content: lines(2) },
    ];
    const expected = [
      { pod: 'collector-6d4b9c7f8-aaaaa', lines: 7 },
      { pod: 'collector-6d4b9c7f8-bbbbb', lines: 3 },
      { pod: 'collector-6d4b9c7f8-ccccc', lines: 1 },
    ];
    for (const findings of [(await runRule(knownSignature, inputs)).findings, await runRuleMerged(knownSignature, inputs)]) {
      assert.equal(findings.length, 1);
      assert.deepEqual(findings[0]!.evidence.pods, expected);
      assert.equal(findings[0]!.evidence.podsAffected, 3);
    }
  });

  it('keeps memory bounded: pods beyond the cap are counted, not stored', () => {
    const state = knownSignature.createState(knownSignature.meta.defaultOptions);
    const visit = (knownSignature.visitors as Record<string, Visit>)['proxy-log']!;
    for (let i = 0; i < 2_500; i++)
      visit(state, {
        ...lineAsProxyRecord('linkerd2_proxy::app::main outbound proxy background task failed: Too many open files (os error 24)'),
        pod: `web-${i}`,
      });
    const tally = state.tallies.get('too-many-open-files')!;
    assert.equal(tally.pods.size, 2_000);
    assert.equal(tally.uncountedPodLines, 500);
    assert.equal(tally.samples.length, 3);
    const [f] = knownSignature.finish(state, { options: knownSignature.meta.defaultOptions, inputs: [] });
    assert.equal(f!.evidence.lines, 2_500);
    assert.equal(f!.evidence.podsNote, 'top 10 of 2001+ sources');
  });
});

describe('background signatures', () => {
  const quiet = (i: number) =>
    `[ ${(100 + i).toFixed(6)}s]  INFO ThreadId(01) policy:controller{addr=linkerd-policy.linkerd.svc.cluster.local:8090}: linkerd_pool_p2c: Adding endpoint addr=172.31.116.${i % 250}:8090\n`;
  const probe = (i: number) =>
    `[ ${(100 + i).toFixed(6)}s]  INFO ThreadId(01) inbound:server{port=4143}: linkerd_app_core::serve: Connection closed error=TLS detection timed out\n`;
  const fdLimit = '[ 200.000000s] ERROR ThreadId(01) linkerd_app_core::serve: Failed to accept connection error=Too many open files (os error 24)\n';
  const fullLog = (extra: string) => Array.from({ length: EXCERPT_MAX_LINES + 10 }, (_, i) => quiet(i)).join('') + extra;

  it('marks what healthy meshes also log as background, never a defect that one line proves', () => {
    const background = SIGNATURES.filter((s) => s.background).map((s) => s.id);
    for (const id of [
      'tls-detection-timeout',
      'control-plane-connect-refused',
      'connection-closed-before-message-completed',
      'transport-endpoint-not-connected',
    ])
      assert.ok(background.includes(id), id);
    for (const id of ['trust-anchor-mismatch', 'too-many-open-files', 'coredns-loop-detected']) assert.ok(!SIGNATURES.find((s) => s.id === id)!.background, id);
  });

  it('stays quiet on probe timeouts in a full log, but still reports a defect signature there', async () => {
    const quietRun = await runRule(knownSignature, [{ path: 'web-0.log', content: fullLog(probe(1) + probe(2)) }]);
    assert.deepEqual(quietRun.findings, []);
    const defect = await runRule(knownSignature, [{ path: 'web-0.log', content: fullLog(probe(1) + fdLimit) }]);
    assert.deepEqual(
      defect.findings.map((f) => f.evidence.signature),
      ['too-many-open-files'],
    );
  });

  it('diagnoses the same lines pasted as an excerpt, counting only the excerpt', async () => {
    const paste = await runRule(knownSignature, [{ path: 'paste.log', content: probe(1) + probe(2) + probe(3) }]);
    assert.deepEqual(
      paste.findings.map((f) => [f.evidence.signature, f.evidence.lines]),
      [['tls-detection-timeout', 3]],
    );
    const mixed = await runRule(knownSignature, [
      { path: 'web-0.log', content: fullLog(probe(1) + probe(2)) },
      { path: 'paste.log', content: probe(3) },
    ]);
    assert.deepEqual(
      mixed.findings.map((f) => [f.evidence.signature, f.evidence.lines]),
      [['tls-detection-timeout', 1]],
    );
    assert.ok((mixed.findings[0]!.evidence.samples as SampleLine[]).every((l) => l.path === 'paste.log'));
  });
});

describe('folding a signature into the rule that judged it', () => {
  const finding = (ruleId: string, title: string, foldsInto?: string[]): Finding => ({
    ruleId,
    severity: ruleId === 'known-signature' ? 'info' : 'error',
    kind: ruleId,
    title,
    message: title,
    subject: {},
    evidence: {},
    locations: [],
    remediation: '',
    docsUrl: '',
    ...(foldsInto ? { foldsInto } : {}),
  });

  it('drops the signature and names it in the covering finding when that rule reported', () => {
    const folded = foldCoveredFindings([
      finding('reconnect-storm', 'Reconnect storm'),
      finding('known-signature', 'Known signature: Control-plane connection refused', ['control-plane-unavailable', 'reconnect-storm']),
    ]);
    assert.deepEqual(
      folded.map((f) => f.ruleId),
      ['reconnect-storm'],
    );
    assert.deepEqual(folded[0]!.evidence.alsoMatched, [{ ruleId: 'known-signature', title: 'Known signature: Control-plane connection refused' }]);
  });

  it('keeps the signature, without the internal field, when no covering rule reported', () => {
    const kept = foldCoveredFindings([finding('fd-exhaustion', 'FDs'), finding('known-signature', 'Known signature: x', ['identity-failure'])]);
    assert.deepEqual(
      kept.map((f) => f.ruleId),
      ['fd-exhaustion', 'known-signature'],
    );
    assert.ok(!('foldsInto' in kept[1]!));
  });
});

describe('signature docs', () => {
  // docs/signatures.md being what the catalogue renders is test/meta/generated.test.ts's job.
  it('docs/signatures.md lists every signature', () => {
    for (const s of SIGNATURES) assert.ok(readFileSync(DOCS, 'utf8').includes(`| ${s.id} |`), s.id);
  });

  it('explain renders a signature page with meaning, causes, fix by version and references', async () => {
    const page = (await renderCatalogueEntryDocs('trust-anchor-mismatch', false))!;
    assert.match(page, /^trust-anchor-mismatch · signature of known-signature \(LD1100\)/);
    for (const heading of ['What it means', 'Likely causes', 'How to fix it', 'Sustained form', 'References']) assert.ok(page.includes(heading), heading);
    assert.ok(page.includes('linkerd/linkerd2/issues/11156'));
    assert.equal(await renderCatalogueEntryDocs('no-such-signature', false), null);
  });

  it('every docs/rules page still exists for the registered rules', () => {
    const pages = new Set(readdirSync(fileURLToPath(new URL('../../docs/rules/', import.meta.url))));
    assert.ok(pages.has('known-signature.md'));
  });
});

describe('known-signature evidence is bounded (issue 27)', () => {
  it('keeps at most the sample cap, each cut to SAMPLE_TEXT_MAX with a marker, and matches a 1 MiB line in linear time', () => {
    const options = { ...knownSignature.meta.defaultOptions, samples: 50 };
    const state = knownSignature.createState(options);
    const visitors = knownSignature.visitors as Record<string, Visit | undefined>;
    // 132 distinct 1 MiB lines (the per-line cap): kept whole they held 1.1 GB and made 70 MB reports.
    const filler = 'Failed to connect '.repeat((1 << 20) / 18);
    const started = process.cpuUsage();
    for (let i = 0; i < 132; i++) {
      const line = `INFO ThreadId(01) outbound:controller{addr=linkerd-dst-headless:8086}: ${filler} ${i} error=Connection refused (os error 111)`;
      visitors['proxy-log']?.(state, { ...lineAsProxyRecord(line), line: i + 1 });
    }
    const cpu = process.cpuUsage(started);
    const [finding] = knownSignature.finish(state, { options, inputs: [] });
    assert.ok(finding);
    const samples = finding.evidence.samples as SampleLine[];
    assert.equal(samples.length, 50);
    for (const s of samples) {
      assert.ok(s.text.length <= SAMPLE_TEXT_MAX + 40, `sample of ${s.text.length} characters`);
      assert.match(s.text, /… \[\d+ characters, cut\]$/);
    }
    // 132 MiB matched: within 2 s CPU per MiB, far within (the landed V8 pattern took days per line).
    assert.ok((cpu.user + cpu.system) / 1e6 < 132 * 2, `${(cpu.user + cpu.system) / 1e6} s CPU`);
  });
});
