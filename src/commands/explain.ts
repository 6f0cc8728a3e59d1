import { Args, Command, Flags } from '@oclif/core';
import { runExplain } from '../cli/run-rules.js';

export default class Explain extends Command {
  static override summary = "Print a rule's docs page: meaning, evidence, fixes by version, references.";

  static override examples = ['<%= config.bin %> explain reconnect-storm', '<%= config.bin %> explain LD1001'];

  static override args = {
    rule: Args.string({ description: 'rule id or code (see `linkerd-doctor rules`)', ignoreStdin: true }),
  };

  static override flags = {
    color: Flags.boolean({ summary: 'Colour the page (default: when stdout is a terminal and NO_COLOR is unset).', allowNo: true }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Explain);
    process.exitCode = await runExplain(args.rule, flags);
  }
}
