import { Command, Flags } from '@oclif/core';
import { runNothingToInstall } from '../cli/run-install.js';

export default class Uninstall extends Command {
  static override summary = 'Print manifests for `kubectl delete -f -`: none, nothing runs in the cluster.';

  static override description =
    'Part of the Linkerd extension contract (`linkerd doctor uninstall | kubectl delete -f -`). linkerd-doctor reads captured files on this machine, so stdout stays empty and a notice on stderr says why; the exit code is 0.';

  static override examples = ['<%= config.bin %> uninstall', 'linkerd doctor uninstall | kubectl delete -f -'];

  static override flags = {
    quiet: Flags.boolean({ char: 'q', summary: 'Print no notice on stderr.', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Uninstall);
    process.exitCode = runNothingToInstall('uninstall', flags.quiet);
  }
}
