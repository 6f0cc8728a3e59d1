import assert from 'node:assert/strict';
import type { RuleCases } from '../../../test/support/rule-cases.js';
import { endpoints, forwardLog, healthyIngress, legacyEndpointDump, podSection, sampleMetrics } from '../../../test/support/metrics-inputs.js';

const bypass = endpoints(12);
const viaService = endpoints(12, { service: 'checkout-svc' });
const balancer =
  '# TYPE outbound_http_balancer_endpoints gauge\n' +
  'outbound_http_balancer_endpoints{endpoint_state="ready",parent_group="core",parent_kind="Service",parent_namespace="shop",parent_name="checkout-svc",parent_port="8080",parent_section_name="",backend_group="core",backend_kind="Service",backend_namespace="shop",backend_name="checkout-svc",backend_port="8080",backend_section_name=""} 12\n# EOF\n';

export const cases: RuleCases = {
  fires: [
    {
      name: 'Traefik dialling 12 pod IPs: endpoint series without dst_service, no balancer',
      expect: [{ severity: 'warning', kind: 'dials-pods', subject: { pod: 'traefik-7d9f8c6b5-x2x8k', workload: 'traefik' } }],
      inputs: [
        {
          path: 'dump.txt',
          content: podSection(
            'traefik-7d9f8c6b5-x2x8k',
            1,
            1,
            legacyEndpointDump(
              bypass,
              bypass.map((e) => e.ip),
            ),
          ),
        },
      ],
      check: (findings) => {
        assert.equal(findings[0]!.evidence.ingress, 'Traefik');
        assert.match(findings[0]!.remediation, /nativeLB/);
      },
    },
    {
      name: 'metrics and proxy logs of the same ingress-nginx pod',
      expect: [{ severity: 'warning', kind: 'dials-pods', subject: { pod: 'ingress-nginx-controller-6b9f5c7d8-abcde', workload: 'ingress-nginx-controller' } }],
      inputs: [
        { path: 'metrics.txt', content: podSection('ingress-nginx-controller-6b9f5c7d8-abcde', 1, 1, legacyEndpointDump(bypass)) },
        { path: 'ingress-nginx/ingress-nginx-controller-6b9f5c7d8-abcde/linkerd-proxy.log', content: forwardLog(bypass.map((e) => e.ip)) },
      ],
      check: (findings) => {
        assert.equal(findings.length, 1);
        assert.match(findings[0]!.remediation, /service-upstream/);
        assert.equal(findings[0]!.evidence.forwardedAddresses, 12);
      },
    },
  ],
  quiet: [
    {
      name: 'an ingress in ingress mode balancing over a Service',
      inputs: [
        {
          path: 'd.txt',
          content: podSection(
            'traefik-6f8b9d7c4-q7w2x',
            1,
            1,
            legacyEndpointDump(
              viaService,
              viaService.map((e) => e.ip),
            ) + balancer,
          ),
        },
      ],
    },
    {
      name: 'the healthy ingress-mode fixture and the real dump',
      inputs: [
        { path: 'ingress.txt', content: healthyIngress },
        { path: 'sampleMetrics.txt', content: sampleMetrics },
      ],
    },
  ],
};
