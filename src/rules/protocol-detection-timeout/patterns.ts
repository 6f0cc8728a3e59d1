// Detection-timeout lines as regex sources valid in both JavaScript and RE2, shared by the offline
// rule and its LogQL twin (./export.ts).

/**
 * The proxy read nothing it could classify within the detect timeout (10 s) and fell back to
 * opaque TCP. Until proxy v2.286 the timeout was an error whose text says so: `Continuing after
 * timeout: … protocol detection timed out after 10s` (linkerd_detect, outbound), `Handling
 * connection as opaque timeout=… protocol detection timed out after 10s` (inbound), `Protocol
 * detection timeout` in a closed connection's error (older proxies). From v2.286
 * (linkerd2-proxy#3720) only the duration is printed: `Continuing after timeout: 10s`
 * (linkerd_app_outbound), `Handling connection as opaque due to policy timeout=10s` or `… as
 * HTTP/1 due to policy …` (linkerd_app_inbound::detect); both are logged only on a read timeout.
 */
export const PROTOCOL_DETECT_TIMEOUT =
  '[Pp]rotocol detection (timed out|timeout)|Continuing after timeout: [0-9]|Handling connection as (opaque|HTTP/1) due to policy';
