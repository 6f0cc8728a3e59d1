import { Command, Flags } from '@oclif/core';
import path from 'node:path';
import { collect, DEFAULT_SELECTOR, dryRunScript, pathArgument, shellQuote, validateCollectOptions, type CollectOptions } from '../cli/run-collect.js';
import { writeStdout } from '../cli/output.js';
import { UsageError } from '../core/errors.js';
import { EXIT_CLEAN, EXIT_USAGE_OR_INPUT } from '../report/exit-code.js';

export default class Collect extends Command {
  static override summary = 'Capture proxy logs, metrics, events and DNS answers into a bundle for analyze.';

  static override description = `Writes the layout analyze reads best into --output-dir: <namespace>/<pod>/linkerd-proxy.log (kubectl logs --timestamps) and proxy-metrics.txt (linkerd diagnostics proxy-metrics) for every affected meshed pod, describe.txt for pods that are not running, not ready or restarted, every container's log of the control-plane pods, get-pods.txt and events.txt per namespace, and dns/dig-*.txt with the SRV answers for the control-plane names. Then prints the analyze command to run.

Commands run without a shell, four at a time, each one's output streamed to its file; a command that fails is named on stderr, its file left out, and the rest still run (exit 2 if any failed). --dry-run prints the commands instead of running them. --context, --kubeconfig, --as, --as-group and -L/--linkerd-namespace are passed to kubectl and linkerd. dig needs cluster DNS: run collect inside the cluster, or give --dig-from NAMESPACE/POD (a pod whose image has dig).`;

  static override examples = [
    '<%= config.bin %> collect -n emojivoto',
    {
      description: 'Only the ingress pods, the last hour:',
      command: '<%= config.bin %> collect -n ingress -l app.kubernetes.io/name=traefik --since 1h --output-dir traefik-bundle',
    },
    { description: 'See what it would run:', command: '<%= config.bin %> collect -n emojivoto --dry-run' },
  ];

  static override flags = {
    namespace: Flags.string({
      char: 'n',
      summary: 'Namespace of the affected workloads (repeatable) [default: every namespace].',
      multiple: true,
      multipleNonGreedy: true,
    }),
    selector: Flags.string({
      char: 'l',
      summary: `Label selector of the affected pods [default: ${DEFAULT_SELECTOR}, every meshed pod].`,
      default: DEFAULT_SELECTOR,
    }),
    'output-dir': Flags.string({ char: 'd', summary: 'Folder to write the bundle into; must be absent or empty [default: linkerd-doctor-bundle-<UTC time>].' }),
    since: Flags.string({ summary: 'Only log lines newer than this (kubectl logs --since), e.g. 30m or 2h [default: all the kubelet kept].' }),
    'linkerd-namespace': Flags.string({ char: 'L', summary: 'Namespace of the Linkerd control plane.', default: 'linkerd', env: 'LINKERD_NAMESPACE' }),
    'cluster-domain': Flags.string({ summary: 'Cluster DNS domain of the control-plane SRV names.', default: 'cluster.local' }),
    'dig-from': Flags.string({ summary: 'Run dig inside this pod (NAMESPACE/POD, with kubectl exec) instead of on this machine.' }),
    context: Flags.string({ summary: 'kubeconfig context for kubectl and linkerd.' }),
    kubeconfig: Flags.string({ summary: 'kubeconfig file for kubectl and linkerd.' }),
    as: Flags.string({ summary: 'User to impersonate.' }),
    'as-group': Flags.string({ summary: 'Group to impersonate.' }),
    timeout: Flags.string({
      summary: 'Time limit of each kubectl, linkerd or dig command (e.g. 90s, 10m); one past it is ended and what it wrote is kept.',
      default: '5m',
    }),
    'dry-run': Flags.boolean({ summary: 'Print the commands on stdout instead of running them.', default: false }),
    quiet: Flags.boolean({ char: 'q', summary: 'Print no progress notices on stderr; failures still go there.', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Collect);
    const options: CollectOptions = {
      namespaces: flags.namespace ?? [],
      selector: flags.selector,
      controlPlaneNamespace: flags['linkerd-namespace'],
      clusterDomain: flags['cluster-domain'],
      outputDir: flags['output-dir'] ?? `linkerd-doctor-bundle-${new Date().toISOString().replace(/[-:]|\.\d+/g, '')}`,
      ...(flags.since !== undefined ? { since: flags.since } : {}),
      ...(flags['dig-from'] !== undefined ? { digFrom: flags['dig-from'] } : {}),
      access: {
        ...(flags.context !== undefined ? { context: flags.context } : {}),
        ...(flags.kubeconfig !== undefined ? { kubeconfig: flags.kubeconfig } : {}),
        ...(flags.as !== undefined ? { as: flags.as } : {}),
        ...(flags['as-group'] !== undefined ? { asGroup: flags['as-group'] } : {}),
      },
    };
    const fail = (message: string) => {
      process.stderr.write(`linkerd-doctor: ${message}\n`);
      process.exitCode = EXIT_USAGE_OR_INPUT;
    };
    try {
      options.timeoutMs = durationMs(flags.timeout);
      validateCollectOptions(options);
      if (flags['dry-run']) {
        await writeStdout(dryRunScript(options));
        process.exitCode = EXIT_CLEAN;
        return;
      }
      const notice = (line: string) => process.stderr.write(`linkerd-doctor: collect: ${line}\n`);
      const summary = await collect(options, undefined, notice);
      if (!flags.quiet)
        notice(
          `wrote ${summary.files} files from ${summary.affectedPods} affected and ${summary.controlPlanePods} control-plane pods into ${options.outputDir}${summary.failed.length > 0 ? `; ${summary.failed.length} commands failed (above)` : ''}`,
        );
      // stdout: the next command, so `$(linkerd-doctor collect …)` can be run or copied.
      await writeStdout(`${shellQuote(['linkerd-doctor', 'analyze', pathArgument(path.normalize(options.outputDir))])}\n`);
      process.exitCode = summary.failed.length > 0 ? EXIT_USAGE_OR_INPUT : EXIT_CLEAN;
    } catch (err) {
      if (err instanceof UsageError) return fail(err.message);
      throw err;
    }
  }
}

/** `90s`, `10m`, `1h` in milliseconds; anything else is a usage error. */
function durationMs(value: string): number {
  const m = /^(\d{1,6})([smh])$/.exec(value);
  if (!m) throw new UsageError(`collect: --timeout ${JSON.stringify(value)} must be a duration such as 90s or 10m`);
  const n = Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 's' | 'm' | 'h'];
  if (n === 0) throw new UsageError('collect: --timeout must be more than 0');
  return n;
}
