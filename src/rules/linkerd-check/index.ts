// What `linkerd check` (and the CLI's other answers) already said, in the user's words. Each check
// that did not pass gets the verdict of its hint anchor (src/knowledge/checks.ts, one per check of
// every release from 2.7 on): what failed, the likely causes in order, the first thing to do with
// the values the output holds. A certificate the output names (a check about one, or x509 / rustls
// wording in its details or in a command's `Error:`) is told as a certificate: which one, when it
// expired or starts, clock skew as such, the rotation for the setup the paste shows and the restart
// it needs. A later run of the same check in the same input supersedes an earlier one (the paste of
// a fix). A warning the verdict calls benign (a newer release exists) is info; all green is quiet.

import {
  defineRule,
  type FindingDraft,
  type LinkerdCheckRecord,
  type LinkerdCliMessageRecord,
  type LinkerdCliRowRecord,
  type Severity,
} from '../../core/types.js';
import { rowFinding, tapFailure, tapFinding, type AnswerOptions, type TapTally } from './answers.js';
import { stateCap } from '../../core/state-cap.js';
import { addDropped, droppedKeys, droppedSentence, type DroppedKeys, keepWorst } from '../../util/stats.js';
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
} from '../../knowledge/certificates.js';
import { ANCHOR_BY_CHECK, ANCHOR_BY_DESCRIPTION } from '../../knowledge/check-anchors.js';
import { fill, verdictOf, type CheckValues, type CheckVerdict } from '../../knowledge/checks.js';
import { cliErrorOf } from '../../knowledge/cli-errors.js';
import { observedCause, valuesOf } from './values.js';

/** Distinct checks and messages kept per run of the rule: a paste holds a few dozen. */
const MAX_CHECKS = stateCap(2_000);
/** Characters of command lines kept to tell the setup (Helm, cert-manager, `linkerd upgrade`). */
const MAX_SETUP_TEXT = 4_000;

interface Seen {
  record: LinkerdCheckRecord | LinkerdCliMessageRecord;
  order: number;
}

interface State {
  checks: Map<string, Seen>;
  /** Rows of the CLI's tables that show a failure (healthy rows are not kept). */
  rows: LinkerdCliRowRecord[];
  /** tap: the authority of each request id until its response, and the tallies per authority. */
  tapIds: Map<string, string>;
  taps: Map<string, TapTally>;
  order: number;
  /** Commands and details that tell how certificates are managed. */
  setupText: string;
  /** Checks and failing rows let go to stay within MAX_CHECKS: passing checks first (keepWorst). */
  dropped: DroppedKeys;
}

/**
 * How much a check weighs against the verdict, for keepWorst: a failed check above a warning above
 * a CLI message (which may be an error), a passing check 0: 2,000 passing checks before or after one
 * failure never push it out (issue 44: checks were taken first come).
 */
function rankOf(seen: Seen): number {
  const r = seen.record;
  if (r.kind === 'linkerd-cli-message') return 1;
  return r.status === 'fail' ? 3 : r.status === 'ok' ? 0 : 2;
}

function keyOf(r: LinkerdCheckRecord | LinkerdCliMessageRecord): string {
  if (r.kind === 'linkerd-cli-message') return `${r.path}\u0000msg\u0000${r.message.slice(0, 200)}`;
  const what = r.description !== '' ? `${r.category ?? ''}/${r.description}` : `#${r.hint ?? r.line}`;
  return `${r.path}\u0000${what}`;
}

function anchorOf(r: LinkerdCheckRecord): string | null {
  if (r.hint) return r.hint;
  const d = r.description.toLowerCase();
  return ANCHOR_BY_CHECK[`${r.category ?? '?'}/${d}`.toLowerCase()] ?? ANCHOR_BY_DESCRIPTION[d] ?? null;
}

/** Tap request ids remembered until their response; tallied authorities. */
const MAX_TAP_IDS = stateCap(10_000);
const MAX_TAP_AUTHORITIES = stateCap(1_000);

