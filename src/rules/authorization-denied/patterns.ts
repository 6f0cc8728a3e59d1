// Policy-denial lines as regex sources valid in both JavaScript and RE2, shared by the offline rule
// and its LogQL twin (./export.ts).

/**
 * An inbound request or connection refused by authorization policy: the error text
 * `unauthorized connection on server <name>` / `unauthorized request on route <name>` of a failed
 * request (2.11+), and the policy modules' own `Request denied` / `Connection denied` lines with
 * `server.name=…` and `route.name=…` fields (linkerd_app_inbound::policy::{http,tcp}).
 */
export const AUTHZ_DENIED = 'unauthorized (connection|request) on (server|route)|Request denied|Connection denied';
