// `linkerd-doctor collect`: captures a bundle in the layout the analyser reads best, so nobody
// has to remember which kubectl flags keep timestamps and pod names. Every pod's files go to
// <namespace>/<pod>/ (src/util/path-meta.ts reads the namespace, pod and container from that
// path): the proxy log as linkerd-proxy.log with --timestamps, the proxy's metrics as
// proxy-metrics.txt, `describe.txt` for pods that are not healthy; per namespace get-pods.txt and
// events.txt; control-plane pods with every container's log; and dns/ with dig answers for the
// control-plane SRV names. Commands run through child_process.spawn with an argument vector (no
// shell), their stdout streamed to the file.

import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../core/errors.js';
import { onInterrupt } from './output.js';

/** kubectl's and linkerd's cluster-addressing flags that collect forwards (EXTENSIONS.md). */
export interface KubeAccess {
  context?: string;
  kubeconfig?: string;
  as?: string;
  asGroup?: string;
}

export interface CollectOptions {
  /** Namespaces of the affected workloads; empty = every namespace. */
  namespaces: readonly string[];
  /** Label selector of the affected pods. */
  selector: string;
  /** Where Linkerd's control plane runs. */
  controlPlaneNamespace: string;
  clusterDomain: string;
  outputDir: string;
  /** kubectl logs --since (e.g. 1h); undefined = everything the kubelet kept. */
  since?: string;
  /** `namespace/pod` to run dig in with kubectl exec; undefined = dig on this machine. */
  digFrom?: string;
  /** Each command's time limit; undefined = DEFAULT_TIMEOUT_MS. */
  timeoutMs?: number;
  access: KubeAccess;
}

/** Every meshed pod carries this label (set by the proxy injector). */
export const DEFAULT_SELECTOR = 'linkerd.io/control-plane-ns';
export const PROXY_CONTAINER = 'linkerd-proxy';
/**
 * Each command's time limit unless --timeout says otherwise: a `kubectl logs` of a busy proxy's
 * whole log takes seconds to a minute; a command still running after five is stuck (an API server
 * that accepted the connection and never answers, a credential plugin waiting for a browser).
 */
export const DEFAULT_TIMEOUT_MS = 5 * 60 * 1000;

/** A command whose stdout becomes one file of the bundle (path relative to the output folder). */
export interface CaptureStep {
  argv: readonly string[];
  file: string;
}

/** A pod as the listing command prints it. */
export interface ListedPod {
  namespace: string;
  name: string;
  containers: string[];
  /** Not running, a container not ready, or a container restarted: worth a `describe`. */
  unhealthy: boolean;
}

