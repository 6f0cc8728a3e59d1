// Inputs shared by the metrics rules' fire/quiet cases: small legacy dumps built with the same
// label layout as real proxies, and the committed healthy fixtures.

import { readFileSync } from 'node:fs';
import { endpointLabels, legacyEndpointDump, podSection, type EndpointSpec } from '../metrics/helpers.js';

export { endpointLabels, legacyEndpointDump, podSection };

export const sampleMetrics = readFileSync(new URL('../data/linkerd2/sampleMetrics.txt', import.meta.url), 'utf8');
export const healthyDump = readFileSync(new URL('../../fixtures/healthy-metrics/proxy-metrics.txt', import.meta.url), 'utf8');
export const healthyIngress = readFileSync(new URL('../../fixtures/healthy-ingress/proxy-metrics.txt', import.meta.url), 'utf8');

export function endpoints(n: number, spec: Partial<EndpointSpec> & { ipBase?: number } = {}): EndpointSpec[] {
  const deployment = spec.deployment ?? 'checkout';
  const hash = spec.hash ?? '5d8f7c9b4f';
  const base = spec.ipBase ?? 0;
  return Array.from({ length: n }, (_, i) => ({
    ip: `10.42.${Math.floor((base + i) / 250)}.${((base + i) % 250) + 2}`,
    pod: `${deployment}-${hash}-p${String(base + i).padStart(4, '0')}`,
    deployment,
    hash,
    ...spec,
  }));
}

export function forwardLog(ips: readonly string[]): string {
  return (
    ips
      .map(
        (ip, i) =>
          `[  ${(100 + i).toFixed(6)}s]  INFO ThreadId(01) outbound:proxy{addr=${ip}:8080}:forward{addr=${ip}:8080}: linkerd_app_core::errors::respond: HTTP/1.1 request failed error=endpoint ${ip}:8080: connect timed out after 1s`,
      )
      .join('\n') + '\n'
  );
}

export function fds(open: number, max: number): string {
  return `# TYPE process_open_fds gauge\nprocess_open_fds ${open}\n# TYPE process_max_fds gauge\nprocess_max_fds ${max}\n# EOF\n`;
}
