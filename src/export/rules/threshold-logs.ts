// Live twins of the threshold log rules (identity-failure, failfast, dns-resolution-failure,
// protocol-detection-timeout, authorization-denied). Each Loki filter is built from the same
// pattern module the offline rule matches with, so both count the same lines; plain and JSON
// lines alike (the patterns are on the message text, which both formats carry verbatim).
//
// Windows follow the mechanisms the offline thresholds come from: five minutes holds many
// identity retries (≥ every 10 s), many fail-fast timeouts (1–3 s) and probe periods (10 s).

import type { AuthorizationDeniedOptions } from '../../rules/authorization-denied/index.js';
import { AUTHZ_DENIED } from '../../rules/authorization-denied/patterns.js';
import type { DnsResolutionFailureOptions } from '../../rules/dns-resolution-failure/index.js';
import { CONTROL_PLANE_NAME, CONTROL_PLANE_RESOLVE, NO_RECORD, REFINE_TIMEOUT } from '../../rules/dns-resolution-failure/patterns.js';
import type { FailfastOptions } from '../../rules/failfast/index.js';
import { ENTER_FAILFAST, FAILFAST_REQUEST, LOAD_SHED } from '../../rules/failfast/patterns.js';
import type { IdentityFailureOptions } from '../../rules/identity-failure/index.js';
import { CERT_EXPIRY_METRIC, CERTIFY_FAILURE, IDENTITY_NOT_READY, TLS_ALERT, TRUST_ANCHOR_MISMATCH } from '../../rules/identity-failure/patterns.js';
import { NON_DETECTABLE_PORTS, type ProtocolDetectionTimeoutOptions } from '../../rules/protocol-detection-timeout/index.js';
import { PROTOCOL_DETECT_TIMEOUT } from '../../rules/protocol-detection-timeout/patterns.js';
import { alertingRule, byClause, integersBelow, labelRef, literalAlternation, num, podLabels, selector } from '../expr.js';
import type { AlertingRule, ExporterInput, ExportSettings, RuleExporter } from '../types.js';

const WINDOW = '[5m]';

/** `{selector} |~ "a" |~ "b" …` with extra pipeline stages on their own lines. */
function lines(settings: ExportSettings, filters: string[], stages: string[] = []): string {
  return [`${selector(settings.logSelector)} ${filters.join(' ')}`, ...stages].join('\n    ');
}

const match = (re: string) => `|~ "${re}"`;
const exclude = (re: string) => `!~ "${re}"`;

/** Plain lines start with the proxy's uptime; keeps lines at or after `seconds` of uptime (JSON lines carry none and are kept). */
function afterUptime(seconds: number): string[] {
  const grace = Math.ceil(seconds);
  return grace > 0 ? ['| regexp `^\\[ *(?P<uptime>[0-9]+)[.][0-9]*s\\]`', `| uptime!~"${integersBelow(grace)}"`] : [];
}

function countPerPod(settings: ExportSettings, pipeline: string, threshold: number, extra: string[] = []): string {
  return `sum ${byClause(podLabels(settings, ...extra))} (\n  count_over_time(\n    ${pipeline}\n  ${WINDOW})\n) >= ${num(threshold)}`;
}

const who = (s: ExportSettings) => `${labelRef(s.namespaceLabel)}/${labelRef(s.podLabel)}`;

// ---------------------------------------------------------------- identity-failure

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
      description: 'UnknownIssuer: a peer certificate chains to a root outside the proxy\'s trust anchors (rotation without a bundle, or clusters with different roots). Retrying does not help.',
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
        description: 'Proxies renew at 70 % of the certificate lifetime (24 h by default) and retry every 10 s; this little time left means renewal has been failing for hours.',
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
      description: 'When it expires every mTLS connection of the proxy fails. Fix certification (linkerd-identity, issuer certificate) and restart the workload.',
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

// ---------------------------------------------------------------- failfast

/** The controllers' own fail-fast is control-plane-unavailable's and reconnect-storm's, as offline. */
const NOT_CONTROLLER = [exclude('controller[{]addr=|\\"name\\":\\"controller\\"|controller linkerd-'), exclude('inbound:server[{]port=(8086|8090)[}]')];

