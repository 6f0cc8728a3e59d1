// A proxy without a valid certificate serves no meshed traffic: it withholds readiness until the
// identity controller has signed its CSR, and every mTLS handshake with it fails. This rule reads
// the ways that shows — failed certification, peers signed by another trust anchor, rustls
// refusing handshakes after start-up, a proxy still waiting for identity long after starting, and
// from a metrics dump certificates that are about to expire or already have.
//
// Thresholds follow the identity client: after a failed attempt it waits at least
// LINKERD2_PROXY_IDENTITY_MIN_REFRESH (10 s) and tries again, and it renews a certificate at 70 %
// of its lifetime (24 h by default), so a healthy proxy always holds one with more than ~7 h left.

import { type FindingDraft, type ProxyLogRecord, defineRule } from '../../core/types.js';
import { perBody } from '../../util/body-memo.js';
import { podKeyOf, keyMemo, type KeyMemo } from '../../kit/metric-proxy.js';
import {
  bodyText,
  countLine,
  durationOf,
  locationsOf,
  mergeTally,
  plural,
  podOf,
  signalTally,
  windowEvidence,
  type SignalTally,
} from '../../kit/log-signal.js';
import { formatDuration, keepTop, latest, mergeKeyed } from '../../util/stats.js';
import { stateCap } from '../../core/state-cap.js';
import { toTimeline } from '../../util/timeline.js';
import { CERT_EXPIRY_METRIC, CERTIFY_FAILURE, IDENTITY_NOT_READY, TLS_ALERT, TRUST_ANCHOR_MISMATCH } from './patterns.js';
import { controlPlaneLocation } from '../../knowledge/control-plane.js';
import { certificateLabel, classifyCertificateText, type CertificateFinding } from '../../knowledge/certificates.js';

export interface IdentityFailureOptions {
  minCertifyFailures: number;
  minTrustAnchorFailures: number;
  minTlsAlerts: number;
  startupGraceSeconds: number;
  maxIdentityWaitSeconds: number;
  expiryWarningSeconds: number;
  dumpTime: string;
}

type Kind = 'certify' | 'trust-anchor' | 'tls-alert' | 'not-ready';

interface PodSignals {
  pod: string;
  namespace: string | undefined;
  kinds: Partial<Record<Kind, SignalTally>>;
  tlsAlertsDuringStartup: number;
  accessDenied: number;
  badCertificate: number;
  maxWaitUptime: number | null;
}

interface ProxyCert {
  pod: string;
  namespace: string | null;
  path: string;
  line: number;
  expiry: number | null;
}

interface State {
  /** The last proxy or pod key built (kit/metric-proxy.ts), for runs of records from one proxy. */
  keys: KeyMemo;
  options: IdentityFailureOptions;
  pods: Map<string, PodSignals>;
  /** Pods and certificates dropped by MAX_PODS (the fewest failure lines, the latest expiry first). */
  untracked: number;
  certs: Map<string, ProxyCert>;
  /** Newest explicit sample timestamp in the dumps, in seconds. */
  dumpTime: number | null;
}

/**
 * Pods (and proxy certificates) kept exactly. Past 2 × this many, the pods with the fewest identity
 * failure lines (and the certificates expiring last) are dropped and counted, so memory does not
 * grow with the number of pods in a bundle.
 */
const MAX_PODS = stateCap(2_000);

const failureLines = (p: PodSignals): number =>
  p.accessDenied + p.badCertificate + (p.kinds.certify?.count ?? 0) + (p.kinds['trust-anchor']?.count ?? 0) + (p.kinds['not-ready']?.count ?? 0);
const soonestExpiry = (c: ProxyCert): number => (c.expiry === null ? -Infinity : -c.expiry);

const CERTIFY = new RegExp(CERTIFY_FAILURE);
const UNKNOWN_ISSUER = new RegExp(TRUST_ANCHOR_MISMATCH);
const ALERT = new RegExp(TLS_ALERT);
const NOT_READY = new RegExp(IDENTITY_NOT_READY);

