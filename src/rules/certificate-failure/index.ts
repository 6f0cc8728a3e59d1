// Certificates as one concept, whatever input shows them failing: a controller's Go log (`x509:
// certificate has expired or is not yet valid: current time … is after …`, `http: TLS handshake
// error from …: remote error: tls: bad certificate`), the API server's answer to an admission call
// in an event or in Helm's upgrade output (`failed calling webhook "…": … x509: certificate signed
// by unknown authority`), or a line no parser read (the last look's certificate-evidence). Each
// becomes one finding per certificate and failure that says which certificate (the component that
// logged the line and the names in it tell), when (the dates Go prints), the likely cause from the
// knowledge base (src/knowledge/causes/certificates.ts) with the context that decides it, and the
// rotation and restart for the setup the lines show. `linkerd check` output is read by
// linkerd-check, which uses the same classifier; findings about one certificate share a target, so
// the incident step makes them one incident. The rust proxy's own words (UnknownIssuer,
// CertExpired) stay with identity-failure, which judges them per proxy.

import type { FindingDraft, KubeEventRecord, ProxyLogRecord, SampleLine } from '../../core/types.js';
import type { CertificateEvidenceRecord } from '../../core/certificate-evidence.js';
import { defineRule } from '../../core/types.js';
import { keepSample } from '../../core/evidence.js';
import { goLineText, isGoLog } from '../../kit/go-log.js';
import {
  CERTIFICATE_CONTROLLERS,
  CERTIFICATE_TARGETS,
  certificateLabel,
  classifyCertificateText,
  describeCertificate,
  restartAfter,
  rotation,
  setupOf,
  type CertificateFinding,
  type CertificateProblem,
  type CertificateRole,
  type CertificateSetup,
} from '../../knowledge/certificates.js';
import { CERTIFICATE_CONTEXTS, CERTIFICATE_KNOWLEDGE } from '../../knowledge/causes/certificates.js';
import type { Cause, FailureKnowledge } from '../../knowledge/causes/types.js';
import { detach } from '../../util/stats.js';
import { workloadOfPod } from '../../util/path-meta.js';

const MAX_SAMPLES = 3;
const MAX_PODS = 50;
const MAX_NAMES = 5;

/** What one certificate's failures add up to in a run. Keyed by role and problem: at most 11 × 9 groups, so the map is bounded by its key space. */
interface Group {
  role: CertificateRole;
  problem: CertificateProblem;
  count: number;
  /** Pods that logged or were named by the lines, at most MAX_PODS; `morePods` counts the rest. */
  pods: string[];
  morePods: number;
  namespaces: string[];
  names: string[];
  notAfter: string | null;
  notBefore: string | null;
  currentTime: string | null;
  clockSkew: boolean;
  /** One bit per line tell of the situation's causes (in cause order, then tell order). */
  tellBits: number;
  upgrade: boolean;
  setup: CertificateSetup;
  samples: SampleLine[];
  location: { path: string; line: number };
}

interface State {
  groups: Map<string, Group>;
  minFailures: number;
}

/** Helm's upgrade output and the CLI's upgrade commands: the failures come from an upgrade. */
const UPGRADE = /cannot patch "|UPGRADE FAILED|helm upgrade|linkerd upgrade|linkerd viz install|has been upgraded/;
/** Go's http server: the peer (the API server) aborted the handshake with an alert about this server's certificate. */
const REMOTE_ALERT = 'remote error: tls:';
const CLIENT_VERIFY = /failed to verify client'?s? certificate/;
/** The CA kubeadm and managed clusters give the front proxy (requestheader-client-ca-file). */
const AGGREGATOR_CA = /"(?:front-proxy-ca|agg-ca|aggregator[\w-]{0,40})"|requestheader/;

const SETUP_RANK: Readonly<Record<CertificateSetup, number>> = { unknown: 0, cli: 1, helm: 2, 'cert-manager': 3 };

