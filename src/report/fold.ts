// Folding: the same rule reporting the same cause on many pods is one problem, not forty. Findings
// of one rule, severity, target and evidence kind that each name a pod are folded into one finding
// that names the pod count, the workloads and the worst pods, and keeps one row per pod in its
// evidence. It runs in buildReport before fingerprints, suppressions, the baseline and the
// incident correlation, so every format and the exit code see the same folded findings.
//
// Findings are grouped by their kind (the rule's message id) and key figure, never by their prose.
// Fingerprint of a folded finding: the usual digest (report/fingerprint.ts) over the rule, the
// subject without the pod (namespace, workload when the pods share one, target) and that kind, so
// the fingerprint does not move when pods come and go or when the worst pod changes; it changes
// only when the workload, namespace or target does. A cause seen on a single pod is not folded and
// keeps its per-pod fingerprint.

import type { Finding, FindingSubject } from '../core/types.js';
import { fixesFor, fixStatusFor } from '../incident/fix-status.js';
import type { ProxyVersions } from '../incident/versions.js';
import { workloadOfPod } from '../input/path-meta.js';
import { compact } from '../util/stats.js';
import { findingKind } from './fingerprint.js';
import { humanize } from './formats/values.js';

/** Pods named in the folded message; the rest are in `evidence.pods`. */
const NAMED_PODS = 5;
const MAX_LOCATIONS = 10;


/**
 * Findings fold only when they tell the same cause: the kind usually says it, and a rule's
 * `evidence.cause` (or `initCause`) is compared too, so a folded finding never shows one pod's
 * cause for another pod whose own input said something else.
 */
function groupKey(f: Finding): string {
  const cause = typeof f.evidence.cause === 'string' ? f.evidence.cause : null;
  const initCause = typeof f.evidence.initCause === 'string' ? f.evidence.initCause : null;
  return JSON.stringify([f.ruleId, f.severity, f.subject.target ?? null, findingKind(f), cause, initCause]);
}

/**
 * Folds per-pod findings of one cause; other findings pass through in their order. A folded
 * finding takes the place of the first finding of its group.
 */
export function foldFindings(findings: readonly Finding[], versions?: ProxyVersions): Finding[] {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) {
    if (!f.subject.pod) continue;
    const key = groupKey(f);
    const group = groups.get(key);
    if (group) group.push(f);
    else groups.set(key, [f]);
  }
  const out: Finding[] = [];
  const done = new Set<string>();
  for (const f of findings) {
    if (!f.subject.pod) {
      out.push(f);
      continue;
    }
    const key = groupKey(f);
    const group = groups.get(key)!;
    if (group.length < 2) {
      out.push(f);
      continue;
    }
    if (done.has(key)) continue;
    done.add(key);
    out.push(foldGroup(group, versions));
  }
  return out;
}

function shared<K extends keyof FindingSubject>(group: readonly Finding[], key: K): FindingSubject[K] | undefined {
  const first = group[0]!.subject[key];
  return first !== undefined && group.every((f) => f.subject[key] === first) ? first : undefined;
}

function foldGroup(group: readonly Finding[], versions?: ProxyVersions): Finding {
  const worstFirst = [...group].sort((a, b) => (b.keyFigure?.value ?? 0) - (a.keyFigure?.value ?? 0) || a.subject.pod!.localeCompare(b.subject.pod!));
  const worst = worstFirst[0]!;
  const pods = [...new Set(group.map((f) => f.subject.pod!))];
  const workloads = [...new Set(group.map((f) => f.subject.workload ?? workloadOfPod(f.subject.pod) ?? f.subject.pod!))].sort();
  const workload = shared(group, 'workload') ?? (workloads.length === 1 ? workloads[0] : undefined);
  const subject: FindingSubject = {};
  const namespace = shared(group, 'namespace');
  if (namespace) subject.namespace = namespace;
  if (workload) subject.workload = workload;
  const target = shared(group, 'target');
  if (target) subject.target = target;

  const where = workloads.length === 1 ? `of ${workloads[0]}` : `of ${workloads.length} workloads (${workloads.slice(0, 3).join(', ')}${workloads.length > 3 ? ', …' : ''})`;
  const title = `${worst.title.split(worst.subject.pod!).join(workload ?? 'several workloads')} (${pods.length} pods)`;
  const figure = worst.keyFigure;
  const named = worstFirst.slice(0, NAMED_PODS).map((f) => (figure && f.keyFigure ? `${f.subject.pod} (${compact(f.keyFigure.value)})` : f.subject.pod!));
  const message =
    `${pods.length} pods ${where} show the same finding` +
    `${figure ? `; top ${named.length} of ${pods.length} by ${humanize(figure.name)}` : `; ${named.length === pods.length ? 'all' : `${named.length} of ${pods.length}`}`}: ${named.join(', ')}. ` +
    `Worst pod, ${worst.subject.pod}: ${worst.message}`;

  const { timeline, samples, ...worstEvidence } = worst.evidence;
  const evidence: Finding['evidence'] = {
    podsAffected: pods.length,
    workloads,
    pods: worstFirst.map((f) => ({
      pod: f.subject.pod!,
      ...(f.subject.workload ? { workload: f.subject.workload } : {}),
      ...(f.keyFigure ? { [f.keyFigure.name]: f.keyFigure.value } : {}),
      ...(f.locations[0] ? { location: `${f.locations[0].path}:${f.locations[0].line}` } : {}),
    })),
    worstPod: { pod: worst.subject.pod, ...scalarsOf(worstEvidence) },
    ...(samples !== undefined ? { samples } : {}),
    ...(timeline ? { timeline } : {}),
  };
  const locations = [...worst.locations, ...worstFirst.slice(1).flatMap((f) => f.locations.slice(0, 1))].slice(0, MAX_LOCATIONS);
  const fixes = versions ? fixesFor(worst) : [];
  const folded: Finding = {
    ruleId: worst.ruleId,
    severity: worst.severity,
    docsUrl: worst.docsUrl,
    kind: worst.kind,
    title,
    message,
    subject,
    evidence,
    locations,
    remediation: worst.remediation,
    ...(figure ? { keyFigure: { name: figure.name, value: figure.value } } : {}),
    ...(worst.fixStatus ? { fixStatus: worst.fixStatus } : {}),
  };
  if (!versions || fixes.length === 0) return folded;
  // The worst pod's version check spoke of that pod alone; check the versions of every folded pod.
  // The fixes are chosen on the worst pod's full evidence, which the folded evidence no longer has.
  const fixStatus = fixes.map((fix) => fixStatusFor(folded, fix, versions));
  const remediation = [...worst.remediation.split('\n').filter((l) => !l.startsWith('Version check')), ...fixStatus.map((s) => `Version check (${s.fix}): ${s.note}`)].join('\n');
  return { ...folded, fixStatus, remediation };
}

/** The worst pod's figures without its lists: the lists are per pod and would read as totals. */
function scalarsOf(evidence: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(evidence).filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object'));
}
