import { Command, Flags } from '@oclif/core';
import { runExportRules } from '../cli/run-export-rules.js';
import { EXPORT_FORMATS, EXPORT_TARGETS, SEVERITY_MAPS } from '../kit/export/types.js';

export default class ExportRules extends Command {
  static override summary = 'Write the rules as Prometheus alerting rules or Loki ruler rules.';

  static override description = `The alerts use the thresholds of the offline rules. Thresholds come from each rule's defaults and the rules.<id>.options of the config file (--config, or .linkerd-doctor.yaml in the current directory), read by the same loader as analyze, so one file drives analyze and the live alerts; rules disabled there are not exported. Each alert carries a severity label (critical, warning or info; --severity-map legacy keeps error, warning, info), a linkerd_doctor_rule label with the rule id, and a runbook_url to the rule's page. Rules whose signal a target cannot see are skipped with a notice on stderr. See docs/fleet.md.`;

  static override examples = [
    '<%= config.bin %> export-rules --target prometheus > linkerd-doctor.rules.yaml',
    {
      description: 'A PrometheusRule for the Prometheus Operator, selected by its release label:',
      command:
        '<%= config.bin %> export-rules --target prometheus --format prometheusrule --label release=kube-prometheus-stack | kubectl apply -n monitoring -f -',
    },
    {
      description: "Loki ruler rules with the thresholds of the project's config:",
      command: '<%= config.bin %> export-rules --target loki --config .linkerd-doctor.yaml --output /etc/loki/rules/fake/linkerd-doctor.yaml',
    },
  ];

  static override flags = {
    target: Flags.string({ char: 't', summary: 'Rule engine to write for.', options: [...EXPORT_TARGETS], required: true }),
    format: Flags.string({
      char: 'f',
      summary: 'A plain rule file, or a PrometheusRule resource for the Prometheus Operator.',
      options: [...EXPORT_FORMATS],
      default: 'yaml',
    }),
    config: Flags.string({ char: 'c', summary: 'Config file with rules.<id>.options (default: .linkerd-doctor.yaml in the current directory, if present).' }),
    output: Flags.string({ char: 'o', summary: 'Write to FILE instead of stdout.' }),
    'namespace-label': Flags.string({ summary: 'Label holding the pod namespace on proxy metrics and log streams.', default: 'namespace' }),
    'pod-label': Flags.string({ summary: 'Label holding the pod name on proxy metrics and log streams.', default: 'pod' }),
    'proxy-selector': Flags.string({ summary: 'PromQL matchers (no braces) selecting the proxy scrape job.', default: 'job="linkerd-proxy"' }),
    'log-selector': Flags.string({ summary: 'LogQL stream matchers (no braces) selecting linkerd-proxy logs.', default: 'container="linkerd-proxy"' }),
    'coredns-selector': Flags.string({ summary: 'PromQL matchers (no braces) selecting CoreDNS metrics; empty selects every coredns_* series.', default: '' }),
    'coredns-log-selector': Flags.string({
      summary: 'LogQL stream matchers (no braces) selecting CoreDNS query logs.',
      default: 'container=~"coredns|node-cache"',
    }),
    'group-by': Flags.string({
      summary: 'Extra label kept in every aggregation (repeatable), e.g. cluster for Thanos, Mimir or a shared Loki.',
      multiple: true,
      multipleNonGreedy: true,
    }),
    name: Flags.string({ summary: 'metadata.name of the PrometheusRule, an RFC 1123 subdomain (default: linkerd-doctor-<target>).' }),
    label: Flags.string({
      summary: 'KEY=VALUE label on the PrometheusRule metadata (repeatable), e.g. what the Prometheus ruleSelector matches.',
      multiple: true,
      multipleNonGreedy: true,
    }),
    'severity-map': Flags.string({
      summary: 'Severity label values: alertmanager (critical|warning|info, what Kubernetes Alertmanager routes key on) or legacy (error|warning|info).',
      options: [...SEVERITY_MAPS],
      default: 'alertmanager',
    }),
    quiet: Flags.boolean({ char: 'q', summary: 'Print no notices on stderr; errors still go there.', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ExportRules);
    process.exitCode = await runExportRules(flags);
  }
}
