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

/**
 * A query for a control-plane name as CoreDNS's log plugin prints it (`"SRV IN
 * linkerd-dst-headless.linkerd.svc.cluster.local. udp …"`), the name ending at a cluster domain of
 * one or two labels: a search-path expansion (`….cluster.local.cluster.local.`) does not match.
 */
export const COREDNS_CONTROL_PLANE_QUERY =
  '"[A-Z]+ IN linkerd-(dst|destination|policy|identity)(-headless)?[.][a-z0-9-]+[.]svc[.][a-z0-9-]+([.][a-z0-9-]+)?[.]? ';

/** The DNS response codes of a name that does not resolve (RFC 1035: NXDOMAIN 3, SERVFAIL 2), as CoreDNS logs them. */
export const FAILED_RCODE = '" (NXDOMAIN|SERVFAIL) ';