/** The certificate a component serves, from the container (or else the pod) that logged the line. */
export function servedBy(pod: string | undefined, container: string | undefined): CertificateRole | null {
  const names = [container, pod ? (workloadOfPod(pod) ?? pod) : undefined].filter((n): n is string => n !== undefined && n !== 'linkerd-proxy');
  for (const n of names) {
    if (/(?:^|-)tap-injector$/.test(n)) return 'webhook';
    if (/(?:^|-)tap$/.test(n)) return 'tap-apiservice';
    if (/proxy-injector$/.test(n)) return 'proxy-injector-webhook';
    if (/sp-validator$/.test(n)) return 'sp-validator-webhook';
    if (n === 'policy' || /policy-validator$/.test(n)) return 'policy-validator-webhook';
    if (/(?:^|-)identity$/.test(n)) return 'identity-issuer';
  }
  return null;
}

/**
 * Which certificate a line's failure is about: a server that logs its peer's alert (`remote error:
 * tls: bad certificate`) names its own; tap failing to verify its client names the API server's
 * front-proxy certificate; otherwise the names the text holds decide (classifyCertificateText).
 */
function classify(text: string, pod: string | undefined, container: string | undefined): CertificateFinding | null {
  const served = servedBy(pod, container);
  // Of Linkerd's servers only tap verifies its clients' certificates: those of the API server's aggregation layer.
  if (CLIENT_VERIFY.test(text)) return classifyCertificateText(text, served === 'tap-apiservice' || AGGREGATOR_CA.test(text) ? 'aggregator-client' : null);
  if (text.includes(REMOTE_ALERT) && served !== null) return classifyCertificateText(text, served);
  return classifyCertificateText(text, served === 'identity-issuer' ? 'identity-issuer' : null);
}

const WEBHOOK_ROLES: ReadonlySet<CertificateRole> = new Set(['proxy-injector-webhook', 'sp-validator-webhook', 'policy-validator-webhook', 'webhook']);
const TRUST_PROBLEMS: ReadonlySet<CertificateProblem> = new Set(['unknown-authority', 'bad-signature', 'bad-certificate']);

/** The knowledge-base entry for a certificate's failure, or null when the base has none for it. */
export function situationOf(role: CertificateRole, problem: CertificateProblem): FailureKnowledge | null {
  const id = ((): string | null => {
    if (problem === 'expired') return 'certificate:expired';
    if (problem === 'not-yet-valid') return 'certificate:not-yet-valid';
    if (role === 'aggregator-client') return 'certificate:aggregator-client-untrusted';
    if (!TRUST_PROBLEMS.has(problem)) return null;
    if (role === 'tap-apiservice') return 'certificate:tap-untrusted';
    if (WEBHOOK_ROLES.has(role)) return 'certificate:webhook-untrusted';
    if (role === 'identity-issuer' && problem === 'unknown-authority') return 'certificate:issuer-untrusted';
    return null;
  })();
  return id === null ? null : (CERTIFICATE_KNOWLEDGE.find((k) => k.signature === id) ?? null);
}

interface LineTell {
  cause: number;
  says: string;
  pattern: RegExp;
}

/** The line tells of an entry's causes, flattened in order; a tell's bit is its index here (fewer than 31 per entry: a test holds it). */
function lineTells(knowledge: FailureKnowledge): LineTell[] {
  return knowledge.causes.flatMap((cause, i) => cause.tells.flatMap((t) => (t.line ? [{ cause: i, says: t.says, pattern: new RegExp(t.line, 'i') }] : [])));
}

const TELLS: ReadonlyMap<string, LineTell[]> = new Map(CERTIFICATE_KNOWLEDGE.map((k) => [k.signature, lineTells(k)]));

