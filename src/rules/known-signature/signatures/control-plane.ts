// Proxy connections to the control plane.

import { L2, PROXY_PR, type KnownSignature } from '../signature.js';

export const CONTROL_PLANE_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'control-plane-startup-race',
    title: 'Local controller not listening yet (start-up)',
    family: 'benign',
    background: true,
    match: {
      records: ['proxy-log'],
      literals: ['Failed to connect'],
      pattern: 'controller\\{addr=localhost:\\d+\\}.*Failed to connect.*Connection refused',
      maxUptimeSeconds: 10,
    },
    meaning:
      'On a control-plane pod, the proxy starts before the controller container next to it and is refused for its first seconds. Maintainers call this benign.',
    causes: ['Container start order in the destination/identity pod.'],
    fix: [
      {
        versions: 'all',
        action:
          'Wait for the first seconds of start-up to pass; if it continues, treat it as control-plane-connect-refused (`linkerd-doctor explain control-plane-connect-refused`).',
      },
    ],
    references: [`${L2}11279`, `${L2}8343`, `${L2}11156`],
    examples: [
      {
        line: '[     0.002035s]  WARN ThreadId(01) policy:watch{port=8090}:controller{addr=localhost:8090}:endpoint{addr=127.0.0.1:8090}: linkerd_reconnect: Failed to connect error=Connection refused (os error 111)',
        source: `${L2}8343`,
      },
    ],
  },
  {
    id: 'control-plane-connect-refused',
    title: 'Control-plane connection refused',
    family: 'control-plane',
    background: true,
    match: { records: ['proxy-log'], literals: ['Failed to connect'], pattern: 'controller\\{addr=[^}]{0,256}\\}.*Failed to connect.*Connection refused' },
    meaning:
      'The proxy cannot connect to a control-plane component (destination 8086, policy 8090, identity 8080): the address answers but nothing listens. It retries every 0.5 s per endpoint (before Linkerd 2.19). A few seconds of this while the control plane rolls out or restarts are normal; if it persists, control-plane-unavailable and reconnect-storm fire.',
    causes: [
      'The controller container is crashing or not started (localhost addresses: the controller in the same pod).',
      'Stale endpoint IPs of controller pods that are gone.',
    ],
    fix: [
      {
        versions: 'all',
        action: 'Check the controller named in `controller{addr=…}`: pod status, restarts, container logs (policy container for 8090, destination for 8086).',
      },
      {
        versions: '< edge-25.7.2 (Linkerd < 2.19)',
        action: 'The 500 ms retry cap makes every proxy retry in lock-step; set the backoff env vars if a storm follows (see reconnect-storm).',
      },
    ],
    knownFix: 'connect-backoff-cap',
    coveredBy: ['control-plane-unavailable', 'reconnect-storm'],
    references: [`${L2}10643`, `${L2}9812`, `${L2}11156`, `${PROXY_PR}3992`],
    examples: [
      {
        line: '[   145.665928s]  WARN ThreadId(01) policy:watch{port=9997}:controller{addr=localhost:8090}:endpoint{addr=127.0.0.1:8090}: linkerd_reconnect: Failed to connect error=Connection refused (os error 111)',
        source: `${L2}10643 (hawkw)`,
      },
    ],
  },
  {
    id: 'control-plane-connect-timeout',
    title: 'Control-plane connection timed out',
    family: 'control-plane',
    background: true,
    match: { records: ['proxy-log'], literals: ['Failed to connect'], pattern: 'controller\\{addr=[^}]{0,256}\\}.*Failed to connect.*connect timed out' },
    meaning:
      "The proxy's TCP connect to a control-plane pod got no answer within the connect timeout (1 s): packets are dropped on the way, or the pod IP is gone. Brief bursts happen while controller pods are replaced.",
    causes: [
      'NetworkPolicy or security groups dropping traffic to the linkerd namespace (ports 8080, 8086, 8090).',
      'Controller pod IPs that no longer exist (node gone), or an overloaded node.',
    ],
    fix: [
      {
        versions: 'all',
        action: "Test connectivity from the pod's node to the endpoint in `endpoint{addr=…}`; allow the control-plane ports between node groups.",
      },
    ],
    knownFix: 'connect-backoff-cap',
    coveredBy: ['control-plane-unavailable', 'reconnect-storm'],
    references: [`${L2}9812`, `${L2}11400`],
    examples: [
      {
        line: '[    13.328926s]  WARN ThreadId(01) policy:watch{port=4191}:controller{addr=linkerd-policy.linkerd.svc.cluster.local:8090}:endpoint{addr=10.0.1.234:8090}: linkerd_reconnect: Failed to connect error=connect timed out after 1s',
        source: `${L2}9812 (florian-besser)`,
      },
    ],
  },
  {
    id: 'legacy-control-plane-connect-error',
    title: 'Control-plane connect error (legacy proxy)',
    family: 'control-plane',
    background: true,
    match: { records: ['proxy-log'], literals: ['connect error to ControlAddr'], pattern: 'connect error to ControlAddr' },
    meaning: 'A pre-2.7 proxy could not connect to a control-plane service (identity, destination); it retries.',
    causes: ['Controller unreachable or not ready; DNS for the controller name slow or failing.'],
    fix: [{ versions: '≤ stable-2.6', action: 'Check the controller pods and connectivity; upgrade, this proxy generation is long unsupported.' }],
    coveredBy: ['control-plane-unavailable'],
    references: [`${L2}3388`],
    examples: [
      {
        line: 'linkerd-controller-75f98dd669-zch6q linkerd-proxy WARN [     0.510107s] linkerd-identity.linkerd.svc.cluster.local:8080 linkerd2_proxy::proxy::reconnect connect error to ControlAddr { addr: Name(NameAddr { name: "linkerd-identity.linkerd.svc.cluster.local", port: 8080 }), identity: Some("linkerd-identity.linkerd.serviceaccount.identity.linkerd.cluster.local") }: request timed out',
        source: `${L2}3388 (michalschott)`,
      },
    ],
  },
];
