// What an exporter produces: Prometheus-style alerting rules, which both the Prometheus rule-file
// format and the Loki ruler accept (the ruler reads the same `groups:` layout, with LogQL in expr).

import type { Severity } from '../../core/types.js';

export const EXPORT_TARGETS = ['prometheus', 'loki'] as const;
export type ExportTarget = (typeof EXPORT_TARGETS)[number];

export const EXPORT_FORMATS = ['yaml', 'prometheusrule'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * How an offline severity becomes the alert's `severity` label. `alertmanager`: critical, warning,
 * info, the values Alertmanager routes and inhibitions in the Kubernetes ecosystem key on
 * (kube-prometheus, the Prometheus Operator's runbooks). `legacy`: the offline names as they are
 * (error, warning, info), for routes written against earlier exports.
 */
export const SEVERITY_MAPS = ['alertmanager', 'legacy'] as const;
export type SeverityMap = (typeof SEVERITY_MAPS)[number];

const ALERTMANAGER_SEVERITY: Record<Severity, string> = { error: 'critical', warning: 'warning', info: 'info' };

export function alertSeverity(severity: Severity, map: SeverityMap): string {
  return map === 'legacy' ? severity : ALERTMANAGER_SEVERITY[severity];
}

export interface AlertingRule {
  alert: string;
  expr: string;
  /** Prometheus duration (`95s`, `15m`); omitted when the condition must fire at the first evaluation. */
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface RuleGroup {
  name: string;
  rules: AlertingRule[];
}

/** Where the signals live in the user's monitoring stack; defaults match linkerd-viz and common log shippers. */
export interface ExportSettings {
  /** Label holding the pod's namespace on proxy metrics and log streams (linkerd-viz relabels it to `namespace`). */
  namespaceLabel: string;
  /** Label holding the pod name (linkerd-viz: `pod`; Promtail/Alloy Kubernetes discovery: `pod`). */
  podLabel: string;
  /** Label matchers selecting the proxies' scrape job, without braces. */
  proxySelector: string;
  /** Loki stream selector matchers for linkerd-proxy container logs, without braces. */
  logSelector: string;
  /** Label matchers selecting CoreDNS (and node-local-dns) metrics, without braces; empty selects all. */
  corednsSelector: string;
  /** Loki stream selector matchers for CoreDNS / node-local-dns query logs (the `log` plugin), without braces. */
  corednsLogSelector: string;
  /** Extra labels kept in every aggregation, e.g. `cluster` when one Thanos/Mimir/Loki holds many clusters. */
  groupBy: string[];
}

export const DEFAULT_SETTINGS: ExportSettings = {
  namespaceLabel: 'namespace',
  podLabel: 'pod',
  proxySelector: 'job="linkerd-proxy"',
  logSelector: 'container="linkerd-proxy"',
  corednsSelector: '',
  corednsLogSelector: 'container=~"coredns|node-cache"',
  groupBy: [],
};

export interface ExporterInput<O> {
  options: O;
  /** The offline rule's default severity; exporters that grade severity by threshold follow the rule's own grading. */
  severity: Severity;
  settings: ExportSettings;
}

/** Turns one offline rule's options into alerting rules for each target that can observe its signal. */
export interface RuleExporter<O extends object = object> {
  ruleId: string;
  /** Numeric options the exporter reads; a build whose rule lacks one skips the exporter with a notice. */
  reads: readonly (keyof O & string)[];
  /** String options the exporter reads (e.g. a comma-separated list of names it turns into a regex). */
  readsText?: readonly (keyof O & string)[];
  prometheus?: (input: ExporterInput<O>) => AlertingRule[];
  loki?: (input: ExporterInput<O>) => AlertingRule[];
  /** What the target cannot see of this rule, printed as a notice when nothing is exported for it. */
  unsupported?: Partial<Record<ExportTarget, string>>;
}
