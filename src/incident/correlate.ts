// Groups findings into incidents and tells their story: which signal is the probable cause, what it
// set off, one merged per-minute timeline, and the first thing to do. The knowledge lives in the
// rule folders (src/rules/<id>/incident.ts: causal links and phrases); the functions only apply it. When no known mechanism links
// two signals, or the clock disagrees with the mechanism, the ordering is "unclear": a wrong,
// confident story is worse than none.

import type { Finding, FindingSubject, Severity, Timeline } from '../core/types.js';
import { workloadOfPod } from '../util/path-meta.js';
import { podsOfFinding, windowOf } from '../core/evidence.js';
import { controllerOfAddress, type ControllerComponent } from '../knowledge/control-plane.js';
import { REGISTRY } from '../rules/index.js';
import { formatDuration } from '../util/stats.js';
import type { CausalLink, Relation } from '../kit/incident.js';

export type { CausalLink, Relation };
export { windowOf };

/** Known mechanisms, cause → effect, from each rule folder's incident.ts. Only these may make an ordering "likely". */
export const CAUSAL_LINKS: readonly CausalLink[] = REGISTRY.flatMap((r) => (r.incident?.causes ?? []).map((link) => ({ cause: r.rule.meta.id, ...link })));

/** How a finding reads inside a headline, by rule; rules without a phrase use their title. */
const PHRASES: ReadonlyMap<string, (f: Finding) => string> = new Map(
  REGISTRY.flatMap((r) => (r.incident?.phrase ? [[r.rule.meta.id, r.incident.phrase] as const] : [])),
);

export interface IncidentFindingRef {
  ruleId: string;
  severity: Severity;
  title: string;
  subject: FindingSubject;
  role: 'probable cause' | 'effect' | 'related';
  firstSeen: string | null;
}

export interface IncidentTimeline {
  start: string;
  bucketSeconds: number;
  series: { ruleId: string; label: string; target: string; counts: number[] }[];
}

export interface Incident {
  id: string;
  severity: Severity;
  headline: string;
  /** Findings in probable-cause order: causes first, then what they set off, then the rest. */
  findings: IncidentFindingRef[];
  /** Why the findings were grouped. */
  links: string[];
  ordering: { confidence: 'likely' | 'unclear'; reasoning: string[] };
  window: { start: string; end: string } | null;
  timeline: IncidentTimeline | null;
  firstAction: string;
}

interface Footprint {
  pods: Set<string>;
  workloads: Set<string>;
  components: Set<ControllerComponent>;
  target: string | null;
  start: number | null;
  end: number | null;
}

const SEVERITY_RANK: Record<Severity, number> = { error: 3, warning: 2, info: 1 };
/** Clock skew between collectors and the one-minute buckets of timelines. */
const TIME_SLACK_MS = 60_000;
/** Longest merged timeline drawn; longer incidents use coarser buckets. */
const MAX_MINUTES = 360;

/** What rules name a pod the paste does not name: no footprint. */
const NOT_NAMED = '(not named in the paste)';

export function footprintOf(f: Finding): Footprint {
  // A placeholder such as "(not named in the paste)" names no pod: two pastes sharing it share
  // nothing. A file's path in parentheses (a log whose pod is unknown, as reconnect-storm names it)
  // is that one file's proxy, as its bare path is to other rules: the same footprint.
  const pods = new Set(
    podsOfFinding(f)
      .map((p) => (p.startsWith('(') && p.endsWith(')') && p !== NOT_NAMED ? p.slice(1, -1) : p))
      .filter((p) => !p.startsWith('(') && !GENERIC_NAMES.has(p)),
  );
  const workloads = new Set<string>();
  if (f.subject.workload) workloads.add(f.subject.workload);
  for (const p of pods) {
    const w = workloadOfPod(p);
    if (w && w !== p) workloads.add(w);
  }
  const components = new Set<ControllerComponent>();
  const fromTarget = controllerOfAddress(f.subject.target);
  if (fromTarget) components.add(fromTarget);
  if (f.evidence.controller) components.add(f.evidence.controller);
  const { start, end } = windowOf(f);
  const target = f.subject.target && !GENERIC_NAMES.has(f.subject.target) ? f.subject.target : null;
  for (const w of workloads) if (GENERIC_NAMES.has(w)) workloads.delete(w);
  return { pods, workloads, components, target, start, end };
}

