// Real-shaped lines of every input format, the raw material the fuzzers mutate. Proxy lines follow
// the layouts in docs/parse-format.md (plain, JSON, legacy, logfmt) under each collector prefix;
// the metrics, dig and CoreDNS lines are written after `linkerd diagnostics proxy-metrics`,
// BIND 9.18 dig and the CoreDNS `log` plugin output.

import type { InputKind } from '../../src/core/types.js';

export const PROXY_LOG_LINES = [
  '[     0.002035s]  INFO ThreadId(01) linkerd2_proxy: release 2.210.4 (5a9bc3c) by linkerd on 2023-11-22T17:01:46Z',
  '[ 73137.020135s]  WARN ThreadId(01) outbound:proxy{addr=10.2.40.58:8126}:controller{addr=linkerd-dst-headless.linkerd.svc.cluster.local:8086}:endpoint{addr=10.2.102.227:8086}: linkerd_reconnect: Failed to connect error=Connection refused (os error 111)',
  '[    12.500000s]  WARN ThreadId(02) dst:controller{addr=linkerd-dst-headless.linkerd.svc.cluster.local:8086}:endpoint{addr=10.42.0.12:8086}: linkerd_reconnect: Failed to connect error=connect timed out after 1s',
  '[  1210.776747s]  INFO ThreadId(03) outbound:proxy{addr=10.96.0.1:443}: linkerd_app_core::errors::respond: Request failed error=logical service 10.96.0.1:443: service unavailable error.sources=[service unavailable]',
  '[   101.000000s] ERROR ThreadId(01) linkerd_app::env: Could not read LINKERD2_PROXY_IDENTITY_DIR: No such file or directory (os error 2)',
  '[     0.15728023s]  INFO linkerd2_proxy::app::main: using destination service at ControlAddr { addr: Name(NameAddr { name: "linkerd-destination.linkerd.svc.cluster.local", port: 8086 }) }',
  '{"timestamp":"2025-12-12T19:55:11.333411Z","level":"WARN","fields":{"message":"Failed to connect","error":"connect timed out after 1s"},"target":"linkerd_reconnect","threadId":"ThreadId(1)"}',
  '{"timestamp":"[  4107.154318s]","level":"INFO","fields":{"message":"Unavailable; entering failfast","timeout":"3.0"},"target":"linkerd_proxy_balance_queue::worker","spans":[{"name":"outbound"},{"addr":"10.0.0.1:80","name":"proxy"}],"threadId":"ThreadId(2)"}',
  'WARN [  1088.403817s] proxy={server=out listen=127.0.0.1:4140 remote=10.1.2.3:51100} linkerd2_proxy::app::errors: Failed to proxy request: connection error',
  'ERR! [     3.000000s] linkerd2_proxy: could not bind to 0.0.0.0:4143',
  'time="2021-03-19T13:37:56Z" level=info msg="running version stable-2.10.0"',
  'time="2021-03-19T13:37:57Z" level=warning msg="failed to fetch \\"identity\\"" component=proxy-identity',
  ' WARN ThreadId(01) linkerd_reconnect: Service failed error=channel closed',
  '2024-06-06T11:01:39.532896292Z [     0.001881s]  INFO ThreadId(01) linkerd2_proxy: Admin interface on 0.0.0.0:4191',
  '2024-06-06T11:01:40.000000000Z stdout F [  2.000000s]  WARN ThreadId(01) linkerd_reconnect: Failed to connect error=Connection refused (os error 111)',
  '2020-01-26T03:17:29.346494690+00:00 stderr F [     9.000000s]  INFO ThreadId(01) linkerd_app: Serving',
  '{"log":"[    5.000000s]  WARN ThreadId(01) linkerd_reconnect: Failed to connect error=connect timed out after 1s\\n","stream":"stdout","time":"2019-07-01T10:00:00.123456789Z"}',
  'web-7d9f8c6b5-x2x8k linkerd-proxy [    7.000000s]  WARN ThreadId(01) linkerd_reconnect: Failed to connect error=Connection refused',
  'linkerd-proxy [    8.000000s]  INFO ThreadId(01) linkerd2_proxy: Outbound on 127.0.0.1:4140',
];

/** A CRI partial line and its final chunk: the parser must join them into one record. */
export const CRI_PARTIAL_PAIR = [
  '2024-06-06T11:01:41.000000000Z stdout P [  3.000000s]  WARN ThreadId(01) linkerd_reconnect: Failed to ',
  '2024-06-06T11:01:41.000000000Z stdout F connect error=Connection refused (os error 111)',
];

