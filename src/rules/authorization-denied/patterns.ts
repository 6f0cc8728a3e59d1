// Policy-denial lines as regex sources valid in both JavaScript and RE2, shared by the offline rule
// and its LogQL twin (./export.ts).

/**
 * An inbound request or connection refused by authorization policy: the error text of a failed
 * request, `unauthorized connection on server <name>` (2.11; `server default:<policy>` for a
 * default policy) or `unauthorized connection on unknown port <port>`, from proxy v2.178 (2.12)
 * `unauthorized connection on <kind>/<name>` (`server/web`, `default/all-authenticated`), and
 * `unauthorized request on route`; and the policy modules' own `Request denied` / `Connection
 * denied` lines with `server=…` (2.11) or `server.name=…` and `route.name=…` fields
 * (linkerd_app_inbound::policy::{http,tcp}).
 */
export const AUTHZ_DENIED = 'unauthorized (connection|request) on |Request denied|Connection denied';