const classify = perBody((record: ProxyLogRecord): Kind | 'access-denied' | 'bad-certificate' | null => {
  const text = bodyText(record);
  if (UNKNOWN_ISSUER.test(text)) return 'trust-anchor';
  if (CERTIFY.test(text)) return 'certify';
  const alert = ALERT.exec(text);
  if (alert) return alert[1] === 'AccessDenied' ? 'access-denied' : 'bad-certificate';
  if (NOT_READY.test(text)) return 'not-ready';
  return null;
});

export default defineRule<IdentityFailureOptions, State>({
  meta: {
    id: 'identity-failure',
    code: 'LD1003',
    title: 'Proxies without a valid identity certificate',
    description:
      'Repeated identity certification failures, trust-anchor mismatches (UnknownIssuer), TLS handshakes refused after start-up, proxies waiting for identity, or certificates near expiry in a metrics dump.',
    defaultSeverity: 'error',
    // Signatures whose cause this rule's findings name: folded into them (one cause, one finding).
    absorbs: [
      {
        rule: 'known-signature',
        targets: [
          'identity-request-not-dispatched',
          'identity-certify-failed',
          'identity-not-ready',
          'trust-anchor-mismatch',
          'tls-access-denied',
          'control-plane-dns-failed',
          // The certify finding names a certificate rejected for its dates (clock skew, expiry).
          'cert-not-valid-yet',
          'cert-expired',
        ],
      },
    ],
    inputs: ['proxy-log', 'prometheus'],
    lineInterest: { 'proxy-log': ['certify identity', 'obtain identity', 'invalid cer', 'UnknownIssuer', 'Sending fatal alert', 'Waiting for identity'] },
    defaultOptions: {
      minCertifyFailures: 3,
      minTrustAnchorFailures: 2,
      minTlsAlerts: 5,
      startupGraceSeconds: 20,
      maxIdentityWaitSeconds: 60,
      expiryWarningSeconds: 6 * 3600,
      dumpTime: '',
    },
    optionSchema: {
      minCertifyFailures: {
        type: 'integer',
        minimum: 1,
        description: 'Failed certification attempts of one proxy that fire the rule (the client retries every ≥ 10 s, so 3 mean ≥ 20 s without a certificate).',
      },
      minTrustAnchorFailures: {
        type: 'integer',
        minimum: 1,
        description:
          'UnknownIssuer handshake failures of one proxy that fire the rule; a mismatch is deterministic, so a retry that fails the same way proves it.',
      },
      minTlsAlerts: {
        type: 'integer',
        minimum: 1,
        description: 'rustls AccessDenied/BadCertificate alerts of one proxy, after the start-up grace, that fire the rule.',
      },
      startupGraceSeconds: {
        type: 'number',
        minimum: 0,
        description: 'Uptime during which refused handshakes are a proxy still waiting for its first certificate (two minimum refresh intervals).',
      },
      maxIdentityWaitSeconds: { type: 'number', minimum: 1, description: 'Uptime after which a proxy still waiting for identity is an incident.' },
      expiryWarningSeconds: {
        type: 'number',
        minimum: 0,
        description:
          'Certificate lifetime left below which the rule warns; renewal happens at 70 % of the 24 h default lifetime, so a healthy proxy keeps > 7 h.',
      },
      dumpTime: {
        type: 'string',
        description:
          'When the metrics dump was taken (ISO 8601), for dumps without sample timestamps (`linkerd diagnostics proxy-metrics` prints none); empty: only timestamped dumps are judged.',
      },
    },
  },

  createState: (options) => ({ options, pods: new Map(), certs: new Map(), untracked: 0, dumpTime: null, keys: keyMemo() }),

  visitors: {
    'proxy-log'(state, record) {
      const kind = classify(record);
      if (!kind) return;
      const key = podOf(record);
      let p = state.pods.get(key);
      if (!p) {
        p = { pod: key, namespace: record.namespace, kinds: {}, tlsAlertsDuringStartup: 0, accessDenied: 0, badCertificate: 0, maxWaitUptime: null };
        state.untracked += keepTop(state.pods, MAX_PODS, failureLines);
        state.pods.set(key, p);
      }
      if (kind === 'access-denied' || kind === 'bad-certificate') {
        if (record.uptime !== null && record.uptime < state.options.startupGraceSeconds) {
          p.tlsAlertsDuringStartup++;
          return;
        }
        if (kind === 'access-denied') p.accessDenied++;
        else p.badCertificate++;
        countLine((p.kinds['tls-alert'] ??= signalTally()), record);
        return;
      }
      if (kind === 'not-ready' && record.uptime !== null) p.maxWaitUptime = latest(p.maxWaitUptime, record.uptime);
      countLine((p.kinds[kind] ??= signalTally()), record);
    },
    'metric-sample'(state, record) {
      if (record.name !== CERT_EXPIRY_METRIC) return;
      if (record.timestamp !== null) state.dumpTime = latest(state.dumpTime, toSeconds(record.timestamp));
      const key = podKeyOf(record, state.keys);
      let c = state.certs.get(key);
      if (!c) {
        c = { pod: record.pod ?? record.section ?? record.path, namespace: record.namespace ?? null, path: record.path, line: record.line, expiry: null };
        state.untracked += keepTop(state.certs, MAX_PODS, soonestExpiry);
        state.certs.set(key, c);
      }
      c.expiry = record.value;
      c.line = record.line;
    },
  },

  merge(into, from) {
    mergeKeyed(into.pods, from.pods, (mine, p) => {
      for (const [k, t] of Object.entries(p.kinds) as [Kind, SignalTally][]) {
        const existing = mine.kinds[k];
        if (existing) mergeTally(existing, t);
        else mine.kinds[k] = t;
      }
      mine.tlsAlertsDuringStartup += p.tlsAlertsDuringStartup;
      mine.accessDenied += p.accessDenied;
      mine.badCertificate += p.badCertificate;
      mine.maxWaitUptime = latest(mine.maxWaitUptime, p.maxWaitUptime);
    });
    mergeKeyed(into.certs, from.certs, (mine, c) => {
      if (c.expiry !== null) mine.expiry = c.expiry;
    });
    into.untracked += from.untracked + keepTop(into.pods, MAX_PODS, failureLines) + keepTop(into.certs, MAX_PODS, soonestExpiry);
    into.dumpTime = latest(into.dumpTime, from.dumpTime);
  },

  finish(state, { options }) {
    const findings: FindingDraft[] = [];
    const firing: Record<Kind, PodSignals[]> = { certify: [], 'trust-anchor': [], 'tls-alert': [], 'not-ready': [] };
    for (const p of state.pods.values()) {
      if ((p.kinds.certify?.count ?? 0) >= options.minCertifyFailures) firing.certify.push(p);
      if ((p.kinds['trust-anchor']?.count ?? 0) >= options.minTrustAnchorFailures) firing['trust-anchor'].push(p);
      if ((p.kinds['tls-alert']?.count ?? 0) >= options.minTlsAlerts) firing['tls-alert'].push(p);
      const waited = p.kinds['not-ready'];
      // Without uptime, the wait is the count of lines times the 15 s between them.
      if (waited && (p.maxWaitUptime ?? waited.count * 15) >= options.maxIdentityWaitSeconds) firing['not-ready'].push(p);
    }
    for (const kind of ['certify', 'trust-anchor', 'tls-alert', 'not-ready'] as const) {
      if (firing[kind].length > 0) findings.push(describeLogs(kind, firing[kind], options));
    }
    const expiry = describeExpiry(state, options);
    if (expiry) findings.push(expiry);
    // Pods past the bound are missing from the lists: say how many, so a list is read as a top.
    if (state.untracked > 0) for (const f of findings) f.evidence.podsNotTracked = state.untracked;
    return findings;
  },
});