export default defineRule<AnswerOptions, State>({
  meta: {
    id: 'linkerd-check',
    code: 'LD4001',
    title: 'What linkerd check and the Linkerd CLI reported',
    description:
      'Checks of linkerd check (core, --pre, --proxy, viz, multicluster, jaeger) that failed or warned, and errors of the CLI, with what each means, its likely causes and the first thing to do; certificates named with their dates.',
    defaultSeverity: 'error',
    inputs: ['linkerd-cli'],
    defaultOptions: { minSuccessRate: 0.95, errorSuccessRate: 0.8 },
    optionSchema: {
      minSuccessRate: { type: 'number', minimum: 0, maximum: 1, description: 'Success rate of a viz stat, routes or top row under which the rule warns.' },
      errorSuccessRate: { type: 'number', minimum: 0, maximum: 1, description: 'Success rate under which the row is an error.' },
    },
  },

  createState: () => ({ checks: new Map(), rows: [], tapIds: new Map(), taps: new Map(), order: 0, setupText: '', dropped: droppedKeys() }),

  visitors: {
    'linkerd-check'(state, record) {
      remember(state, record);
      if (record.command) noteSetup(state, record.command);
    },
    'linkerd-cli-message'(state, record) {
      remember(state, record);
      if (record.command) noteSetup(state, record.command);
    },
    'linkerd-cli-row'(state, record) {
      if (record.table === 'tap') tapRow(state, record);
      else if (state.rows.length < MAX_CHECKS) state.rows.push(record);
      else state.dropped.signal++;
    },
  },

  merge(into, from) {
    for (const [key, seen] of from.checks) into.checks.set(key, { record: seen.record, order: into.order + seen.order });
    keepWorst(into.checks, MAX_CHECKS / 2, rankOf, into.dropped);
    into.order += from.order;
    for (const r of from.rows) {
      if (into.rows.length < MAX_CHECKS) into.rows.push(r);
      else into.dropped.signal++;
    }
    for (const [authority, t] of from.taps) {
      const mine = into.taps.get(authority);
      if (!mine) {
        if (into.taps.size < MAX_TAP_AUTHORITIES) into.taps.set(authority, t);
        continue;
      }
      mine.total += t.total;
      mine.failed += t.failed;
      for (const [k, n] of Object.entries(t.statuses)) mine.statuses[k] = (mine.statuses[k] ?? 0) + n;
    }
    noteSetup(into, from.setupText);
    addDropped(into.dropped, from.dropped);
  },

  finish(state, { options }) {
    const findings: FindingDraft[] = [];
    const setup = setupOf(state.setupText);
    const seen = [...state.checks.values()].sort((a, b) => a.order - b.order);
    for (const { record } of seen) {
      const finding = record.kind === 'linkerd-check' ? checkFinding(record, setup) : messageFinding(record, setup);
      if (finding) findings.push(finding);
    }
    for (const row of state.rows) {
      const finding = rowFinding(row, options);
      if (finding) findings.push(finding);
    }
    for (const t of state.taps.values()) {
      const finding = tapFinding(t);
      if (finding) findings.push(finding);
    }
    const dropped = droppedSentence(state.dropped, 'checks and failing rows');
    if (dropped)
      for (const f of findings) {
        f.message = `${f.message} ${dropped}`;
        f.evidence = { ...f.evidence, checksNotTracked: state.dropped.healthy + state.dropped.signal };
      }
    return findings;
  },
});

function remember(state: State, record: LinkerdCheckRecord | LinkerdCliMessageRecord): void {
  const key = keyOf(record);
  if (!state.checks.has(key)) keepWorst(state.checks, MAX_CHECKS / 2, rankOf, state.dropped);
  // A later run of the same check replaces the earlier one: delete first so the order is the latest.
  state.checks.delete(key);
  state.checks.set(key, { record, order: state.order++ });
}

