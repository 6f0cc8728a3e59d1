// Pod, namespace and container from the layouts people capture logs in. A path that fits none of
// them gives nothing: a wrong pod name is worse than none.

export interface PathMeta {
  pod?: string;
  namespace?: string;
  container?: string;
}

const POD_NAME = /^[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?$/;
/** A DNS label, as Kubernetes requires of namespace names. */
const NAMESPACE_NAME = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * A name a Kubernetes object could have: pods (and most kinds) are RFC 1123 subdomains,
 * namespaces and containers RFC 1123 labels. A value from a document that is not one (a newline
 * forging a report line, markup) is no name, and is not used as one.
 */
export function kubernetesName(value: string | undefined, shape: 'subdomain' | 'label'): string | undefined {
  if (value === undefined) return undefined;
  return (shape === 'label' ? NAMESPACE_NAME : POD_NAME).test(value) ? value : undefined;
}
/** `<ns>_<pod>_<uid>` directories under /var/log/pods. */
const KUBELET_POD_DIR = /^([a-z0-9][-a-z0-9]*)_([a-z0-9][-a-z0-9.]*)_([0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}|[0-9a-f]{32})$/;
/** `/var/log/containers/<pod>_<ns>_<container>-<64 hex>.log` symlinks. */
const KUBELET_CONTAINER_FILE = /^([a-z0-9][-a-z0-9.]*)_([a-z0-9][-a-z0-9]*)_([a-z0-9][-a-z0-9]*)-[0-9a-f]{64}\.log$/;
const LOG_SUFFIX = /(?:\.(?:log|txt|out|json))?(?:\.gz)?$/;
/** Deployment and DaemonSet pods (`name-<hash>-<5>`/`name-<5>`) and StatefulSet pods (`name-<ordinal>`). */
const GENERATED_POD = /^[a-z0-9][-a-z0-9]*-(?:[a-z0-9]{5}|\d+)$/;
const KNOWN_CONTAINERS = new Set([
  'linkerd-proxy',
  'linkerd-init',
  'linkerd-network-validator',
  'destination',
  'policy',
  'identity',
  'sp-validator',
  'proxy-injector',
  'linkerd-destination',
  'linkerd-identity',
  'coredns',
  'node-cache',
  'traefik',
  'controller',
]);

export function metaFromPath(path: string): PathMeta {
  // Colons split only before the last separator (archive:member/...), found once: a look-ahead
  // for a later separator would rescan the rest of the name at every colon.
  const lastSeparator = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  const parts = [...path.slice(0, lastSeparator + 1).split(/[\\/:]/), path.slice(lastSeparator + 1)].filter((p) => p !== '' && p !== '.');
  const file = parts[parts.length - 1] ?? '';

  const containerLink = KUBELET_CONTAINER_FILE.exec(file);
  if (containerLink) return { pod: containerLink[1], namespace: containerLink[2], container: containerLink[3] };

  for (let i = parts.length - 2; i >= 0; i--) {
    const podDir = KUBELET_POD_DIR.exec(parts[i]!);
    if (podDir) {
      const meta: PathMeta = { namespace: podDir[1], pod: podDir[2] };
      if (i + 2 < parts.length) meta.container = parts[i + 1];
      return meta;
    }
  }

  const stem = file.replace(LOG_SUFFIX, '');
  const parent = parts[parts.length - 2];
  const grandparent = parts[parts.length - 3];
  const greatGrandparent = parts[parts.length - 4];

  // kubectl cluster-info dump: <ns>/<pod>/logs.txt, or <ns>/<pod>/<container>/logs.txt
  if (file === 'logs.txt' && parent && grandparent && POD_NAME.test(parent) && POD_NAME.test(grandparent)) {
    if (greatGrandparent && (KNOWN_CONTAINERS.has(parent) || GENERATED_POD.test(grandparent))) {
      return { namespace: greatGrandparent, pod: grandparent, container: parent };
    }
    return { namespace: grandparent, pod: parent };
  }

  // <ns>/<pod>/<container>.log
  if (
    parent &&
    grandparent &&
    POD_NAME.test(stem) &&
    POD_NAME.test(parent) &&
    NAMESPACE_NAME.test(grandparent) &&
    (KNOWN_CONTAINERS.has(stem) || GENERATED_POD.test(parent))
  ) {
    return { namespace: grandparent, pod: parent, container: stem };
  }

  // <pod>.log, only when the name looks generated: `storm.log` names a capture, not a pod.
  if (GENERATED_POD.test(stem) && !KNOWN_CONTAINERS.has(stem) && file !== stem) return { pod: stem };
  return {};
}

/** `traefik-7d9f8c6b5-x2x8k` → `traefik`; `web-0` → `web`. Null when the name is not generated. */
export function workloadOfPod(pod: string | undefined): string | undefined {
  if (!pod) return undefined;
  const deployment = /^(.+)-[a-z0-9]{8,10}-[a-z0-9]{5}$/.exec(pod);
  if (deployment) return deployment[1];
  const daemonOrOrdinal = /^(.+)-(?:[a-z0-9]{5}|\d+)$/.exec(pod);
  return daemonOrOrdinal ? daemonOrOrdinal[1] : pod;
}
