// The exported Prometheus rules, checked by the real engine: `promtool check rules` on every file
// we emit, and `promtool test rules` with series that must fire and series that must stay quiet.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { stringify } from 'yaml';
import type { RuleGroup } from '../../src/kit/export/types.js';
import { renderRuleFile } from '../../src/export/render.js';
import { fleetGroups, overrides, promtool, renderPrometheus, requirePromtool, withFiles } from '../support/export-rules.js';

interface Series {
  series: string;
  values: string;
}

interface AlertCase {
  /** What the series model. */
  title: string;
  alert: string;
  series: Series[];
  evalTime: string;
  /** Labels of each alert expected to be firing at evalTime; empty = must stay quiet. */
  firing: Record<string, string>[];
}

const PROXY = 'job="linkerd-proxy"';
const DST = 'linkerd-dst-headless.linkerd.svc.cluster.local:8086';
const STEP = '15s';

function proxySeries(name: string, labels: string, values: string): Series {
  return { series: `${name}{${PROXY}, ${labels}}`, values };
}

function pods(n: number, make: (i: number) => Series[]): Series[] {
  return Array.from({ length: n }, (_, i) => make(i)).flat();
}

function cpFailures(pod: string, addr: string, values: string): Series {
  return proxySeries(
    'control_response_total',
    `namespace="shop", pod="${pod}", instance="${pod}:4191", addr="${addr}", classification="failure", status_code="", grpc_status="", error="service in fail-fast"`,
    values,
  );
}

function endpointSeries(pod: string, i: number, extra: string): Series[] {
  const target = `target_addr="10.42.1.${i}:8080", target_ip="10.42.1.${i}", target_port="8080"`;
  return [
    proxySeries(
      'request_total',
      `namespace="ingress", pod="${pod}", direction="outbound", ${target}, dst_pod="web-5d8f-${i}", dst_deployment="web", dst_namespace="shop"${extra}`,
      '0+10x80',
    ),
  ];
}

function fds(pod: string, open: string, max: string): Series[] {
  const labels = `namespace="shop", pod="${pod}", instance="${pod}:4191"`;
  return [proxySeries('process_open_fds', labels, open), proxySeries('process_max_fds', labels, max)];
}

function balancer(pod: string): Series {
  return proxySeries(
    'outbound_http_balancer_endpoints',
    `namespace="ingress", pod="${pod}", endpoint_state="ready", parent_kind="Service", parent_name="web", backend_kind="Service", backend_name="web"`,
    '6x80',
  );
}

/** One ReplicaSet generation's endpoint series in a caller's proxy: request_total plus 20 latency buckets per endpoint. */
function generation(hash: string, endpoints: number, requests: string): Series[] {
  const out: Series[] = [];
  for (let e = 0; e < endpoints; e++) {
    const labels = `namespace="shop", pod="frontend-1", direction="outbound", dst_namespace="shop", dst_deployment="cart", dst_service="cart", dst_pod_template_hash="${hash}", dst_pod="cart-${hash}-${e}"`;
    out.push(proxySeries('request_total', labels, requests));
    for (let b = 1; b <= 20; b++) out.push(proxySeries('response_latency_ms_bucket', `${labels}, le="${b * 10}"`, requests));
  }
  return out;
}

/** kube-state-metrics' per-container restart counter of a pod in the linkerd namespace. */
function restarts(pod: string, container: string, values: string): Series {
  return {
    series: `kube_pod_container_status_restarts_total{job="kube-state-metrics", namespace="linkerd", pod="${pod}", container="${container}", uid="0f1e2d3c"}`,
    values,
  };
}

/** A kube-state-metrics per-container series (restart counter, last termination or waiting reason). */
function ksm(name: string, namespace: string, pod: string, container: string, extra: string, values: string): Series {
  return { series: `${name}{job="kube-state-metrics", namespace="${namespace}", pod="${pod}", container="${container}", uid="0f1e2d3c"${extra}}`, values };
}

/** A container restarting `restartValues` whose last termination reason is `reason`. */
function terminated(namespace: string, pod: string, container: string, restartValues: string, reason: string): Series[] {
  return [
    ksm('kube_pod_container_status_restarts_total', namespace, pod, container, '', restartValues),
    ksm('kube_pod_container_status_last_terminated_reason', namespace, pod, container, `, reason="${reason}"`, '1x200'),
  ];
}

/** 21 outbound series (request_total and 20 latency buckets) per destination pod of one workload, with `extra` labels. */
function destinationPods(workload: string, pods: number, connected: number): Series[] {
  const out: Series[] = [];
  for (let p = 0; p < pods; p++) {
    const labels = `namespace="shop", pod="frontend-1", direction="outbound", dst_namespace="shop", dst_deployment="${workload}", dst_service="${workload}", dst_pod="${workload}-6c7d8-${p}"`;
    out.push(proxySeries('request_total', labels, '0+1x100'));
    if (p < connected) out.push(proxySeries('tcp_open_connections', `${labels}, peer="dst"`, '1x100'));
  }
  return out;
}

