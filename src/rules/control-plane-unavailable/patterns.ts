// What a controller pod's proxy logs when it turns a control-plane call away, as the offline rule
// matches it (exact targets and messages) and as its LogQL twin (./export.ts) filters for it
// (regex sources valid in RE2, one for the target and one for the message, because JSON lines put
// them in separate fields). The live-filter meta-test holds the two to the same lines.

/** Messages of a failed inbound request at `linkerd_app_core::errors::respond` (2.11+). */
export const FAILED_REQUEST_MESSAGES: ReadonlySet<string> = new Set([
  'gRPC request failed',
  'HTTP/1.1 request failed',
  'HTTP/2.0 request failed',
  'Request failed',
]);

/** Targets whose `entering failfast` is a controller giving no answer: ≤ 2.10, 2.13–2.14, 2.15+. */
export const FAILFAST_TARGETS: ReadonlySet<string> = new Set(['linkerd_stack::failfast', 'linkerd_timeout::failfast', 'linkerd_proxy_balance_queue::worker']);

/** The failed-request lines live: target, then message. */
export const FAILED_REQUEST_FILTERS = ['linkerd2?_app_core::errors', '(gRPC |HTTP/1.1 |HTTP/2.0 )?[Rr]equest failed|Failed to proxy request'] as const;

/** The fail-fast lines live: target, then message. */
export const FAILFAST_FILTERS = ['(linkerd_stack|linkerd_timeout)::failfast|linkerd_proxy_balance_queue::worker', '[Ee]ntering failfast'] as const;