function note(
  state: State,
  cert: CertificateFinding,
  text: string,
  at: { path: string; line: number },
  where: { pod?: string; namespace?: string },
  weight = 1,
): void {
  const key = `${cert.role}|${cert.problem}`;
  let g = state.groups.get(key);
  if (!g) {
    g = {
      role: cert.role,
      problem: cert.problem,
      count: 0,
      pods: [],
      morePods: 0,
      namespaces: [],
      names: [],
      notAfter: null,
      notBefore: null,
      currentTime: null,
      clockSkew: false,
      tellBits: 0,
      upgrade: false,
      setup: 'unknown',
      samples: [],
      location: { path: detach(at.path), line: at.line },
    };
    state.groups.set(key, g);
  }
  g.count = Math.min(g.count + weight, Number.MAX_SAFE_INTEGER);
  if (where.pod !== undefined && !g.pods.includes(where.pod)) {
    if (g.pods.length < MAX_PODS) g.pods.push(detach(where.pod));
    else g.morePods++;
  }
  if (where.namespace !== undefined && g.namespaces.length < MAX_NAMES && !g.namespaces.includes(where.namespace)) g.namespaces.push(detach(where.namespace));
  if (cert.name !== null && g.names.length < MAX_NAMES && !g.names.includes(cert.name)) g.names.push(detach(cert.name));
  // The earliest expiry and the latest start are the ones that explain every line.
  if (cert.notAfter !== null && (g.notAfter === null || cert.notAfter < g.notAfter)) g.notAfter = cert.notAfter;
  if (cert.notBefore !== null && (g.notBefore === null || cert.notBefore > g.notBefore)) g.notBefore = cert.notBefore;
  if (cert.currentTime !== null) g.currentTime = cert.currentTime;
  g.clockSkew ||= cert.clockSkew;
  g.upgrade ||= UPGRADE.test(text);
  const setup = setupOf(text);
  if (SETUP_RANK[setup] > SETUP_RANK[g.setup]) g.setup = setup;
  const knowledge = situationOf(cert.role, cert.problem);
  if (knowledge)
    (TELLS.get(knowledge.signature) ?? []).forEach((t, bit) => {
      if (t.pattern.test(text)) g.tellBits |= 1 << bit;
    });
  keepSample(g.samples, MAX_SAMPLES, at.path, at.line, text);
}

export interface CertificateFailureOptions {
  minFailures: number;
}

export default defineRule<CertificateFailureOptions, State>({
  meta: {
    id: 'certificate-failure',
    code: 'LD1009',
    title: 'A Linkerd certificate expired or is not trusted',
    description:
      "Certificate verification failures in controller logs, events, Helm and kubectl answers and any line the parsers left unread (x509 / TLS errors), told as one finding per certificate: which one (trust anchor, issuer, a webhook's or tap's serving certificate), when it expired or starts, the likely cause and the rotation and restart for the setup shown.",
    defaultSeverity: 'error',
    // Any input can hold a line the last look reads; an input of no known kind counts as kubectl (engine.ts).
    inputs: ['proxy-log', 'kubectl', 'linkerd-cli', 'coredns-log', 'prometheus', 'dig'],
    lineInterest: { 'proxy-log': ['x509', 'certificate'] },
    defaultOptions: { minFailures: 1 },
    optionSchema: {
      minFailures: {
        type: 'integer',
        minimum: 1,
        description: 'Failures of one certificate from which the rule fires. Verification fails the same way every time, so one line is enough.',
      },
    },
  },

  createState: (options) => ({ groups: new Map(), minFailures: options.minFailures }),

  visitors: {
    'proxy-log'(state, record: ProxyLogRecord) {
      if (!isGoLog(record)) return;
      const text = goLineText(record);
      const cert = classify(text, record.pod, record.container);
      if (cert) note(state, cert, text, record, { ...(record.pod ? { pod: record.pod } : {}), ...(record.namespace ? { namespace: record.namespace } : {}) });
    },
    'kube-event'(state, record: KubeEventRecord) {
      if (!record.message.includes('x509') && !record.message.includes('certificate')) return;
      const cert = classifyCertificateText(record.message);
      if (cert) note(state, cert, record.message, record, { ...(record.namespace ? { namespace: record.namespace } : {}) }, record.count);
    },
    'certificate-evidence'(state, record: CertificateEvidenceRecord) {
      const text = record.lead ? `${record.lead} ${record.text}` : record.text;
      const cert = classify(text, record.pod, record.container);
      if (cert) note(state, cert, text, record, { ...(record.pod ? { pod: record.pod } : {}), ...(record.namespace ? { namespace: record.namespace } : {}) });
    },
  },

  merge(into, from) {
    for (const [key, g] of from.groups) {
      const mine = into.groups.get(key);
      if (!mine) {
        into.groups.set(key, g);
        continue;
      }
      mine.count = Math.min(mine.count + g.count, Number.MAX_SAFE_INTEGER);
      for (const pod of g.pods) {
        if (mine.pods.includes(pod)) continue;
        if (mine.pods.length < MAX_PODS) mine.pods.push(pod);
        else mine.morePods++;
      }
      mine.morePods += g.morePods;
      for (const ns of g.namespaces) if (mine.namespaces.length < MAX_NAMES && !mine.namespaces.includes(ns)) mine.namespaces.push(ns);
      for (const n of g.names) if (mine.names.length < MAX_NAMES && !mine.names.includes(n)) mine.names.push(n);
      if (g.notAfter !== null && (mine.notAfter === null || g.notAfter < mine.notAfter)) mine.notAfter = g.notAfter;
      if (g.notBefore !== null && (mine.notBefore === null || g.notBefore > mine.notBefore)) mine.notBefore = g.notBefore;
      mine.currentTime ??= g.currentTime;
      mine.clockSkew ||= g.clockSkew;
      mine.tellBits |= g.tellBits;
      mine.upgrade ||= g.upgrade;
      if (SETUP_RANK[g.setup] > SETUP_RANK[mine.setup]) mine.setup = g.setup;
      for (const s of g.samples) keepSample(mine.samples, MAX_SAMPLES, s.path, s.line, s.text);
    }
  },

  finish(state) {
    return [...state.groups.values()]
      .filter((g) => g.count >= state.minFailures)
      .sort((a, b) => b.count - a.count || a.role.localeCompare(b.role))
      .map(describe);
  },
});