const NAMESPACE_NAME = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;
const POD_NAME = /^[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?$/;
const CONTAINER_NAME = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * One pod per line, tab-separated: namespace, name, phase, container names, container ready
 * flags, container restart counts (the last three space-separated lists).
 */
export const POD_LISTING_JSONPATH =
  '{range .items[*]}{.metadata.namespace}{"\\t"}{.metadata.name}{"\\t"}{.status.phase}{"\\t"}{.spec.containers[*].name}{"\\t"}{.status.containerStatuses[*].ready}{"\\t"}{.status.containerStatuses[*].restartCount}{"\\n"}{end}';

export function validateCollectOptions(options: CollectOptions): void {
  for (const ns of [...options.namespaces, options.controlPlaneNamespace]) {
    if (!NAMESPACE_NAME.test(ns)) throw new UsageError(`collect: ${JSON.stringify(ns)} is not a namespace name (lower-case letters, digits and -, at most 63)`);
  }
  if (options.digFrom !== undefined && !/^[a-z0-9][-a-z0-9]*\/[a-z0-9][-a-z0-9.]*$/.test(options.digFrom))
    throw new UsageError(`collect: --dig-from ${JSON.stringify(options.digFrom)} must be NAMESPACE/POD`);
  // A control character in a value would end the line it is printed on: in --dry-run's recipe,
  // piped to sh, it becomes a command of its own.
  for (const [flag, value] of [
    ['--output-dir', options.outputDir],
    ['--selector', options.selector],
    ['--context', options.access.context],
    ['--kubeconfig', options.access.kubeconfig],
    ['--as', options.access.as],
    ['--as-group', options.access.asGroup],
  ] as const) {
    // eslint-disable-next-line no-control-regex
    if (value !== undefined && /[\u0000-\u001f\u007f]/.test(value)) throw new UsageError(`collect: ${flag} ${JSON.stringify(value)} holds a control character`);
  }
  if (options.since !== undefined && !/^\d+[smh]$/.test(options.since))
    throw new UsageError(`collect: --since ${JSON.stringify(options.since)} must be a duration such as 30m or 2h`);
}

function accessFlags(access: KubeAccess): string[] {
  return [
    ...(access.context ? [`--context=${access.context}`] : []),
    ...(access.kubeconfig ? [`--kubeconfig=${access.kubeconfig}`] : []),
    ...(access.as ? [`--as=${access.as}`] : []),
    ...(access.asGroup ? [`--as-group=${access.asGroup}`] : []),
  ];
}

const kubectl = (o: CollectOptions, ...args: string[]): string[] => ['kubectl', ...accessFlags(o.access), ...args];
const linkerd = (o: CollectOptions, ...args: string[]): string[] => [
  'linkerd',
  ...accessFlags(o.access),
  `--linkerd-namespace=${o.controlPlaneNamespace}`,
  ...args,
];

/** The commands that list the pods whose files are collected: the affected ones, then the control plane. */
export function listingCommands(o: CollectOptions): { affected: string[]; controlPlane: string[] } {
  // kubectl get takes one namespace or all of them; for several, all are listed and affectedPods filters.
  const scope = o.namespaces.length === 1 ? `--namespace=${o.namespaces[0]}` : '--all-namespaces';
  const affected = kubectl(o, 'get', 'pods', scope, `--selector=${o.selector}`, '--output', `jsonpath=${POD_LISTING_JSONPATH}`);
  const controlPlane = kubectl(o, 'get', 'pods', `--namespace=${o.controlPlaneNamespace}`, '--output', `jsonpath=${POD_LISTING_JSONPATH}`);
  return { affected, controlPlane };
}

/** Namespaces whose pod table and events are captured: the affected ones and the control plane's. */
export function namespaceSteps(o: CollectOptions, namespaces: readonly string[]): CaptureStep[] {
  return [...new Set([...namespaces, o.controlPlaneNamespace])].flatMap((ns) => [
    { argv: kubectl(o, 'get', 'pods', `--namespace=${ns}`, '--output=wide'), file: `${ns}/get-pods.txt` },
    { argv: kubectl(o, 'get', 'events', `--namespace=${ns}`, '--output=wide'), file: `${ns}/events.txt` },
  ]);
}

/** The control-plane SRV names the proxies resolve (dns-ttl-zero and dns-resolution-failure read the answers). */
export function controlPlaneServiceNames(o: CollectOptions): string[] {
  return ['linkerd-dst-headless', 'linkerd-policy', 'linkerd-identity-headless'].map((svc) => `${svc}.${o.controlPlaneNamespace}.svc.${o.clusterDomain}`);
}

export function digSteps(o: CollectOptions): CaptureStep[] {
  return controlPlaneServiceNames(o).map((name) => {
    const dig = ['dig', name, 'SRV'];
    if (o.digFrom === undefined) return { argv: dig, file: `dns/dig-${name.split('.')[0]}.txt` };
    const [ns, pod] = o.digFrom.split('/') as [string, string];
    return { argv: kubectl(o, 'exec', `--namespace=${ns}`, pod, '--', ...dig), file: `dns/dig-${name.split('.')[0]}.txt` };
  });
}

/** What is captured of one affected (meshed) pod. */
export function affectedPodSteps(o: CollectOptions, pod: ListedPod): CaptureStep[] {
  const dir = `${pod.namespace}/${pod.name}`;
  const since = o.since ? [`--since=${o.since}`] : [];
  return [
    {
      argv: kubectl(o, 'logs', `--namespace=${pod.namespace}`, pod.name, `--container=${PROXY_CONTAINER}`, '--timestamps', ...since),
      file: `${dir}/${PROXY_CONTAINER}.log`,
    },
    { argv: linkerd(o, 'diagnostics', 'proxy-metrics', `--namespace=${pod.namespace}`, `pod/${pod.name}`), file: `${dir}/proxy-metrics.txt` },
    ...(pod.unhealthy ? [{ argv: kubectl(o, 'describe', 'pod', `--namespace=${pod.namespace}`, pod.name), file: `${dir}/describe.txt` }] : []),
  ];
}

/** What is captured of one control-plane pod: every container's log. */
export function controlPlanePodSteps(o: CollectOptions, pod: ListedPod): CaptureStep[] {
  const dir = `${pod.namespace}/${pod.name}`;
  const since = o.since ? [`--since=${o.since}`] : [];
  return [
    ...pod.containers.map((c) => ({
      argv: kubectl(o, 'logs', `--namespace=${pod.namespace}`, pod.name, `--container=${c}`, '--timestamps', ...since),
      file: `${dir}/${c}.log`,
    })),
    ...(pod.unhealthy ? [{ argv: kubectl(o, 'describe', 'pod', `--namespace=${pod.namespace}`, pod.name), file: `${dir}/describe.txt` }] : []),
  ];
}

/**
 * Reads the listing (POD_LISTING_JSONPATH). Lines that do not fit, or names that could not be a
 * path component, are skipped: a name from the cluster never reaches the file system unchecked.
 */
export function parsePodListing(text: string): ListedPod[] {
  const pods: ListedPod[] = [];
  for (const line of text.split('\n')) {
    const [namespace = '', name = '', phase = '', containers = '', ready = '', restarts = ''] = line.split('\t');
    if (!NAMESPACE_NAME.test(namespace) || !POD_NAME.test(name)) continue;
    const names = containers.split(' ').filter((c) => CONTAINER_NAME.test(c));
    const unhealthy =
      (phase !== 'Running' && phase !== 'Succeeded') || ready.split(' ').includes('false') || restarts.split(' ').some((r) => /^\d+$/.test(r) && r !== '0');
    pods.push({ namespace, name, containers: names, unhealthy });
  }
  return pods;
}

/** The affected pods of the listing: in the chosen namespaces, and meshed (they have a proxy). */
export function affectedPods(o: CollectOptions, listed: readonly ListedPod[]): ListedPod[] {
  return listed.filter((p) => (o.namespaces.length === 0 || o.namespaces.includes(p.namespace)) && p.containers.includes(PROXY_CONTAINER));
}

/** A path as one argument that no command reads as a flag (`-x` becomes `./-x`). */
export function pathArgument(p: string): string {
  return p.startsWith('-') ? `./${p}` : p;
}

/** A command as a person would type it into a POSIX shell. */
export function shellQuote(argv: readonly string[]): string {
  return argv.map((a) => (/^[-\w./=:@,+]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/**
 * The commands collect runs, as shell lines for --dry-run. Per-pod commands depend on the pods the
 * listing returns, so they are shown once with <namespace>, <pod> and <container> in place.
 */
export function dryRunScript(o: CollectOptions): string {
  const out = pathArgument(o.outputDir);
  const placeholder: ListedPod = { namespace: '<namespace>', name: '<pod>', containers: ['<container>'], unhealthy: true };
  const line = (s: CaptureStep) => `${shellQuote(s.argv)} > ${shellQuote([path.join(out, s.file)])}`;
  const { affected, controlPlane } = listingCommands(o);
  const namespaces = o.namespaces.length > 0 ? o.namespaces : ['<namespace>'];
  return [
    `# linkerd-doctor collect: the commands it runs, writing into ${shellQuote([`${out}/`])} (nothing is run with --dry-run)`,
    '# 1. List the affected pods and the control-plane pods:',
    shellQuote(affected),
    shellQuote(controlPlane),
    `# 2. For each affected pod with a ${PROXY_CONTAINER} container (describe only when it is not running, not ready or restarted):`,
    ...affectedPodSteps(o, placeholder).map(line),
    `# 3. For each control-plane pod in ${o.controlPlaneNamespace}, each container (describe as above):`,
    ...controlPlanePodSteps(o, { ...placeholder, namespace: o.controlPlaneNamespace }).map(line),
    `# 4. For each namespace${o.namespaces.length > 0 ? '' : ' with an affected pod'} and ${o.controlPlaneNamespace}:`,
    ...namespaceSteps(o, namespaces).map(line),
    `# 5. The control-plane SRV names${o.digFrom ? ` (dig inside ${o.digFrom})` : ' (run where cluster DNS answers, or use --dig-from NAMESPACE/POD)'}:`,
    ...digSteps(o).map(line),
    '# Then:',
    shellQuote(['linkerd-doctor', 'analyze', out]),
    '',
  ].join('\n');
}

/** The end of a failed command's stderr kept for its one-line message. */
const STDERR_TAIL = 2048;
/** Commands at once: kubectl logs of many pods is I/O-bound, and the API server has limits. */
const PARALLEL_COMMANDS = 4;
/** How long a command has after SIGTERM (a timeout or collect's own end) before SIGKILL. */
const KILL_GRACE_MS = 2000;
/**
 * The largest pod listing collect reads. 256 MiB is a listing of over a million pods; one larger
 * is not a cluster collect can capture usefully, and reading it whole would pass V8's string
 * limit, so it is refused by name instead of read as "no pod matched".
 */
const LISTING_MAX_BYTES = 256 * 1024 * 1024;

export interface StepResult {
  step: CaptureStep;
  ok: boolean;
  /** One line: why it failed. */
  reason?: string;
  /** Succeeded with nothing on stdout (no events, a pod with no log yet): the file is removed. */
  empty?: boolean;
  /** Stopped (timed out or interrupted) after it had written this many bytes, which are kept. */
  partialBytes?: number;
}

export type StepRunner = (step: CaptureStep, file: string) => Promise<StepResult>;

/** Runs the capture's commands and can end all of them at once. */
export interface CaptureRunner {
  run: StepRunner;
  /** Ends every command in flight (SIGTERM, then SIGKILL after a grace period); no new one starts. */
  stop(): void;
  /**
   * For a signal handler, just before the process exits: SIGTERM to every command in flight and
   * its group, and their files removed where still empty. Synchronous.
   */
  abandon(): void;
  readonly stopped: boolean;
}

/** Sends a signal to a command and whatever it started (kubectl's credential plugins). */
function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Runs each command in a process group of its own, its stdout streamed into the file, with a time
 * limit. A command past its limit, or still running when stop() is called, is ended with its
 * group; what it wrote until then is kept (partialBytes), since a log cut short is still evidence.
 */
export function spawnRunner(timeoutMs: number): CaptureRunner {
  /** Commands in flight, by process id, with the file each writes. */
  const live = new Map<number, string>();
  let stopped = false;
  const end = (pid: number) => {
    signalGroup(pid, 'SIGTERM');
    setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS).unref();
  };
  const run: StepRunner = (step, file) =>
    new Promise((resolve) => {
      mkdirSync(path.dirname(file), { recursive: true });
      const sink = createWriteStream(file);
      let stderr = '';
      let settled = false;
      let stoppedBy: string | undefined;
      const done = (result: StepResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (child.pid !== undefined) live.delete(child.pid);
        // Measured once the stream has flushed everything the command printed.
        sink.end(() => {
          const written = sink.bytesWritten;
          if (result.ok) return resolve({ ...result, empty: written === 0 });
          resolve(stoppedBy !== undefined && written > 0 ? { ...result, partialBytes: written } : result);
        });
      };
      const child = spawn(step.argv[0]!, step.argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], shell: false, detached: true });
      const timer = setTimeout(() => {
        stoppedBy = `timed out after ${Math.round(timeoutMs / 1000)} s`;
        if (child.pid !== undefined) end(child.pid);
      }, timeoutMs);
      if (child.pid !== undefined) {
        live.set(child.pid, file);
        if (stopped) {
          stoppedBy = 'interrupted';
          end(child.pid);
        }
      }
      child.stdout.pipe(sink, { end: false });
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-STDERR_TAIL)));
      child.on('error', (err: NodeJS.ErrnoException) =>
        done({ step, ok: false, reason: err.code === 'ENOENT' ? `${step.argv[0]} is not on the PATH` : err.message }),
      );
      child.on('close', (code, signal) => {
        if (code === 0 && stoppedBy === undefined) return done({ step, ok: true });
        const last = stderr
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean)
          .pop();
        done({ step, ok: false, reason: stoppedBy ?? `${signal ? `killed by ${signal}` : `exit ${code}`}${last ? `: ${last}` : ''}` });
      });
    });
  return {
    run,
    stop() {
      if (stopped) return;
      stopped = true;
      for (const pid of live.keys()) end(pid);
    },
    abandon() {
      stopped = true;
      for (const [pid, file] of live) {
        signalGroup(pid, 'SIGTERM');
        try {
          if (statSync(file, { throwIfNoEntry: false })?.size === 0) unlinkSync(file);
        } catch {
          // The process is ending; a file that cannot be checked stays.
        }
      }
    },
    get stopped() {
      return stopped;
    },
  };
}

