import { Command, Flags } from '@oclif/core';
import chalk from 'chalk';
import { CHECK_OUTPUTS, defaultCheckEnvironment, formatCheck, runChecks, type CheckOutputFormat, type CheckResult } from '../cli/run-check.js';
import { writeStdout } from '../cli/output.js';
import { useColor } from '../cli/terminal.js';
import { EXIT_CLEAN, EXIT_FINDINGS } from '../report/exit-code.js';

export default class Check extends Command {
  static override summary = 'Check that linkerd-doctor can run here (Node.js, rules, docs, config, PATH).';

  static override description = `The health check of the Linkerd extension contract, so \`linkerd doctor check\` and \`linkerd check\` (which runs it with --output=json) answer. linkerd-doctor reads captured files and installs nothing in the cluster, so no cluster is contacted: it checks the Node.js version against the supported range, that the rules load with unique ids and codes, that every rule's docs page is installed, that the config file in effect (--config, or .linkerd-doctor.yaml in the working directory) is valid, and that linkerd-doctor is on the PATH for \`linkerd doctor\`.

Exit 0 when no check fails (a warning still passes), 1 when one does. The last line of the table says "Status check results are √" or "×". --namespace, --pre, --proxy and --wait are accepted, as the contract asks, and ignored: there is nothing in the cluster to wait for.`;

  static override examples = ['<%= config.bin %> check', '<%= config.bin %> check -o json', 'linkerd doctor check'];

  static override flags = {
    output: Flags.string({
      char: 'o',
      summary: 'Output format: table, json (what `linkerd check` reads) or short (only what did not pass).',
      options: [...CHECK_OUTPUTS],
      default: 'table',
    }),
    config: Flags.string({ char: 'c', summary: 'Config file to validate [default: .linkerd-doctor.yaml/.yml/.json in the working directory].' }),
    namespace: Flags.string({ char: 'n', summary: 'Accepted for the extension contract; linkerd-doctor has no proxies to check.' }),
    pre: Flags.boolean({ summary: 'Accepted for the extension contract; there is nothing to install, so the same checks run.', allowNo: true }),
    proxy: Flags.boolean({ summary: 'Accepted for the extension contract; there is no data plane to check.', allowNo: true }),
    wait: Flags.string({ summary: 'Accepted for the extension contract; the checks do not wait on the cluster.' }),
    color: Flags.boolean({ summary: 'Colour the marks (default: when stdout is a terminal and NO_COLOR is unset).', allowNo: true }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Check);
    const output = await runChecks(defaultCheckEnvironment(flags.config));
    const colour = useColor(flags.color, process.stdout);
    const paint = (result: CheckResult, mark: string) =>
      !colour ? mark : result === 'success' ? chalk.bold.green(mark) : result === 'warning' ? chalk.bold.yellow(mark) : chalk.bold.red(mark);
    await writeStdout(formatCheck(output, flags.output as CheckOutputFormat, paint));
    process.exitCode = output.success ? EXIT_CLEAN : EXIT_FINDINGS;
  }
}
