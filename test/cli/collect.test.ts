// `linkerd-doctor collect`: the commands it runs for given flags (--dry-run), the pod listing it
// reads, and a real run through the built CLI against stand-in kubectl, linkerd and dig (shell
// scripts on the PATH that print fixture files), whose bundle analyze then reads with every pod
// and namespace recognised.

import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { affectedPods, dryRunScript, parsePodListing, readListing, validateCollectOptions, type CollectOptions } from '../../src/cli/run-collect.js';
import { UsageError } from '../../src/core/errors.js';
import type { Report } from '../../src/report/report.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(ROOT, 'bin/run.js');
const FIXTURES = path.join(ROOT, 'fixtures');
const STORM_PODS = ['traefik-mr9q65pc74-5kz6v', 'traefik-txlklnp4hl-kmvfp', 'traefik-d7xm6p86np-6srkj'];

let dir: string;
let fakeBin: string;
before(() => {
  const dist = path.join(ROOT, 'dist/commands/collect.js');
  if (!existsSync(dist) || statSync(path.join(ROOT, 'src/cli/run-collect.ts')).mtimeMs > statSync(dist).mtimeMs)
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  dir = mkdtempSync(path.join(tmpdir(), 'ld-collect-'));
  fakeBin = writeFakeTools(path.join(dir, 'fake-bin'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const options = (overrides: Partial<CollectOptions> = {}): CollectOptions => ({
  namespaces: ['ingress'],
  selector: 'linkerd.io/control-plane-ns',
  controlPlaneNamespace: 'linkerd',
  clusterDomain: 'cluster.local',
  outputDir: 'bundle',
  access: {},
  ...overrides,
});

describe('collect --dry-run', () => {
  it('prints the listing, per-pod, per-namespace and dig commands, then the analyze command', () => {
    const lines = dryRunScript(options({ since: '1h', access: { context: 'prod' } }))
      .split('\n')
      .filter((l) => !l.startsWith('#') && l !== '');
    assert.match(
      lines[0]!,
      /^kubectl --context=prod get pods --namespace=ingress --selector=linkerd\.io\/control-plane-ns --output 'jsonpath=\{range \.items\[\*\]\}/,
    );
    assert.match(lines[1]!, /^kubectl --context=prod get pods --namespace=linkerd --output 'jsonpath=/);
    assert.deepEqual(lines.slice(2), [
      "kubectl --context=prod logs '--namespace=<namespace>' '<pod>' --container=linkerd-proxy --timestamps --since=1h > 'bundle/<namespace>/<pod>/linkerd-proxy.log'",
      "linkerd --context=prod --linkerd-namespace=linkerd diagnostics proxy-metrics '--namespace=<namespace>' 'pod/<pod>' > 'bundle/<namespace>/<pod>/proxy-metrics.txt'",
      "kubectl --context=prod describe pod '--namespace=<namespace>' '<pod>' > 'bundle/<namespace>/<pod>/describe.txt'",
      "kubectl --context=prod logs --namespace=linkerd '<pod>' '--container=<container>' --timestamps --since=1h > 'bundle/linkerd/<pod>/<container>.log'",
      "kubectl --context=prod describe pod --namespace=linkerd '<pod>' > 'bundle/linkerd/<pod>/describe.txt'",
      'kubectl --context=prod get pods --namespace=ingress --output=wide > bundle/ingress/get-pods.txt',
      'kubectl --context=prod get events --namespace=ingress --output=wide > bundle/ingress/events.txt',
      'kubectl --context=prod get pods --namespace=linkerd --output=wide > bundle/linkerd/get-pods.txt',
      'kubectl --context=prod get events --namespace=linkerd --output=wide > bundle/linkerd/events.txt',
      'dig linkerd-dst-headless.linkerd.svc.cluster.local SRV > bundle/dns/dig-linkerd-dst-headless.txt',
      'dig linkerd-policy.linkerd.svc.cluster.local SRV > bundle/dns/dig-linkerd-policy.txt',
      'dig linkerd-identity-headless.linkerd.svc.cluster.local SRV > bundle/dns/dig-linkerd-identity-headless.txt',
      'linkerd-doctor analyze bundle',
    ]);
  });

  it('lists every namespace when none or several are given; digs inside a pod with --dig-from', () => {
    assert.match(dryRunScript(options({ namespaces: [] })), /^kubectl get pods --all-namespaces --selector=/m);
    assert.match(dryRunScript(options({ namespaces: ['a', 'b'] })), /^kubectl get pods --all-namespaces --selector=/m);
    const script = dryRunScript(options({ digFrom: 'tools/netshoot-0', controlPlaneNamespace: 'l5d', clusterDomain: 'corp.local' }));
    assert.match(
      script,
      /^kubectl exec --namespace=tools netshoot-0 -- dig linkerd-dst-headless\.l5d\.svc\.corp\.local SRV > bundle\/dns\/dig-linkerd-dst-headless\.txt$/m,
    );
  });

  it('refuses names that could not be a namespace, a bad --since or --dig-from', () => {
    assert.throws(() => validateCollectOptions(options({ namespaces: ['../etc'] })), UsageError);
    assert.throws(() => validateCollectOptions(options({ since: 'yesterday' })), /--since "yesterday" must be a duration/);
    assert.throws(() => validateCollectOptions(options({ digFrom: 'netshoot' })), /--dig-from "netshoot" must be NAMESPACE\/POD/);
    assert.doesNotThrow(() => validateCollectOptions(options({ namespaces: ['emojivoto'], since: '30m', digFrom: 'tools/netshoot-0' })));
  });

  it('through the CLI: the commands on stdout, nothing run, exit 0; Linkerd cluster flags forwarded', () => {
    const run = spawnSync(process.execPath, [BIN, '--context', 'prod', 'collect', '-n', 'ingress', '-d', 'out', '--dry-run', '-L', 'l5d'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, PATH: '/nonexistent' },
    });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, '');
    assert.match(run.stdout, /^kubectl --context=prod get pods --namespace=l5d --output /m);
    assert.match(run.stdout, /^linkerd-doctor analyze out$/m);
    assert.equal(existsSync(path.join(dir, 'out')), false, 'a dry run writes nothing');
  });
});

describe('the pod listing', () => {
  const listing = [
    'ingress\ttraefik-a1b2c3d4e5-x2x8k\tRunning\ttraefik linkerd-proxy\ttrue true\t0 0',
    'ingress\ttraefik-a1b2c3d4e5-q9z7m\tRunning\ttraefik linkerd-proxy\ttrue true\t0 3',
    'ingress\ttraefik-a1b2c3d4e5-p0p0p\tPending\ttraefik linkerd-proxy\t\t',
    'ingress\tunmeshed-5d6f7-abcde\tRunning\tapp\ttrue\t0',
    'other\tweb-0\tRunning\tweb linkerd-proxy\ttrue false\t0 0',
    'ingress\t../../etc\tRunning\tlinkerd-proxy\ttrue\t0',
    'garbage',
    '',
  ].join('\n');

  it('marks pods not running, not ready or restarted as unhealthy, and skips unsafe names', () => {
    const pods = parsePodListing(listing);
    assert.deepEqual(
      pods.map((p) => [p.name, p.unhealthy]),
      [
        ['traefik-a1b2c3d4e5-x2x8k', false],
        ['traefik-a1b2c3d4e5-q9z7m', true],
        ['traefik-a1b2c3d4e5-p0p0p', true],
        ['unmeshed-5d6f7-abcde', false],
        ['web-0', true],
      ],
    );
  });

  it('keeps the meshed pods of the chosen namespaces', () => {
    const pods = parsePodListing(listing);
    assert.deepEqual(
      affectedPods(options({ namespaces: ['ingress'] }), pods).map((p) => p.name),
      ['traefik-a1b2c3d4e5-x2x8k', 'traefik-a1b2c3d4e5-q9z7m', 'traefik-a1b2c3d4e5-p0p0p'],
    );
    assert.deepEqual(
      affectedPods(options({ namespaces: [] }), pods)
        .map((p) => p.name)
        .at(-1),
      'web-0',
    );
  });
});

/**
 * kubectl, linkerd and dig stand-ins: each prints a fixture for the arguments collect passes and
 * logs its argv, so the test sees both the commands and the bundle they produce.
 */
function writeFakeTools(bin: string): string {
  mkdirSync(bin, { recursive: true });
  const script = (name: string, body: string) => {
    writeFileSync(path.join(bin, name), `#!/bin/sh\necho "${name} $*" >> "$FAKE_LOG"\n${body}\n`);
    chmodSync(path.join(bin, name), 0o755);
  };
  const podLines = [
    `ingress\\t${STORM_PODS[0]}\\tRunning\\ttraefik linkerd-proxy\\ttrue true\\t0 0`,
    `ingress\\t${STORM_PODS[1]}\\tRunning\\ttraefik linkerd-proxy\\ttrue true\\t0 2`,
    `ingress\\t${STORM_PODS[2]}\\tRunning\\ttraefik linkerd-proxy\\ttrue true\\t0 0`,
    'ingress\\tunmeshed-5d6f7-abcde\\tRunning\\tapp\\ttrue\\t0',
  ].join('\\n');
  script(
    'kubectl',
    `case "$*" in
  *"get pods --namespace=ingress --selector"*) printf '${podLines}\\n' ;;
  *"get pods --namespace=linkerd --output jsonpath"*) printf 'linkerd\\tlinkerd-destination-7c9d5b8f6-q2wzl\\tRunning\\tdestination policy linkerd-proxy\\ttrue true true\\t6 0 0\\n' ;;
  *"logs --namespace=ingress"*)
    pod=$(echo "$*" | sed 's/.*--namespace=ingress \\([^ ]*\\) .*/\\1/')
    sed 's/^/2023-11-22T17:05:00.000000000Z /' "$FIXTURES/storm/ingress/$pod/linkerd-proxy.log" ;;
  *"logs --namespace=linkerd"*"--container=destination"*) echo '2023-11-22T17:05:00.000000000Z time="2023-11-22T17:05:00Z" level=info msg="running version stable-2.14.10"' ;;
  *"logs --namespace=linkerd"*"--container=policy"*) echo 'Error from server (BadRequest): container "policy" in pod is waiting to start' >&2; exit 1 ;;
  *"logs --namespace=linkerd"*) ;;
  *"describe pod --namespace=linkerd"*) cat "$FIXTURES/pod-restarts/describe-linkerd-destination.txt" ;;
  *"describe pod"*) cat "$FIXTURES/pod-restarts/describe-web.txt" ;;
  *"get events --namespace=linkerd"*) cat "$FIXTURES/pod-restarts/events.txt" ;;
  *"get events"*) echo 'No resources found in ingress namespace.' >&2 ;;
  *"get pods --namespace=linkerd --output=wide"*) cat "$FIXTURES/pod-restarts/get-pods.txt" ;;
  *"get pods"*) cat "$FIXTURES/healthy-kubectl/get-pods.txt" ;;
  *) echo "fake kubectl: unexpected $*" >&2; exit 64 ;;
esac`,
  );
  script('linkerd', 'cat "$FIXTURES/healthy-metrics/proxy-metrics.txt"');
  script('dig', 'cat "$FIXTURES/dns-healthy/dig-loop-dst-headless.txt"');
  return bin;
}

function runCollect(args: string[], pathEnv: string) {
  const log = path.join(dir, `calls-${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(log, '');
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: pathEnv, FAKE_LOG: log, FIXTURES, NO_COLOR: '1' };
  const run = spawnSync(process.execPath, [BIN, 'collect', ...args], { cwd: dir, encoding: 'utf8', env });
  return {
    code: run.status ?? -1,
    stdout: run.stdout,
    stderr: run.stderr,
    calls: execFileSync('cat', [log], { encoding: 'utf8' }).trim().split('\n').filter(Boolean),
  };
}

describe('collect, run against stand-in tools', () => {
  it('writes <namespace>/<pod>/ files that analyze reads with pods and namespaces, names the failed command, prints the analyze command', () => {
    const out = path.join(dir, 'bundle');
    const run = runCollect(['-n', 'ingress', '--output-dir', out, '--context', 'prod'], `${fakeBin}${path.delimiter}${process.env.PATH}`);
    // The policy container's log failed: named on stderr, its file left out, exit 2, the rest collected.
    assert.equal(run.code, 2, run.stderr);
    assert.match(
      run.stderr,
      /^linkerd-doctor: collect: kubectl --context=prod logs --namespace=linkerd linkerd-destination-7c9d5b8f6-q2wzl --container=policy --timestamps failed \(exit 1: Error from server \(BadRequest\): container "policy" in pod is waiting to start\); linkerd\/linkerd-destination-7c9d5b8f6-q2wzl\/policy\.log left out$/m,
    );
    assert.match(run.stderr, /wrote \d+ files from 3 affected and 1 control-plane pods into .*bundle; 1 commands failed/);
    assert.equal(run.stdout, `linkerd-doctor analyze ${out}\n`);
    assert.ok(
      run.calls.every((c) => !c.startsWith('kubectl') || c.startsWith('kubectl --context=prod ')),
      'every kubectl call has the context',
    );
    assert.ok(!run.calls.some((c) => c.includes('unmeshed')), 'a pod without a proxy is not collected');

    const files = (sub: string) => readdirSync(path.join(out, sub)).sort();
    assert.deepEqual(files(`ingress/${STORM_PODS[0]}`), ['linkerd-proxy.log', 'proxy-metrics.txt']);
    assert.deepEqual(files(`ingress/${STORM_PODS[1]}`), ['describe.txt', 'linkerd-proxy.log', 'proxy-metrics.txt'], 'a restarted pod is described');
    // Empty outputs (no ingress events, the control-plane proxy's empty log) and the failed one are left out.
    assert.deepEqual(files('ingress'), ['get-pods.txt', ...STORM_PODS.slice().sort()]);
    assert.deepEqual(files('linkerd/linkerd-destination-7c9d5b8f6-q2wzl'), ['describe.txt', 'destination.log']);
    assert.deepEqual(files('dns'), ['dig-linkerd-dst-headless.txt', 'dig-linkerd-identity-headless.txt', 'dig-linkerd-policy.txt']);

    const analyzed = spawnSync(process.execPath, [BIN, 'analyze', out, '--format', 'json', '-q', '--fail-on', 'none'], {
      cwd: dir,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    assert.equal(analyzed.status, 0, analyzed.stderr);
    const report = JSON.parse(analyzed.stdout) as Report;
    assert.deepEqual(report.errors, []);
    const input = (suffix: string) => report.inputs.find((i) => i.path.endsWith(suffix));
    for (const pod of STORM_PODS) {
      assert.deepEqual(
        { ...input(`${pod}/linkerd-proxy.log`) },
        { ...input(`${pod}/linkerd-proxy.log`), kind: 'proxy-log', pod, namespace: 'ingress', container: 'linkerd-proxy' },
      );
      assert.equal(input(`${pod}/proxy-metrics.txt`)?.kind, 'prometheus');
      assert.equal(input(`${pod}/proxy-metrics.txt`)?.pod, pod);
    }
    assert.equal(input('destination.log')?.namespace, 'linkerd');
    assert.equal(input('linkerd/events.txt')?.kind, 'kubectl');
    assert.equal(input('dig-linkerd-policy.txt')?.kind, 'dig');
    assert.ok(
      report.inputs.every((i) => i.kind !== 'unknown'),
      JSON.stringify(report.inputs.filter((i) => i.kind === 'unknown')),
    );
    // The captured evidence is read as evidence: the proxy logs carry the storm, describe the restarts.
    const rules = new Set(report.findings.map((f) => f.ruleId));
    assert.ok(rules.has('pod-restarts'), [...rules].join(', '));
  });

  it('refuses a folder that is not empty, and names a missing kubectl', () => {
    const used = path.join(dir, 'used');
    mkdirSync(used, { recursive: true });
    writeFileSync(path.join(used, 'x'), '');
    const refused = runCollect(['-n', 'ingress', '-d', used], `${fakeBin}${path.delimiter}${process.env.PATH}`);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /^linkerd-doctor: collect: .*used is not empty; choose a new --output-dir/);
    assert.deepEqual(refused.calls, []);
    const bare = path.join(dir, 'bare-bin');
    mkdirSync(bare, { recursive: true });
    const missing = runCollect(['-n', 'ingress', '-d', path.join(dir, 'no-tools')], bare);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /failed \(kubectl is not on the PATH\)/);
  });
});

/** Stand-in tools for the third audit's collect cases (f6, f7, f12, f16): written per test. */
function writeTools(name: string, kubectl: string): string {
  const bin = path.join(dir, name);
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, 'kubectl'), `#!/bin/bash\n${kubectl}\n`);
  writeFileSync(path.join(bin, 'linkerd'), '#!/bin/sh\necho x\n');
  writeFileSync(path.join(bin, 'dig'), '#!/bin/sh\necho x\n');
  for (const tool of ['kubectl', 'linkerd', 'dig']) chmodSync(path.join(bin, tool), 0o755);
  return `${bin}${path.delimiter}${process.env.PATH}`;
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    // A zombie (ended, not yet reaped by whoever adopted it) is not running.
    return !/^\S+ \(\S+\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

describe('collect keeps every capture and never hangs (third audit, f6, f7, f12, f16)', () => {
  const DESTINATION = 'linkerd-destination-7c9d5b8f6-q2wzl';
  it('captures a control-plane pod that the default selector also matches once, and a failure elsewhere deletes nothing', () => {
    // The proxy injector labels Linkerd's own pods with linkerd.io/control-plane-ns, so the
    // default selector lists them as affected pods too.
    const pathEnv = writeTools(
      'dup-bin',
      `echo "$*" >> "$FAKE_LOG"
case "$*" in
  *jsonpath=*) printf 'linkerd\\t${DESTINATION}\\tRunning\\tdestination linkerd-proxy\\ttrue true\\t0 0\\n' ;;
  *logs*linkerd-proxy*) for i in $(seq 2000); do echo "2024-06-05T11:01:10.1Z [ 0.1s]  WARN ThreadId(01) capture line $i"; done ;;
  *logs*) echo "2024-06-05T11:01:10.1Z destination" ;;
  *) echo "Error from server: context deadline exceeded" >&2; exit 1 ;;
esac`,
    );
    const out = path.join(dir, 'dup-bundle');
    const run = runCollect(['-d', out, '-q'], pathEnv);
    assert.equal(run.code, 2, 'the failing get commands still fail the run');
    assert.equal(run.calls.filter((c) => c.includes('logs') && c.includes('--container=linkerd-proxy')).length, 1, run.calls.join('\n'));
    const log = readFileSync(path.join(out, 'linkerd', DESTINATION, 'linkerd-proxy.log'), 'utf8')
      .trimEnd()
      .split('\n');
    assert.equal(log.length, 2000);
    assert.ok(
      log.every((l, i) => l.endsWith(`capture line ${i + 1}`)),
      'no line torn or interleaved',
    );
  });

  it('ends a command past --timeout with what it wrote kept, and names it', () => {
    const pathEnv = writeTools(
      'slow-bin',
      `case "$*" in
  *jsonpath=*) printf 'shop\\tweb-1\\tRunning\\tweb linkerd-proxy\\ttrue true\\t0 0\\n' ;;
  *logs*) echo "2024-06-05T11:01:10.1Z [ 0.1s]  WARN ThreadId(01) before the hang"; exec sleep 1000 ;;
  *) echo x ;;
esac`,
    );
    const out = path.join(dir, 'slow-bundle');
    const started = Date.now();
    const run = runCollect(['-n', 'shop', '-d', out, '--timeout', '1s'], pathEnv);
    assert.ok(Date.now() - started < 30_000, 'the hung command did not hold collect');
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      /--container=linkerd-proxy --timestamps failed \(timed out after 1 s\); kept the \d+ bytes it wrote in shop\/web-1\/linkerd-proxy\.log/,
    );
    assert.match(readFileSync(path.join(out, 'shop/web-1/linkerd-proxy.log'), 'utf8'), /before the hang/);
    assert.equal(runCollect(['-d', path.join(dir, 'never'), '--timeout', '5 minutes'], pathEnv).code, 2);
  });

  it('on SIGTERM ends its children with it and leaves no empty capture file', async () => {
    const pids = path.join(dir, 'hang-pids');
    const pathEnv = writeTools(
      'hang-bin',
      `case "$*" in
  *jsonpath=*) printf 'shop\\tweb-1\\tRunning\\tweb linkerd-proxy\\ttrue true\\t0 0\\n'; exit 0 ;;
esac
echo $$ >> "${pids}"
exec sleep 1000`,
    );
    const out = path.join(dir, 'hang-bundle');
    const child = spawn(process.execPath, [BIN, 'collect', '-n', 'shop', '-d', out], { cwd: dir, env: { ...process.env, PATH: pathEnv }, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 20_000;
    while ((!existsSync(pids) || readFileSync(pids, 'utf8').trim().split('\n').length < 2) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    const hung = readFileSync(pids, 'utf8').trim().split('\n').map(Number);
    child.kill('SIGTERM');
    assert.equal(await exited, 143);
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(hung.filter(isAlive), [], 'no command outlives collect');
    const files = execFileSync('find', [out, '-type', 'f', '-empty'], { encoding: 'utf8' });
    assert.equal(files, '', 'no empty capture file');
  });

  it('refuses a pod listing too large to read instead of reading it as "no pod matched"', async () => {
    const file = path.join(dir, 'listing.tsv');
    writeFileSync(file, 'shop\tweb-1\tRunning\tweb linkerd-proxy\ttrue true\t0 0\n'.repeat(100));
    await assert.rejects(
      readListing(file, 1024),
      (err: Error) => err instanceof UsageError && /pod listing is 0\.0 MiB, more than the 0\.0 MiB collect reads; narrow it/.test(err.message),
    );
    writeFileSync(file, 'shop\tweb-1\tRunning\tweb linkerd-proxy\ttrue true\t0 0\n');
    assert.equal(parsePodListing(await readListing(file, 1024)).length, 1);
    assert.equal(existsSync(file), false, 'the working file is removed');
    assert.equal(await readListing(file), '', 'a listing whose command failed (no file) reads as empty; its failure is reported apart');
  });

  it('--dry-run quotes every value it prints and refuses control characters where they enter', () => {
    assert.throws(
      () => validateCollectOptions(options({ outputDir: 'incident\ntouch ./PWNED #' })),
      /--output-dir "incident\\ntouch \.\/PWNED #" holds a control character/,
    );
    assert.throws(() => validateCollectOptions(options({ access: { context: 'prod\rx' } })), /--context .* holds a control character/);
    const script = dryRunScript(options({ outputDir: '-rf here' }));
    assert.match(script.split('\n')[0]!, /writing into '\.\/-rf here\/' \(nothing is run/);
    assert.match(script, /\nlinkerd-doctor analyze '\.\/-rf here'\n$/);
    const refused = runCollect(['-n', 'shop', '--dry-run', '-d', 'incident\ntouch ./PWNED #'], process.env.PATH ?? '');
    assert.equal(refused.code, 2);
    assert.equal(refused.stdout, '');
  });
});
