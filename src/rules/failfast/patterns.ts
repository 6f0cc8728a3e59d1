// Fail-fast and load-shedding lines as regex sources valid in both JavaScript and RE2, shared by
// the offline rule and its LogQL twin (./export.ts).

/**
 * A balancer or service queue giving up on its endpoints after the fail-fast timeout:
 * `HTTP Logical entering failfast after 1s` (linkerd_timeout, ≤ 2.10), `Service entering failfast
 * after 3s` (linkerd_stack, 2.13–2.14), `Unavailable; entering failfast timeout=3.0`
 * (linkerd_proxy_balance_queue, 2.15+).
 */
export const ENTER_FAILFAST = '[Ee]ntering failfast';

/** Leaving it: `Available; exited failfast elapsed=…` (2.15+), `Service has recovered` (2.13–2.14). */
export const EXIT_FAILFAST = 'exited failfast|Service has recovered';

/** A request refused while its service is in fail-fast (`logical service …: service in fail-fast`). */
export const FAILFAST_REQUEST = 'service in fail-?fast';

/**
 * Load shedding: the in-flight limit of a router or concurrency limit is reached and the request
 * is refused at once (`router capacity reached (100)`, `router at capacity`, `max-concurrency
 * exhausted`, the load-shed layer's `service unavailable`).
 */
export const LOAD_SHED = 'router at capacity|router capacity reached|max-concurrency exhausted|service unavailable';

/** The destination controller answered a resolution with an empty endpoint set. */
export const NO_ENDPOINTS = 'No endpoints';
