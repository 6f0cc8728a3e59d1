// Which Linkerd controller an address, service name or pod belongs to. Shared by the
// control-plane rule and the incident correlator, so "destination" means the same thing in both.

export type ControllerComponent = 'destination' | 'policy' | 'identity';

/** gRPC ports the controllers serve to proxies. 8080 is also every other app's HTTP port: never trust it alone. */
export const CONTROLLER_PORTS: Readonly<Record<string, ControllerComponent>> = { '8086': 'destination', '8090': 'policy', '8080': 'identity' };

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

/**
 * The component a target string points at: by name first; a bare port counts only on loopback
 * (a controller pod's own proxy reaching its container) because app ports collide with 8080.
 */
export function componentOfTarget(target: string | undefined): ControllerComponent | null {
  if (!target) return null;
  const byName = componentFromName(target);
  const colon = target.lastIndexOf(':');
  const port = colon === -1 ? '' : target.slice(colon + 1);
  if (byName) {
    // The destination pod serves both destination (8086) and policy (8090).
    if (byName === 'destination' && port === '8090') return 'policy';
    return byName;
  }
  const host = colon === -1 ? target : target.slice(0, colon);
  if (/^(?:localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(host)) return CONTROLLER_PORTS[port] ?? null;
  return null;
}

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
