import { Command, Flags } from '@oclif/core';
import { runRules } from '../cli/run-rules.js';

export default class Rules extends Command {
  static override summary = 'List the rules: id, code, default severity, inputs and what each detects.';

  static override examples = ['<%= config.bin %> rules', "<%= config.bin %> rules --format json | jq -r '.[].id'"];

  static override flags = {
    format: Flags.string({ char: 'f', summary: 'table for people, json for scripts.', options: ['table', 'json'], default: 'table' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Rules);
    process.exitCode = await runRules(flags);
  }
}