async function runAll(steps: readonly CaptureStep[], outDir: string, runner: CaptureRunner, report: (r: StepResult) => void): Promise<StepResult[]> {
  // Two steps never write one file: a pod that is both affected and in the control plane (the
  // default selector matches Linkerd's own pods) would be captured twice into it, concurrently,
  // and a failing second capture would delete the first one's good file.
  const files = new Set<string>();
  const unique = steps.filter((s) => !files.has(s.file) && Boolean(files.add(s.file)));
  const results: StepResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < unique.length && !runner.stopped) {
      const step = unique[next++]!;
      const file = path.join(outDir, step.file);
      const result = await runner.run(step, file);
      // An empty file, or what a failed command left, is no input: analyze would only report it.
      // What a stopped command wrote before it was ended is kept.
      if ((!result.ok && result.partialBytes === undefined) || result.empty) rmSync(file, { force: true });
      report(result);
      results.push(result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_COMMANDS, unique.length) }, worker));
  return results;
}

export interface CollectSummary {
  files: number;
  failed: StepResult[];
  affectedPods: number;
  controlPlanePods: number;
}

/** Reads a pod listing collect wrote: refused when too large to read, never taken as empty. */
export async function readListing(file: string, maxBytes = LISTING_MAX_BYTES): Promise<string> {
  const { readFile, rm, stat } = await import('node:fs/promises');
  const size = await stat(file).then(
    (s) => s.size,
    (err: NodeJS.ErrnoException) => {
      // The listing command failed and its file was removed: that failure is already reported.
      if (err.code === 'ENOENT') return 0;
      throw new UsageError(`collect: cannot read the pod listing ${file}: ${err.message}`);
    },
  );
  if (size === 0) return '';
  try {
    if (size > maxBytes)
      throw new UsageError(
        `collect: the pod listing is ${(size / 2 ** 20).toFixed(1)} MiB, more than the ${(maxBytes / 2 ** 20).toFixed(1)} MiB collect reads; narrow it with --namespace or --selector`,
      );
    return await readFile(file, 'utf8').catch((err: Error) => {
      throw new UsageError(`collect: cannot read the pod listing ${file}: ${err.message}`);
    });
  } finally {
    // The listings are collect's own working files, not inputs for analyze.
    await rm(file, { force: true });
  }
}

