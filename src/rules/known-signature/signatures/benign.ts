// Lines healthy meshes log now and then.

import { L2, type KnownSignature } from '../signature.js';

export const BENIGN_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'transport-endpoint-not-connected',
    title: 'Connection closed: transport endpoint is not connected (os error 107)',
    family: 'benign',
    background: true,
    match: { records: ['proxy-log'], literals: ['os error 107'], pattern: 'os error 107' },
    meaning: 'The client had already gone when the proxy tried to use the socket. Maintainers call it benign: probes and clients that disconnect early.',
    causes: ['Health checks or clients closing the connection right after connecting.'],
    fix: [{ versions: 'all', action: 'Ignore it alone: it is harmless, and later releases log it at DEBUG.' }],
    references: [`${L2}5591`],
    examples: [
      {
        line: '{"timestamp": "[ 96886.162669s]", "level": "INFO", "fields": {"message": "Connection closed", "error": "connection error: Transport endpoint is not connected (os error 107)"}, "target": "linkerd2_app_core::serve", "spans": [{"name": "inbound"}, {"peer.addr": "100.96.8.61:57158", "target.addr": "100.96.8.230:8080", "name": "accept"}], "threadId": "ThreadId(1)"}',
        source: `${L2}5591`,
        note: 'pretty-printed over 25 lines in the thread; joined onto one line, the redundant "span" object left out',
      },
    ],
  },
  {
    id: 'admin-http-only',
    title: 'Admin server is HTTP-only',
    family: 'benign',
    background: true,
    match: { records: ['proxy-log'], literals: ['proxy admin server is HTTP-only'], pattern: 'proxy admin server is HTTP-only' },
    meaning:
      'Something connected to the admin port (4191) with a non-HTTP protocol (a TCP probe, TLS); the proxy closed the connection. Innocuous per the maintainers.',
    causes: ['TCP or TLS probes pointed at 4191.'],
    fix: [{ versions: 'all', action: 'Point probes at /live or /ready over plain HTTP, or ignore.' }],
    references: [`${L2}5672`],
    examples: [
      {
        line: '{"timestamp":"...","level":"INFO","fields":{"message":"Connection closed","error":"proxy admin server is HTTP-only"},"target":"linkerd_app_core::serve","spans":[{"name": "daemon"},{"listen_addr": "0.0.0.0:4191","name": "admin"},{"client_addr": "10.1.26.203:45330","target_addr": "10.1.4.38:4191","name": "accept"}],"threadId":"ThreadId(2)"}',
        source: `${L2}5672 (tarvip)`,
      },
    ],
  },
  {
    id: 'connection-closed-request-timed-out',
    title: 'Connection closed: request timed out',
    family: 'benign',
    background: true,
    match: { records: ['proxy-log'], literals: ['request timed out'], pattern: 'Connection closed\\W{1,4}error\\W{1,4}request timed out' },
    meaning:
      "An inbound connection was closed because the client sent no complete request before the server's timeout; usually idle or half-open client connections.",
    causes: ['Clients (or probes) that connect and send nothing.', 'Very slow clients.'],
    fix: [{ versions: 'all', action: 'Correlate it with client errors before acting; alone it usually needs nothing.' }],
    references: [`${L2}5672`],
    examples: [
      {
        line: '{"timestamp":"...","level":"INFO","fields":{"message":"Connection closed","error":"request timed out"},"target":"linkerd_app_core::serve","spans":[{"name": "inbound"},{"client_addr": "10.1.21.79:33178","target_addr": "10.1.4.38:8080","name": "accept"}],"threadId":"ThreadId(1)"}',
        source: `${L2}5672 (tarvip)`,
      },
    ],
  },
];
