// The record of a scrape that returned no metrics: a `# ERROR` section of `linkerd diagnostics
// proxy-metrics` (parsers/prometheus.ts) or a DOWN row of Prometheus' targets page that the last
// look read (parsers/last-look.ts). Its own module, like certificate-evidence.ts, to keep types.ts
// within its size.

import type { RecordBase } from './record-base.js';

export interface MetricScrapeErrorRecord extends RecordBase {
  kind: 'metric-scrape-error';
  section: string | null;
  message: string;
  /** Where it came from: a `# ERROR` line of a proxy-metrics dump, or a DOWN row of Prometheus' targets page. */
  source?: 'proxy-metrics' | 'prometheus-targets';
  /** The scrape URL a targets-page row names (`http://10.42.10.118:9990/metrics`). */
  target?: string;
  /** The row's `job` and `component` labels, when it shows them. */
  job?: string;
  component?: string;
}