/**
 * Container names every meshed pod has: two unrelated pastes that both name `linkerd-proxy` share
 * nothing, so these never link findings as a target or a workload.
 */
const GENERIC_NAMES: ReadonlySet<string> = new Set(['linkerd-proxy', 'proxy', 'linkerd-init', 'linkerd-network-validator', 'linkerd-debug']);

/** One UTC day, for "on different days". */
const DAY_MS = 86_400_000;

/**
 * Splits findings into spells of time: sorted by start, a finding starts a new spell when the gap
 * since the spell's end is longer than the spell itself (and than the clock slack), or when it falls
 * on another day after a gap. Signals captured years apart are not one incident however much they
 * share. Findings without wall-clock time join the only spell, or form their own when there are several.
 */
export function timeSpells(prints: readonly Footprint[]): number[] {
  const spell = prints.map(() => -1);
  const timed = prints
    .map((p, i) => i)
    .filter((i) => prints[i]!.start !== null)
    .sort((a, b) => prints[a]!.start! - prints[b]!.start!);
  let count = 0;
  let spellStart = 0;
  let spellEnd = 0;
  for (const i of timed) {
    const start = prints[i]!.start!;
    const end = Math.max(start, prints[i]!.end ?? start);
    const gap = start - spellEnd;
    const newDay = Math.floor(start / DAY_MS) !== Math.floor(spellEnd / DAY_MS);
    if (count === 0 || (gap > TIME_SLACK_MS && (gap > spellEnd - spellStart || newDay))) {
      count++;
      spellStart = start;
      spellEnd = end;
    } else spellEnd = Math.max(spellEnd, end);
    spell[i] = count - 1;
  }
  const untimed = count <= 1 ? 0 : count;
  return spell.map((s) => (s === -1 ? untimed : s));
}

export function shared(a: Footprint, b: Footprint, relation: Relation): boolean {
  switch (relation) {
    case 'component':
      return intersects(a.components, b.components);
    case 'pod-or-workload':
      return intersects(a.pods, b.pods) || intersects(a.workloads, b.workloads);
    case 'co-located':
      // Destination and policy share the linkerd-destination pod; identity lives alone.
      for (const c of a.components) {
        if (c === 'identity' || b.components.has(c)) continue;
        for (const d of b.components) if (d !== 'identity' && d !== c) return true;
      }
      return false;
    case 'target':
      return a.target !== null && a.target === b.target;
    case 'time':
      return a.start !== null && b.start !== null && a.start <= b.end! + TIME_SLACK_MS && b.start <= a.end! + TIME_SLACK_MS;
  }
}

const RELATION_WORDS: Record<Relation, string> = {
  component: 'the same controller',
  'co-located': 'controllers in the same pod',
  'pod-or-workload': 'the same pods or workload',
  target: 'the same target',
  time: 'overlapping time windows',
};

/** Whether two sets share a member; every pair of findings is compared, so this allocates nothing. */
function intersects<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): boolean {
  if (a.size > b.size) return intersects(b, a);
  for (const x of a) if (b.has(x)) return true;
  return false;
}

const GROUPING_RELATIONS = ['component', 'pod-or-workload', 'target', 'time'] as const;

/** Why findings were grouped, in first-seen order, without repeats. */
interface LinkReasons {
  ids: Set<number>;
  texts: string[];
}

function addReason(reasons: LinkReasons, id: number, text: string): void {
  if (reasons.ids.has(id)) return;
  reasons.ids.add(id);
  reasons.texts.push(text);
}

/** Rules whose findings explain single lines (RuleIncidentKnowledge.annotatesLines): they neither form nor link incidents. */
const LINE_ANNOTATION_RULES: ReadonlySet<string> = new Set(REGISTRY.filter((r) => r.incident?.annotatesLines).map((r) => r.rule.meta.id));