function tapRow(state: State, record: LinkerdCliRowRecord): void {
  const c = record.cells;
  const id = c.id ?? '';
  if (c.event === 'req') {
    if (c[':authority'] && (state.tapIds.size < MAX_TAP_IDS || state.tapIds.has(id))) state.tapIds.set(id, c[':authority']);
    return;
  }
  const authority = state.tapIds.get(id) ?? c.dst ?? 'unknown';
  const { counted, failed, status } = tapFailure(c);
  if (!counted && !failed) return;
  let t = state.taps.get(authority);
  if (!t) {
    if (state.taps.size >= MAX_TAP_AUTHORITIES) return;
    t = { authority, total: 0, failed: 0, statuses: {}, path: record.path, line: record.line, command: record.command };
    state.taps.set(authority, t);
  }
  if (counted) t.total++;
  if (failed) {
    t.failed++;
    if (status) t.statuses[status] = (t.statuses[status] ?? 0) + 1;
    if (t.failed === 1) t.line = record.line;
  }
  if (c.event === 'end') state.tapIds.delete(id);
}

function noteSetup(state: State, text: string): void {
  if (state.setupText.length < MAX_SETUP_TEXT) state.setupText = `${state.setupText}\n${text}`.slice(0, MAX_SETUP_TEXT);
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function certificateOf(text: string, verdict: CheckVerdict | null, anchor: string | null): CertificateFinding | null {
  const role = verdict?.certificate ?? null;
  const found = classifyCertificateText(text, role);
  if (found) return found;
  // A check about a certificate that failed without dated wording (`certificate config is valid`
  // is about configuration, not a certificate's life: left to its verdict).
  if (role && anchor && /time-valid|cert-valid|not-expiring-soon/.test(anchor)) {
    return {
      role,
      problem: anchor.includes('not-expiring-soon') ? 'expiring-soon' : 'expired',
      notAfter: null,
      notBefore: null,
      currentTime: null,
      name: null,
      clockSkew: false,
    };
  }
  return null;
}

function certificateLines(cert: CertificateFinding, setup: ReturnType<typeof setupOf>): string[] {
  if (cert.problem === 'expiring-soon') return [`Rotation: ${rotation(cert, setup)}.`, `Then restart: ${restartAfter(cert.role)}.`];
  if (cert.clockSkew)
    return ['Synchronise the clocks first (timedatectl status on the nodes; chronyd / systemd-timesyncd): the certificate itself may be fine.'];
  if (cert.problem === 'unsupported-algorithm' || cert.problem === 'anchors-mismatch') return [];
  return [`Rotation: ${rotation(cert, setup)}.`, `Then restart: ${restartAfter(cert.role)}.`];
}

function checkFinding(record: LinkerdCheckRecord, setup: ReturnType<typeof setupOf>): FindingDraft | null {
  if (record.status === 'ok') return null;
  const anchor = anchorOf(record);
  const found = verdictOf(anchor);
  const verdict = found?.verdict ?? null;
  const values = valuesOf(record.details, record.command, record.category === null || record.category.includes('data-plane'));
  const detailText = [record.description, ...record.details].join('\n');
  const cert = certificateOf(detailText, verdict, found?.anchor ?? anchor);
  const observed = observedCause(detailText);
  if (!verdict && !cert) {
    const known = cliErrorOf(detailText);
    if (known) return cliErrorFinding(record, known, detailText);
  }
  const label = record.description !== '' ? `"${record.description}"` : `the check with hint ${record.hint ?? '(none)'}`;

  let severity: Severity = record.status === 'fail' ? 'error' : 'warning';
  if (record.status !== 'fail' && verdict?.benignWarning) severity = 'info';
  if (cert?.problem === 'expired' && record.status === 'fail') severity = 'error';

  const meaning = verdict
    ? fill(verdict.meaning, values)
    : record.status === 'fail'
      ? `${label} failed: ${values.detail ?? 'no detail pasted'}`
      : `${label} warned: ${values.detail ?? 'no detail pasted'}`;
  const title = cap(cert && cert.problem !== 'anchors-mismatch' ? describeCertificate(cert) : meaning);
  const statusWord = record.status === 'fail' ? 'failed (×)' : record.status === 'warn' ? 'warned (‼)' : 'was pasted without its status line';
  const parts = [`linkerd check ${label} ${statusWord}${record.category ? ` in ${record.category}` : ''}: ${meaning}.`];
  if (cert && title !== cap(meaning)) parts.push(`${cap(describeCertificate(cert))}.`);
  if (observed) parts.push(`The output shows ${observed}.`);
  if (verdict) parts.push(`Likely causes, most likely first: ${verdict.causes.map((c, i) => `(${i + 1}) ${c}`).join('; ')}.`);
  if (verdict?.fixByVersion) parts.push(`By version: ${fill(verdict.fixByVersion, values)}.`);
  if (severity === 'info' && verdict?.benignWarning) parts.push('This warning alone does not mean anything is broken.');
  const remediation = [
    `1. ${verdict ? fill(verdict.firstAction, values) : cert ? firstCertificateAction(cert) : genericAction(record)}.`,
    ...(cert ? certificateLines(cert, setup).map((l, i) => `${i + 2}. ${l}`) : []),
  ].join('\n');

  return {
    severity,
    kind: cert ? `certificate/${cert.role}/${cert.problem}` : `check/${found?.anchor ?? anchor ?? 'unknown'}`,
    title,
    message: parts.join(' '),
    subject: {
      target: (cert ? CERTIFICATE_TARGETS[cert.role] : null) ?? found?.anchor ?? anchor ?? (verdict ? record.description : (record.command ?? 'linkerd check')),
      ...(values.namespace ? { namespace: values.namespace } : {}),
    },
    evidence: {
      ...(cert && CERTIFICATE_CONTROLLERS[cert.role] ? { controller: CERTIFICATE_CONTROLLERS[cert.role] } : {}),
      check: record.description,
      category: record.category,
      status: record.status,
      hint: record.hint,
      hintVersion: record.hintVersion,
      anchor: found?.anchor ?? anchor,
      command: record.command,
      run: record.run,
      details: record.details.slice(0, 10),
      ...(cert ? { certificate: { which: certificateLabel(cert.role), ...cert } } : {}),
      ...(values.pods.length > 0 ? { pods: values.pods.slice(0, 20).map((pod) => ({ pod })) } : {}),
      samples: [{ path: record.path, line: record.line, text: `${record.description} ${record.details[0] ?? ''}`.trim().slice(0, 300) }],
    },
    locations: [{ path: record.path, line: record.line }],
    remediation,
  };
}

/** An install or upgrade error whose meaning the CLI's source gives (knowledge/cli-errors.ts). */
function cliErrorFinding(record: LinkerdCheckRecord | LinkerdCliMessageRecord, known: NonNullable<ReturnType<typeof cliErrorOf>>, text: string): FindingDraft {
  const command = record.command ?? 'the linkerd command';
  return {
    severity: known.severity,
    kind: 'cli-error',
    title: cap(known.meaning),
    message: `${command} printed: ${text.replace(/\s+/g, ' ').slice(0, 400)}. ${cap(known.meaning)}.`,
    subject: { target: record.command ?? 'linkerd' },
    evidence: {
      command: record.command,
      run: record.run,
      error: text.slice(0, 600),
      samples: [{ path: record.path, line: record.line, text: text.slice(0, 300) }],
    },
    locations: [{ path: record.path, line: record.line }],
    remediation: `1. ${known.firstAction}.`,
  };
}

/** `linkerd diagnostics endpoints` found nothing: what proxies resolving the authority get. */
function noEndpoints(record: LinkerdCliMessageRecord): FindingDraft {
  const authority = record.command?.split(/\s+/).find((w) => w.includes('.') || w.includes(':')) ?? 'the authority';
  const host = authority.split(':')[0]!;
  const [service, namespace] = host.split('.');
  return {
    severity: 'warning',
    kind: 'no-endpoints',
    title: `The destination controller has no endpoints for ${authority}`,
    message: `${record.command ?? 'linkerd diagnostics endpoints'} found no endpoints: proxies resolving ${authority} get nothing to connect to and fail fast (503). Likely causes: the Service has no ready pods (readiness failing, scaled to zero), the port is not one the Service exposes, or the name is wrong (namespace, cluster domain).`,
    subject: { target: authority, ...(namespace ? { namespace } : {}) },
    evidence: { command: record.command, samples: [{ path: record.path, line: record.line, text: record.message }] },
    locations: [{ path: record.path, line: record.line }],
    remediation: `1. Check the Service and its ready endpoints: kubectl -n ${namespace ?? '<namespace>'} get svc ${service ?? '<service>'} and kubectl -n ${namespace ?? '<namespace>'} get endpointslices -l kubernetes.io/service-name=${service ?? '<service>'}.`,
  };
}

/** The first thing to do about a certificate named outside a check's verdict (a command's error). */
function firstCertificateAction(cert: CertificateFinding): string {
  if (cert.clockSkew) return 'Synchronise the node clocks (timedatectl status; chronyd or systemd-timesyncd), then retry';
  if (cert.role === 'identity-issuer' && (cert.problem === 'unknown-authority' || cert.problem === 'bad-signature'))
    return 'Keep the current root trusted while the issuer changes: bundle the new root with the current one (step certificate bundle new-ca.crt current-ca.crt bundle.crt) and pass the bundle as --identity-trust-anchors-file, or issue a new issuer from the new root and pass it too (--identity-issuer-certificate-file, --identity-issuer-key-file); step certificate verify issuer.crt --roots bundle.crt must pass';
  if (cert.problem === 'unknown-authority' || cert.problem === 'bad-signature')
    return 'Compare the CA bundle the client holds with the serving certificate (step certificate inspect on both) and regenerate them together';
  return `Replace ${certificateLabel(cert.role)}: ${rotation(cert, 'unknown')}`;
}

/** A step that failed with no verdict and no certificate: what it printed is all there is. */
function genericAction(record: LinkerdCheckRecord): string {
  if (record.hint)
    return `Read the hint https://linkerd.io/${record.hintVersion ?? '2'}/checks/#${record.hint} and fix what the detail names: ${record.details[0] ?? record.description}`;
  return `Fix what the output names, then run ${record.command ?? 'linkerd check'} again: ${(record.details[0] ?? record.description).slice(0, 200)}`;
}

function messageFinding(record: LinkerdCliMessageRecord, setup: ReturnType<typeof setupOf>): FindingDraft | null {
  if (record.message.startsWith('No endpoints found')) return noEndpoints(record);
  const known = classifyCertificateText(record.message) ? null : cliErrorOf(record.message);
  if (known) return cliErrorFinding(record, known, record.message);
  const cert = classifyCertificateText(record.message);
  const observed = observedCause(record.message);
  if (!cert && !observed) return null;
  const command = record.command ?? 'a linkerd command';
  const title = cap(cert ? describeCertificate(cert) : `${command} failed: ${observed}`);
  const parts = [`${command} ended with: ${record.message.slice(0, 400)}.`];
  if (cert) parts.push(`${cap(describeCertificate(cert))}.`);
  else parts.push(`It shows ${observed}.`);
  if (cert?.role === 'tap-apiservice')
    parts.push(
      "tap, top and viz's live views reach the tap server through the API server's aggregation layer, which checks tap's certificate against the caBundle of the v1alpha1.tap.linkerd.io APIService; a restart of tap that issues a new certificate without updating the caBundle (or several tap replicas with different certificates) makes it fail again.",
    );
  const remediation = cert
    ? [
        `1. Compare the APIService or webhook caBundle with the serving certificate: kubectl get apiservice v1alpha1.tap.linkerd.io -o jsonpath='{.spec.caBundle}' | base64 -d | step certificate inspect -.`,
        ...certificateLines(cert, setup).map((l, i) => `${i + 2}. ${l}`),
      ].join('\n')
    : `1. Fix what the error names (${observed}), then run ${command} again.`;
  return {
    severity: 'error',
    kind: cert ? `certificate/${cert.role}/${cert.problem}` : 'cli-error',
    title,
    message: parts.join(' '),
    subject: { target: (cert ? CERTIFICATE_TARGETS[cert.role] : null) ?? (cert ? cert.role : command) },
    evidence: {
      ...(cert && CERTIFICATE_CONTROLLERS[cert.role] ? { controller: CERTIFICATE_CONTROLLERS[cert.role] } : {}),
      command: record.command,
      run: record.run,
      error: record.message.slice(0, 600),
      ...(cert ? { certificate: { which: certificateLabel(cert.role), ...cert } } : {}),
      samples: [{ path: record.path, line: record.line, text: record.message.slice(0, 300) }],
    },
    locations: [{ path: record.path, line: record.line }],
    remediation,
  };
}

export type { CheckValues };
