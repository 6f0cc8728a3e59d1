// Causes of data-plane failures (proxy logs): HTTP between proxies, protocol detection, policy,
// discovery from the proxy's side. Each cause cites the docs page or the linkerd2 thread where a
// maintainer established it.

import { DOCS, L2_ISSUE, type FailureKnowledge } from './types.js';

export const DATA_PLANE_KNOWLEDGE: readonly FailureKnowledge[] = [
  {
    signature: 'connection-closed-before-message-completed',
    failure: 'Requests fail because a connection closed before the response was complete',
    causes: [
      {
        id: 'app-closes-idle-keepalive',
        title: 'The application closes idle keep-alive connections the proxy is about to reuse',
        why: "The application's keep-alive (idle) timeout is shorter than the proxy's connection pool keeps connections, so a request is written onto a connection the application is closing.",
        action:
          "Make the application's HTTP keep-alive timeout longer than the proxy's idle timeout (or disable it), and give it graceful shutdown (a preStop sleep) so in-flight requests finish.",
        tells: [{ says: 'the lines are on the inbound side, between the proxy and its own application', line: 'inbound' }],
        sources: [
          { url: `${L2_ISSUE}5211`, versions: 'all' },
          { url: `${L2_ISSUE}3596`, versions: 'all' },
        ],
      },
      {
        id: 'ingress-mode-without-dst-override',
        title: 'The ingress proxy runs in ingress mode without the l5d-dst-override header',
        why: 'A proxy injected with `linkerd.io/inject: ingress` routes each request by its `l5d-dst-override` header; an ingress controller that does not set it leaves the proxy without a destination, and its requests fail or hang.',
        action:
          'Make the ingress controller set `l5d-dst-override: <service>.<namespace>.svc.cluster.local:<port>` on every request it sends to a meshed Service (see the ingress guide for your controller), or inject it with `enabled` instead of `ingress` when it routes to Services itself.',
        tells: [{ says: 'the lines name the ingress mode or the l5d-dst-override header', line: 'l5d-dst-override|ingress mode|ingress-mode' }],
        sources: [
          { url: `${DOCS}tasks/using-ingress/`, versions: 'all' },
          { url: `${L2_ISSUE}6249`, versions: 'stable-2.10' },
        ],
      },
      {
        id: 'request-line-too-long',
        title: 'Requests with very long URLs or headers are cut off between the proxies',
        why: 'A request line or header block longer than the HTTP/1 parser accepts (URLs of several thousand characters) is refused while it is read, and the peer sees the connection close before the message completed.',
        action:
          'Find the failing requests by size (an access log with the URL length) and move large query strings into a POST body; if they must stay, report the size with debug logs of both proxies.',
        tells: [{ says: 'the lines name a message head or URI that is too large', line: 'message head is too large|too long|URI too|header too big' }],
        sources: [{ url: `${L2_ISSUE}4322`, versions: 'all' }],
      },
    ],
  },
  {
    signature: 'h2-protocol-error',
    failure: 'HTTP/2 requests between the proxies fail with a protocol error',
    causes: [
      {
        id: 'h2-peer-reset',
        title: 'The peer reset HTTP/2 streams or closed the connection',
        why: 'The application or the other proxy reset streams or sent GOAWAY (restarts, idle timeouts, a load balancer between them); the requests in flight fail with 502 or gRPC UNAVAILABLE.',
        action:
          'Correlate the errors with restarts of the peer (`kubectl get pods -o wide | grep <peer-ip>`) and capture debug logs of both proxies if it persists.',
        tells: [{ says: 'the lines name a stream reset or GOAWAY', line: 'stream error received|GOAWAY|reset|connection closed' }],
        sources: [
          { url: `${L2_ISSUE}2918`, versions: 'all' },
          { url: `${L2_ISSUE}13266`, versions: '≥ 2.16' },
        ],
      },
      {
        id: 'h2-header-too-big',
        title: 'A request header is larger than the HTTP/2 header size limit',
        why: 'The h2 library refuses a header block over its size limit as a user error, and the proxy answers 502 instead of a 4xx, so the client cannot tell the request was too large.',
        action:
          'Find the request with the oversized header (large cookies, JWTs, tracing baggage) and shrink it; the limit is the HTTP/2 default header list size, so the header must get smaller rather than the limit larger.',
        tells: [{ says: 'the same line says the header is too big', line: 'header too big|header list size|headers too large' }],
        sources: [{ url: `${L2_ISSUE}6164`, versions: 'all' }],
      },
      {
        id: 'h2-peer-violates-protocol',
        title: 'A peer violates HTTP/2',
        why: 'A non-conforming HTTP/2 implementation (bad frame sizes, headers after end of stream) makes the proxy tear the connection down with PROTOCOL_ERROR.',
        action:
          'Mark the port opaque (`config.linkerd.io/opaque-ports`) so the proxy does not parse HTTP/2 on it, and upgrade the peer that sends the bad frames.',
        tells: [{ says: 'the lines name a frame or protocol violation', line: 'frame with invalid size|protocol error|malformed' }],
        sources: [{ url: `${L2_ISSUE}4168`, versions: 'all' }],
      },
    ],
  },
];
