// Proxy connections between workloads.

import { L2, PROXY_PR, type KnownSignature } from '../signature.js';

export const DATA_PLANE_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'remote-proxy-app-connect-timeout',
    title: 'Remote proxy could not reach its application',
    family: 'data-plane',
    match: {
      records: ['proxy-log'],
      literals: ['Closing application connection for remote proxy'],
      pattern: 'Closing application connection for remote proxy',
    },
    meaning:
      'The proxy on the server side could not connect to its own application within the inbound connect timeout (100 ms by default), so the client-side proxy closed the application connection.',
    causes: [
      'The application is not listening yet or is saturated (accept backlog full).',
      'The application listens on localhost only or on another port than the Service targets.',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Check the target pod: listening address and port, readiness, CPU; raise `config.linkerd.io/proxy-inbound-connect-timeout` only if the app is slow to accept by design.',
      },
    ],
    references: [`${L2}10090`],
    examples: [
      {
        line: 'linkerd_app_outbound::http::proxy_connection_close: Closing application connection for remote proxy error=connect timed out after 100ms',
        source: `${L2}10090`,
      },
    ],
  },
  {
    id: 'endpoint-no-route-to-host',
    title: 'No route to host (os error 113)',
    family: 'data-plane',
    match: { records: ['proxy-log'], literals: ['No route to host', 'os error 113'], pattern: 'No route to host|os error 113' },
    meaning: 'The proxy dialled a pod IP that no host answers for: the endpoint is gone.',
    causes: ['Stale endpoints: a pod was deleted but the proxy (or the destination controller) still lists its IP.', 'Node or CNI failure for that pod range.'],
    fix: [
      { versions: '≤ stable-2.14.1', action: 'Upgrade: stale-endpoint fixes landed in stable-2.14.2 (linkerd2-proxy #2484, #2486).' },
      { versions: 'all', action: 'Compare the IP with `kubectl get endpoints`; restart the destination controller if it serves gone IPs.' },
    ],
    // A reconnect loop that keeps dialling such an address is reconnect-storm's stale endpoint.
    coveredBy: ['reconnect-storm'],
    references: [`${L2}3441`],
    examples: [
      {
        line: 'linkerd-proxy ERR! [589538.085822s] linkerd2_proxy::app::errors unexpected error: error trying to connect: No route to host (os error 113) (address: 10.10.3.181:8080)',
        source: `${L2}3441 (bjoernhaeuser)`,
      },
    ],
  },
  {
    id: 'balancer-discovery-stuck',
    title: 'Balancer stopped processing discovery updates',
    family: 'data-plane',
    // linkerd2-proxy linkerd/proxy/balance/src/discover/buffer.rs, v2.211 (#2484) to v2.214; the
    // PoolQueue balancer of v2.215 (#2559) replaced the buffer and the message.
    match: { records: ['proxy-log'], literals: ['not processing discovery updates'], pattern: 'The balancer is not processing discovery updates' },
    meaning:
      "A balancer's queue of endpoint updates from the destination controller stayed full, so the proxy aborted that discovery stream and resolves again; until it does, the balancer keeps the endpoints it had, including pods that are gone.",
    causes: [
      'The balancer is stuck (every endpoint failing, or the proxy starved of CPU) while endpoints churn.',
      'A large Service whose endpoints change faster than the balancer applies them.',
    ],
    fix: [
      {
        versions: 'proxy v2.211–v2.214 (stable-2.14.2 to the edge releases before the PoolQueue balancer)',
        action: 'Upgrade to stable-2.15 or later: the PoolQueue balancer (linkerd2-proxy #2559) applies updates without this buffer.',
      },
      {
        versions: 'all',
        action: "Compare `linkerd diagnostics endpoints <authority>` with `kubectl get endpointslices` for the Service, and check the proxy's CPU limits.",
      },
    ],
    references: [`${PROXY_PR}2484`, `${PROXY_PR}2486`, `${PROXY_PR}2559`],
    examples: [
      {
        line: '[  4211.338012s]  WARN ThreadId(02) outbound:proxy{addr=10.96.12.4:8080}:service{ns=shop name=cart port=8080}: linkerd_proxy_balance::discover::buffer: The balancer is not processing discovery updates; aborting discovery stream',
        source: 'https://github.com/linkerd/linkerd2-proxy/blob/release/v2.211.0/linkerd/proxy/balance/src/discover/buffer.rs (#2484)',
      },
    ],
  },
  {
    id: 'endpoint-connection-refused',
    title: 'Endpoint refused the connection',
    family: 'data-plane',
    background: true,
    match: {
      records: ['proxy-log'],
      literals: ['Failed to connect', 'Failed to proxy request', 'unexpected error'],
      pattern: '(?:Failed to connect|Failed to proxy request|unexpected error).*Connection refused',
    },
    meaning:
      'A data-plane connection (to an application pod, or from the inbound proxy to its app) was refused: nothing listens on that IP and port. Read from the reconnect loop (and the per-request line of proxies before 2.11); the per-request lines of later proxies repeat what the loop says, one per request, and are left to it.',
    causes: [
      'The backend was scaled to zero or its pods are restarting.',
      'The application listens on another port or on localhost only.',
      'A stale endpoint IP reused by another pod.',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Check the target in the span (`endpoint{addr=…}`, `target.addr`) against `kubectl get endpoints`; fix the listening port or the Service targetPort.',
      },
    ],
    coveredBy: ['reconnect-storm'],
    references: [`${L2}4905`, `${L2}12681`],
    examples: [
      {
        line: 'WARN outbound:accept{peer.addr=10.240.2.xxx:xxxxx}:source{target.addr=10.240.5.xxx:80}: linkerd2_app_core::errors: Failed to proxy request: error trying to connect: Connection refused (os error 111)',
        source: `${L2}4905`,
      },
      { line: '[951475.788267s]  WARN ThreadId(01) linkerd_reconnect: Failed to connect error=Connection refused (os error 111)', source: `${L2}11279` },
    ],
  },
  {
    id: 'endpoint-connect-timeout',
    title: 'Endpoint connection timed out',
    family: 'data-plane',
    background: true,
    match: {
      records: ['proxy-log'],
      literals: ['Failed to connect', 'Failed to proxy request'],
      pattern: 'Failed to connect.*connect timed out|Failed to proxy request: error trying to connect: request timed out',
    },
    meaning: "The proxy's connection attempt to an endpoint got no answer within the connect timeout; requests to it fail or wait.",
    causes: ['The target pod is overloaded or its accept backlog is full (rollouts, slow start).', 'Packets dropped by NetworkPolicy or a dead node.'],
    fix: [{ versions: 'all', action: "Check the target pod's health and the network path; with many such lines for one service see failfast." }],
    coveredBy: ['reconnect-storm'],
    references: [`${L2}14801`, `${L2}4899`],
    examples: [
      {
        line: '{"timestamp":"2025-12-12T19:55:11.333411Z","level":"WARN","fields":{"message":"Failed to connect","error":"connect timed out after 1s"},"target":"linkerd_reconnect","threadId":"ThreadId(1)"}',
        source: `${L2}14801`,
      },
      {
        line: '[    78.202515685s]  WARN inbound:accept{peer.addr=10.244.5.207:56284}:source{target.addr=10.244.0.145:9091}: linkerd2_app_core::errors: Failed to proxy request: error trying to connect: request timed out',
        source: `${L2}4899`,
      },
    ],
  },
  {
    id: 'connection-closed-before-message-completed',
    title: 'Connection closed before message completed',
    family: 'data-plane',
    background: true,
    match: { records: ['proxy-log'], literals: ['connection closed before message completed'], pattern: 'connection closed before message completed' },
    meaning: 'The peer closed the connection while a request or response was in flight; the request fails (502/503 to the client).',
    causes: [
      "The application closes idle keep-alive connections at the moment the proxy reuses them (keep-alive timeout shorter than the proxy's).",
      'The application crashed or was killed mid-request (OOM, rollout without graceful shutdown).',
    ],
    fix: [
      {
        versions: 'all',
        action: "Make the application's keep-alive timeout longer than its clients'; add graceful shutdown (preStop sleep) so in-flight requests finish.",
      },
    ],
    references: [`${L2}9800`, `${L2}6352`, `${L2}5764`],
    examples: [
      {
        line: '[   318.223076s]  INFO ThreadId(01) inbound:server{port=9996}:rescue{client.addr=10.112.65.83:54968}: linkerd_app_core::errors::respond: Request failed error=connection closed before message completed',
        source: `${L2}9800 (hungran)`,
      },
    ],
  },
  {
    id: 'reconnect-service-failed',
    title: 'Established connection failed',
    family: 'data-plane',
    background: true,
    match: { records: ['proxy-log'], literals: ['Service failed'], pattern: 'linkerd_reconnect: Service failed' },
    meaning: 'A connection the proxy had established broke; the proxy reconnects with a fresh backoff.',
    causes: ['The peer restarted or closed the connection ("channel closed").', 'Idle timeouts on a middlebox.'],
    fix: [
      {
        versions: 'all',
        action: 'Check the target pod for restarts if there are many per minute for one target (the peer keeps restarting); alone it is harmless.',
      },
    ],
    coveredBy: ['reconnect-storm'],
    references: [`${L2}11279`],
    examples: [{ line: '[ 18093.017333s]  WARN ThreadId(01) linkerd_reconnect: Service failed error=channel closed', source: `${L2}11279` }],
  },
];
