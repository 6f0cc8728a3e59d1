// metric-cardinality live, from the proxies' own /metrics as the linkerd-viz `linkerd-proxy` job scrapes them.

import { alertingRule, byClause, labelRef, num, podLabels, selector } from '../../kit/export/expr.js';
import { METRICS_ONLY, RETAIN_IDLE_SECONDS } from '../../kit/export/proxy-metrics.js';
import type { AlertingRule, ExporterInput, RuleExporter } from '../../kit/export/types.js';
import type { MetricCardinalityOptions } from './index.js';

/**
 * Series per proxy from `scrape_samples_scraped`: Prometheus writes it once per target per scrape,
 * with the target's labels (namespace, pod), and its value is the number of samples in the body —
 * exactly what the offline rule counts in a `linkerd diagnostics proxy-metrics` dump. Counting the
 * TSDB instead (`count by (namespace, pod) ({job="linkerd-proxy"})`) touches every series of the job
 * at every evaluation, i.e. costs most exactly when cardinality is the problem, and also counts
 * series already dropped by the proxy until they go stale. `scrape_series_added` counts only series
 * new in that scrape (churn), not the size of the body.
 */
function metricCardinality(input: ExporterInput<MetricCardinalityOptions>): AlertingRule[] {
  const { options: o, settings } = input;
  const series = `max ${byClause(podLabels(settings))} (scrape_samples_scraped${selector(settings.proxySelector)})`;
  const who = `${labelRef(settings.namespaceLabel)}/${labelRef(settings.podLabel)}`;
  const why =
    'Every retained endpoint series costs proxy memory (linkerd2#12916 ended in OOM kills); series of pods that are gone mean the proxy still references them.';
  const forSeconds = RETAIN_IDLE_SECONDS + 300;
  return [
    alertingRule({
      ruleId: 'metric-cardinality',
      alert: 'LinkerdProxyMetricCardinalityHigh',
      expr: `${series} >= ${num(o.warningSeries)} < ${num(o.errorSeries)}`,
      forSeconds,
      severity: 'warning',
      summary: `Proxy ${who} exports {{ $value }} series`,
      description: `The proxy's /metrics has had at least ${o.warningSeries} series for longer than the 10-minute metric retention. ${why}`,
    }),
    alertingRule({
      ruleId: 'metric-cardinality',
      alert: 'LinkerdProxyMetricCardinalityCritical',
      expr: `${series} >= ${num(o.errorSeries)}`,
      forSeconds,
      severity: 'error',
      summary: `Proxy ${who} exports {{ $value }} series`,
      description: `The proxy's /metrics has had at least ${o.errorSeries} series for longer than the 10-minute metric retention. ${why}`,
    }),
  ];
}

export const metricCardinalityExporter: RuleExporter<MetricCardinalityOptions> = {
  ruleId: 'metric-cardinality',
  reads: ['warningSeries', 'errorSeries'],
  prometheus: metricCardinality,
  unsupported: METRICS_ONLY,
};
