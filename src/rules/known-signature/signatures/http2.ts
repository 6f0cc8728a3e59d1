// HTTP/2 protocol errors.

import { L2, type KnownSignature } from '../signature.js';

export const HTTP2_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'h2-connection-header-illegal',
    title: 'HTTP/2 request with a Connection header',
    family: 'http2',
    match: { records: ['proxy-log'], literals: ['Connection header illegal in HTTP/2'], pattern: 'Connection header illegal in HTTP/2' },
    meaning:
      'A request carried a connection-specific header (Connection, Keep-Alive, Upgrade…) that HTTP/2 forbids; hyper rejects it, so the request fails between proxies.',
    causes: [
      'An HTTP/1.1 client or library adds `Connection: keep-alive`/`close`, which the proxy must translate when upgrading to HTTP/2 between proxies.',
      'A gateway forwarding hop-by-hop headers.',
    ],
    fix: [
      {
        versions: 'all',
        action: 'Stop the client from sending hop-by-hop headers, or upgrade: later proxies strip them when translating HTTP/1 to HTTP/2 (see the thread).',
      },
    ],
    references: [`${L2}10090`],
    examples: [{ line: 'inbound:server{port=<port>}: hyper::proto::h2: Connection header illegal in HTTP/2: connection', source: `${L2}10090` }],
  },
  {
    id: 'h2-frame-invalid-size',
    title: 'HTTP/2 frame with invalid size',
    family: 'http2',
    match: { records: ['proxy-log'], literals: ['frame with invalid siz'], pattern: 'frame with invalid siz' },
    meaning: 'A peer sent an HTTP/2 frame larger than the negotiated maximum (or malformed), so the connection was torn down with a protocol error.',
    causes: ['A non-conforming HTTP/2 implementation in the peer (the thread: a Gloo/Envoy build).', 'A plaintext/TLS mix-up on the port.'],
    fix: [
      {
        versions: 'all',
        action: 'Fix or upgrade the peer that sends the frames; as a workaround mark the port opaque so the proxy does not parse HTTP/2 on it.',
      },
    ],
    references: [`${L2}4168`],
    examples: [
      {
        line: '2020-03-12T21:46:26.722947397Z [ 43748.439862226s]  WARN inbound:accept{peer.addr=10.47.48.228:35118}:source{peer.id=None(NoPeerName(NotProvidedByRemote)) target. addr=10.47.23.226:9222}: linkerd2_app_core::errors: Failed to proxy request: http2 error: protocol error: frame with invalid size       ',
        source: `${L2}4168`,
      },
    ],
  },
  {
    id: 'h2-unspecific-protocol-error',
    title: 'HTTP/2 unspecific protocol error',
    family: 'http2',
    match: { records: ['proxy-log'], literals: ['unspecific protocol error detected'], pattern: 'unspecific protocol error detected' },
    meaning: 'An HTTP/2 connection failed with PROTOCOL_ERROR without more detail; the request in flight fails (often with 502).',
    causes: [
      'The peer violated HTTP/2 (bad stream state, headers after end of stream).',
      'A connection torn down by the peer or an intermediate while streams were open.',
    ],
    fix: [
      {
        versions: '≤ stable-2.5',
        action:
          'Upgrade: several h2 protocol-error cases of that era were fixed in the proxy; otherwise capture debug logs of both proxies and report upstream.',
      },
    ],
    references: [`${L2}2918`, `${L2}2682`],
    examples: [
      {
        line: 'ERR! [   388.710816s] proxy={server=in listen=0.0.0.0:4143 remote=10.24.23.122:35662} linkerd2_proxy::app::errors unexpected error: http2 error: protocol error: unspecific protocol error detected',
        source: `${L2}2918`,
      },
      {
        line: 'DBUG [   388.710739s] proxy={client=in dst=10.24.26.128:9090 proto=Http2} linkerd2_proxy::proxy::http::h2 http2 conn error: http2 error: protocol error: unspecific protocol error detected',
        source: `${L2}2918`,
      },
    ],
  },
  {
    id: 'h2-internal-error',
    title: 'HTTP/2 stream reset with INTERNAL_ERROR',
    family: 'http2',
    match: { records: ['proxy-log'], literals: ['unexpected internal error encountered'], pattern: 'unexpected internal error encountered' },
    meaning: 'The peer reset the stream with INTERNAL_ERROR; the proxy turns it into a 500 (HTTP) or an error status (gRPC).',
    causes: [
      'The application (or its HTTP/2 library) reset the stream, e.g. on large messages or trailers it cannot handle.',
      'A proxy bug forwarding trailers of large gRPC messages (linkerd2 #15199).',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Reproduce without the mesh on the same port; if only meshed traffic fails, report upstream with debug logs of both proxies (see #15199 for the trailer case).',
      },
    ],
    references: [`${L2}15199`, 'https://github.com/linkerd/linkerd2-proxy/pull/18'],
    examples: [
      {
        line: 'ERR! proxy={server=in listen=0.0.0.0:4143 remote=127.0.0.1:57416} linkerd2_proxy turning Error caused by underlying HTTP/2 error: protocol error: unexpected internal error encountered into 500',
        source: 'https://github.com/linkerd/linkerd2-proxy/pull/18',
      },
      {
        line: '[   158.165469s]  INFO ThreadId(01) inbound:server{port=4143}:rescue{client.addr=10.4.26.79:49978}: linkerd_app_core::errors::respond: gRPC request failed error=http2 error error.sources=[stream error received: unexpected internal error encountered]',
        source: `${L2}15199`,
      },
    ],
  },
];
