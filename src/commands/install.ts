import { Command, Flags } from '@oclif/core';
import { runNothingToInstall } from '../cli/run-install.js';

export default class Install extends Command {
  static override summary = 'Print manifests for `kubectl apply -f -`: none, nothing runs in the cluster.';

  static override description =
    'Part of the Linkerd extension contract (`linkerd doctor install | kubectl apply -f -`). linkerd-doctor reads captured files on this machine, so stdout stays empty and a notice on stderr says why; the exit code is 0.';

  static override examples = ['<%= config.bin %> install', 'linkerd doctor install | kubectl apply -f -'];

  static override flags = {
    quiet: Flags.boolean({ char: 'q', summary: 'Print no notice on stderr.', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Install);
    process.exitCode = runNothingToInstall('install', flags.quiet);
  }
}