function toSeconds(timestamp: number): number {
  // Prometheus text timestamps are milliseconds, OpenMetrics ones seconds.
  return timestamp > 1e11 ? timestamp / 1000 : timestamp;
}

const TITLES: Record<Kind, string> = {
  certify: 'Proxies failing to obtain an identity certificate',
  'trust-anchor': 'Trust-anchor mismatch: peers present certificates from an unknown issuer',
  'tls-alert': 'Proxies refusing TLS handshakes after start-up',
  'not-ready': 'Proxies still waiting for identity long after start',
};

function describeLogs(kind: Kind, pods: PodSignals[], options: IdentityFailureOptions): FindingDraft {
  const tallies = pods.map((p) => ({ p, t: p.kinds[kind]! })).sort((a, b) => b.t.count - a.t.count || a.p.pod.localeCompare(b.p.pod));
  const total = tallies.reduce((n, x) => n + x.t.count, 0);
  const merged = signalTally();
  for (const { t } of tallies) mergeTally(merged, t);
  const single = pods.length === 1;
  const seconds = durationOf(merged, single);
  const over = seconds !== null && seconds > 0 ? ` over ${formatDuration(seconds)}` : '';
  const who = single ? `Proxy ${pods[0]!.pod}` : `${pods.length} proxies`;
  const accessDenied = pods.reduce((n, p) => n + p.accessDenied, 0);
  const badCertificate = pods.reduce((n, p) => n + p.badCertificate, 0);
  const controlPlane = controlPlaneLocation(merged.samples.map((x) => x.text));
  const messages: Record<Kind, string> = {
    certify: `${who} logged ${plural(total, 'failed certification attempt')}${over}. A proxy without a certificate never becomes ready and cannot serve or send meshed traffic; with the identity controller down every new or restarted proxy is stuck the same way.`,
    'trust-anchor': `${who} logged ${plural(total, 'TLS failure')} with UnknownIssuer${over}: the peer's certificate chains to a CA that is not in this proxy's trust anchors. This does not heal by retrying; it follows a trust-anchor or issuer rotation done without a bundle, or clusters with different roots.`,
    'tls-alert': `${who} sent ${plural(total, 'fatal TLS alert')} after the first ${options.startupGraceSeconds} s of uptime${over} (${accessDenied} AccessDenied, ${badCertificate} BadCertificate). AccessDenied means the proxy had no certificate to present when clients connected; BadCertificate that a peer's certificate did not verify.`,
    'not-ready': `${who} still logged "Waiting for identity to be initialized" after ${options.maxIdentityWaitSeconds} s of uptime: certification has not succeeded, so the pod stays unready.`,
  };
  const remediation: Record<Kind, string> = {
    certify: [
      `1. Check the identity controller: kubectl -n ${controlPlane.namespace} get pods -l linkerd.io/control-plane-component=identity and kubectl -n ${controlPlane.namespace} logs deploy/linkerd-identity -c identity (an expired or missing issuer certificate makes it refuse every CSR; \`linkerd check\` reports it).`,
      '2. Check that proxies reach it: linkerd-identity-headless must resolve (see dns-resolution-failure) and port 8080 must not be blocked by a NetworkPolicy or firewall.',
      '3. After fixing the issuer or trust anchor, restart the stuck workloads (kubectl rollout restart) so they request a certificate at once instead of waiting for the next retry.',
    ].join('\n'),
    'trust-anchor': [
      '1. Compare the trust anchors: the linkerd-identity-trust-roots ConfigMap (LINKERD2_PROXY_IDENTITY_TRUST_ANCHORS in the proxies) must contain the root that signed the issuer certificate of every peer.',
      '2. Rotate with a bundle: put old and new roots in the trust-anchor bundle, roll the control plane, then kubectl rollout restart the data plane, and only then drop the old root (`linkerd check --proxy` verifies each step).',
      '3. Across clusters (multicluster), both clusters need a shared trust anchor.',
    ].join('\n'),
    'tls-alert': [
      '1. Look for certification failures in the same pod and fix identity first: AccessDenied with "no server certificate chain resolved" means the proxy has no certificate yet.',
      '2. BadCertificate: a peer presented a certificate this proxy does not trust; compare trust anchors as for UnknownIssuer.',
      "3. If the clients are kubelet probes on the admin port 4191 during start-up only, raise the probes' initialDelaySeconds; after start-up the alerts are an identity problem.",
    ].join('\n'),
    'not-ready': [
      '1. Find why certification fails: logs of linkerd-identity, DNS of linkerd-identity-headless, the issuer certificate validity (`linkerd check`).',
      '2. Restart the pod once identity is healthy; it then requests a certificate at once.',
    ].join('\n'),
  };
  const namespaces = [...new Set(pods.map((p) => p.namespace).filter((n): n is string => !!n))];
  const timeline = toTimeline(merged.perMinute, `${kind} identity failures per minute`);
  // A certificate identity issued that the proxy itself rejects (`Received invalid certificate:
  // CertNotValidYet` / `CertExpired`) is about dates, not about reaching identity: say which.
  const dated = kind === 'certify' ? datedLeaf(merged.samples.map((x) => x.text)) : null;
  if (dated) {
    messages.certify += ` The proxy rejects the certificate identity issued it as ${dated.problem === 'expired' ? 'expired' : 'not valid yet'}: ${
      dated.problem === 'expired'
        ? "a workload certificate is valid for 24 h from its issuance, so an expired one means the issuer's own validity ended first or a clock runs ahead by a day"
        : "identity stamps a certificate with its own clock, so the proxy's node runs behind the identity controller's node"
    }.`;
    remediation.certify = [
      dated.problem === 'expired'
        ? "1. Check the issuer's dates (`linkerd check` identity section, or kubectl -n linkerd get secret linkerd-identity-issuer -o jsonpath='{.data.crt\\.pem}' | base64 -d | openssl x509 -noout -dates) and re-issue it if it expired; then compare `date -u` on the nodes."
        : '1. Synchronise the clocks: compare `date -u` (timedatectl status) on the node of this proxy and on the node of linkerd-identity, and fix NTP (chronyd, systemd-timesyncd) where they drift.',
      '2. Then restart the stuck workloads (kubectl rollout restart) so they request a new certificate at once.',
    ].join('\n');
  }
  return {
    severity: kind === 'tls-alert' || kind === 'not-ready' ? 'warning' : 'error',
    kind,
    title: dated
      ? `Proxies reject the certificate identity issued them: ${dated.problem === 'expired' ? 'it expired' : 'not valid yet, clock skew between nodes'}`
      : TITLES[kind],
    message: messages[kind],
    subject: {
      ...(namespaces.length === 1 ? { namespace: namespaces[0] } : {}),
      ...(single ? { pod: pods[0]!.pod } : {}),
      target: 'linkerd-identity-headless:8080',
    },
    evidence: {
      controller: 'identity',
      failureKind: kind,
      lines: total,
      podsAffected: pods.length,
      window: windowEvidence(merged, single),
      pods: tallies.slice(0, 10).map(({ p, t }) => ({ pod: p.pod, lines: t.count })),
      ...(kind === 'tls-alert' ? { accessDenied, badCertificate, alertsDuringStartup: pods.reduce((n, p) => n + p.tlsAlertsDuringStartup, 0) } : {}),
      samples: merged.samples,
      ...(timeline ? { timeline } : {}),
      ...(dated ? { certificate: { which: certificateLabel(dated.role), ...dated } } : {}),
    },
    locations: locationsOf(merged),
    remediation: remediation[kind],
    keyFigure: { name: 'lines', value: total },
  };
}

