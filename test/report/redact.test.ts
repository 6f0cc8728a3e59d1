// analyze --redact (src/report/redact.ts): every format of a redacted run carries none of the
// fixture bundles' identifiers, and the pseudonyms are consistent, so a redacted report can be
// attached to a ticket and still say which findings share a pod or an address.

import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Redactor } from '../../src/report/redact.js';
import type { Report } from '../../src/report/report.js';
import { FORMAT_NAMES } from '../../src/report/formats/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(ROOT, 'bin/run.js');

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? -1) : 0, stdout, stderr });
    });
  });
}

/**
 * One run writing every format to its own file (an --output belongs to the --format before it):
 * one launch per bundle instead of one per format.
 */
async function everyFormat(bundle: string, redact: boolean): Promise<{ code: number; stderr: string; outputs: Map<string, string> }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ld-redact-'));
  try {
    const args = ['analyze', `fixtures/${bundle}`, '-q', ...(redact ? ['--redact'] : [])];
    for (const format of FORMAT_NAMES) args.push('--format', format, '--output', path.join(dir, `report.${format}`));
    const run = await cli(args);
    const outputs = new Map(
      FORMAT_NAMES.filter((f) => existsSync(path.join(dir, `report.${f}`))).map((f) => [f, readFileSync(path.join(dir, `report.${f}`), 'utf8')] as const),
    );
    return { code: run.code, stderr: run.stderr, outputs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

before(() => {
  if (!existsSync(path.join(ROOT, 'dist/cli/main.js'))) execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
});

// Linkerd's and Kubernetes' fixed names, which --redact keeps on purpose (see redact.ts).
const FIXED_NAMES = new Set([
  'linkerd',
  'kube-system',
  'default',
  'linkerd-destination',
  'linkerd-policy',
  'linkerd-dst-headless',
  'linkerd-identity',
  'linkerd-proxy',
  'svc',
  'cluster',
  'local',
]);

/** The identifiers of a report, collected independently of the redactor: what must not survive. */
function identifiersOf(report: Report): { ips: Set<string>; names: Set<string> } {
  const text = JSON.stringify(report);
  const ips = new Set([...text.matchAll(/(?<![0-9.])(?:\d{1,3}\.){3}\d{1,3}(?![0-9])/g)].map((m) => m[0]).filter((ip) => !ip.startsWith('127.')));
  const names = new Set<string>();
  const add = (v: unknown) => {
    // A parenthesised value is the report's own placeholder ("(not named in the paste)"), not a name.
    if (typeof v === 'string' && v !== '' && !v.startsWith('(') && !FIXED_NAMES.has(v)) names.add(v);
  };
  const walk = (v: unknown, key?: string): void => {
    if (Array.isArray(v)) v.forEach((x) => walk(x, key));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
    else if (typeof v === 'string') {
      if (key === 'pod' || key === 'namespace' || key === 'workload') add(v);
      if (key === 'destination') for (const part of v.replace(/^\w+ /, '').split('/')) add(part);
    }
  };
  walk(report);
  for (const m of text.matchAll(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g)) names.add(m[0]);
  // Host labels of cluster FQDNs (SRV targets like 10-42-1-7.linkerd-policy.linkerd.svc.cluster.local).
  for (const m of text.matchAll(/([a-z0-9-]+(?:\.[a-z0-9-]+)*)\.svc\.cluster\.local/g)) for (const label of m[1]!.split('.')) add(label);
  return { ips, names };
}

/**
 * The part of a format's output that comes from the bundle: without the tool's own text that
 * merely shares words with it (the rules' help pages in SARIF, the stylesheet's `@media` in HTML,
 * links, and annotation names such as traefik.ingress.kubernetes.io/…).
 */
function fromTheBundle(format: string, output: string): string {
  let text = output;
  if (format === 'sarif') {
    const sarif = JSON.parse(text) as { runs: { tool: { driver: { rules?: unknown } } }[] };
    for (const run of sarif.runs) delete run.tool.driver.rules;
    text = JSON.stringify(sarif);
  }
  if (format === 'html') text = text.replace(/<style>[\s\S]*?<\/style>/g, '');
  return text.replace(/https?:\/\/[^\s"'<>)]+/g, '').replace(/[a-z0-9.-]+\.kubernetes\.io\/[a-z0-9.-]+/g, '');
}

function leaked(output: string, { ips, names }: { ips: Set<string>; names: Set<string> }): string[] {
  const found: string[] = [];
  for (const ip of ips) if (new RegExp(`(?<![0-9.])${ip.replace(/\./g, '\\.')}(?![0-9])`).test(output)) found.push(ip);
  for (const name of names) if (new RegExp(`(?<![A-Za-z0-9-])${name.replace(/[.]/g, '\\.')}(?![A-Za-z0-9-])`).test(output)) found.push(name);
  return found;
}

// Every fixture whose report names a pod, namespace, workload or address (the healthy-ingress,
// -metrics and -rollout reports name none): proxy logs, metrics, DNS captures and kubectl pastes.
const BUNDLES = ['storm', 'traefik-cardinality', 'traefik-pooled', 'dns-ttl-zero', 'dns-healthy', 'healthy', 'healthy-kubectl', 'pod-restarts'];

describe('analyze --redact', () => {
  for (const bundle of BUNDLES) {
    describe(`fixtures/${bundle}`, () => {
      let original: Report;
      let ids: { ips: Set<string>; names: Set<string> };
      let plain: Awaited<ReturnType<typeof everyFormat>>;
      let redacted: Awaited<ReturnType<typeof everyFormat>>;

      before(async () => {
        [plain, redacted] = await Promise.all([everyFormat(bundle, false), everyFormat(bundle, true)]);
        original = JSON.parse(plain.outputs.get('json') ?? 'null') as Report;
        ids = identifiersOf(original);
      });

      it('has identifiers to hide (the check can fail)', () => {
        assert.ok(ids.names.size + ids.ips.size > 0);
        assert.notDeepEqual(leaked(JSON.stringify(original), ids), []);
      });

      it('every format written, plain and redacted, with the same exit code', () => {
        assert.equal(redacted.code, plain.code, redacted.stderr);
        assert.deepEqual([...redacted.outputs.keys()], FORMAT_NAMES, redacted.stderr);
        assert.deepEqual([...plain.outputs.keys()], FORMAT_NAMES, plain.stderr);
      });

      for (const format of FORMAT_NAMES) {
        it(`${format}: none of the bundle's identifiers`, () => {
          const shown = redacted.outputs.get(format) ?? '';
          assert.ok(shown.length > 0);
          assert.deepEqual(leaked(fromTheBundle(format, shown), ids), []);
          // Where the plain report shows identifiers, the redacted one shows pseudonyms in their place.
          if (leaked(fromTheBundle(format, plain.outputs.get(format) ?? ''), ids).length > 0) assert.match(shown, /\b(?:ip|pod|ns|workload|host|file)-1\b/);
        });
      }

      it('gives each identifier one pseudonym and different identifiers different ones', async () => {
        const redactedReport = JSON.parse(redacted.outputs.get('json') ?? 'null') as Report;
        // The same input gives the same pseudonyms in another run (here on stdout), so two shared reports line up.
        const again = JSON.parse((await cli(['analyze', `fixtures/${bundle}`, '--format', 'json', '-q', '--redact'])).stdout) as Report;
        assert.deepEqual(again, redactedReport);
        assert.equal(redactedReport.inputs.length, original.inputs.length);
        assert.equal(redactedReport.findings.length, original.findings.length);
        assert.deepEqual(redactedReport.summary, original.summary);
        const forward = new Map<string, string>();
        const backward = new Map<string, string>();
        const pair = (a: string | undefined, b: string | undefined) => {
          if (a === undefined) return assert.equal(b, undefined);
          assert.equal(forward.get(a) ?? b, b, `${a} has two pseudonyms`);
          assert.equal(backward.get(b!) ?? a, a, `${b} stands for two names`);
          forward.set(a, b!);
          backward.set(b!, a);
        };
        original.inputs.forEach((input, i) => {
          pair(input.pod, redactedReport.inputs[i]!.pod);
          pair(input.namespace, redactedReport.inputs[i]!.namespace);
        });
        original.findings.forEach((f, i) => {
          pair(f.subject.pod, redactedReport.findings[i]!.subject.pod);
          pair(f.subject.namespace, redactedReport.findings[i]!.subject.namespace);
          pair(f.subject.target, redactedReport.findings[i]!.subject.target);
        });
      });
    });
  }
});

describe('Redactor', () => {
  it('replaces IPv4 and IPv6 addresses, keeping ports, loopback and non-addresses', () => {
    const r = new Redactor();
    assert.equal(r.redactText('dial 10.42.0.7:8086 then 10.42.0.8 and 10.42.0.7'), 'dial ip-1:8086 then ip-2 and ip-1');
    assert.equal(r.redactText('[fd00:10:42::7]:4143 fe80::1 2001:db8:0:0:0:0:0:1'), '[ip-3]:4143 ip-4 ip-5');
    assert.equal(
      r.redactText('at 2024-06-06T11:01:10.000Z, proxy v2.210.4, stable-2.14.10, 127.0.0.1:4191, ::1'),
      'at 2024-06-06T11:01:10.000Z, proxy v2.210.4, stable-2.14.10, 127.0.0.1:4191, ::1',
    );
    assert.equal(r.redactText('999.1.1.1'), '999.1.1.1');
  });

  // Issue 27: `::ffff:192.168.7.9` came out as `ip-4.168.7.9`, the host's last three octets kept.
  it('redacts every IP form whole: v4-mapped, compressed, full, zoned, bracketed, with ports', () => {
    const r = new Redactor();
    const cases: [string, string][] = [
      ['from ::ffff:192.168.7.9 and 192.168.7.9', 'from ::ffff:ip-1 and ip-1'],
      ['peer [::ffff:10.9.8.7]:4143', 'peer [::ffff:ip-2]:4143'],
      ['long 0:0:0:0:0:ffff:10.1.1.1 form', 'long ::ffff:ip-3 form'],
      ['upper ::FFFF:172.16.0.9,', 'upper ::ffff:ip-4,'],
      ['compressed fd00:10:42::7 end', 'compressed ip-5 end'],
      ['full 2001:0db8:0000:0000:0000:ff00:0042:8329 end', 'full ip-6 end'],
      ['mixed 2001:db8::8a2e:370:7334', 'mixed ip-7'],
      ['zone fe80::1%eth0 and fe80::1%25eth0', 'zone ip-8 and ip-8'],
      ['bracketed [2001:db8::1]:8080/x', 'bracketed [ip-9]:8080/x'],
      ['v4 with port 10.42.0.7:8086.', 'v4 with port ip-10:8086.'],
      ['kept ::ffff:127.0.0.1 ::1 [::1]:4191 127.0.0.1:4191 12:30:45', 'kept ::ffff:127.0.0.1 ::1 [::1]:4191 127.0.0.1:4191 12:30:45'],
    ];
    for (const [input, expected] of cases) assert.equal(r.redactText(input), expected, input);
    for (const [input] of cases.slice(0, -1)) {
      const out = r.redactText(input);
      for (const secret of ['192.168', '168.7.9', '10.9.8', '10.1.1', '172.16', 'fd00', '2001', '0db8', 'fe80', 'eth0', '10.42'])
        assert.ok(!out.includes(secret), `${out} leaks ${secret}`);
    }
  });

  it('replaces host labels of FQDNs and keeps Kubernetes and Linkerd naming, public docs and file names', () => {
    const r = new Redactor();
    r.learn({ namespace: 'shop' });
    assert.equal(r.redactText('cart.shop.svc.cluster.local:8080'), 'host-1.ns-1.svc.cluster.local:8080');
    assert.equal(r.redactText('10-42-1-7.linkerd-policy.linkerd.svc.cluster.local.'), 'host-2.linkerd-policy.linkerd.svc.cluster.local.');
    assert.equal(r.redactText('api.prod.acme.com'), 'host-3.host-4.host-5.com');
    const kept =
      'https://github.com/linkerd/linkerd2/pull/1 traefik.ingress.kubernetes.io/service.nativelb proxy-metrics.txt.gz linkerd-dst-headless.linkerd.svc.cluster.local';
    assert.equal(r.redactText(kept), kept);
  });

  it('replaces learnt pod names, namespaces and workloads as whole tokens, in paths and labels', () => {
    const r = new Redactor();
    r.learn({ inputs: [{ pod: 'web-6c7d8f9b5-x2x8k', namespace: 'shop' }], destinations: [{ destination: 'shop/cart' }] });
    assert.equal(
      r.redactText('bundle/shop/web-6c7d8f9b5-x2x8k/linkerd-proxy.log: 3 web pods call cart; shop-extra and web-6c7d8f9b5-x2x8k2 are other names'),
      // `shop-extra` embeds the namespace, so it is redacted inside the word; a longer pod name is another name.
      'bundle/ns-1/pod-1/linkerd-proxy.log: 3 workload-1 pods call workload-2; ns-1-extra and web-6c7d8f9b5-x2x8k2 are other names',
    );
    assert.equal(r.redactText('dst_namespace="shop", dst_pod="web-6c7d8f9b5-x2x8k"'), 'dst_namespace="ns-1", dst_pod="pod-1"');
    assert.equal(r.redactText('var/log/pods/shop_web-6c7d8f9b5-x2x8k_dd03ab5c-afaf-a016-2e78-2ac982f8a989/0.log'), 'var/log/pods/ns-1_pod-1_uid-1/0.log');
    assert.equal(r.redactText('linkerd-destination in linkerd, ingress-pod-ip-bypass'), 'linkerd-destination in linkerd, ingress-pod-ip-bypass');
  });

  it('redacts object keys and leaves numbers and structure alone', () => {
    const r = new Redactor();
    const out = r.redact({ '10.0.0.1:80': 3, list: [1, '10.0.0.1'], nested: { n: null, b: true } });
    assert.deepEqual(out, { 'ip-1:80': 3, list: [1, 'ip-1'], nested: { n: null, b: true } });
  });

  // The third hostile-input audit (f5): an RBAC error of a controller running as the user's own
  // service account, with a JWT in logfmt, an e-mail and a probe URL carrying a token.
  it('redacts service accounts, namespaces inside role names, e-mails and credentials', () => {
    const r = new Redactor();
    const line =
      'secrets is forbidden: User "system:serviceaccount:acme-mesh:acme-mesh-controller" cannot list resource "secrets" in the namespace "acme-prod"' +
      ' token="eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhY21lIn0.c2lnbmF0dXJl" user=alice@acme-corp.com';
    r.learn({ sample: line, namespace: 'acme-prod' });
    const out = r.redactText(`${line}; kubectl get clusterrole linkerd-acme-mesh-acme-mesh-controller; rolebinding acme-prod-viewer`);
    for (const secret of ['acme', 'alice', 'eyJ', 'c2lnbmF0dXJl']) assert.ok(!out.includes(secret), `${out} leaks ${secret}`);
    assert.match(out, /system:serviceaccount:ns-1:account-1/);
    assert.match(out, /clusterrole linkerd-ns-1-account-1;/);
    assert.match(out, /rolebinding ns-2-viewer$/);
    assert.match(out, /token="\[redacted\]" user=email-1/);
  });

  it('replaces credential parameters, Bearer and Basic values and bare JWTs, and keeps what only looks like one', () => {
    const r = new Redactor();
    const cases: Array<[string, string]> = [
      ['GET /live?token=s3cr3t-t0ken&x=1', 'GET /live?token=[redacted]&x=1'],
      [
        'https://b.s3.amazonaws.com/o?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=abc123',
        'https://host-1.host-2.host-3.com/o?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]',
      ],
      ['Authorization: Bearer abc.def-ghi', 'Authorization: Bearer [redacted]'],
      ['Authorization: Basic dXNlcjpwYXNz', 'Authorization: Basic [redacted]'],
      ['password: hunter2, api_key=k-1', 'password: [redacted], api_key=[redacted]'],
      ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_part end', 'jwt [redacted] end'],
      // Words that only contain a parameter's name, and a secret's *name*, stay.
      [
        'secrets is forbidden; secretName=linkerd-identity-issuer; tokens refreshed',
        'secrets is forbidden; secretName=linkerd-identity-issuer; tokens refreshed',
      ],
    ];
    for (const [input, expected] of cases) assert.equal(r.redactText(input), expected, input);
  });

  it('keeps Linkerd names whole when a namespace is named like a part of them', () => {
    const r = new Redactor();
    r.learn({ namespace: 'proxy' });
    assert.equal(
      r.redactText('linkerd-proxy in proxy; linkerd-proxy-injector; clusterrole linkerd-proxy-destination-x'),
      'linkerd-proxy in ns-1; linkerd-proxy-injector; clusterrole linkerd-ns-1-destination-x',
    );
  });
});
