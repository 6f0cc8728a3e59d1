// Detection-timeout lines as regex sources valid in both JavaScript and RE2, shared by the offline
// rule and its LogQL twin (./export.ts).

/**
 * The proxy read nothing it could classify within the detect timeout (10 s) and fell back to
 * opaque TCP: `Continuing after timeout: … protocol detection timed out after 10s` (linkerd_detect,
 * outbound), `Protocol detection timeout` in a closed connection's error (older proxies).
 */
export const PROTOCOL_DETECT_TIMEOUT = '[Pp]rotocol detection (timed out|timeout)';