/** Facts of the run that `context` tells test. */
function contextHolds(g: Group, context: string): boolean {
  switch (context) {
    case CERTIFICATE_CONTEXTS.severalReplicas:
      return g.pods.length + g.morePods > 1;
    case CERTIFICATE_CONTEXTS.upgrade:
      return g.upgrade;
    case CERTIFICATE_CONTEXTS.certManager:
      return g.setup === 'cert-manager';
    default:
      return false;
  }
}

/** The causes whose tells the run shows, in the base's order, each with what told it. */
function toldCauses(g: Group, knowledge: FailureKnowledge): { cause: Cause; says: string[] }[] {
  const lines = TELLS.get(knowledge.signature) ?? [];
  return knowledge.causes.flatMap((cause, i) => {
    const says = [
      ...cause.tells.filter((t) => t.context !== undefined && contextHolds(g, t.context)).map((t) => t.says),
      ...lines.filter((t, bit) => t.cause === i && (g.tellBits & (1 << bit)) !== 0).map((t) => t.says),
    ];
    return says.length > 0 ? [{ cause, says }] : [];
  });
}

const DEPLOYMENTS: Readonly<Partial<Record<CertificateRole, { deployment: string; namespace: string; webhook: string; value: string }>>> = {
  'proxy-injector-webhook': { deployment: 'linkerd-proxy-injector', namespace: 'linkerd', webhook: 'proxy-injector', value: 'proxyInjector' },
  'sp-validator-webhook': { deployment: 'linkerd-destination', namespace: 'linkerd', webhook: 'sp-validator', value: 'profileValidator' },
  'policy-validator-webhook': { deployment: 'linkerd-destination', namespace: 'linkerd', webhook: 'policy-validator', value: 'policyValidator' },
  webhook: { deployment: 'tap-injector', namespace: 'linkerd-viz', webhook: 'tap-injector', value: 'tapInjector' },
  'tap-apiservice': { deployment: 'tap', namespace: 'linkerd-viz', webhook: 'tap', value: 'tap' },
  'aggregator-client': { deployment: 'tap', namespace: 'linkerd-viz', webhook: 'tap', value: 'tap' },
  'trust-anchor': { deployment: 'linkerd-identity', namespace: 'linkerd', webhook: 'identity', value: 'identity' },
  'identity-issuer': { deployment: 'linkerd-identity', namespace: 'linkerd', webhook: 'identity', value: 'identity' },
};