function failfastLoki(input: ExporterInput<FailfastOptions>): AlertingRule[] {
  const { options: o, settings: s } = input;
  return [
    alertingRule({
      ruleId: 'failfast',
      alert: 'LinkerdProxyServiceFailfastRepeated',
      expr: countPerPod(s, lines(s, [match(ENTER_FAILFAST), ...NOT_CONTROLLER]), o.minEpisodes),
      severity: 'warning',
      summary: `Proxy ${who(s)} put services into fail-fast {{ $value }} times in 5m`,
      description: 'Each entry means no endpoint of the service was ready for the whole fail-fast timeout (1–3 s); a rollout causes one per client, repeated entries an outage. Check the service\'s endpoints (no endpoints, not ready) or the proxy\'s control-plane connection.',
    }),
    alertingRule({
      ruleId: 'failfast',
      alert: 'LinkerdProxyRequestsRefused',
      expr: countPerPod(s, lines(s, [match(`${FAILFAST_REQUEST}|${LOAD_SHED}`), match('[Rr]equest failed|Failed to proxy request'), ...NOT_CONTROLLER]), o.minRefusedRequests),
      severity: 'warning',
      summary: `Proxy ${who(s)} refused {{ $value }} requests in 5m (fail-fast or load shedding)`,
      description: 'Requests refused at once because their service is in fail-fast or an in-flight limit is reached.',
    }),
  ];
}

export const failfastExporter: RuleExporter<FailfastOptions> = {
  ruleId: 'failfast',
  reads: ['minEpisodes', 'minRefusedRequests'],
  loki: failfastLoki,
  unsupported: { prometheus: 'fail-fast episodes are only in the proxy logs; export it with --target loki' },
};

// ---------------------------------------------------------------- dns-resolution-failure

function dnsLoki(input: ExporterInput<DnsResolutionFailureOptions>): AlertingRule[] {
  const { options: o, settings: s } = input;
  return [
    alertingRule({
      ruleId: 'dns-resolution-failure',
      alert: 'LinkerdProxyCannotResolveControlPlane',
      expr: countPerPod(s, lines(s, [match(`${CONTROL_PLANE_RESOLVE}|${NO_RECORD}`), match(`${CONTROL_PLANE_RESOLVE}|${CONTROL_PLANE_NAME}`)], afterUptime(o.startupGraceSeconds)), o.minControlPlaneFailures),
      severity: 'error',
      summary: `Proxy ${who(s)} failed {{ $value }} control-plane name lookups in 5m`,
      description: `After ${o.startupGraceSeconds} s of uptime the proxy still cannot resolve linkerd-dst-headless, linkerd-policy or linkerd-identity-headless. Headless Services have records only for ready pods: check the controller pods, the namespace and cluster domain, and CoreDNS.`,
    }),
    alertingRule({
      ruleId: 'dns-resolution-failure',
      alert: 'LinkerdProxyDnsRefinementTimingOut',
      expr: countPerPod(s, lines(s, [match(REFINE_TIMEOUT)]), o.minRefineTimeouts),
      severity: 'warning',
      summary: `Proxy ${who(s)} timed out {{ $value }} DNS refinements in 5m`,
      description: 'The resolver is consistently slower than the proxy\'s canonicalisation deadline (old proxies).',
    }),
  ];
}

export const dnsResolutionFailureExporter: RuleExporter<DnsResolutionFailureOptions> = {
  ruleId: 'dns-resolution-failure',
  reads: ['minControlPlaneFailures', 'startupGraceSeconds', 'minRefineTimeouts'],
  loki: dnsLoki,
  unsupported: { prometheus: 'the proxies export no DNS failure metric; export it with --target loki' },
};

// ---------------------------------------------------------------- protocol-detection-timeout

/** The port of the original destination (outbound `proxy{addr=…}`) or the inbound server span, plain and JSON. */
const DETECT_PORT = [
  '| regexp `proxy\\{addr=[^}]*:(?P<port>[0-9]+)\\}`',
  '| regexp `"addr":"[^"]*:(?P<port>[0-9]+)","name":"proxy"`',
  '| regexp `server\\{port=(?P<port>[0-9]+)\\}`',
];