function describeExpiry(state: State, options: IdentityFailureOptions): FindingDraft | null {
  const certs = [...state.certs.values()].filter((c) => c.expiry !== null && c.expiry > 0);
  if (certs.length === 0) return null;
  // "Now" offline is when the dump was taken: its sample timestamps, else the configured dumpTime.
  // Without either nothing is judged: sections of one file may come from dumps taken at different
  // times, so one proxy's clock (its start time, its certificate) says nothing about another's.
  const configured = options.dumpTime.trim() === '' ? NaN : Date.parse(options.dumpTime) / 1000;
  const now = state.dumpTime ?? (Number.isNaN(configured) ? null : configured);
  if (now === null) return null;
  const clock = state.dumpTime !== null ? 'sample timestamps of the dump' : 'dumpTime option';
  const rows = certs
    .map((c) => ({ c, left: c.expiry! - now }))
    .filter((x) => x.left < options.expiryWarningSeconds)
    .sort((a, b) => a.left - b.left);
  if (rows.length === 0) return null;
  const expired = rows.filter((r) => r.left <= 0);
  const namespaces = [...new Set(rows.map((r) => r.c.namespace).filter((n): n is string => !!n))];
  const nowIso = new Date(now * 1000).toISOString();
  const message =
    (expired.length > 0
      ? `${plural(expired.length, 'proxy', 'proxies')} hold an identity certificate that had already expired at ${nowIso} (${clock})`
      : `${plural(rows.length, 'proxy', 'proxies')} hold a certificate with less than ${formatDuration(options.expiryWarningSeconds)} left at ${nowIso} (${clock})`) +
    '. Proxies renew at 70 % of the lifetime and retry every 10 s, so a certificate this close to expiry means renewal has been failing for hours; when it expires every mTLS connection of the proxy fails.';
  return {
    severity: expired.length > 0 || rows[0]!.left < 3600 ? 'error' : 'warning',
    kind: expired.length > 0 ? 'certificate-expired' : 'certificate-expiring',
    title: expired.length > 0 ? 'Proxy identity certificates expired' : 'Proxy identity certificates close to expiry',
    message,
    subject: {
      ...(namespaces.length === 1 ? { namespace: namespaces[0] } : {}),
      ...(rows.length === 1 ? { pod: rows[0]!.c.pod } : {}),
      target: 'linkerd-identity-headless:8080',
    },
    evidence: {
      controller: 'identity',
      failureKind: 'expiry',
      now: nowIso,
      nowSource: clock,
      proxies: rows.length,
      expired: expired.length,
      pods: rows.slice(0, 10).map((r) => ({ pod: r.c.pod, expiresAt: new Date(r.c.expiry! * 1000).toISOString(), secondsLeft: Math.round(r.left) })),
    },
    locations: rows.slice(0, 3).map((r) => ({ path: r.c.path, line: r.c.line })),
    remediation: [
      '1. Find why renewal fails: the proxies log "Failed to obtain identity" (see this rule\'s log signals); check linkerd-identity and the issuer certificate (`linkerd check`).',
      '2. Renew the issuer certificate if it expired (cert-manager or `linkerd upgrade --identity-issuer-certificate-file …`), then restart the affected workloads.',
    ].join('\n'),
    keyFigure: { name: 'proxies', value: rows.length },
  };
}

/** The workload certificate a proxy rejected on receipt, when its lines say it is expired or not valid yet. */
function datedLeaf(lines: readonly string[]): CertificateFinding | null {
  for (const line of lines) {
    const cert = classifyCertificateText(line, 'proxy-leaf');
    if (cert && (cert.problem === 'expired' || cert.problem === 'not-yet-valid')) return cert;
  }
  return null;
}
