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
// Across targets (foldSharedCauses): a rule may declare a kind of finding one cause whatever its
// target (`meta.sharedCauses`): the services called by proxies without a control plane all fail
// fast, for one reason and with one fix. Such findings of one rule, kind and cause on several
// targets fold into one that counts the targets, lists each with its key figure, keeps the worst
// one's figures and sums the rest (key figure, pods, window, timeline). It runs after the pod fold.
//
// Findings are grouped by their kind (the rule's message id) and key figure, never by their prose.
// Fingerprint of a folded finding: the usual digest (report/fingerprint.ts) over the rule, the
// subject without the pod (namespace, workload when the pods share one, target) and that kind, so
// the fingerprint does not move when pods come and go or when the worst pod changes; it changes
// only when the workload, namespace or target does. A cause seen on a single pod is not folded and
// keeps its per-pod fingerprint.

import {
  SEVERITIES,
  type AnyRule,
  type EvidenceWindow,
  type Finding,
  type FindingSubject,
  type PodMention,
  type SharedCauseKind,
  type Timeline,
} from '../core/types.js';
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
  return JSON.stringify([f.ruleId, f.severity, f.subject.target ?? null, findingKind(f), ...causesOf(f)]);
}

/** The cause a rule's evidence states (`cause`, or pod-restarts' `initCause`), null where it states none. */
function causesOf(f: Finding): [string | null, string | null] {
  return [typeof f.evidence.cause === 'string' ? f.evidence.cause : null, typeof f.evidence.initCause === 'string' ? f.evidence.initCause : null];
}

/**
 * Folds per-pod findings of one cause; other findings pass through in their order. A folded
 * finding takes the place of the first finding of its group.
 */
export function foldFindings(findings: readonly Finding[], versions?: ProxyVersions): Finding[] {
  return foldInPlace(
    findings,
    (f) => (f.subject.pod ? groupKey(f) : null),
    (group) => group.length >= 2,
    (group) => foldGroup(group, versions),
  );
}

/**
 * Groups the findings `keyOf` gives a key to, and puts `fold(group)` in the place of the first
 * finding of each group that `folds` accepts; every other finding passes through in its order.
 */