export function correlate(allFindings: readonly Finding[]): Incident[] {
  const findings = allFindings.filter((f) => !LINE_ANNOTATION_RULES.has(f.ruleId));
  const prints = findings.map(footprintOf);
  const parent = findings.map((_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i]!)));
  // Every pair is compared, and hundreds of findings of one rule link to each other: a reason is
  // identified by a number (the two rules and the relation) and its text is built once per group.
  const ruleIndex = new Map<string, number>();
  for (const f of findings) if (!ruleIndex.has(f.ruleId)) ruleIndex.set(f.ruleId, ruleIndex.size);
  const rules = findings.map((f) => ruleIndex.get(f.ruleId)!);
  const linkReasons = new Map<number, LinkReasons>();
  const spells = timeSpells(prints);
  for (let i = 0; i < findings.length; i++) {
    for (let j = i + 1; j < findings.length; j++) {
      if (spells[i] !== spells[j]) continue;
      const relation = GROUPING_RELATIONS.findIndex((r) => shared(prints[i]!, prints[j]!, r));
      if (relation === -1) continue;
      const ri = root(i);
      const rj = root(j);
      let reasons = linkReasons.get(ri);
      if (reasons === undefined) linkReasons.set(ri, (reasons = { ids: new Set(), texts: [] }));
      const theirs = ri !== rj ? linkReasons.get(rj) : undefined;
      if (theirs) {
        // A Set iterates in insertion order, which is the order of its texts.
        let k = 0;
        for (const id of theirs.ids) addReason(reasons, id, theirs.texts[k++]!);
      }
      const id = (rules[i]! * ruleIndex.size + rules[j]!) * GROUPING_RELATIONS.length + relation;
      if (!reasons.ids.has(id))
        addReason(reasons, id, `${findings[i]!.ruleId} and ${findings[j]!.ruleId} share ${RELATION_WORDS[GROUPING_RELATIONS[relation]!]}`);
      parent[rj] = ri;
    }
  }
  const groups = new Map<number, number[]>();
  findings.forEach((_, i) => {
    const r = root(i);
    const members = groups.get(r);
    if (members) members.push(i);
    else groups.set(r, [i]);
  });
  const incidents = [...groups].map(([r, members]) =>
    buildIncident(
      members.map((i) => findings[i]!),
      members.map((i) => prints[i]!),
      linkReasons.get(r)?.texts ?? [],
    ),
  );
  incidents.sort(
    (a, b) =>
      SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] ||
      b.findings.length - a.findings.length ||
      (a.window?.start ?? '').localeCompare(b.window?.start ?? ''),
  );
  incidents.forEach((inc, i) => (inc.id = `incident-${i + 1}`));
  return incidents;
}

interface Edge {
  from: number;
  to: number;
  link: CausalLink;
  contradicted: boolean;
}

/** CAUSAL_LINKS by cause and effect rule, in table order: most pairs of findings have none. */
const LINKS_BY_RULES = new Map<string, Map<string, CausalLink[]>>();
for (const link of CAUSAL_LINKS) {
  const byEffect = LINKS_BY_RULES.get(link.cause) ?? new Map<string, CausalLink[]>();
  LINKS_BY_RULES.set(link.cause, byEffect);
  byEffect.set(link.effect, [...(byEffect.get(link.effect) ?? []), link]);
}

export function causalEdges(members: readonly Finding[], prints: readonly Footprint[]): Edge[] {
  const edges: Edge[] = [];
  members.forEach((a, i) =>
    members.forEach((b, j) => {
      if (i === j) return;
      const candidates = LINKS_BY_RULES.get(a.ruleId)?.get(b.ruleId);
      if (candidates === undefined) return;
      const link = candidates.find((l) => shared(prints[i]!, prints[j]!, l.requires) && (l.applies?.(a, b) ?? true));
      if (!link) return;
      const ca = prints[i]!.start;
      const cb = prints[j]!.start;
      edges.push({ from: i, to: j, link, contradicted: ca !== null && cb !== null && cb < ca - TIME_SLACK_MS });
    }),
  );
  return edges;
}

/** Pairs explained in full per mechanism; an incident of 1,000 findings has ~200,000 pairs. */
const REASONING_EXAMPLES = 3;
/** Phrases named per layer of the headline; the findings list names every member. */
const HEADLINE_PHRASES = 4;

/** The first REASONING_EXAMPLES edges of each mechanism, and for each mechanism with more, a line saying how many it links. */
function examplesPerMechanism(edges: readonly Edge[]): { examples: Edge[]; summaries: string[] } {
  const byLink = new Map<CausalLink, Edge[]>();
  for (const e of edges) {
    const list = byLink.get(e.link) ?? [];
    byLink.set(e.link, list);
    list.push(e);
  }
  const examples: Edge[] = [];
  const summaries: string[] = [];
  for (const [link, list] of byLink) {
    examples.push(...list.slice(0, REASONING_EXAMPLES));
    if (list.length > REASONING_EXAMPLES)
      summaries.push(`… and ${list.length - REASONING_EXAMPLES} more ${link.cause} → ${link.effect} pairs by the same mechanism.`);
  }
  return { examples, summaries };
}

