// identity-failure live: its Loki (and, where the signal is a metric, Prometheus) twin, whose line filters
// are built from ./patterns.ts, the module the offline rule matches with, so both count the same
// lines, plain and JSON alike (the patterns are on the message text, which both carry verbatim).

import { alertingRule, byClause, num, podLabels, selector } from '../../kit/export/expr.js';
import { afterUptime, countPerPod, lines, match, who } from '../../kit/export/log-query.js';
import type { AlertingRule, ExporterInput, RuleExporter } from '../../kit/export/types.js';
import type { IdentityFailureOptions } from './index.js';
import { CERT_EXPIRY_METRIC, CERTIFY_FAILURE, IDENTITY_NOT_READY, TLS_ALERT, TRUST_ANCHOR_MISMATCH } from './patterns.js';

function identityLoki(input: ExporterInput<IdentityFailureOptions>): AlertingRule[] {
  const { options: o, settings: s } = input;
  const id = 'identity-failure';
  return [
    alertingRule({
      ruleId: id,
      alert: 'LinkerdProxyIdentityCertificationFailing',
      expr: countPerPod(s, lines(s, [match(CERTIFY_FAILURE)]), o.minCertifyFailures),
      severity: 'error',
      summary: `Proxy ${who(s)} failed to obtain an identity certificate {{ $value }} times in 5m`,
      description: `The proxy retries certification every ≥ 10 s; ${o.minCertifyFailures} failures mean it has been without a certificate for a while and is not ready. Check linkerd-identity and the issuer certificate.`,
    }),
    alertingRule({
      ruleId: id,
      alert: 'LinkerdProxyTrustAnchorMismatch',
      expr: countPerPod(s, lines(s, [match(TRUST_ANCHOR_MISMATCH)]), o.minTrustAnchorFailures),
      severity: 'error',
      summary: `Proxy ${who(s)} rejects peer certificates from an unknown issuer`,
      description:
        "UnknownIssuer: a peer certificate chains to a root outside the proxy's trust anchors (rotation without a bundle, or clusters with different roots). Retrying does not help.",
    }),
    alertingRule({
      ruleId: id,
      alert: 'LinkerdProxyRefusingTlsHandshakes',
      expr: countPerPod(s, lines(s, [match(TLS_ALERT)], afterUptime(o.startupGraceSeconds)), o.minTlsAlerts),
      severity: 'warning',
      summary: `Proxy ${who(s)} sent {{ $value }} fatal TLS alerts in 5m after start-up`,
      description: `AccessDenied (no certificate to present) or BadCertificate (peer certificate does not verify) after the first ${o.startupGraceSeconds} s of uptime.`,
    }),
    alertingRule({
      ruleId: id,
      alert: 'LinkerdProxyWaitingForIdentity',
      expr: countPerPod(s, lines(s, [match(IDENTITY_NOT_READY)], afterUptime(o.maxIdentityWaitSeconds)), 1),
      severity: 'warning',
      summary: `Proxy ${who(s)} is still waiting for identity after ${o.maxIdentityWaitSeconds} s`,
      description: 'The proxy has no certificate yet and keeps its pod unready.',
    }),
  ];
}

function identityPrometheus(input: ExporterInput<IdentityFailureOptions>): AlertingRule[] {
  const { options: o, settings: s } = input;
  // 0 means no certificate yet: identity-failure's log signals cover that, not expiry.
  const left = `min ${byClause(podLabels(s))} (${CERT_EXPIRY_METRIC}${selector(s.proxySelector)} > 0) - time()`;
  const rules: AlertingRule[] = [];
  if (o.expiryWarningSeconds > 3600) {
    rules.push(
      alertingRule({
        ruleId: 'identity-failure',
        alert: 'LinkerdProxyCertificateNearExpiry',
        expr: `${left} < ${num(o.expiryWarningSeconds)} >= 3600`,
        severity: 'warning',
        summary: `Proxy ${who(s)}'s identity certificate expires in {{ $value | humanizeDuration }}`,
        description:
          'Proxies renew at 70 % of the certificate lifetime (24 h by default) and retry every 10 s; this little time left means renewal has been failing for hours.',
      }),
    );
  }
  rules.push(
    alertingRule({
      ruleId: 'identity-failure',
      alert: 'LinkerdProxyCertificateExpiring',
      expr: `${left} < 3600`,
      severity: 'error',
      summary: `Proxy ${who(s)}'s identity certificate expires in {{ $value | humanizeDuration }} (or has expired)`,
      description:
        'When it expires every mTLS connection of the proxy fails. Fix certification (linkerd-identity, issuer certificate) and restart the workload.',
    }),
  );
  return rules;
}

export const identityFailureExporter: RuleExporter<IdentityFailureOptions> = {
  ruleId: 'identity-failure',
  reads: ['minCertifyFailures', 'minTrustAnchorFailures', 'minTlsAlerts', 'startupGraceSeconds', 'maxIdentityWaitSeconds', 'expiryWarningSeconds'],
  prometheus: identityPrometheus,
  loki: identityLoki,
};
