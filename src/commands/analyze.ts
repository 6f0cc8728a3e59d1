import { Args, Command, Flags } from '@oclif/core';
import { runAnalyze } from '../cli/run-analyze.js';
import { FORMAT_NAMES } from '../report/formats/index.js';

export default class Analyze extends Command {
  static override summary = 'Analyse proxy logs, metric dumps and DNS captures for Linkerd incident patterns.';

  static override description = `PATH may be a file, a directory (walked recursively; hidden and VCS folders are skipped), a glob, a .gz file, a .tar/.tar.gz/.tgz bundle, or - for stdin. With no PATH, stdin is read when it is a pipe.

Exit codes: 0 no finding at or above --fail-on; 1 at least one; 2 usage or input error (the error names the file).`;

  static override examples = [
    '<%= config.bin %> analyze ./bundle/',
    'linkerd diagnostics proxy-metrics -n emojivoto deploy/web | <%= config.bin %> analyze -',
    '<%= config.bin %> analyze incident.tgz --format json --output report.json --fail-on warning',
  ];

  static override strict = false;

  static override args = {
    path: Args.string({ description: 'inputs: files, directories, globs, archives, or - for stdin', ignoreStdin: true }),
  };

  static override flags = {
    format: Flags.string({
      char: 'f',
      summary: 'Report format; repeat to write several, paired in order with --output.',
      options: FORMAT_NAMES,
      multiple: true,
    }),
    output: Flags.string({ char: 'o', summary: 'Write the report to FILE instead of stdout; repeat to pair with each --format.', multiple: true }),
    'fail-on': Flags.string({ summary: 'Exit 1 when a finding is at or above this severity.', options: ['error', 'warning', 'info', 'none'], default: 'error' }),
    'min-severity': Flags.string({ summary: 'Show only findings at or above this severity (the exit code still counts all).', options: ['error', 'warning', 'info'], default: 'info' }),
    progress: Flags.boolean({ summary: 'Show progress on stderr when it is a terminal.', default: true, allowNo: true }),
    jobs: Flags.integer({
      char: 'j',
      summary: 'Worker threads for large inputs (default: LINKERD_DOCTOR_JOBS, else the CPU cores, at most 4); 1 reads sequentially.',
      min: 1,
    }),
    quiet: Flags.boolean({ char: 'q', summary: 'Print no notices or progress on stderr; errors still go there.', default: false }),
    color: Flags.boolean({ summary: 'Colour the text report (default: when stdout is a terminal and NO_COLOR is unset).', allowNo: true }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Analyze);
    process.exitCode = await runAnalyze(argv as string[], flags);
  }
}