function foldInPlace(
  findings: readonly Finding[],
  keyOf: (f: Finding) => string | null,
  folds: (group: Finding[]) => boolean,
  fold: (group: Finding[]) => Finding,
): Finding[] {
  const keys = findings.map(keyOf);
  const groups = new Map<string, Finding[]>();
  findings.forEach((f, i) => {
    const key = keys[i] ?? null;
    if (key === null) return;
    const group = groups.get(key);
    if (group) group.push(f);
    else groups.set(key, [f]);
  });
  // Whether a group folds is asked once per group, not once per member: a group of n findings
  // (the stale endpoints of a storm) made the check, itself linear, quadratic.
  const folding = new Map<string, boolean>();
  for (const [key, group] of groups) folding.set(key, folds(group));
  const out: Finding[] = [];
  const done = new Set<string>();
  findings.forEach((f, i) => {
    const key = keys[i] ?? null;
    if (key === null || !folding.get(key)) out.push(f);
    else if (!done.has(key)) {
      done.add(key);
      out.push(fold(groups.get(key)!));
    }
  });
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

/** Pods listed in a finding folded across targets; `podsAffected` counts them all. */
const MAX_FOLDED_PODS = 1_000;
/** Targets named in its message; the rest are in `evidence.targets`. */
const NAMED_TARGETS = 5;

/** The shared-cause declaration of each `ruleId|kind`, from the rules' meta. */
function sharedCausesOf(rules: readonly AnyRule[]): Map<string, SharedCauseKind> {
  return new Map(rules.flatMap((r) => (r.meta.sharedCauses ?? []).map((d) => [`${r.meta.id}|${d.kind}`, d] as const)));
}

function causeKey(f: Finding): string {
  return JSON.stringify([f.ruleId, findingKind(f), ...causesOf(f)]);
}

/**
 * Folds the findings of a shared-cause kind (one rule, kind and cause) on two or more targets into
 * one finding in the place of the first; other findings pass through in their order.
 */
export function foldSharedCauses(findings: readonly Finding[], rules: readonly AnyRule[] = RULES): Finding[] {
  const declared = sharedCausesOf(rules);
  const declarationOf = (f: Finding) => (f.subject.target ? declared.get(`${f.ruleId}|${f.kind}`) : undefined);
  return foldInPlace(
    findings,
    (f) => (declarationOf(f) ? causeKey(f) : null),
    (group) => new Set(group.map((f) => f.subject.target)).size >= 2,
    (group) => foldTargetGroup(group, declarationOf(group[0]!)!),
  );
}

function foldTargetGroup(group: readonly Finding[], declaration: SharedCauseKind): Finding {
  const figureOf = (f: Finding) => f.keyFigure?.value ?? 0;
  const worstFirst = [...group].sort((a, b) => figureOf(b) - figureOf(a) || a.subject.target!.localeCompare(b.subject.target!));
  const worst = worstFirst[0]!;
  const severity = SEVERITIES[group.reduce((rank, f) => Math.min(rank, SEVERITIES.indexOf(f.severity)), SEVERITIES.length - 1)]!;
  const subject: FindingSubject = {};
  for (const key of ['namespace', 'workload', 'pod'] as const) {
    const value = shared(group, key);
    if (value) subject[key] = value;
  }
  const figure = worst.keyFigure ? { name: worst.keyFigure.name, value: group.reduce((sum, f) => sum + figureOf(f), 0) } : undefined;
  const rows = targetRows(worstFirst, worst.keyFigure?.name);
  const named = rows.slice(0, NAMED_TARGETS).map((row) => (figure ? `${row.target} (${compact(Number(row[figure.name] ?? 0))})` : row.target));
  const count = rows.length.toLocaleString('en-US');
  const message =
    `${count} ${declaration.targets} show the same cause` +
    `${figure ? `; top ${named.length} by ${humanize(figure.name)}` : ''}: ${named.join(', ')}${rows.length > named.length ? ` and ${(rows.length - named.length).toLocaleString('en-US')} more` : ''}. ` +
    `Worst, ${worst.subject.target}: ${worst.message}`;

  const { timeline, samples, window, pods: _pods, podsAffected: _podsAffected, ...worstEvidence } = worst.evidence;
  const pods = podsAcross(group);
  const span = windowAcross(group) ?? window;
  const summed = timelineAcross(group);
  // A per-target label (`fail-fast web.shop:80 per minute`) names every target once summed.
  const sum = summed?.label
    ? { ...summed, label: summed.label.split(group[0]!.subject.target!).join(`${count} ${declaration.targets}`) }
    : (summed ?? timeline);
  const evidence: Finding['evidence'] = {
    ...(typeof worst.evidence.cause === 'string' ? { cause: worst.evidence.cause } : {}),
    ...(typeof worst.evidence.initCause === 'string' ? { initCause: worst.evidence.initCause } : {}),
    targetsAffected: rows.length,
    ...(pods ? { podsAffected: pods.count, ...(pods.exact ? {} : { podsAffectedIsLowerBound: true }), pods: pods.listed } : {}),
    targets: rows,
    worstTarget: { target: worst.subject.target, ...scalarsOf(worstEvidence) },
    ...(span ? { window: span } : {}),
    ...(samples !== undefined ? { samples } : {}),
    ...(sum ? { timeline: sum } : {}),
  };
  return {
    ruleId: worst.ruleId,
    severity,
    docsUrl: worst.docsUrl,
    kind: worst.kind,
    title: declaration.title.replace('{count}', count),
    message,
    subject,
    evidence,
    locations: [...worst.locations, ...worstFirst.slice(1).flatMap((f) => f.locations.slice(0, 1))].slice(0, MAX_LOCATIONS),
    remediation: worst.remediation,
    ...(figure ? { keyFigure: figure } : {}),
    ...(worst.fixStatus ? { fixStatus: worst.fixStatus } : {}),
    ...(worst.code ? { code: worst.code } : {}),
  };
}

/**
 * One row per target, worst first. A target can come twice (the pod fold keeps an error and a
 * warning of one target apart): its figures add up, since the two name different pods.
 */
function targetRows(worstFirst: readonly Finding[], figureName: string | undefined): TargetRow[] {
  const rows = new Map<string, TargetRow>();
  for (const f of worstFirst) {
    const row = rows.get(f.subject.target!);
    if (!row) {
      rows.set(f.subject.target!, {
        target: f.subject.target!,
        ...(f.keyFigure ? { [f.keyFigure.name]: f.keyFigure.value } : {}),
        ...(typeof f.evidence.podsAffected === 'number' ? { podsAffected: f.evidence.podsAffected } : {}),
        ...(f.locations[0] ? { location: `${f.locations[0].path}:${f.locations[0].line}` } : {}),
      });
      continue;
    }
    if (f.keyFigure && typeof row[f.keyFigure.name] === 'number') row[f.keyFigure.name] = (row[f.keyFigure.name] as number) + f.keyFigure.value;
    if (typeof f.evidence.podsAffected === 'number' && typeof row.podsAffected === 'number') row.podsAffected += f.evidence.podsAffected;
  }
  const figureOf = (row: TargetRow) => (figureName && typeof row[figureName] === 'number' ? (row[figureName] as number) : 0);
  return [...rows.values()].sort((a, b) => figureOf(b) - figureOf(a) || a.target.localeCompare(b.target));
}

interface TargetRow {
  target: string;
  [figure: string]: unknown;
}

/**
 * The pods named across the group, their numeric details summed (a pod's lines for each target add
 * up). The count is exact when every finding listed all its pods, else a lower bound: the largest
 * of the findings' own counts or the pods listed, whichever is more.
 */
function podsAcross(group: readonly Finding[]): { count: number; exact: boolean; listed: PodMention[] } | null {
  const byPod = new Map<string, PodMention>();
  let exact = true;
  let largest = 0;
  for (const f of group) {
    const mentions: readonly PodMention[] = f.evidence.pods ?? (f.subject.pod ? [{ pod: f.subject.pod }] : []);
    const counted = typeof f.evidence.podsAffected === 'number' ? f.evidence.podsAffected : mentions.length;
    if (counted > mentions.length) exact = false;
    largest = Math.max(largest, counted);
    for (const m of mentions) {
      const seen = byPod.get(m.pod);
      if (!seen) {
        byPod.set(m.pod, { ...m });
        continue;
      }
      for (const [k, v] of Object.entries(m)) if (typeof v === 'number' && typeof seen[k] === 'number') seen[k] = (seen[k] as number) + v;
    }
  }
  if (byPod.size === 0 && largest === 0) return null;
  const numeric = (m: PodMention) => Object.values(m).find((v): v is number => typeof v === 'number') ?? 0;
  const listed = [...byPod.values()].sort((a, b) => numeric(b) - numeric(a) || a.pod.localeCompare(b.pod)).slice(0, MAX_FOLDED_PODS);
  return { count: exact ? byPod.size : Math.max(byPod.size, largest), exact, listed };
}

/** The earliest start and latest end, when every finding has a wall-clock window. */
function windowAcross(group: readonly Finding[]): EvidenceWindow | null {
  let start = Infinity;
  let end = -Infinity;
  for (const f of group) {
    const w = f.evidence.window;
    const s = w?.start ? Date.parse(w.start) : NaN;
    const e = w?.end ? Date.parse(w.end) : s;
    if (w?.clock !== 'wall' || Number.isNaN(s) || Number.isNaN(e)) return null;
    start = Math.min(start, s);
    end = Math.max(end, e);
  }
  return { start: new Date(start).toISOString(), end: new Date(end).toISOString(), durationSeconds: (end - start) / 1000, clock: 'wall' };
}

/** The findings' timelines added bucket by bucket, when every one is on the wall clock with the same bucket. */
function timelineAcross(group: readonly Finding[]): Timeline | null {
  const timelines = group.map((f) => f.evidence.timeline);
  const first = timelines[0];
  if (!first?.start) return null;
  const bucketMs = first.bucketSeconds * 1000;
  let start = Infinity;
  let end = -Infinity;
  for (const t of timelines) {
    if (!t?.start || t.bucketSeconds !== first.bucketSeconds) return null;
    const s = Date.parse(t.start);
    if (Number.isNaN(s) || (s - Date.parse(first.start)) % bucketMs !== 0) return null;
    start = Math.min(start, s);
    end = Math.max(end, s + t.counts.length * bucketMs);
  }
  const counts = new Array<number>(Math.round((end - start) / bucketMs)).fill(0);
  for (const t of timelines) {
    const offset = Math.round((Date.parse(t!.start!) - start) / bucketMs);
    t!.counts.forEach((c, i) => (counts[offset + i]! += c));
  }
  return { start: new Date(start).toISOString(), bucketSeconds: first.bucketSeconds, counts, ...(first.label ? { label: first.label } : {}) };
}
