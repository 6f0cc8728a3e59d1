import { Args, Command, Flags } from '@oclif/core';
import type { RecordKind } from '../core/types.js';
import { runParse } from '../cli/run-parse.js';

/** Every `kind` a parsed record can have (docs/parse-format.md). */
export const RECORD_KINDS = [
  'proxy-log',
  'metric-sample',
  'metric-scrape-error',
  'dns-query',
  'dns-answer',
  'coredns-query',
  'coredns-message',
  'pod-status',
  'kube-event',
  'linkerd-check',
  'linkerd-cli-message',
  'linkerd-cli-row',
  'certificate-evidence',
  'container-spec',
  'dns-evidence',
] as const satisfies readonly RecordKind[];

export default class Parse extends Command {
  static override summary = 'Print the parsed records of the inputs as NDJSON, one object per line.';

  static override description = `Uses the same input pipeline as analyze (files, directories, globs, .gz, tar bundles, - for stdin). Field names are documented in docs/parse-format.md and are stable. Each record has a "kind": proxy-log, metric-sample, metric-scrape-error, dns-query, dns-answer, coredns-query, coredns-message, pod-status, kube-event, linkerd-check, linkerd-cli-message, linkerd-cli-row, certificate-evidence, container-spec or dns-evidence.`;

  static override examples = ['<%= config.bin %> parse proxy.log | jq -c \'select(.level == "WARN")\'', 'cat dump.txt | <%= config.bin %> parse - --strict'];

  static override strict = false;

  static override args = {
    path: Args.string({ description: 'inputs, or - for stdin', ignoreStdin: true }),
  };

  static override flags = {
    strict: Flags.boolean({
      summary: 'Reject input a lenient reader accepts (metrics: the OpenMetrics grammar exactly); rejected lines are reported as errors.',
      default: false,
    }),
    kind: Flags.string({ summary: 'Print only records of this kind (repeatable).', options: [...RECORD_KINDS], multiple: true, multipleNonGreedy: true }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Parse);
    process.exitCode = await runParse(argv as string[], flags);
  }
}