function fill(template: string, g: Group): string {
  const d = DEPLOYMENTS[g.role];
  // Before 2.10 (viz extension) tap ran as linkerd-tap in the linkerd namespace: the pods say which.
  const legacyTap = (g.role === 'tap-apiservice' || g.role === 'aggregator-client') && g.pods.some((p) => p.startsWith('linkerd-tap-'));
  const values = new Map<string, string>(
    Object.entries({
      webhook: d?.webhook ?? 'Linkerd',
      deployment: legacyTap ? 'linkerd-tap' : (d?.deployment ?? 'the pod that serves it'),
      namespace: legacyTap ? 'linkerd' : g.namespaces.length === 1 ? g.namespaces[0]! : (d?.namespace ?? 'linkerd'),
      webhookValue: d?.value ?? 'the webhook',
      certificate: certificateLabel(g.role),
      notAfter: g.notAfter ?? 'a date the lines do not give',
      rotation: rotation(g, g.setup),
    }),
  );
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => values.get(key) ?? whole);
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function describe(g: Group): FindingDraft {
  const cert: CertificateFinding = {
    role: g.role,
    problem: g.problem,
    notAfter: g.notAfter,
    notBefore: g.notBefore,
    currentTime: g.currentTime,
    name: g.names[0] ?? null,
    clockSkew: g.clockSkew,
  };
  const what = cap(describeCertificate(cert));
  const knowledge = situationOf(g.role, g.problem);
  const told = knowledge ? toldCauses(g, knowledge) : [];
  // A cause is decided by a tell the run shows, or when the base knows only one (the dates decide a clock skew).
  const single = knowledge && knowledge.causes.length === 1 && (g.problem !== 'not-yet-valid' || g.clockSkew) ? knowledge.causes[0]! : null;
  const likely = told[0]?.cause ?? single;
  const title = likely ? cap(fill(likely.title, g)) : what;
  const pods = g.pods.length + g.morePods;
  const seen = `${plural(g.count, 'failure')}${pods > 0 ? ` from ${pods === 1 ? g.pods[0] : `${plural(pods, 'pod')} (${g.pods.slice(0, 3).join(', ')}${pods > 3 ? ', …' : ''})`}` : ''}`;
  const others = knowledge ? knowledge.causes.filter((c) => c !== likely) : [];
  const message = [
    `${what} (${seen}).`,
    likely ? `Likely cause: ${fill(likely.why, g)}${told[0] ? ` What tells it: ${told[0].says.join('; ')}.` : ''}` : '',
    others.length > 0
      ? `${likely ? 'Other causes' : 'Causes, most likely first'}: ${others
          .map((c) => `${fill(c.title, g)}${c.tells.length > 0 ? ` (told by: ${c.tells.map((t) => t.says).join('; ')})` : ''}`)
          .join('; ')}.`
      : '',
  ]
    .filter((s) => s !== '')
    .join(' ');
  const steps = [
    likely ? fill(likely.action, g) : rotation(g, g.setup),
    ...(likely && !/restart/.test(likely.action) ? [`Then restart what serves or trusts it: ${restartAfter(g.role)}`] : []),
    ...(likely && /restart/.test(likely.action) && g.problem !== 'not-yet-valid'
      ? [`If it still fails after the restart, re-issue it: ${rotation(g, g.setup)}`]
      : []),
    ...(!likely ? [`Then restart: ${restartAfter(g.role)}`] : []),
  ];
  const target = CERTIFICATE_TARGETS[g.role] ?? g.names[0] ?? g.role;
  const controller = CERTIFICATE_CONTROLLERS[g.role];
  return {
    severity: g.problem === 'expiring-soon' ? 'warning' : 'error',
    kind: `certificate/${g.role}/${g.problem}`,
    title,
    message,
    subject: {
      ...(g.namespaces.length === 1 ? { namespace: g.namespaces[0] } : {}),
      ...(g.pods.length === 1 && g.morePods === 0 ? { pod: g.pods[0] } : {}),
      target,
    },
    locations: [g.location],
    keyFigure: { name: 'failures', value: g.count },
    evidence: {
      certificate: { which: certificateLabel(g.role), ...cert },
      failures: g.count,
      ...(knowledge ? { situation: knowledge.signature, causes: knowledge.causes.map((c) => c.id) } : {}),
      ...(likely ? { likelyCause: likely.id } : {}),
      ...(told.length > 0 ? { tells: told.map((t) => ({ cause: t.cause.id, says: t.says.join('; ') })) } : {}),
      setup: g.setup,
      ...(g.upgrade ? { upgrade: true } : {}),
      ...(controller ? { controller } : {}),
      pods: g.pods.map((pod) => ({ pod })),
      ...(g.morePods > 0 ? { podsNotListed: g.morePods } : {}),
      samples: g.samples,
    },
    remediation: steps.map((s, i) => `${i + 1}. ${s.endsWith('.') ? s : `${s}.`}`).join('\n'),
  };
}
