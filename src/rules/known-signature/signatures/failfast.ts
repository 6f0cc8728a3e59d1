// Data-plane failfast and load shedding.

import { L2, PROXY_PR, type KnownSignature } from '../signature.js';

export const FAILFAST_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'control-plane-failfast',
    title: 'Control-plane client in failfast',
    family: 'control-plane',
    match: { records: ['proxy-log'], literals: ['entering failfast'], pattern: 'controller\\{addr=[^}]{0,256}\\}.*entering failfast' },
    meaning:
      'The proxy has had no usable connection to a control-plane component (destination, policy or identity) for the failfast timeout, so lookups to it now fail at once.',
    causes: [
      'The controller pods are down, restarting or overloaded.',
      'The connection is refused or times out (see the reconnect lines of the same controller address).',
      'On a control-plane pod: the local controller container has not started yet.',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Check the controller named in the span (`controller{addr=…}`): pods, readiness, restarts, logs. Restart the destination deployment if it stays in failfast after the pods are healthy.',
      },
      {
        versions: '< edge-24.5.3 (Linkerd < 2.16)',
        action:
          "Many proxies watching many services could exhaust the destination controller's stream limit; upgrade (linkerd2 #12598) or scale the destination controller.",
      },
    ],
    knownFix: 'destination-stream-limit',
    coveredBy: ['control-plane-unavailable'],
    references: [`${L2}11279`, `${L2}11156`, 'https://github.com/linkerd/linkerd2/pull/12598'],
    examples: [
      {
        line: '[950833.887787s]  WARN ThreadId(01) inbound:server{port=8086}:controller{addr=localhost:8086}: linkerd_stack::failfast: Service entering failfast after 1s',
        source: `${L2}11279`,
      },
      {
        line: '[950842.896953s]  WARN ThreadId(01) watch{port=8086}:controller{addr=localhost:8090}: linkerd_stack::failfast: Service entering failfast after 10s',
        source: `${L2}11279`,
      },
    ],
  },
  {
    id: 'balancer-failfast',
    title: 'Service balancer entered failfast (no ready endpoints)',
    family: 'failfast',
    background: true,
    match: { records: ['proxy-log'], literals: ['Unavailable; entering failfast'], pattern: 'Unavailable; entering failfast' },
    meaning:
      'The load balancer for a service had no available endpoint for the failfast timeout (3 s): queued requests fail with 503/504 until an endpoint becomes available ("Available; exited failfast").',
    causes: [
      'The service has no ready endpoints (scaled to zero, failing readiness, all pods restarting).',
      'Every endpoint is unreachable or circuit-broken (connection refused/timeouts to the pods).',
      'The destination controller sent no endpoints (control plane unavailable, or "No endpoints").',
    ],
    fix: [
      {
        versions: 'Linkerd ≥ 2.15 (proxy ≥ v2.215)',
        action:
          "Check the service named in `service{ns=… name=… port=…}`: `kubectl get endpoints`, pod readiness, and the proxy's reconnect lines for its endpoints.",
      },
    ],
    coveredBy: ['failfast'],
    references: [`${L2}12720`, `${L2}11493`, `${PROXY_PR}2559`],
    examples: [
      {
        line: '[ 73137.020135s]  INFO ThreadId(01) outbound:proxy{addr=10.0.3.18:80}:service{ns=imodeljs name=svc-7ed19bdd30302ada2f8bab1286f9096fe1ee48b7 port=80}: linkerd_proxy_balance_queue::worker: Unavailable; entering failfast timeout=3.0',
        source: `${L2}12720 (andrewdinunzio)`,
      },
    ],
  },
  {
    id: 'stack-failfast',
    title: 'Service entered failfast',
    family: 'failfast',
    match: {
      records: ['proxy-log'],
      literals: ['entering failfast', 'Service failed to recover'],
      pattern: 'entering failfast after|failfast: Service failed to recover',
    },
    meaning:
      'A proxy service (logical service, balancer, or the inbound server) could not process requests for the failfast timeout; requests now fail fast with 503 until it recovers.',
    causes: [
      'The target has no ready endpoints or they do not answer (overload, long GC, startup not finished).',
      'On the inbound side: the application in this pod does not accept connections or is saturated.',
      'The application limits concurrent HTTP/2 streams (e.g. 100) below the load the proxy multiplexes onto it.',
    ],
    fix: [
      {
        versions: '≤ stable-2.10 (linkerd_timeout::failfast)',
        action: 'Look for the cause on the target pods (readiness, saturation); upgrading removes several spurious failfast cases fixed in 2.10/2.11.',
      },
      {
        versions: 'stable-2.11–2.14 (linkerd_stack::failfast)',
        action: "Check endpoints and target pod health; raise the application's max concurrent streams if it is a gRPC server with a low limit.",
      },
    ],
    coveredBy: ['failfast'],
    references: [`${L2}5599`, `${L2}5541`, `${L2}8934`],
    examples: [
      {
        line: 'WARN ThreadId(01) inbound:accept{peer.addr=10.37.125.7:40084 target.addr=10.36.216.4:50053}: linkerd_timeout::failfast: HTTP Logical entering failfast after 1s',
        source: `${L2}5599 (hadican)`,
      },
      {
        line: '[    53.360779s]  WARN ThreadId(01) outbound:accept{client.addr=10.36.31.175:43900 target.addr=10.36.30.70:8080}: linkerd_timeout::failfast: HTTP Server entering failfast after 3s',
        source: `${L2}5541 (joewilliams)`,
      },
      {
        line: '[   120.500000s]  WARN ThreadId(01) outbound:proxy{addr=10.96.0.20:80}: linkerd_stack::failfast: Service failed to recover error=connect timed out after 1s',
        source: 'https://github.com/linkerd/linkerd2-proxy/blob/release/v2.366.0/linkerd/stack/src/failfast.rs',
        note: 'built from the call site: the service in failfast failed again while recovering',
      },
    ],
  },
  {
    id: 'request-failed-fail-fast',
    title: 'Requests rejected: service in fail-fast',
    family: 'failfast',
    match: { records: ['proxy-log'], literals: ['Failed to proxy request'], pattern: '[Ss]ervice in fail-fast' },
    meaning:
      'A request (or connection) was answered with 503/504 because the service it targets is in failfast; one line per request, so counts follow traffic. Read from the per-request lines of proxies before 2.11; on later proxies the per-request lines (`HTTP/1.1 request failed … service in fail-fast`) repeat the "entering failfast" line of the same service once per request and are left to it (balancer-failfast, stack-failfast), since reading every request line of a storm costs more than it tells.',
    causes: [
      'See balancer-failfast / stack-failfast for the same service: no ready or reachable endpoints.',
      'During a Linkerd upgrade: proxies briefly lose their destination controller.',
    ],
    fix: [
      {
        versions: 'all',
        action: 'Find the matching "entering failfast" line for the service (span `service{…}` / `logical service <addr>`) and fix its endpoints.',
      },
    ],
    coveredBy: ['failfast'],
    references: [`${L2}14020`, `${L2}5599`, `${L2}6200`],
    examples: [
      {
        line: 'WARN ThreadId(01) inbound:accept{peer.addr=10.37.126.8:46412 target.addr=10.36.216.4:50053}: linkerd_app_core::errors: Failed to proxy request: HTTP Logical service in fail-fast',
        source: `${L2}5599 (hadican)`,
      },
      {
        line: '2021-04-22T17:49:52.864787073Z {"timestamp":"[  1443.529894s]","level":"WARN","fields":{"message":"Failed to proxy request: Service in fail-fast"},"target":"linkerd2_app_core::errors","span":{"peer.addr":"172.21.2.157:53414","target.addr":"172.17.140.223:80","name":"accept"},"spans":[{"name":"outbound"},{"peer.addr":"172.21.2.157:53414","target.addr":"172.17.140.223:80","name":"accept"}],"threadId":"ThreadId(1)"}',
        source: `${L2}6053 (Abrishges)`,
      },
    ],
  },
  {
    id: 'dispatch-deadline-reached',
    title: 'Request aborted at the dispatch deadline',
    family: 'failfast',
    match: { records: ['proxy-log'], literals: ['dispatch deadline'], pattern: 'reached the configured dispatch deadline' },
    meaning:
      "A request waited in the proxy's queue for a ready service longer than the dispatch deadline and was failed; in the 2.4 era all meshed deployments could hit this at once when discovery stalled.",
    causes: [
      'No ready endpoint for the target (discovery returned nothing or the endpoints do not answer).',
      'The destination controller stopped sending updates (control-plane trouble under container churn).',
    ],
    fix: [
      {
        versions: '≤ stable-2.4',
        action:
          "Check the destination controller and the target's endpoints; upgrade, later proxies replaced the dispatch deadline with failfast and load shedding.",
      },
    ],
    coveredBy: ['failfast'],
    references: [`${L2}3112`],
    examples: [
      {
        line: 'proxy={server=out listen=127.0.0.1:4140 remote=10.10.45.84:41846} linkerd2_proxy::app::errors request aborted because it reached the configured dispatch deadline',
        source: `${L2}3112 (bjoernhaeuser, Linkerd 2.4.0)`,
      },
    ],
  },
  {
    id: 'router-capacity-reached',
    title: 'Proxy router at capacity',
    family: 'failfast',
    match: { records: ['proxy-log'], literals: ['router capacity reached', 'router at capacity'], pattern: 'router capacity reached|router at capacity \\(' },
    meaning:
      'The proxy refused a request because its router already held the maximum number of distinct targets (100 by default in the 2.x releases of that era).',
    causes: [
      'Clients address many distinct authorities/hosts (e.g. one Host header per tenant or per pod IP).',
      'Port scanners or health checkers hitting many target ports.',
    ],
    fix: [
      {
        versions: '≤ stable-2.7',
        action:
          'Raise LINKERD2_PROXY_INBOUND_ROUTER_CAPACITY / OUTBOUND_ROUTER_CAPACITY, or reduce the number of distinct targets; later releases removed the fixed router capacity.',
      },
      { versions: '≥ stable-2.8', action: 'Upgrade: the router cache no longer has this fixed limit.' },
    ],
    references: [`${L2}4048`],
    examples: [
      {
        line: 'WARN [ 10120.000100s] proxy={server=in listen=0.0.0.0:4143 remote=10.1.2.3:51234} linkerd2_proxy::app::errors router at capacity (10000)',
        source: 'https://github.com/linkerd/linkerd2-proxy/blob/release/v2.0.0/src/app/errors.rs',
        note: 'the 2019 wording, built from the release/v2.0.0 call site in the legacy layout',
      },
      {
        line: 'inbound:accept{peer.addr=x.x.x.x:63058}:source{peer.id=None(NoPeerName(NotProvidedByRemote)) target.addr=x.x.x.x:8084}: linkerd2_app_core::errors: Failed to proxy request: router capacity reached (100)',
        source: `${L2}4048`,
      },
    ],
  },
];
