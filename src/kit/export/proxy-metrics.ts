// What the live twins of the proxy-metrics rules share. Their signal is in the proxies' own
// /metrics, as scraped by the linkerd-viz `linkerd-proxy` job (or an equivalent PodMonitor): that
// job relabels every target with `namespace` and `pod`, so a series' owning proxy is known without
// the exporter guessing from `instance`.

/**
 * The proxy evicts an idle legacy series only after LINKERD2_PROXY_METRICS_RETAIN_IDLE (10 min by
 * default). Conditions that a rollout creates and eviction clears must outlast that before alerting.
 */
export const RETAIN_IDLE_SECONDS = 600;

/** Why a metrics-only rule has no Loki alert. */
export const METRICS_ONLY = { loki: 'its signal is in the proxy metrics, not in the logs; export it with --target prometheus' };
