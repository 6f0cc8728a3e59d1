import { Args, Command, Flags } from '@oclif/core';
import { availableParallelism } from 'node:os';
import { parseWholeNumber } from '../cli/argv.js';
import { orderedOutputTargets } from '../cli/output-targets.js';
import { runAnalyze } from '../cli/run-analyze.js';
import { FORMAT_NAMES } from '../report/formats/index.js';

export default class Analyze extends Command {
  static override summary = 'Analyse proxy logs, metric dumps and DNS captures for Linkerd incident patterns.';

  static override description = `PATH may be a file, a directory (walked recursively; hidden and VCS folders are skipped), a glob, a .gz file, a .tar/.tar.gz/.tgz bundle, or - for stdin. With no PATH, stdin is read when it is a pipe.

Exit codes, the same for every --format: 0 no finding at or above --fail-on; 1 at least one (suppressed findings never count; with --baseline only new or worse ones do), or, under --fail-on-unread (on by default when CI=true), an input that was mostly not understood (the verdict reads INCOMPLETE and names it); 2 usage, config or input error (the error names the file).

Settings come from --config FILE or .linkerd-doctor.yaml/.json in the working directory (per rule: enabled, severity, options; suppress entries with a reason); flags override them. See the README, "Using linkerd-doctor as a CI gate".`;

  static override examples = [
    '<%= config.bin %> analyze ./bundle/',
    {
      description: 'A metrics dump straight from the Linkerd CLI:',
      command: 'linkerd diagnostics proxy-metrics -n emojivoto deploy/web | <%= config.bin %> analyze -',
    },
    {
      description: 'JSON to a file; warnings fail the run too:',
      command: '<%= config.bin %> analyze incident.tgz --format json --output report.json --fail-on warning',
    },
    {
      description: 'Text on stdout and SARIF in a file (an --output goes with the --format beside it):',
      command: '<%= config.bin %> analyze bundle/ --format text --format sarif --output results.sarif',
    },
    { description: 'JSON and HTML files, the formats taken from the names:', command: '<%= config.bin %> analyze bundle/ -o report.json -o report.html' },
    [
      'Accept what is there now, then fail only on what is new or worse:',
      '<%= config.bin %> analyze bundle/ --write-baseline .linkerd-doctor-baseline.json',
      '<%= config.bin %> analyze bundle/ --baseline .linkerd-doctor-baseline.json --fail-on warning',
    ].join('\n'),
    '<%= config.bin %> analyze bundle/ --suppress reconnect-storm=emojivoto/*',
  ];

  static override strict = false;

  static override args = {
    path: Args.string({ description: 'inputs: files, directories, globs, archives, or - for stdin', ignoreStdin: true }),
  };

  static override flags = {
    format: Flags.string({
      char: 'f',
      summary:
        'Report format; repeat to write several. A --format and an --output side by side (either order) go together; a format without one goes to stdout.',
      options: FORMAT_NAMES,
      multiple: true,
      multipleNonGreedy: true,
    }),
    output: Flags.string({
      char: 'o',
      summary:
        'Write the report of the --format beside it to FILE (- = stdout); alone, the format follows the extension: .json, .sarif, .xml (JUnit), .md, .html, else text.',
      multiple: true,
      multipleNonGreedy: true,
    }),
    'fail-on': Flags.string({
      summary: 'Exit 1 when a finding is at or above this severity [default: config failOn, else error].',
      options: ['error', 'warning', 'info', 'none'],
    }),
    'fail-on-unread': Flags.boolean({
      summary:
        'Exit 1 when an input was mostly not understood (status incomplete: no line read, or most lines did not parse) and no finding failed [default: on when CI=true].',
      allowNo: true,
    }),
    'min-severity': Flags.string({
      summary: 'Show only findings at or above this severity; the exit code still counts all [default: config minSeverity, else info].',
      options: ['error', 'warning', 'info'],
    }),
    config: Flags.string({ char: 'c', summary: 'Config file (YAML or JSON) [default: .linkerd-doctor.yaml/.yml/.json in the working directory].' }),
    suppress: Flags.string({
      summary: 'Suppress findings of RULE (id or code), optionally only those whose subject matches a glob: RULE[=subject-glob]. Repeatable.',
      multiple: true,
      multipleNonGreedy: true,
    }),
    baseline: Flags.string({ summary: 'Fail only on findings that are new or worse than in this baseline file.' }),
    'write-baseline': Flags.string({ summary: 'Record the current findings in this baseline file (by fingerprint, with their key figures).' }),
    'baseline-tolerance': Flags.custom<number>({
      summary: 'Percent a key figure may grow before a known finding counts as worse [default: config baselineTolerance, else 10].',
      parse: async (input) => parseWholeNumber('baseline-tolerance', input, 0),
    })(),
    progress: Flags.boolean({ summary: 'Show progress on stderr when it is a terminal.', default: true, allowNo: true }),
    jobs: Flags.custom<number>({
      char: 'j',
      summary: 'Worker threads for large inputs (default: LINKERD_DOCTOR_JOBS, else the CPU cores, at most 4); 1 reads sequentially.',
      parse: async (input) => parseWholeNumber('jobs', input, 1, ` (more than the ${availableParallelism()} CPU cores is capped)`),
    })(),
    verbose: Flags.boolean({
      summary: 'Text report: every finding with its full evidence, samples and fix (default: a few lines per finding).',
      default: false,
    }),
    summary: Flags.boolean({ summary: 'Text report: the incidents and one line per finding, nothing else.', default: false }),
    'max-findings': Flags.custom<number>({
      summary: 'Show at most N findings in each report (the worst first); the exit code still counts all.',
      parse: async (input) => parseWholeNumber('max-findings', input, 1),
    })(),
    fold: Flags.boolean({
      summary: 'Fold findings of one rule and cause on many pods (or, for a cause shared by many targets, on many targets) into one.',
      default: true,
      allowNo: true,
    }),
    quiet: Flags.boolean({ char: 'q', summary: 'Print no notices or progress on stderr; errors still go there.', default: false }),
    color: Flags.boolean({ summary: 'Colour the text report (default: when stdout is a terminal and NO_COLOR is unset).', allowNo: true }),
    redact: Flags.boolean({
      summary:
        'Replace IPs, pod names, namespaces, hostnames and other identifiers with consistent pseudonyms (ip-1, pod-1, ns-1…) in every format, so the report can be shared.',
      default: false,
    }),
  };

  async run(): Promise<void> {
    const { argv, flags, raw } = await this.parse(Analyze);
    // oclif keeps repeated flags in separate arrays; `raw` keeps their order, which pairs each
    // --format with its --output.
    let targets;
    try {
      targets = orderedOutputTargets(raw);
    } catch (err) {
      process.stderr.write(`linkerd-doctor: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 2;
      return;
    }
    process.exitCode = await runAnalyze(argv as string[], { ...flags, targets });
  }
}
