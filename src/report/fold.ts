// Folding, in one place, for two ways one cause shows up more than once.
//
// Across rules (foldCoveredFindings): a finding whose `foldsInto` names another rule that reported
// is dropped and named in that rule's findings (`evidence.alsoMatched`): a signature line and the
// threshold rule that judged its sustained form are one cause. It chains: when A folds into B and
// B into C, C lists both B and A; a cycle with no finding kept outside it keeps its findings.
// The analysis applies it to the engine's findings (analysis/analyze.ts).
//
// Across pods (foldFindings): the same rule reporting the same cause on many pods is one problem, not forty. Findings
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

import type { AnyRule, Finding, FindingSubject } from '../core/types.js';
import { fixesFor, fixStatusFor } from '../incident/fix-status.js';
import type { ProxyVersions } from '../incident/versions.js';
import { workloadOfPod } from '../util/path-meta.js';
import { compact } from '../util/stats.js';
import { findingKind } from './fingerprint.js';
import { humanize } from './formats/values.js';
import { RULES } from '../rules/index.js';

/** Pods named in the folded message; the rest are in `evidence.pods`. */
const NAMED_PODS = 5;
const MAX_LOCATIONS = 10;

interface AlsoMatched {
  ruleId: string;
  title: string;
}

/** For a finding, the rules whose meta claims it (`absorbs`): the other way to declare a fold, from the absorbing rule's folder. */
function absorbersOf(rules: readonly AnyRule[]): (f: Finding) => string[] {
  const claims = rules.flatMap((r) => (r.meta.absorbs ?? []).map((a) => ({ by: r.meta.id as string, ...a })));
  return (f) => claims.filter((c) => c.rule === f.ruleId && (!c.targets || c.targets.includes(f.subject.target ?? ''))).map((c) => c.by);
}

/**
 * Drops each finding whose `foldsInto` (or another rule's `absorbs`) names a rule that also reported in this run, and lists it
 * under `alsoMatched` in that rule's kept findings, transitively: what folded into a finding that
 * itself folded is listed wherever that one went.
 */
export function foldCoveredFindings(findings: readonly Finding[], rules: readonly AnyRule[] = RULES): Finding[] {
  const reporting = new Set(findings.map((f) => f.ruleId));
  const absorbers = absorbersOf(rules);
  const targetsOf = findings.map((f) => [...new Set([...(f.foldsInto ?? []), ...absorbers(f)])].filter((id) => id !== f.ruleId && reporting.has(id)));
  // A rule absorbs what folds into it once one of its findings is kept or has itself folded somewhere that absorbs.
  const folds = targetsOf.map(() => false);
  const absorbing = new Set(findings.filter((_, i) => targetsOf[i]!.length === 0).map((f) => f.ruleId));
  for (let changed = true; changed;) {
    changed = false;
    targetsOf.forEach((targets, i) => {
      if (folds[i] || !targets.some((id) => absorbing.has(id))) return;
      folds[i] = true;
      changed = true;
      absorbing.add(findings[i]!.ruleId);
    });
  }
  // What folded straight into each rule, in input order; findings left undecided sit in a cycle with no way out, and are kept.
  const direct = new Map<string, AlsoMatched[]>();
  findings.forEach((f, i) => {
    if (!folds[i]) return;
    for (const id of targetsOf[i]!.filter((t) => absorbing.has(t))) {
      const list = direct.get(id) ?? [];
      if (!list.some((m) => m.ruleId === f.ruleId && m.title === f.title)) list.push({ ruleId: f.ruleId, title: f.title });
      direct.set(id, list);
    }
  });
  const alsoMatched = (ruleId: string): AlsoMatched[] => {
    const out: AlsoMatched[] = [];
    const seen = new Set([ruleId]);
    const walk = (id: string) => {
      for (const m of direct.get(id) ?? []) {
        if (!out.some((o) => o.ruleId === m.ruleId && o.title === m.title)) out.push(m);
        if (seen.has(m.ruleId)) continue;
        seen.add(m.ruleId);
        walk(m.ruleId);
      }
    };
    walk(ruleId);
    return out;
  };
  const kept: Finding[] = [];
  findings.forEach((finding, i) => {
    if (folds[i]) return;
    const { foldsInto, ...rest } = finding;
    const plain = foldsInto ? rest : finding;
    const also = alsoMatched(finding.ruleId);
    kept.push(also.length > 0 ? { ...plain, evidence: { ...plain.evidence, alsoMatched: also } } : plain);
  });
  return kept;
}

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

  const where =
    workloads.length === 1
      ? `of ${workloads[0]}`
      : `of ${workloads.length} workloads (${workloads.slice(0, 3).join(', ')}${workloads.length > 3 ? ', …' : ''})`;
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
    ...(worst.code ? { code: worst.code } : {}),
  };
  if (!versions || fixes.length === 0) return folded;
  // The worst pod's version check spoke of that pod alone; check the versions of every folded pod.
  // The fixes are chosen on the worst pod's full evidence, which the folded evidence no longer has.
  const fixStatus = fixes.map((fix) => fixStatusFor(folded, fix, versions));
  const remediation = [
    ...worst.remediation.split('\n').filter((l) => !l.startsWith('Version check')),
    ...fixStatus.map((s) => `Version check (${s.fix}): ${s.note}`),
  ].join('\n');
  return { ...folded, fixStatus, remediation };
}

/** The worst pod's figures without its lists: the lists are per pod and would read as totals. */
function scalarsOf(evidence: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(evidence).filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object'));
}