/** Captures the bundle into options.outputDir, which must be absent or empty. */
export async function collect(
  o: CollectOptions,
  runner: CaptureRunner = spawnRunner(o.timeoutMs ?? DEFAULT_TIMEOUT_MS),
  warn: (line: string) => void = () => {},
): Promise<CollectSummary> {
  let existing: string[] = [];
  try {
    existing = readdirSync(o.outputDir);
  } catch {
    // absent: created below
  }
  if (existing.length > 0) throw new UsageError(`collect: ${o.outputDir} is not empty; choose a new --output-dir so two captures do not mix`);
  mkdirSync(o.outputDir, { recursive: true });
  // Ctrl-C, SIGTERM or SIGHUP end the process (installProcessGuards); before it exits, the
  // commands in flight are ended with their process groups and their still-empty files removed,
  // so nothing outlives collect and no empty capture is left behind. What they wrote is kept.
  const withdraw = onInterrupt(() => runner.abandon());
  try {
    return await capture(o, runner, warn);
  } finally {
    withdraw();
  }
}

async function capture(o: CollectOptions, runner: CaptureRunner, warn: (line: string) => void): Promise<CollectSummary> {
  const report = (r: StepResult) => {
    if (r.ok) return;
    const kept = r.partialBytes !== undefined ? `; kept the ${r.partialBytes} bytes it wrote in ${r.step.file}` : `; ${r.step.file} left out`;
    warn(`${shellQuote(r.step.argv)} failed (${r.reason})${kept}`);
  };
  const { affected, controlPlane } = listingCommands(o);
  const listings = await runAll(
    [
      { argv: affected, file: 'pods-affected.tsv' },
      { argv: controlPlane, file: `${o.controlPlaneNamespace}/pods.tsv` },
    ],
    o.outputDir,
    runner,
    report,
  );
  const affectedListing = await readListing(path.join(o.outputDir, 'pods-affected.tsv'));
  const controlPlaneListing = await readListing(path.join(o.outputDir, o.controlPlaneNamespace, 'pods.tsv'));
  const listingFailed = listings.filter((r) => !r.ok);
  const pods = affectedPods(o, parsePodListing(affectedListing));
  const controlPlanePods = parsePodListing(controlPlaneListing).filter((p) => p.namespace === o.controlPlaneNamespace);
  if (pods.length === 0 && listingFailed.length === 0)
    warn(
      `no pod matched --selector=${o.selector}${o.namespaces.length > 0 ? ` in ${o.namespaces.join(', ')}` : ''} with a ${PROXY_CONTAINER} container; only the control plane and DNS are captured`,
    );
  const namespaces = o.namespaces.length > 0 ? o.namespaces : [...new Set(pods.map((p) => p.namespace))];
  const steps = [
    ...pods.flatMap((p) => affectedPodSteps(o, p)),
    ...controlPlanePods.flatMap((p) => controlPlanePodSteps(o, p)),
    ...namespaceSteps(o, namespaces),
    ...digSteps(o),
  ];
  const results = await runAll(steps, o.outputDir, runner, report);
  const failed = [...listingFailed, ...results.filter((r) => !r.ok)];
  return {
    files: results.filter((r) => (r.ok && !r.empty) || r.partialBytes !== undefined).length,
    failed,
    affectedPods: pods.length,
    controlPlanePods: controlPlanePods.length,
  };
}