const rule = (id: string, severity: string) => ({ linkerd_doctor_rule: id, severity });

const CASES: AlertCase[] = [
  // reconnect-storm, metric side
  {
    title: 'five proxies failing against the destination controller',
    alert: 'LinkerdControlPlaneRequestsFailingFleetWide',
    series: pods(5, (i) => [cpFailures(`web-${i}`, DST, '0+4x60')]),
    evalTime: '10m',
    firing: [{ ...rule('reconnect-storm', 'critical'), addr: DST }],
  },
  {
    title: 'four proxies failing (below errorMinPods)',
    alert: 'LinkerdControlPlaneRequestsFailingFleetWide',
    series: pods(4, (i) => [cpFailures(`web-${i}`, DST, '0+4x60')]),
    evalTime: '10m',
    firing: [],
  },
  {
    title: 'five proxies whose old failures stopped counting up',
    alert: 'LinkerdControlPlaneRequestsFailingFleetWide',
    series: pods(5, (i) => [cpFailures(`web-${i}`, DST, '0+4x10 40x50')]),
    evalTime: '10m',
    firing: [],
  },
  // control-plane-unavailable (kube-state-metrics restart counters)
  {
    title: 'a destination controller pod restarting three times within the hour',
    alert: 'LinkerdControllerPodRestarting',
    series: [restarts('linkerd-destination-7d9c4-x2vq8', 'destination', '0x20 1x20 2x20 3x100')],
    evalTime: '40m',
    firing: [{ ...rule('control-plane-unavailable', 'warning'), namespace: 'linkerd', pod: 'linkerd-destination-7d9c4-x2vq8' }],
  },
  {
    title: 'one controller restart (below minRestarts), and an application pod in a crash loop',
    alert: 'LinkerdControllerPodRestarting',
    series: [
      restarts('linkerd-identity-5f6b7-k9d2m', 'identity', '0x40 1x120'),
      {
        ...restarts('web-5d8f-abcde', 'web', '0+1x160'),
        series: restarts('web-5d8f-abcde', 'web', '').series.replace('namespace="linkerd"', 'namespace="shop"'),
      },
    ],
    evalTime: '40m',
    firing: [],
  },
  // pod-restarts (kube-state-metrics)
  {
    title: 'the destination container OOMKilled ten minutes ago',
    alert: 'LinkerdControllerOOMKilled',
    series: terminated('linkerd', 'linkerd-destination-7d9c4-x2vq8', 'destination', '0x40 1x100', 'OOMKilled'),
    evalTime: '20m',
    firing: [{ ...rule('pod-restarts', 'critical'), namespace: 'linkerd', pod: 'linkerd-destination-7d9c4-x2vq8', container: 'destination' }],
  },
  {
    title: 'a destination restart for another reason, and an old OOM kill with no restart in the hour',
    alert: 'LinkerdControllerOOMKilled',
    series: [
      ...terminated('linkerd', 'linkerd-destination-7d9c4-x2vq8', 'destination', '0x40 1x100', 'Error'),
      ...terminated('linkerd', 'linkerd-identity-5f6b7-k9d2m', 'identity', '2x300', 'OOMKilled'),
    ],
    evalTime: '70m',
    firing: [],
  },
  {
    title: 'a proxy OOMKilled once',
    alert: 'LinkerdProxyOOMKilled',
    series: terminated('shop', 'web-5d8f-abcde', 'linkerd-proxy', '0x40 1x100', 'OOMKilled'),
    evalTime: '20m',
    firing: [{ ...rule('pod-restarts', 'warning'), namespace: 'shop', pod: 'web-5d8f-abcde', container: 'linkerd-proxy' }],
  },
  {
    title: 'a proxy OOMKilled three times is repeated, not a single kill',
    alert: 'LinkerdProxyOOMKilled',
    series: terminated('shop', 'web-5d8f-abcde', 'linkerd-proxy', '0x20 1x20 2x20 3x100', 'OOMKilled'),
    evalTime: '20m',
    firing: [],
  },
  {
    title: 'a proxy OOMKilled three times within the hour',
    alert: 'LinkerdProxyOOMKilledRepeatedly',
    series: terminated('shop', 'web-5d8f-abcde', 'linkerd-proxy', '0x20 1x20 2x20 3x100', 'OOMKilled'),
    evalTime: '20m',
    firing: [{ ...rule('pod-restarts', 'critical'), namespace: 'shop', pod: 'web-5d8f-abcde', container: 'linkerd-proxy' }],
  },
  {
    title: 'a proxy OOMKilled once',
    alert: 'LinkerdProxyOOMKilledRepeatedly',
    series: terminated('shop', 'web-5d8f-abcde', 'linkerd-proxy', '0x40 1x100', 'OOMKilled'),
    evalTime: '20m',
    firing: [],
  },
  {
    title: "the destination pod's proxy waiting in CrashLoopBackOff between attempts",
    alert: 'LinkerdContainerCrashLooping',
    series: [
      ksm(
        'kube_pod_container_status_waiting_reason',
        'linkerd',
        'linkerd-destination-7d9c4-x2vq8',
        'linkerd-proxy',
        ', reason="CrashLoopBackOff"',
        '0x10 1x4 0x20 1x4 0x20 1x80',
      ),
    ],
    evalTime: '20m',
    firing: [{ ...rule('pod-restarts', 'critical'), namespace: 'linkerd', pod: 'linkerd-destination-7d9c4-x2vq8', container: 'linkerd-proxy' }],
  },
  {
    title: 'an application container crash-looping in a meshed pod',
    alert: 'LinkerdContainerCrashLooping',
    series: [ksm('kube_pod_container_status_waiting_reason', 'shop', 'web-5d8f-abcde', 'web', ', reason="CrashLoopBackOff"', '1x100')],
    evalTime: '20m',
    firing: [],
  },
  {
    title: 'a proxy killed three times by its liveness probe',
    alert: 'LinkerdProxyRestarting',
    series: terminated('shop', 'web-5d8f-abcde', 'linkerd-proxy', '0x20 1x20 2x20 3x100', 'Error'),
    evalTime: '20m',
    firing: [{ ...rule('pod-restarts', 'warning'), namespace: 'shop', pod: 'web-5d8f-abcde', container: 'linkerd-proxy' }],
  },
  {
    title: 'three proxy restarts that were OOM kills belong to the OOM alerts',
    alert: 'LinkerdProxyRestarting',
    series: terminated('shop', 'web-5d8f-abcde', 'linkerd-proxy', '0x20 1x20 2x20 3x100', 'OOMKilled'),
    evalTime: '20m',
    firing: [],
  },
  // metric-cardinality
  {
    title: 'a proxy exporting 12k series for 20 minutes',
    alert: 'LinkerdProxyMetricCardinalityHigh',
    series: [proxySeries('scrape_samples_scraped', 'namespace="ingress", pod="traefik-0", instance="10.42.0.7:4191"', '12000x100')],
    evalTime: '20m',
    firing: [{ ...rule('metric-cardinality', 'warning'), namespace: 'ingress', pod: 'traefik-0' }],
  },
  {
    title: 'a proxy exporting 60k series is critical, not also high',
    alert: 'LinkerdProxyMetricCardinalityHigh',
    series: [proxySeries('scrape_samples_scraped', 'namespace="ingress", pod="traefik-0", instance="10.42.0.7:4191"', '60000x100')],
    evalTime: '20m',
    firing: [],
  },
  {
    title: 'a proxy exporting 60k series for 20 minutes',
    alert: 'LinkerdProxyMetricCardinalityCritical',
    series: [proxySeries('scrape_samples_scraped', 'namespace="ingress", pod="traefik-0", instance="10.42.0.7:4191"', '60000x100')],
    evalTime: '20m',
    firing: [{ ...rule('metric-cardinality', 'critical'), namespace: 'ingress', pod: 'traefik-0' }],
  },
  {
    title: 'a rollout spike that the 10-minute retention clears',
    alert: 'LinkerdProxyMetricCardinalityCritical',
    series: [proxySeries('scrape_samples_scraped', 'namespace="ingress", pod="traefik-0", instance="10.42.0.7:4191"', '60000x40 9000x60')],
    evalTime: '20m',
    firing: [],
  },
  {
    title: 'a proxy well under the warning threshold',
    alert: 'LinkerdProxyMetricCardinalityHigh',
    series: [proxySeries('scrape_samples_scraped', 'namespace="shop", pod="web-0", instance="10.42.0.8:4191"', '9000x100')],
    evalTime: '20m',
    firing: [],
  },
  // fd-exhaustion: warning from ratio (0.8), error from errorRatio (0.95)
  {
    title: '850 of 1024 descriptors open',
    alert: 'LinkerdProxyFileDescriptorsNearLimit',
    series: fds('web-0', '850x40', '1024x40'),
    evalTime: '8m',
    firing: [{ ...rule('fd-exhaustion', 'warning'), namespace: 'shop', pod: 'web-0' }],
  },
  {
    title: '100 of 1024 descriptors, and an unlimited proxy (max_fds 0) with 5000 open',
    alert: 'LinkerdProxyFileDescriptorsNearLimit',
    series: [...fds('web-0', '100x40', '1024x40'), ...fds('web-1', '5000x40', '0x40')],
    evalTime: '8m',
    firing: [],
  },
  {
    title: 'a proxy at 98% is exhausted, not also near the limit',
    alert: 'LinkerdProxyFileDescriptorsNearLimit',
    series: fds('web-0', '1000x40', '1024x40'),
    evalTime: '8m',
    firing: [],
  },
  {
    title: '1000 of 1024 descriptors open',
    alert: 'LinkerdProxyFileDescriptorsExhausted',
    series: fds('web-0', '1000x40', '1024x40'),
    evalTime: '8m',
    firing: [{ ...rule('fd-exhaustion', 'critical'), namespace: 'shop', pod: 'web-0' }],
  },
  {
    title: '900 of 1024 descriptors (88%, under errorRatio)',
    alert: 'LinkerdProxyFileDescriptorsExhausted',
    series: fds('web-0', '900x40', '1024x40'),
    evalTime: '8m',
    firing: [],
  },
  // identity-failure: certificate expiry (promtool evaluates from the epoch, so values are seconds from 0)
  {
    title: 'a certificate with 3 h left',
    alert: 'LinkerdProxyCertificateNearExpiry',
    series: [proxySeries('identity_cert_expiration_timestamp_seconds', 'namespace="shop", pod="web-0"', '10800x40')],
    evalTime: '5m',
    firing: [{ ...rule('identity-failure', 'warning'), namespace: 'shop', pod: 'web-0' }],
  },
  {
    title: 'a certificate with 20 h left, and a proxy with no certificate yet (0)',
    alert: 'LinkerdProxyCertificateNearExpiry',
    series: [
      proxySeries('identity_cert_expiration_timestamp_seconds', 'namespace="shop", pod="web-0"', '72000x40'),
      proxySeries('identity_cert_expiration_timestamp_seconds', 'namespace="shop", pod="web-1"', '0x40'),
    ],
    evalTime: '5m',
    firing: [],
  },
  {
    title: 'a certificate 30 min from expiry',
    alert: 'LinkerdProxyCertificateExpiring',
    series: [proxySeries('identity_cert_expiration_timestamp_seconds', 'namespace="shop", pod="web-0"', '2100x40')],
    evalTime: '5m',
    firing: [{ ...rule('identity-failure', 'critical'), namespace: 'shop', pod: 'web-0' }],
  },
  {
    title: 'a certificate with 3 h left is not about to expire',
    alert: 'LinkerdProxyCertificateExpiring',
    series: [proxySeries('identity_cert_expiration_timestamp_seconds', 'namespace="shop", pod="web-0"', '10800x40')],
    evalTime: '5m',
    firing: [],
  },
  // authorization-denied: minDenials (1) in 5 minutes per Server: a policy denial is deterministic
  {
    title: 'probes denied every 15 s on two pods of one server',
    alert: 'LinkerdAuthorizationHttpDenials',
    series: pods(2, (i) => [
      proxySeries('inbound_http_authz_deny_total', `namespace="observability", pod="otel-${i}", srv_kind="server", srv_name="collector-opencensus"`, '0+1x40'),
    ]),
    evalTime: '8m',
    firing: [{ ...rule('authorization-denied', 'warning'), namespace: 'observability', srv_name: 'collector-opencensus' }],
  },
  {
    title: 'a server whose deny counter stays flat',
    alert: 'LinkerdAuthorizationHttpDenials',
    series: [proxySeries('inbound_http_authz_deny_total', 'namespace="payments", pod="payments-0", srv_kind="server", srv_name="payments-http"', '3+0x40')],
    evalTime: '8m',
    firing: [],
  },
  {
    title: 'unauthenticated TCP connections refused twice a second',
    alert: 'LinkerdAuthorizationTcpDenials',
    series: [proxySeries('inbound_tcp_authz_deny_total', 'namespace="db", pod="pg-0", srv_kind="server", srv_name="postgres"', '0+30x40')],
    evalTime: '8m',
    firing: [{ ...rule('authorization-denied', 'warning'), namespace: 'db', srv_name: 'postgres' }],
  },
  {
    title: 'no TCP denials',
    alert: 'LinkerdAuthorizationTcpDenials',
    series: [proxySeries('inbound_tcp_authz_deny_total', 'namespace="db", pod="pg-0", srv_kind="server", srv_name="postgres"', '0x40')],
    evalTime: '8m',
    firing: [],
  },
  // ingress-pod-ip-bypass
  {
    title: 'an ingress proxy dialling six pod IPs with no balancer',
    alert: 'LinkerdProxyBypassedByPodIpDialling',
    series: pods(6, (i) => endpointSeries('traefik-0', i, '')),
    evalTime: '15m',
    firing: [{ ...rule('ingress-pod-ip-bypass', 'warning'), namespace: 'ingress', pod: 'traefik-0' }],
  },
  {
    title: 'the same ingress going through the Service (dst_service set, balancer present)',
    alert: 'LinkerdProxyBypassedByPodIpDialling',
    series: [...pods(6, (i) => endpointSeries('traefik-0', i, ', dst_service="web"')), balancer('traefik-0')],
    evalTime: '15m',
    firing: [],
  },
  {
    title: 'pod-IP endpoints on a proxy that also balances a Service',
    alert: 'LinkerdProxyBypassedByPodIpDialling',
    series: [...pods(6, (i) => endpointSeries('traefik-0', i, '')), balancer('traefik-0')],
    evalTime: '15m',
    firing: [],
  },
  {
    title: 'four pod-IP endpoints (below minEndpoints) and a scraper dialling admin ports',
    alert: 'LinkerdProxyBypassedByPodIpDialling',
    series: [
      ...pods(4, (i) => endpointSeries('traefik-0', i, '')),
      ...pods(8, (i) => [
        proxySeries(
          'tcp_open_total',
          `namespace="monitoring", pod="prometheus-0", direction="outbound", peer="dst", target_addr="10.42.2.${i}:4191", target_port="4191", dst_pod="web-${i}"`,
          '0+1x80',
        ),
      ]),
    ],
    evalTime: '15m',
    firing: [],
  },
  {
    title: "an ingress dialling six pod IPs whose only balancer is the API server's default/kubernetes",
    alert: 'LinkerdProxyBypassedByPodIpDialling',
    series: [
      ...pods(6, (i) => endpointSeries('traefik-0', i, '')),
      proxySeries(
        'outbound_http_balancer_endpoints',
        'namespace="ingress", pod="traefik-0", endpoint_state="ready", parent_kind="Service", parent_namespace="default", parent_name="kubernetes", backend_kind="Service", backend_name="kubernetes"',
        '1x80',
      ),
    ],
    evalTime: '15m',
    firing: [{ ...rule('ingress-pod-ip-bypass', 'warning'), namespace: 'ingress', pod: 'traefik-0' }],
  },
  {
    title: 'six pod-IP endpoints, but half the endpoint series go through a Service (under minNoServiceRatio)',
    alert: 'LinkerdProxyBypassedByPodIpDialling',
    series: [...pods(6, (i) => endpointSeries('traefik-0', i, '')), ...pods(6, (i) => endpointSeries('traefik-0', i + 10, ', dst_service="web"'))],
    evalTime: '15m',
    firing: [],
  },
  {
    title: 'a metrics scraper dialling eight pods on their application port',
    alert: 'LinkerdProxyBypassedByPodIpDialling',
    series: pods(8, (i) => [
      proxySeries(
        'request_total',
        `namespace="monitoring", pod="vmagent-0", direction="outbound", target_addr="10.42.2.${i}:8080", target_port="8080", dst_pod="web-${i}", dst_deployment="web", dst_namespace="shop"`,
        '0+1x80',
      ),
    ]),
    evalTime: '15m',
    firing: [],
  },
  // stale-endpoint-metrics: more than maxTemplateHashes (1) generations and minStaleSeries (100) stale series
  {
    title: 'a caller still exporting 105 series of an idle ReplicaSet generation',
    alert: 'LinkerdProxyRetainsStaleEndpointMetrics',
    series: [...generation('7c9f', 5, '500x120'), ...generation('5b6d', 3, '0+20x120')],
    evalTime: '20m',
    firing: [{ ...rule('stale-endpoint-metrics', 'warning'), namespace: 'shop', pod: 'frontend-1', dst_namespace: 'shop', dst_deployment: 'cart' }],
  },
  {
    title: 'an idle generation holding 84 series (under minStaleSeries)',
    alert: 'LinkerdProxyRetainsStaleEndpointMetrics',
    series: [...generation('7c9f', 4, '500x120'), ...generation('5b6d', 3, '0+20x120')],
    evalTime: '20m',
    firing: [],
  },
  {
    title: 'an older generation without requests that the proxy is still connected to',
    alert: 'LinkerdProxyRetainsStaleEndpointMetrics',
    series: [
      ...generation('7c9f', 5, '500x120'),
      ...pods(5, (e) => [
        proxySeries(
          'tcp_open_connections',
          `namespace="shop", pod="frontend-1", direction="outbound", peer="dst", dst_namespace="shop", dst_deployment="cart", dst_pod_template_hash="7c9f", dst_pod="cart-7c9f-${e}"`,
          '2x120',
        ),
      ]),
      ...generation('5b6d', 3, '0+20x120'),
    ],
    evalTime: '20m',
    firing: [],
  },
  {
    title: 'a rollout in progress: both generations still serve requests',
    alert: 'LinkerdProxyRetainsStaleEndpointMetrics',
    series: [...generation('7c9f', 5, '0+5x120'), ...generation('5b6d', 3, '0+20x120')],
    evalTime: '20m',
    firing: [],
  },
  {
    title: 'one generation only',
    alert: 'LinkerdProxyRetainsStaleEndpointMetrics',
    series: generation('5b6d', 6, '0+20x120'),
    evalTime: '20m',
    firing: [],
  },
  // stale-endpoint-metrics: more generations than a rollout leaves, connected or not
  {
    title: 'three generations of one workload for 20 minutes, the old ones still connected (a pooling client)',
    alert: 'LinkerdProxyRetainsTooManyGenerations',
    series: [
      ...generation('7c9f', 3, '0+20x120'),
      ...generation('5b6d', 3, '0+1x120'),
      ...generation('4a2e', 3, '0+1x120'),
      ...pods(3, (e) => [
        proxySeries(
          'tcp_open_connections',
          `namespace="shop", pod="frontend-1", direction="outbound", peer="dst", dst_namespace="shop", dst_deployment="cart", dst_pod_template_hash="4a2e", dst_pod="cart-4a2e-${e}"`,
          '1x120',
        ),
      ]),
    ],
    evalTime: '20m',
    firing: [{ ...rule('stale-endpoint-metrics', 'warning'), namespace: 'shop', pod: 'frontend-1', dst_namespace: 'shop', dst_deployment: 'cart' }],
  },
  {
    title: 'a rollout: two generations',
    alert: 'LinkerdProxyRetainsTooManyGenerations',
    series: [...generation('7c9f', 3, '0+20x120'), ...generation('5b6d', 3, '0+1x120')],
    evalTime: '20m',
    firing: [],
  },
  // stale-endpoint-metrics: minIdlePods (20) unconnected pods, idlePodFactor (3) times the connected ones
  {
    title: 'series for 25 pods of one workload, two of them connected',
    alert: 'LinkerdProxyRetainsSeriesOfUnconnectedPods',
    series: destinationPods('api', 25, 2),
    evalTime: '20m',
    firing: [{ ...rule('stale-endpoint-metrics', 'warning'), namespace: 'shop', pod: 'frontend-1', dst_namespace: 'shop', dst_deployment: 'api' }],
  },
  {
    title: '25 unconnected of 40 pods (under idlePodFactor × 15 connected), and 19 of 20 (under minIdlePods)',
    alert: 'LinkerdProxyRetainsSeriesOfUnconnectedPods',
    series: [...destinationPods('api', 40, 15), ...destinationPods('cart', 20, 1)],
    evalTime: '20m',
    firing: [],
  },
  {
    title: 'series for 25 pods and no connection data at all',
    alert: 'LinkerdProxyRetainsSeriesOfUnconnectedPods',
    series: destinationPods('api', 25, 0),
    evalTime: '20m',
    firing: [],
  },
  // dns-ttl-zero
  {
    title: 'node-local-dns serving stale (TTL 0) answers',
    alert: 'CoreDNSServingStaleAnswersWithTtlZero',
    series: [
      {
        series:
          'coredns_cache_served_stale_total{job="node-local-dns", instance="10.0.3.4:9253", server="dns://169.254.20.10:53", zones="cluster.local.", view=""}',
        values: '0+40x40',
      },
    ],
    evalTime: '8m',
    firing: [{ ...rule('dns-ttl-zero', 'warning'), job: 'node-local-dns', instance: '10.0.3.4:9253', server: 'dns://169.254.20.10:53' }],
  },
  {
    title: 'a cache that served stale answers long ago and none since',
    alert: 'CoreDNSServingStaleAnswersWithTtlZero',
    series: [
      {
        series:
          'coredns_cache_served_stale_total{job="node-local-dns", instance="10.0.3.4:9253", server="dns://169.254.20.10:53", zones="cluster.local.", view=""}',
        values: '0+40x4 160x40',
      },
    ],
    evalTime: '10m',
    firing: [],
  },
  // dns-query-storm
  {
    title: 'SRV queries at 60/s for ten minutes',
    alert: 'CoreDNSSrvQueryStorm',
    series: [
      {
        series: 'coredns_dns_requests_total{job="coredns", instance="10.42.0.2:9153", server="dns://:53", zone=".", proto="udp", family="1", type="SRV"}',
        values: '0+900x40',
      },
    ],
    evalTime: '6m',
    firing: [{ ...rule('dns-query-storm', 'warning'), job: 'coredns', instance: '10.42.0.2:9153' }],
  },
  {
    title: 'normal SRV re-resolution (1/s) next to a heavy A-record load',
    alert: 'CoreDNSSrvQueryStorm',
    series: [
      {
        series: 'coredns_dns_requests_total{job="coredns", instance="10.42.0.2:9153", server="dns://:53", zone=".", proto="udp", family="1", type="SRV"}',
        values: '0+15x40',
      },
      {
        series: 'coredns_dns_requests_total{job="coredns", instance="10.42.0.2:9153", server="dns://:53", zone=".", proto="udp", family="1", type="A"}',
        values: '0+15000x40',
      },
    ],
    evalTime: '6m',
    firing: [],
  },
  {
    title: 'an SRV spike shorter than the periodic-burst span',
    alert: 'CoreDNSSrvQueryStorm',
    series: [
      {
        series: 'coredns_dns_requests_total{job="coredns", instance="10.42.0.2:9153", server="dns://:53", zone=".", proto="udp", family="1", type="SRV"}',
        values: '0+15x20 300+900x4 3900+15x20',
      },
    ],
    evalTime: '6m30s',
    firing: [],
  },
  {
    title: 'SRV queries at 45/s for ten minutes (under burstQueries 100 per 2 s)',
    alert: 'CoreDNSSrvQueryStorm',
    series: [
      {
        series: 'coredns_dns_requests_total{job="coredns", instance="10.42.0.2:9153", server="dns://:53", zone=".", proto="udp", family="1", type="SRV"}',
        values: '0+675x40',
      },
    ],
    evalTime: '6m',
    firing: [],
  },
];

