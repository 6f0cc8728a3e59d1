// Protocol detection on inbound and outbound connections.

import { L2, PROXY_PR, type KnownSignature } from '../signature.js';

export const PROTOCOL_DETECTION_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'protocol-detection-timeout',
    title: 'Protocol detection timed out',
    family: 'protocol-detection',
    // Proxies from v2.286 (linkerd2-proxy#3720) print only the duration; see the rule's patterns.ts.
    match: {
      records: ['proxy-log'],
      literals: ['protocol detection timed out', 'Continuing after timeout', 'due to policy'],
      pattern: 'protocol detection timed out after|Continuing after timeout: \\d|Handling connection as (?:opaque|HTTP/1) due to policy',
    },
    meaning:
      'The client sent nothing within the detection timeout (10 s), so the proxy could not tell whether the connection is HTTP and forwarded it as opaque TCP after the delay. Server-speaks-first protocols (SMTP 25, MySQL 3306, NATS 4222, memcached 11211…) hit this on every connection.',
    causes: ['A server-speaks-first protocol on a port that is not marked opaque or skipped.', 'Idle clients that open a connection and wait before sending.'],
    fix: [
      {
        versions: 'Linkerd ≥ 2.10',
        action:
          'Annotate the port with `config.linkerd.io/opaque-ports` (on the Service and the workload) or skip it (`config.linkerd.io/skip-outbound-ports`); the default opaque list covers 25, 587, 3306, 4444, 5432, 6379, 9300, 11211.',
      },
      { versions: '≤ stable-2.9', action: 'Use `config.linkerd.io/skip-inbound-ports` / `skip-outbound-ports`.' },
    ],
    coveredBy: ['protocol-detection-timeout'],
    references: [`${L2}12505`, `${L2}13364`, 'https://linkerd.io/2-edge/features/protocol-detection/', `${PROXY_PR}3720`],
    examples: [
      {
        line: '{"timestamp":"[ 10132.943961s]","level":"INFO","fields":{"message":"Continuing after timeout: linkerd_proxy_http::version::Version protocol detection timed out after 10s"},"target":"linkerd_detect","spans":[{"name":"outbound"},{"addr":"10.163.70.5:9000","name":"proxy"}],"threadId":"ThreadId(2)"}',
        source: `${L2}12505`,
      },
    ],
  },
  {
    id: 'tls-detection-timeout',
    title: 'TLS detection timed out',
    family: 'protocol-detection',
    background: true,
    match: { records: ['proxy-log'], literals: ['TLS detection time'], pattern: 'TLS detection time(?:d out|out)' },
    meaning:
      'An inbound connection sent no bytes before the detection timeout, so the proxy closed it. Usually a TCP health check or a load balancer probe that connects and waits.',
    causes: [
      'Load-balancer or kubelet TCP probes that open and hold connections.',
      'Server-speaks-first clients on an inbound port that is not opaque/skipped.',
    ],
    fix: [
      {
        versions: 'all',
        action: 'Mark the port opaque or skip it (`config.linkerd.io/skip-inbound-ports`) when real clients connect to it; for probes it is harmless.',
      },
    ],
    coveredBy: ['protocol-detection-timeout'],
    references: [`${L2}6058`, `${L2}6200`, `${L2}6146`],
    examples: [
      {
        line: 'linkerd-destination-57df7f4bc-tvnq2 linkerd-proxy [    60.727567s]  INFO ThreadId(01) linkerd_app_core::serve: Connection closed error=TLS detection timed out',
        source: `${L2}6200 (davi5e)`,
      },
      {
        line: 'Apr 27, 2021 @ 10:25:52.507[ 16767.292578s]  INFO ThreadId(01) inbound:accept{client.addr=10.244.78.84:46080 target.addr=10.244.42.122:80}: linkerd_app_core::serve: Connection closed error=TLS detection timeout',
        source: `${L2}6058 (mateiidavid quoting prasus)`,
      },
    ],
  },
];
