// The control-plane Service names proxies resolve again and again, and how to tell a DNS name
// under one of them. dns-ttl-zero and dns-query-storm both judge control-plane names first, and
// the Loki export of dns-query-storm matches the same set, so the names and the matching live
// here rather than in one rule's folder.

export const DEFAULT_CONTROL_PLANE_NAMES = [
  'linkerd-dst-headless',
  'linkerd-dst',
  'linkerd-policy',
  'linkerd-identity-headless',
  'linkerd-identity',
  'linkerd-sp-validator',
  'linkerd-proxy-injector',
  'linkerd-policy-validator',
].join(',');

export function normaliseName(name: string): string {
  const lower = name.toLowerCase();
  return lower === '' || lower.endsWith('.') ? lower : `${lower}.`;
}

/**
 * The control-plane Service a name belongs to: `<svc>.<ns>.svc.<zone>`, `<svc>.<ns>`, or a pod
 * record under it (`10-42-0-12.linkerd-dst-headless.linkerd.svc.cluster.local.`).
 */
export function controlPlaneService(name: string, services: ReadonlySet<string>): string | null {
  const labels = normaliseName(name).replace(/\.$/, '').split('.');
  for (let i = 0; i < labels.length; i++) {
    if (!services.has(labels[i]!)) continue;
    const rest = labels.length - i - 1;
    if (rest === 0 || rest === 1 || labels[i + 2] === 'svc') return labels[i]!;
  }
  return null;
}

export function serviceSet(csv: string): Set<string> {
  return new Set(
    csv
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
}

/**
 * Whether a name is a resolver's search-path expansion of a Service name rather than the name
 * itself: `<svc>.<ns>.svc.<zone>.<search domain>` (`….svc.cluster.local.cluster.local.`,
 * `….svc.cluster.local.ec2.internal.`). A client with ndots:5 tries those first and an NXDOMAIN
 * for them is how search paths work, not a missing Service. A cluster domain is taken to have at
 * most three labels; a short `<svc>.<ns>` form is never an expansion.
 */
export function isSearchExpansion(name: string): boolean {
  const labels = normaliseName(name).replace(/\.$/, '').split('.');
  const svc = labels.indexOf('svc');
  if (svc < 0) return false;
  const zone = labels.slice(svc + 1);
  if (zone.includes('svc') || zone.length > 3) return true;
  const half = zone.length / 2;
  return zone.length % 2 === 0 && zone.slice(0, half).join('.') === zone.slice(half).join('.');
}
