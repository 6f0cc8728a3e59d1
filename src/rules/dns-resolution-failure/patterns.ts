// DNS failure lines as regex sources valid in both JavaScript and RE2, shared by the offline rule
// and its LogQL twin (./export.ts).

/** linkerd_app_core::control: the controller's service name (SRV, then A) did not resolve. */
export const CONTROL_PLANE_RESOLVE = 'Failed to resolve control-plane component';

/**
 * The proxy's canonicalisation of a destination name missed its deadline: `DNS refinement timed
 * out` (linkerd2_proxy_http::canonicalize, ≤ 2.8) and the legacy `failed to refine <name>:
 * deadline has elapsed` (≤ 2.6).
 */
export const REFINE_TIMEOUT = 'DNS refinement timed out|failed to refine';

/** The resolver's negative answer, as hickory / trust-dns print it. */
export const NO_RECORD = 'no record found for name';

/** Control-plane service names the proxies resolve. */
export const CONTROL_PLANE_NAME = 'linkerd-(dst|destination|policy|identity)(-headless)?[.]';
