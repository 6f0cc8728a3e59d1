// CoreDNS log lines.

import { CD, type KnownSignature } from '../signature.js';

export const COREDNS_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'coredns-loop-detected',
    title: 'CoreDNS forwarding loop detected',
    family: 'coredns',
    match: {
      records: ['coredns-message'],
      literals: ['loop detected', ') detected for zone'],
      pattern: 'plugin/loop: Loop \\(.*\\) detected for zone|plugin/loop: Seen "HINFO IN .*" more than twice, loop detected',
    },
    meaning:
      'CoreDNS found that its upstream sends queries back to itself and exited; the CoreDNS pods crash-loop and cluster DNS fails, which stops proxies from resolving the control plane.',
    causes: [
      "The node's /etc/resolv.conf points at a local stub (systemd-resolved 127.0.0.53) that CoreDNS forwards to.",
      'A forward target that is the cluster DNS service itself.',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Point kubelet at the real resolv.conf (`--resolv-conf=/run/systemd/resolve/resolv.conf`) or forward to explicit upstream IPs, then restart CoreDNS.',
      },
    ],
    coveredBy: ['dns-resolution-failure'],
    references: ['https://github.com/coredns/coredns/pull/2400', `${CD}2087`, 'https://coredns.io/plugins/loop#troubleshooting'],
    examples: [
      {
        line: '2018-12-16T10:11:03.696Z [FATAL] plugin/loop: Loop (127.0.0.1:51384 -> :1053) detected for zone ".", see https://coredns.io/plugins/loop#troubleshooting. Query: "HINFO 2781022615773629442.4133547885299871809."',
        source: 'https://github.com/coredns/coredns/pull/2400 (miekg)',
      },
      {
        line: '2018/09/06 13:02:45 [FATAL] plugin/loop: Seen "HINFO IN 2050421060481615995.5620656063561519376." more than twice, loop detected',
        source: `${CD}2087 (mritd)`,
      },
    ],
  },
  {
    id: 'coredns-loop-probe-timeout',
    title: 'CoreDNS loop probe got no answer from upstream',
    family: 'coredns',
    match: { records: ['coredns-message'], literals: ['HINFO: read'], pattern: 'HINFO: read (?:udp|tcp) \\S+: i/o timeout' },
    meaning:
      'At start-up the loop plugin sends a random HINFO query upstream; the upstream did not answer it. Harmless if other forwarded queries work, otherwise the upstream is unreachable.',
    causes: ['The upstream resolver ignores HINFO or queries outside its zones.', 'The upstream is unreachable from the CoreDNS pods (firewall, routing).'],
    fix: [
      {
        versions: 'all',
        action: 'Resolve an external name through CoreDNS; if it works, ignore or drop the loop plugin; if not, fix the path to the upstream.',
      },
    ],
    references: [`${CD}4211`, `${CD}5352`],
    examples: [
      {
        line: '[ERROR] plugin/errors: 2 3797952284163317497.7063757873447144811. HINFO: read udp 192.168.209.17:36807->20.128.8.8:53: i/o timeout',
        source: `${CD}4211 (Jiangting1)`,
      },
    ],
  },
  {
    id: 'coredns-upstream-timeout',
    title: 'CoreDNS upstream did not answer',
    family: 'coredns',
    match: { records: ['coredns-message'], literals: ['i/o timeout'], pattern: 'plugin/errors: \\d+ \\S+ \\S+: read (?:udp|tcp) \\S+: i/o timeout' },
    meaning:
      'CoreDNS forwarded a query and got no answer from the upstream in time; the client gets SERVFAIL after a delay. Proxies resolving external names through it are delayed too.',
    causes: [
      'Upstream resolver down, overloaded or filtered.',
      'conntrack/UDP drops between CoreDNS and the upstream.',
      'CoreDNS itself overloaded (forward max_concurrent reached).',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Query the upstream directly from the node (`dig @<upstream> <name>`); fix routing/firewall, or add upstreams; reduce search-path expansion (ndots) to cut the query volume.',
      },
    ],
    coveredBy: ['dns-resolution-failure'],
    references: [`${CD}5179`, 'https://github.com/kubernetes/kubernetes/issues/86762'],
    examples: [
      {
        line: '[ERROR] plugin/errors: 2 svc-datadog-agent-dogstatsd.datadog-agent.toyota-europe.com. SRV: read udp 192.168.86.18:56917->150.45.86.241:53: i/o timeout',
        source: `${CD}5179 (walter-heestermans-toyota)`,
      },
      {
        line: '[ERROR] plugin/errors: 2 lcr.acjus.jus.br. A: read udp 169.254.25.10:16773->169.254.25.10:53: i/o timeout',
        source: 'https://github.com/kubernetes/kubernetes/issues/86762 (juliohm1978)',
      },
    ],
  },
  {
    id: 'coredns-kubernetes-forbidden',
    title: 'CoreDNS not allowed to read the Kubernetes API',
    family: 'coredns',
    match: { records: ['coredns-message'], literals: ['is forbidden'], pattern: 'plugin/kubernetes: .*is forbidden' },
    meaning:
      'The CoreDNS service account lacks RBAC to list/watch a resource, so the kubernetes plugin never syncs and cluster names do not resolve (or resolve stale).',
    causes: ['The ClusterRole misses a resource the CoreDNS version needs (EndpointSlices since CoreDNS 1.8).'],
    fix: [{ versions: 'CoreDNS ≥ 1.8', action: 'Add `endpointslices` (discovery.k8s.io) list/watch to the CoreDNS ClusterRole.' }],
    coveredBy: ['dns-resolution-failure'],
    references: ['https://github.com/coredns/helm/issues/135'],
    examples: [
      {
        line: '[ERROR] plugin/kubernetes: pkg/mod/k8s.io/client-go@v0.26.1/tools/cache/reflector.go:169: Failed to watch *v1.EndpointSlice: failed to list *v1.EndpointSlice: endpointslices.discovery.k8s.io is forbidden: User "system:serviceaccount:kube-system:coredns-coredns" cannot list resource "endpointslices" in API group "discovery.k8s.io" at the cluster scope',
        source: 'https://github.com/coredns/helm/issues/135 (erikschul)',
      },
    ],
  },
  {
    id: 'coredns-kubernetes-watch-failed',
    title: 'CoreDNS lost its Kubernetes watch',
    family: 'coredns',
    match: { records: ['coredns-message'], literals: ['Failed to watch', 'Failed to list'], pattern: 'Failed to (?:watch|list) \\*v1' },
    meaning: "CoreDNS's kubernetes plugin could not list or watch a resource; until it reconnects, answers for services and endpoints go stale.",
    causes: ['API server unreachable or restarting.', 'RBAC (see coredns-kubernetes-forbidden).'],
    fix: [{ versions: 'all', action: 'Check API server reachability from the CoreDNS pods; restart CoreDNS if it stays out of sync.' }],
    references: ['https://github.com/kubernetes/kubernetes/issues/109815', `${CD}3587`],
    examples: [
      {
        line: 'E0411 11:27:17.279482       1 reflector.go:322] github.com/coredns/coredns/plugin/kubernetes/controller.go:318: Failed to watch *v1.Namespace: Get https://172.20.252.1:443/api/v1/namespaces?resourceVersion=10192&timeoutSeconds=396&watch=true: ',
        source: 'https://github.com/kubernetes/kubernetes/issues/109815 (panbing520)',
      },
    ],
  },
  {
    id: 'coredns-unsynced-api',
    title: 'CoreDNS started with an unsynced Kubernetes API',
    family: 'coredns',
    match: { records: ['coredns-message'], literals: ['unsynced Kubernetes API'], pattern: 'starting server with unsynced Kubernetes API' },
    meaning: 'CoreDNS gave up waiting for its first Kubernetes sync and serves anyway: cluster names may not resolve until it syncs.',
    causes: [
      'API server unreachable from the CoreDNS pod at start (node restart, CNI not ready).',
      'RBAC or endpoint configuration errors in the kubernetes plugin.',
    ],
    fix: [{ versions: 'all', action: 'Check the next kubernetes-plugin lines for the reason; restart CoreDNS once the API is reachable.' }],
    coveredBy: ['dns-resolution-failure'],
    references: [`${CD}5274`, `${CD}5034`],
    examples: [{ line: '[WARNING] plugin/kubernetes: starting server with unsynced Kubernetes API', source: `${CD}5274 (vicky1999s)` }],
  },
  {
    id: 'coredns-no-response',
    title: 'CoreDNS answered a query with nothing',
    family: 'coredns',
    // The query log prints the response's flags and size; a written response always has at least
    // the qr flag, so `-` flags with size 0 mean no response was written, whatever the rcode says.
    match: { records: ['coredns-query'], literals: [' - 0 '], pattern: '" \\S+ - 0 [\\d.]+s$' },
    meaning:
      'CoreDNS logged a query for which it wrote no response: no flags, response size 0, usually after about the forward timeout (5-6 s). The client waited and got nothing; CoreDNS before 1.8.5 printed such a query with rcode NOERROR, later ones with `-`.',
    causes: [
      'The upstream resolver the forward plugin uses did not answer in time (down, overloaded, or UDP 53 dropped on the way).',
      'conntrack or NAT drops between the CoreDNS pods and the upstream.',
      'CoreDNS overloaded: forwarded queries queue behind the max_concurrent limit.',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Query the upstream from a CoreDNS node (`dig @<upstream> <name>`); fix the path to it or add upstreams; reduce search-path expansion (ndots) to cut forwarded queries.',
      },
      { versions: 'CoreDNS < 1.8.5', action: 'Read NOERROR with `-` flags and size 0 as "no response"; 1.8.5 logs `-` as the rcode instead.' },
    ],
    references: [`${CD}4724`, 'https://github.com/coredns/coredns/pull/4725'],
    examples: [{ line: '[INFO] 127.0.0.1:63325 - 28625 "A IN 9gag.com. udp 49 false 4096" NOERROR - 0 6.010923182s', source: `${CD}4724` }],
  },
  {
    id: 'coredns-legacy-errors',
    title: 'CoreDNS 2017 errors-plugin failure',
    family: 'coredns',
    match: {
      records: ['coredns-message'],
      literals: ['] no items found', '] invalid query name'],
      pattern: '\\[ERROR \\d+ \\S+ \\S+\\] (?:no items found|invalid query name)',
    },
    meaning:
      'An early CoreDNS (errors plugin format `[ERROR <rcode> <name> <type>]`) failed a query in the kubernetes plugin; here search-path expansions of a short name.',
    causes: ['Clients resolving short names through the search path; early CoreDNS reported the misses as errors.'],
    fix: [{ versions: 'CoreDNS of 2017 (≤ 1.0)', action: 'Upgrade CoreDNS; use fully qualified names to avoid search-path expansion.' }],
    references: [`${CD}1265`],
    examples: [
      { line: '29/Nov/2017:23:16:11 +0000 [ERROR 0 kubernetes.monitoring.svc.cluster.local. A] no items found', source: `${CD}1265` },
      { line: '29/Nov/2017:23:16:11 +0000 [ERROR 0 kubernetes.svc.cluster.local. A] invalid query name', source: `${CD}1265` },
    ],
  },
];