/** The rules as promtool's unit tester sees them: annotations are templated per alert, labels are what we assert. */
function withoutAnnotations(groups: RuleGroup[]): RuleGroup[] {
  return groups.map((g) => ({ ...g, rules: g.rules.map((r) => ({ ...r, annotations: {} })) }));
}

function unitTestFile(cases: AlertCase[]): string {
  return stringify({
    rule_files: ['rules.yaml'],
    evaluation_interval: STEP,
    tests: cases.map((c) => ({
      name: c.title,
      interval: STEP,
      input_series: c.series,
      alert_rule_test: [{ eval_time: c.evalTime, alertname: c.alert, exp_alerts: c.firing.map((labels) => ({ exp_labels: labels })) }],
    })),
  });
}

describe('exported Prometheus rules (promtool)', () => {
  test('promtool check rules accepts every exported file and format', async (t) => {
    if (!(await requirePromtool(t))) return;
    const { groups } = fleetGroups('prometheus');
    const files = {
      'rules.yaml': renderPrometheus(groups),
      'grouped.yaml': renderPrometheus(fleetGroups('prometheus', { settings: { groupBy: ['cluster'], namespaceLabel: 'kubernetes_namespace' } }).groups),
      'tuned.yaml': renderPrometheus(
        fleetGroups('prometheus', {
          overrides: overrides({
            'reconnect-storm': { minPods: 2, errorMinPods: 7, maxGapSeconds: 12.5 },
            'fd-exhaustion': { ratio: 0.95 },
            'dns-query-storm': { burstWindowSeconds: 3 },
          }),
        }).groups,
      ),
    };
    await withFiles(files, async (dir) => {
      const result = await promtool(['check', 'rules', ...Object.keys(files)], dir);
      assert.ok(result.ok, result.output);
      const alerts = groups.reduce((n, g) => n + g.rules.length, 0);
      assert.match(result.output, new RegExp(`SUCCESS: ${alerts} rules found`));
    });
    // The PrometheusRule wrapper carries the same groups; promtool reads them from spec.
    const wrapped = renderRuleFile(groups, { format: 'prometheusrule', target: 'prometheus', source: null });
    const { parse } = await import('yaml');
    const resource = parse(wrapped) as { spec: { groups: unknown } };
    await withFiles({ 'spec.yaml': stringify({ groups: resource.spec.groups }) }, async (dir) => {
      const result = await promtool(['check', 'rules', 'spec.yaml'], dir);
      assert.ok(result.ok, result.output);
    });
  });

  test('promtool check rules rejects a broken expression (the check can fail)', async (t) => {
    if (!(await requirePromtool(t))) return;
    const { groups } = fleetGroups('prometheus');
    const broken = groups.map((g, i) => (i === 0 ? { ...g, rules: [{ ...g.rules[0]!, expr: 'sum by (pod) (rate(x[5m])' }] } : g));
    await withFiles({ 'rules.yaml': renderPrometheus(broken) }, async (dir) => {
      const result = await promtool(['check', 'rules', 'rules.yaml'], dir);
      assert.equal(result.ok, false);
    });
  });

  test('every exported alert has a series set that fires and one that stays quiet', () => {
    const { groups } = fleetGroups('prometheus');
    for (const alert of groups.flatMap((g) => g.rules.map((r) => r.alert))) {
      assert.ok(
        CASES.some((c) => c.alert === alert && c.firing.length > 0),
        `no firing case for ${alert}`,
      );
      assert.ok(
        CASES.some((c) => c.alert === alert && c.firing.length === 0),
        `no quiet case for ${alert}`,
      );
    }
  });

  for (const alert of [...new Set(CASES.map((c) => c.alert))]) {
    test(`promtool test rules: ${alert}`, async (t) => {
      if (!(await requirePromtool(t))) return;
      const cases = CASES.filter((c) => c.alert === alert);
      const rules = renderPrometheus(withoutAnnotations(fleetGroups('prometheus').groups));
      await withFiles({ 'rules.yaml': rules, 'tests.yaml': unitTestFile(cases) }, async (dir) => {
        const result = await promtool(['test', 'rules', 'tests.yaml'], dir);
        assert.ok(result.ok, `${cases.map((c) => c.title).join('; ')}\n${result.output}`);
      });
    });
  }

  test('--group-by cluster keeps clusters apart', async (t) => {
    if (!(await requirePromtool(t))) return;
    const groups = withoutAnnotations(fleetGroups('prometheus', { settings: { groupBy: ['cluster'] } }).groups);
    const perCluster = (cluster: string, failing: number) =>
      pods(failing, (i) => [
        { ...cpFailures(`web-${i}`, DST, '0+4x60'), series: cpFailures(`web-${i}`, DST, '').series.replace('{', `{cluster="${cluster}", `) },
      ]);
    const storm: AlertCase = {
      title: 'five failing proxies in one cluster, three in another',
      alert: 'LinkerdControlPlaneRequestsFailingFleetWide',
      series: [...perCluster('eu-1', 5), ...perCluster('us-2', 3)],
      evalTime: '10m',
      firing: [{ ...rule('reconnect-storm', 'critical'), addr: DST, cluster: 'eu-1' }],
    };
    await withFiles({ 'rules.yaml': renderPrometheus(groups), 'tests.yaml': unitTestFile([storm]) }, async (dir) => {
      const result = await promtool(['test', 'rules', 'tests.yaml'], dir);
      assert.ok(result.ok, result.output);
    });
  });

  test("annotations render with the alert's labels and value", async (t) => {
    if (!(await requirePromtool(t))) return;
    const groups = fleetGroups('prometheus').groups;
    const fd = groups.flatMap((g) => g.rules).find((r) => r.alert === 'LinkerdProxyFileDescriptorsNearLimit')!;
    const firing = CASES.find((c) => c.alert === fd.alert && c.firing.length > 0)!;
    const file = stringify({
      rule_files: ['rules.yaml'],
      evaluation_interval: STEP,
      tests: [
        {
          interval: STEP,
          input_series: firing.series,
          alert_rule_test: [
            {
              eval_time: firing.evalTime,
              alertname: fd.alert,
              exp_alerts: [
                {
                  exp_labels: firing.firing[0],
                  exp_annotations: {
                    summary: 'Proxy shop/web-0 uses 83.01% of its file descriptors',
                    description: fd.annotations.description,
                    runbook_url: fd.annotations.runbook_url,
                  },
                },
              ],
            },
          ],
        },
      ],
    });
    await withFiles({ 'rules.yaml': renderPrometheus(groups), 'tests.yaml': file }, async (dir) => {
      const result = await promtool(['test', 'rules', 'tests.yaml'], dir);
      assert.ok(result.ok, result.output);
    });
  });

  test('thresholds follow the config: a raised errorSeries silences the critical alert', async (t) => {
    if (!(await requirePromtool(t))) return;
    const critical = CASES.find((c) => c.alert === 'LinkerdProxyMetricCardinalityCritical' && c.firing.length > 0)!;
    const groups = withoutAnnotations(
      fleetGroups('prometheus', { overrides: overrides({ 'metric-cardinality': { errorSeries: 80_000, warningSeries: 70_000 } }) }).groups,
    );
    const quiet = { ...critical, firing: [] };
    await withFiles({ 'rules.yaml': renderPrometheus(groups), 'tests.yaml': unitTestFile([quiet]) }, async (dir) => {
      const result = await promtool(['test', 'rules', 'tests.yaml'], dir);
      assert.ok(result.ok, result.output);
    });
    // …and a lowered one makes a small proxy fire.
    const lowered = withoutAnnotations(
      fleetGroups('prometheus', { overrides: overrides({ 'metric-cardinality': { errorSeries: 5_000, warningSeries: 1_000 } }) }).groups,
    );
    const small = CASES.find((c) => c.title === 'a proxy well under the warning threshold')!;
    const fires = {
      ...small,
      alert: 'LinkerdProxyMetricCardinalityCritical',
      firing: [{ ...rule('metric-cardinality', 'critical'), namespace: 'shop', pod: 'web-0' }],
    };
    await withFiles({ 'rules.yaml': renderPrometheus(lowered), 'tests.yaml': unitTestFile([fires]) }, async (dir) => {
      const result = await promtool(['test', 'rules', 'tests.yaml'], dir);
      assert.ok(result.ok, result.output);
    });
  });
});