function phrasesOf(findings: readonly Finding[], phrase: (f: Finding) => string): string {
  const shown = findings.slice(0, HEADLINE_PHRASES).map(phrase);
  if (findings.length > HEADLINE_PHRASES) shown.push(`${findings.length - HEADLINE_PHRASES} more`);
  return shown.join('; ');
}

function buildIncident(members: Finding[], prints: Footprint[], links: string[]): Incident {
  const edges = causalEdges(members, prints);
  const valid = edges.filter((e) => !e.contradicted);
  const hasIncoming = new Set(valid.map((e) => e.to));
  const hasOutgoing = new Set(valid.map((e) => e.from));
  const causes = members.map((_, i) => i).filter((i) => !hasIncoming.has(i) && hasOutgoing.has(i));
  const effects = members.map((_, i) => i).filter((i) => hasIncoming.has(i));
  const related = members.map((_, i) => i).filter((i) => !hasIncoming.has(i) && !hasOutgoing.has(i));
  const byTime = (a: number, b: number) =>
    (prints[a]!.start ?? Infinity) - (prints[b]!.start ?? Infinity) || SEVERITY_RANK[members[b]!.severity] - SEVERITY_RANK[members[a]!.severity];
  causes.sort(byTime);
  effects.sort(byTime);
  related.sort(byTime);
  const order = [...causes, ...effects, ...related];

  const reasoning: string[] = [];
  const explained = examplesPerMechanism(valid);
  for (const e of explained.examples)
    reasoning.push(`${members[e.from]!.title} → ${members[e.to]!.title}: ${e.link.mechanism}.${timeNote(prints[e.from]!, prints[e.to]!)}`);
  reasoning.push(...explained.summaries);
  const disputed = examplesPerMechanism(edges.filter((x) => x.contradicted));
  for (const e of disputed.examples) {
    reasoning.push(
      `${members[e.from]!.title} would explain ${members[e.to]!.title} (${e.link.mechanism}), but the effect was logged first${timeNote(prints[e.from]!, prints[e.to]!)} Either the cause's logs start late or the effect fed the cause (a storm can keep a controller down); not decided.`,
    );
  }
  reasoning.push(...disputed.summaries);
  let confidence: 'likely' | 'unclear' = 'likely';
  if (members.length > 1) {
    if (valid.length === 0) {
      confidence = 'unclear';
      reasoning.push(
        `No known mechanism links these signals; they are listed by first appearance${prints.some((p) => p.start === null) ? ' (some have no wall-clock time)' : ''}.`,
      );
    } else if (edges.some((e) => e.contradicted) || causes.length > 1) {
      confidence = 'unclear';
      if (causes.length > 1) reasoning.push(`${causes.length} independent probable causes; which came first is not decided by a known mechanism.`);
    }
    if (related.length > 0 && valid.length > 0) {
      reasoning.push(`${related.map((i) => members[i]!.title).join(', ')}: grouped by shared pods, targets or time, with no known causal link to the rest.`);
    }
  }

  const role = (i: number): IncidentFindingRef['role'] => (causes.includes(i) ? 'probable cause' : effects.includes(i) ? 'effect' : 'related');
  const phrase = (f: Finding) => (PHRASES.get(f.ruleId) ?? ((x: Finding) => x.title))(f);
  // Layers of the causal graph: causes, what they set off, what that set off…
  const depth = new Map<number, number>(causes.map((i) => [i, 0]));
  for (let changed = true, guard = 0; changed && guard < members.length; guard++) {
    changed = false;
    for (const e of valid) {
      const d = (depth.get(e.from) ?? -1) + 1;
      if (d > 0 && d > (depth.get(e.to) ?? -1)) {
        depth.set(e.to, d);
        changed = true;
      }
    }
  }
  const layers: number[][] = [];
  for (const i of [...causes, ...effects]) (layers[depth.get(i) ?? 0] ??= []).push(i);
  const chain = layers
    .filter((l) => l && l.length)
    .map((l) =>
      phrasesOf(
        l.map((i) => members[i]!),
        phrase,
      ),
    );
  const rest = related.length
    ? [
        phrasesOf(
          related.map((i) => members[i]!),
          phrase,
        ),
      ]
    : [];
  let headline = chain.length > 0 ? chain.join(' → ') + (rest.length ? `; also ${rest.join('; ')}` : '') : rest.join('; ');
  if (confidence === 'unclear' && members.length > 1) headline = `Order unclear: ${headline}`;

  const starts = prints.map((p) => p.start).filter((t): t is number => t !== null);
  const ends = prints.map((p) => p.end).filter((t): t is number => t !== null);
  const first = members[order[0]!]!;
  return {
    id: '',
    severity: members.reduce<Severity>((s, f) => (SEVERITY_RANK[f.severity] > SEVERITY_RANK[s] ? f.severity : s), 'info'),
    headline,
    findings: order.map((i) => ({
      ruleId: members[i]!.ruleId,
      severity: members[i]!.severity,
      title: members[i]!.title,
      subject: members[i]!.subject,
      role: members.length === 1 ? 'related' : role(i),
      firstSeen: prints[i]!.start === null ? null : new Date(prints[i]!.start!).toISOString(),
    })),
    links,
    ordering: { confidence: members.length === 1 ? 'likely' : confidence, reasoning },
    window: starts.length ? { start: new Date(Math.min(...starts)).toISOString(), end: new Date(Math.max(...ends, ...starts)).toISOString() } : null,
    timeline: mergeTimelines(order.map((i) => members[i]!)),
    firstAction:
      confidence === 'unclear' && members.length > 1
        ? `Start with the earliest signal (${first.title}), since the order is unclear: ${firstActionOf(first)}`
        : firstActionOf(first),
  };
}