function protocolLoki(input: ExporterInput<ProtocolDetectionTimeoutOptions>): AlertingRule[] {
  const { options: o, settings: s } = input;
  const known = literalAlternation(Object.keys(NON_DETECTABLE_PORTS));
  const expr = (filter: string, threshold: number) =>
    `sum ${byClause([...s.groupBy, s.namespaceLabel, 'port'])} (\n  count_over_time(\n    ${lines(s, [match(PROTOCOL_DETECT_TIMEOUT)], [...DETECT_PORT, filter])}\n  [15m])\n) >= ${num(threshold)}`;
  return [
    alertingRule({
      ruleId: 'protocol-detection-timeout',
      alert: 'LinkerdProtocolDetectionTimeoutKnownPort',
      expr: expr(`| port=~"${known}"`, o.minTimeoutsKnownPort),
      severity: 'warning',
      summary: `Connections to port ${labelRef('port')} wait out protocol detection (server-speaks-first protocol)`,
      description: `Every connection on port ${labelRef('port')} is delayed 10 s: the protocol cannot be detected. Mark it opaque (config.linkerd.io/opaque-ports) or skip it.`,
    }),
    alertingRule({
      ruleId: 'protocol-detection-timeout',
      alert: 'LinkerdProtocolDetectionTimeout',
      expr: expr(`| port!~"${known}"`, o.minTimeouts),
      severity: 'warning',
      summary: `{{ $value }} connections to port ${labelRef('port')} waited out protocol detection in 15m`,
      description: `Connections on port ${labelRef('port')} sat for the 10 s detect timeout before being forwarded as TCP. If the protocol is not HTTP, mark the port opaque (config.linkerd.io/opaque-ports).`,
    }),
  ];
}

export const protocolDetectionTimeoutExporter: RuleExporter<ProtocolDetectionTimeoutOptions> = {
  ruleId: 'protocol-detection-timeout',
  reads: ['minTimeouts', 'minTimeoutsKnownPort'],
  loki: protocolLoki,
  unsupported: { prometheus: 'detection timeouts are only in the proxy logs; export it with --target loki' },
};

// ---------------------------------------------------------------- authorization-denied

const DENIED_SERVER = ['| regexp `server[.]name=(?P<server>[^ ]+)`', '| regexp `on (server|route) (?P<server>[A-Za-z0-9_.-]+)`'];

function authzLoki(input: ExporterInput<AuthorizationDeniedOptions>): AlertingRule[] {
  const { options: o, settings: s } = input;
  return [
    alertingRule({
      ruleId: 'authorization-denied',
      alert: 'LinkerdAuthorizationDenials',
      expr: `sum ${byClause([...s.groupBy, s.namespaceLabel, 'server'])} (\n  count_over_time(\n    ${lines(s, [match(AUTHZ_DENIED)], DENIED_SERVER)}\n  ${WINDOW})\n) >= ${num(o.minDenials)}`,
      severity: 'warning',
      summary: `{{ $value }} requests to server ${labelRef('server')} in ${labelRef(s.namespaceLabel)} denied by policy in 5m`,
      description: 'Authorization policy refuses these requests or connections. From 169.254.x.x or to health paths it is kubelet probes (pods turn unready); otherwise clients not authorized for the server.',
    }),
  ];
}

function authzPrometheus(input: ExporterInput<AuthorizationDeniedOptions>): AlertingRule[] {
  const { options: o, settings: s } = input;
  const group = byClause([...s.groupBy, s.namespaceLabel, 'srv_name']);
  const sel = selector(s.proxySelector);
  // inbound_{http,tcp}_authz_deny_total (Linkerd 2.11+) count the same denials per Server.
  const alert = (protocol: 'http' | 'tcp', name: string, what: string) =>
    alertingRule({
      ruleId: 'authorization-denied',
      alert: name,
      expr: `sum ${group} (increase(inbound_${protocol}_authz_deny_total${sel}[5m])) >= ${num(o.minDenials)}`,
      severity: 'warning',
      summary: `{{ $value | humanize }} ${what} to server ${labelRef('srv_name')} in ${labelRef(s.namespaceLabel)} denied in 5m`,
      description: `inbound_${protocol}_authz_deny_total: authorization policy refused at least ${o.minDenials} ${what} in 5 minutes. Probes from an unexpected source (GKE Dataplane V2: 169.254.x.x) or clients without authorization.`,
    });
  return [alert('http', 'LinkerdAuthorizationHttpDenials', 'requests'), alert('tcp', 'LinkerdAuthorizationTcpDenials', 'connections')];
}

export const authorizationDeniedExporter: RuleExporter<AuthorizationDeniedOptions> = {
  ruleId: 'authorization-denied',
  reads: ['minDenials'],
  prometheus: authzPrometheus,
  loki: authzLoki,
};
