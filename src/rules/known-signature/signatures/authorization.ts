// Authorization policy denials.

import { L2, PROXY_PR, type KnownSignature } from '../signature.js';

export const AUTHORIZATION_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'unauthorized-connection',
    title: 'Connection refused by server authorization policy',
    family: 'authorization',
    // `on server <name>` (2.11), `on <kind>/<name>` from proxy v2.178 (`server/web`, `default/deny`), `on unknown port <n>`.
    match: { records: ['proxy-log'], literals: ['unauthorized connection on'], pattern: 'unauthorized connection on (?:server[ /]|default[/:]|unknown port )' },
    meaning:
      'The inbound proxy denied a request or connection because no authorization allows the client on this Server; clients get 403 (HTTP) or a closed connection.',
    causes: [
      'A Server without a matching ServerAuthorization/AuthorizationPolicy for this client (e.g. unmeshed callers, node-local probes from 169.254.x.x).',
      'A default policy of deny/cluster-authenticated and a client outside the mesh.',
    ],
    fix: [
      {
        versions: 'Linkerd ≥ 2.11',
        action:
          'Check `linkerd viz authz -n <ns> deploy/<name>`; add an authorization for the client (or a NetworkAuthentication for probe addresses), or relax the default policy.',
      },
    ],
    coveredBy: ['authorization-denied'],
    references: [`${L2}8608`, `${L2}8613`],
    examples: [
      {
        line: '[    54.614678s]  INFO ThreadId(01) inbound:server{port=55678}:rescue{client.addr=169.254.42.1:52388}: linkerd_app_core::errors::respond: Request failed error=unauthorized connection on server collector-opencensus',
        source: `${L2}8608`,
      },
      {
        line: '[     4.109873s]  INFO ThreadId(02) daemon:admin{listen.addr=0.0.0.0:4191}:rescue{client.addr=127.0.0.1:58456}: linkerd_app_core::errors::respond: Request failed error=unauthorized connection on server default:cluster-unauthenticated',
        source: `${L2}9812 (florian-besser)`,
      },
    ],
  },
  {
    id: 'unauthorized-route',
    title: 'Request refused by route authorization policy',
    family: 'authorization',
    match: { records: ['proxy-log'], literals: ['unauthorized request on route'], pattern: 'unauthorized request on route' },
    meaning: 'The inbound proxy answered 403 because the matched route (HTTPRoute or the default route of a Server) has no authorization for the client.',
    causes: [
      'Route-level AuthorizationPolicy missing for this client.',
      'Scrapers or probes reaching the admin port (4191) of a pod whose policy does not allow them.',
    ],
    fix: [{ versions: 'Linkerd ≥ 2.12', action: 'Add an AuthorizationPolicy targeting the route (or the Server) for the client identity or network.' }],
    coveredBy: ['authorization-denied'],
    references: [`${L2}13013`],
    examples: [
      {
        line: '[  1289.245771s]  INFO ThreadId(02) daemon:admin{listen.addr=0.0.0.0:4191}:rescue{client.addr=10.0.3.252:52222}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=unauthorized request on route',
        source: `${L2}13013 (florian-besser)`,
      },
    ],
  },
  {
    id: 'http-request-denied',
    title: 'HTTP request denied by policy',
    family: 'authorization',
    match: { records: ['proxy-log'], literals: ['Request denied'], pattern: 'policy(?:::\\w{1,64}){0,8}: Request denied' },
    meaning: 'The inbound policy layer denied an HTTP request; the line names the server (and route) and the client, so it tells who was refused where.',
    causes: [
      'A client without an authorization on this server/route (unmeshed, other identity, probe IP).',
      'A policy change that removed the authorization (look for "Connection terminated due to policy change").',
    ],
    fix: [
      {
        versions: 'Linkerd ≥ 2.11',
        action: 'Authorize the client named in `client.ip`/`client.tls` on `server.name` (and `route.name`), or fix the client to use mTLS.',
      },
    ],
    coveredBy: ['authorization-denied'],
    references: [`${L2}13013`, `${L2}8613`, `${PROXY_PR}1252`],
    examples: [
      {
        line: '[  1289.245238s]  INFO ThreadId(02) daemon:admin{listen.addr=0.0.0.0:4191}: linkerd_app_inbound::policy::http: Request denied server.group=policy.linkerd.io server.kind=server server.name=ops-rapid-testing-onboarding-linkerd route.group= route.kind=default route.name=default client.tls=None(NoClientHello) client.ip=10.0.3.252',
        source: `${L2}13013 (florian-besser)`,
      },
      {
        line: '[ 623.878567s] INFO ThreadId(01) inbound:server{port=8085}: linkerd_app_inbound::policy::authorize::http: Request denied server=metrics-api tls=None(NoClientHello) client=192.168.1.253:39024',
        source: `${L2}8613 (Diki-afk)`,
      },
    ],
  },
  {
    id: 'tcp-connection-denied',
    title: 'TCP connection denied by policy',
    family: 'authorization',
    match: { records: ['proxy-log'], literals: ['Connection denied'], pattern: 'policy(?:::\\w{1,64}){0,8}: Connection denied' },
    meaning: 'The inbound policy layer refused a connection before any request: the client is not authorized on this server at all.',
    causes: [
      'No authorization for the client identity on the Server (e.g. a viz component scraping a Prometheus server).',
      'Identity-based authorization while the client connects without mTLS.',
    ],
    fix: [
      {
        versions: 'Linkerd ≥ 2.11',
        action:
          'Authorize the identity in `tls=Some(Established { client_id … })` on `server.name`, or re-install the extension whose policies are missing (e.g. `linkerd viz allow-scrapes`).',
      },
    ],
    coveredBy: ['authorization-denied'],
    references: ['https://github.com/linkerd/linkerd2/pull/9286'],
    examples: [
      {
        line: '[1892678.776921s]  INFO ThreadId(01) inbound:server{port=9090}: linkerd_app_inbound::policy::tcp: Connection denied server.group=policy.linkerd.io server.kind=server server.name=prometheus-admin tls=Some(Established { client_id: Some(ClientId(Name("metrics-api.linkerd-viz.serviceaccount.identity.linkerd.cluster.local"))), negotiated_protocol: None }) client=10.2.76.70:52118',
        source: 'https://github.com/linkerd/linkerd2/pull/9286 (omidraha)',
      },
    ],
  },
];