function timeNote(cause: Footprint, effect: Footprint): string {
  if (cause.start === null || effect.start === null) return ' (no wall-clock time to check the order)';
  const delta = Math.round((effect.start - cause.start) / 1000);
  return delta >= 0
    ? ` The cause was logged ${formatDuration(delta)} before the effect.`
    : ` The effect was logged ${formatDuration(-delta)} before the cause.`;
}

/** The first step of a finding's remediation (rules number their steps; the first is the one to do now). */
export function firstActionOf(f: Finding): string {
  const line = f.remediation.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.replace(/^\s*1\.\s*/, '').trim();
}

/** Every finding's timeline, re-bucketed onto one per-minute axis. */
export function mergeTimelines(members: readonly Finding[]): IncidentTimeline | null {
  const timelines = members
    .map((f) => ({ f, t: f.evidence.timeline as Timeline | undefined }))
    .filter((x): x is { f: Finding; t: Timeline & { start: string } } => !!x.t && x.t.start !== null && x.t.counts.length > 0);
  if (timelines.length === 0) return null;
  const minute = 60_000;
  const start = Math.floor(Math.min(...timelines.map((x) => Date.parse(x.t.start))) / minute) * minute;
  const end = Math.max(...timelines.map((x) => Date.parse(x.t.start) + x.t.counts.length * x.t.bucketSeconds * 1000));
  const minutes = Math.max(1, Math.ceil((end - start) / minute));
  const factor = Math.ceil(minutes / MAX_MINUTES);
  const bucketMs = minute * factor;
  const length = Math.ceil(minutes / factor);
  const series = timelines.map(({ f, t }) => {
    const counts = new Array<number>(length).fill(0);
    const tStart = Date.parse(t.start);
    t.counts.forEach((c, i) => {
      if (c === 0) return;
      const from = tStart + i * t.bucketSeconds * 1000;
      const to = from + t.bucketSeconds * 1000;
      // A bucket wider than the axis' is spread evenly over the axis buckets it covers.
      const first = Math.floor((from - start) / bucketMs);
      const last = Math.max(first, Math.ceil((to - start) / bucketMs) - 1);
      for (let b = first; b <= last && b < length; b++) counts[b]! += c / (last - first + 1);
    });
    return { ruleId: f.ruleId, label: t.label ?? f.title, target: f.subject.target ?? f.subject.pod ?? f.ruleId, counts: counts.map((c) => Math.round(c)) };
  });
  // Two storms both say "reconnect failures per minute": tell them apart by what they are about.
  const labelCounts = new Map<string, number>();
  for (const s of series) labelCounts.set(s.label, (labelCounts.get(s.label) ?? 0) + 1);
  for (const s of series) if (labelCounts.get(s.label)! > 1) s.label = `${s.label} · ${s.target}`;
  return { start: new Date(start).toISOString(), bucketSeconds: bucketMs / 1000, series };
}