export const PROMETHEUS_LINES = [
  '# POD web-7d9f8c6b5-x2x8k (1 of 2)',
  '# HELP request_total Total count of HTTP requests.',
  '# TYPE request_total counter',
  'request_total{direction="outbound",authority="emoji-svc.emojivoto.svc.cluster.local:8080",target_addr="10.244.0.12:8080",tls="true",dst_namespace="emojivoto",dst_pod_template_hash="5b7d8c9f4"} 12345',
  "# HELP response_latency_ms Elapsed times between a request's headers being received and its response stream completing",
  '# TYPE response_latency_ms histogram',
  'response_latency_ms_bucket{direction="inbound",target_addr="0.0.0.0:4143",le="10"} 42',
  'response_latency_ms_bucket{direction="inbound",target_addr="0.0.0.0:4143",le="+Inf"} 57',
  'response_latency_ms_sum{direction="inbound",target_addr="0.0.0.0:4143"} 1234.5',
  'response_latency_ms_count{direction="inbound",target_addr="0.0.0.0:4143"} 57',
  'process_open_fds 52',
  'process_max_fds 1048576',
  'tcp_open_total{direction="inbound",peer="src",tls="no_identity",no_tls_reason="loopback"} 3 1717668099000',
  'outbound_http_balancer_endpoints{backend_kind="default",endpoint_state="ready"} NaN',
  '# ERROR web-7d9f8c6b5-q4w2z: failed to connect: connection refused',
  '# EOF',
];

export const DIG_LINES = [
  '; <<>> DiG 9.18.28 <<>> linkerd-dst-headless.linkerd.svc.cluster.local SRV',
  ';; global options: +cmd',
  ';; Got answer:',
  ';; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: 52310',
  ';; flags: qr aa rd; QUERY: 1, ANSWER: 2, AUTHORITY: 0, ADDITIONAL: 1',
  '',
  ';; QUESTION SECTION:',
  ';linkerd-dst-headless.linkerd.svc.cluster.local.\tIN SRV',
  '',
  ';; ANSWER SECTION:',
  'linkerd-dst-headless.linkerd.svc.cluster.local.\t0 IN SRV 0 50 8086 10-42-1-7.linkerd-dst-headless.linkerd.svc.cluster.local.',
  'web.emojivoto.svc.cluster.local. 5 IN\tA\t10.96.120.14',
  'cluster.local.\t\t5\tIN\tNS\tns.dns.cluster.local.',
  '',
  ';; Query time: 0 msec',
  ';; SERVER: 10.96.0.10#53(10.96.0.10) (UDP)',
  ';; WHEN: Tue Jun 04 10:12:33 UTC 2024',
  ';; MSG SIZE  rcvd: 119',
  ';; connection timed out; no servers could be reached',
  '0 50 8086 10-42-0-12.linkerd-dst-headless.linkerd.svc.cluster.local.',
  '10.42.0.12',
];

export const COREDNS_LINES = [
  '.:53',
  '[INFO] plugin/reload: Running configuration SHA512 = 591cf328cccc12bc490481273e738df59329c62c0b729d94e8b61db9961c2fa5f046dd37f1cf888b953814040d180f52594972691cd6ff41be96639138a43908',
  'CoreDNS-1.11.1',
  'linux/amd64, go1.20.7, ae2bbc2',
  '[INFO] 10.244.0.7:48557 - 28515 "AAAA IN web.emojivoto.svc.cluster.local. udp 49 false 512" NOERROR qr,aa,rd 142 0.000149388s',
  '[INFO] 10.244.1.3:36921 - 4310 "A IN linkerd-dst-headless.linkerd.svc.cluster.local.cluster.local. udp 76 false 512" NXDOMAIN qr,aa,rd 169 0.000097531s',
  '[INFO] 10.244.1.3:51000 - 61234 "SRV IN linkerd-dst-headless.linkerd.svc.cluster.local. tcp 88 false 65535" NOERROR qr,aa,rd 412 0.000211s',
  '[ERROR] plugin/errors: 2 example.com. A: read udp 10.244.0.5:38742->8.8.8.8:53: i/o timeout',
  '2024-06-04T10:12:33.123456789Z stdout F [INFO] 10.244.0.9:40000 - 1 "A IN web.emojivoto.svc.cluster.local. udp 60 false 1232" NOERROR qr,aa,rd 106 0.00005s',
];

/** Lines each kind's sniffer must recognise when a file holds nothing else. */
export const CORPUS: Partial<Record<InputKind, readonly string[]>> = {
  'proxy-log': PROXY_LOG_LINES,
  prometheus: PROMETHEUS_LINES,
  dig: DIG_LINES,
  'coredns-log': COREDNS_LINES,
};

export const ALL_LINES = [...PROXY_LOG_LINES, ...CRI_PARTIAL_PAIR, ...PROMETHEUS_LINES, ...DIG_LINES, ...COREDNS_LINES];
