// The reconnect warnings both the offline rule and its LogQL twin (./export.ts) count.

/** The log target of the proxy's reconnect loops (linkerd2-proxy `linkerd/reconnect`). */
export const RECONNECT_TARGET = 'linkerd_reconnect';

/** A failed connection attempt, and an established connection that died; offline, the exact message. */
export const RECONNECT_FAILURES = ['Failed to connect', 'Service failed'] as const;

/** RECONNECT_FAILURES as a regex source valid in both JavaScript and RE2. */
export const RECONNECT_FAILURE = RECONNECT_FAILURES.join('|');
