// Which Linkerd controller an address, service name or pod belongs to. Shared by the rules, the
// incident correlator and the live exports, so "destination" means the same thing in all of them.

import type { ControllerComponent } from '../core/types.js';
import { lookupTable } from '../util/dict.js';

export type { ControllerComponent };

/** gRPC ports the controllers serve to proxies. 8080 is also every other app's HTTP port: never trust it alone. */
export const CONTROLLER_PORTS: Readonly<Record<string, ControllerComponent>> = lookupTable({ '8086': 'destination', '8090': 'policy', '8080': 'identity' });

/** Service names proxies are configured with (`linkerd-dst-headless`, `linkerd-policy`, `linkerd-identity-headless`) and the deployments behind them. */
const NAME_PATTERNS: readonly [RegExp, ControllerComponent][] = [
  [/\blinkerd-(?:dst|destination)(?:-headless)?\b/, 'destination'],
  [/\blinkerd-policy\b/, 'policy'],
  [/\blinkerd-identity(?:-headless)?\b/, 'identity'],
];

/** The component a service name, DNS name or `host:port` refers to by name; null when it names none. */
export function componentFromName(text: string): ControllerComponent | null {
  for (const [pattern, component] of NAME_PATTERNS) if (pattern.test(text)) return component;
  return null;
}

/** How a controller pod's own proxy reaches the controller containers beside it. */
const LOOPBACK_HOST = /^(?:localhost|127\.\d+\.\d+\.\d+|\[::1\]|::1)$/;

/** `host:port`, `[v6]:port` or a bare name, split; port is null when the address has none. */
export function splitAddress(address: string): { host: string; port: string | null } {
  const m = /^(.*):(\d{1,5})$/.exec(address);
  return m ? { host: m[1]!, port: m[2]! } : { host: address, port: null };
}

/**
 * Which controller an address reaches: the one classifier for rules, correlation and the live
 * exports (CONTROLLER_ADDRESS_REGEX). The port decides the API, since each controller serves one
 * gRPC port: 8086 destination, 8090 policy, 8080 identity, so `linkerd-policy…:8086` is the
 * destination API (both run in the linkerd-destination pod). The host decides whether it is a
 * controller at all: a controller Service or pod name, or loopback from a controller pod's own
 * proxy. A port alone is not enough (8080 is every app's HTTP port), and neither is a `linkerd-`
 * prefix (`linkerd-web` in an app namespace is an app). A bare name is classified by the name.
 */
export function controllerOfAddress(address: string | undefined): ControllerComponent | null {
  if (!address) return null;
  const { host, port } = splitAddress(address);
  if (port === null) return componentFromName(host);
  const api = CONTROLLER_PORTS[port];
  if (!api) return null;
  return LOOPBACK_HOST.test(host) || componentFromName(host) !== null ? api : null;
}

/**
 * controllerOfAddress as an RE2 regex (valid in JavaScript too) for PromQL and LogQL label
 * matchers, which anchor it: a host that names a controller or is loopback, then a controller
 * port. Written without backslashes so it survives a double-quoted PromQL/LogQL string; the IPv6
 * loopback's closing bracket is matched by `.` for the same reason.
 */
export const CONTROLLER_ADDRESS_REGEX = (() => {
  const names = 'linkerd-(dst|destination)(-headless)?|linkerd-policy|linkerd-identity(-headless)?';
  const named = `([^:]*[^0-9A-Za-z_:])?(${names})([^0-9A-Za-z_:][^:]*)?`;
  return `(${named}|localhost|127[.][0-9]+[.][0-9]+[.][0-9]+|[[]::1.):(${Object.keys(CONTROLLER_PORTS).join('|')})`;
})();

/** Controllers a pod runs, from its workload name: the destination pod also hosts the policy controller. */
export function componentsOfWorkload(workload: string | undefined): ControllerComponent[] {
  if (!workload) return [];
  if (/^linkerd-destination$/.test(workload)) return ['destination', 'policy'];
  if (/^linkerd-identity$/.test(workload)) return ['identity'];
  return [];
}

/** Controllers a proxy serves, from its `Local identity is <sa>.<ns>.serviceaccount.identity…` start-up line. */
export function componentsOfIdentity(identity: string): ControllerComponent[] {
  const sa = identity.split('.')[0] ?? '';
  return componentsOfWorkload(sa);
}

export function portOf(address: string | undefined): string | null {
  if (!address) return null;
  const m = /:(\d{1,5})$/.exec(address);
  return m ? m[1]! : null;
}

export function titleCase(component: string): string {
  return component.charAt(0).toUpperCase() + component.slice(1);
}

/** A controller Service's DNS name: `linkerd-dst-headless.<namespace>.svc.<cluster domain>`. */
const CONTROLLER_DNS_NAME = /\blinkerd-(?:dst|destination|policy|identity)(?:-headless)?\.([a-z0-9-]{1,63})\.svc\.([a-z0-9.-]{1,253})/;

/**
 * Where the control plane lives, as the proxies' own lines name it (`…linkerd-dst-headless.linkerd.svc.cluster.local:8086`):
 * its namespace and cluster domain, for the commands a fix prints. Linkerd's install defaults
 * (`linkerd`, `cluster.local`) when no line names them, so a command can be run as printed on
 * most clusters rather than carrying a placeholder.
 */
export function controlPlaneLocation(texts: Iterable<string>): { namespace: string; clusterDomain: string; known: boolean } {
  for (const text of texts) {
    const m = CONTROLLER_DNS_NAME.exec(text);
    if (!m) continue;
    let clusterDomain = m[2]!;
    while (clusterDomain.endsWith('.')) clusterDomain = clusterDomain.slice(0, -1);
    return { namespace: m[1]!, clusterDomain, known: true };
  }
  return { namespace: 'linkerd', clusterDomain: 'cluster.local', known: false };
}
