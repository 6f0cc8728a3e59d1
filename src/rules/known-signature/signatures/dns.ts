// DNS resolution of control-plane and service names.

import { L2, type KnownSignature } from '../signature.js';

export const DNS_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'control-plane-dns-failed',
    title: 'Control-plane name does not resolve',
    family: 'dns',
    match: { records: ['proxy-log'], literals: ['Failed to resolve control-plane component'], pattern: 'Failed to resolve control-plane component' },
    meaning:
      'The proxy could not resolve the DNS name of a control-plane component (linkerd-identity-headless, linkerd-dst-headless, linkerd-policy); without it the proxy cannot get a certificate or discover services.',
    causes: [
      'CoreDNS is down, overloaded or unreachable from the pod.',
      'The cluster domain is not cluster.local and the control plane was installed without --cluster-domain.',
      'The control plane is not installed in the namespace the proxy expects, or its headless services have no ready endpoints ("no record found … SRV").',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Run `dig SRV linkerd-identity-headless.linkerd.svc.cluster.local` from the pod; fix CoreDNS or the cluster domain (`clusterDomain` Helm value); check that the linkerd pods are ready.',
      },
    ],
    coveredBy: ['dns-resolution-failure'],
    references: [`${L2}5932`, `${L2}8343`, `${L2}11624`],
    examples: [
      {
        line: '[    25.008354s]  WARN ThreadId(01) daemon:identity: linkerd_app_core::control: Failed to resolve control-plane component error=no record found for name: linkerd-identity-headless.linkerd.svc.cluster.local. type: SRV class: IN',
        source: `${L2}5932 (cortopy)`,
      },
    ],
  },
  {
    id: 'dns-refinement-timeout',
    title: 'DNS refinement timed out',
    family: 'dns',
    match: { records: ['proxy-log'], literals: ['DNS refinement timed out'], pattern: 'DNS refinement timed out' },
    meaning:
      'The proxy tried to canonicalize a destination name through DNS and got no answer within its deadline; it carried on with the name as given, after a delay on the request.',
    causes: ['Slow or failing upstream DNS for external names.', 'CoreDNS overloaded (search-path expansion multiplies queries).'],
    fix: [
      {
        versions: '≤ stable-2.8',
        action: 'Fix DNS latency; upgrading removes canonicalization (later proxies resolve through the destination controller only).',
      },
    ],
    coveredBy: ['dns-resolution-failure'],
    references: [`${L2}4905`],
    examples: [
      {
        line: 'INFO outbound:accept{peer.addr=10.240.2.xxx:xxxxx}:source{target.addr=10.240.5.xxx:80}:logical{addr=ppe.testhost.xxxx.com:80}: linkerd2_proxy_http::canonicalize: DNS refinement timed out',
        source: `${L2}4905`,
      },
    ],
  },
  {
    id: 'dns-canonicalize-deadline',
    title: 'Failed to refine a name: DNS deadline elapsed',
    family: 'dns',
    match: { records: ['proxy-log'], literals: ['failed to refine'], pattern: 'failed to refine \\S+: deadline has elapsed' },
    meaning: 'The legacy proxy could not canonicalize a destination name through DNS before its deadline; each such request was delayed by the timeout.',
    causes: ['Slow upstream DNS (e.g. Consul or corporate resolvers behind CoreDNS forward).', 'Names outside the cluster sent through search-path expansion.'],
    fix: [{ versions: '≤ stable-2.2', action: 'Speed up or fix the upstream resolver; upgrading removed this code path.' }],
    coveredBy: ['dns-resolution-failure'],
    references: [`${L2}2069`],
    examples: [
      {
        line: 'ERR! linkerd2_proxy::proxy::canonicalize failed to refine catalyst.elasticsearch.service.azure-west-us.consul: deadline has elapsed',
        source: `${L2}2069`,
      },
    ],
  },
  {
    id: 'destination-not-a-service',
    title: 'Destination lookup for a name that is not a service',
    family: 'dns',
    match: { records: ['proxy-log'], literals: ['not a service'], pattern: 'not a service: \\S+' },
    meaning:
      'The destination controller was asked about a name that is not a Kubernetes service, typically a name doubled by the search path (`…svc.cluster.local.linkerd.svc.cluster.local`).',
    causes: [
      'CoreDNS autopath (or a client) expanding an already fully-qualified name through the search path.',
      'Applications calling a name with a trailing namespace/domain mistake.',
    ],
    fix: [
      { versions: 'all', action: 'Use fully qualified names with a trailing dot, or disable autopath in the Corefile; the lookups are harmless but noisy.' },
    ],
    references: [`${L2}2800`],
    examples: [
      {
        line: 'WARN [  1355.573770s] admin={bg=resolver} linkerd2_proxy::control::destination::background::destination_set Destination.Get stream errored for NameAddr { name: "linkerd-prometheus.linkerd.svc.cluster.local.linkerd.svc.cluster.local.", port: 9090 }: Status { code: Unknown, message: "resolver [&{k8sDNSZoneLabels:[] endpointsWatcher:0xc000728c60 profileWatcher:0xc000751350}] found error resolving host [linkerd-prometheus.linkerd.svc.cluster.local.linkerd.svc.cluster.local] port [9090]: not a service: linkerd-prometheus.linkerd.svc.cluster.local.linkerd.svc.cluster.local" }',
        source: `${L2}2800`,
      },
    ],
  },
];
