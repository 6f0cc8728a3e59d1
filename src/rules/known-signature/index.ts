// One line is enough: a maintainer recognises `invalid peer certificate: UnknownIssuer` or
// `Too many open files (os error 24)` at a glance, while the threshold rules need minutes of data.
// This rule matches single lines against the signature catalogue (catalogue.ts, data only) and
// reports one info finding per signature that occurred, with counts, pods, first/last time and a
// few samples. Memory is bounded: a tally per signature, pod counts capped, samples capped.

import type { CorednsMessageRecord, CorednsQueryRecord, FindingDraft, ProxyLogRecord, SampleLine } from '../../core/types.js';
import { defineRule } from '../../core/types.js';
import { goLineText, isGoLog } from '../../kit/go-log.js';
import { KNOWN_FIXES } from '../../knowledge/fixes.js';
import type { Cause, CauseTell } from '../../knowledge/causes/index.js';
import { compileKnowledge, likelyCause } from './causes.js';
import { firstAction, podLabel } from './action.js';
import { perBody } from '../../util/body-memo.js';
import { literalRegex } from '../../util/literal-regex.js';
import { EXCERPT_MAX_LINES, SIGNATURES, type KnownSignature } from './catalogue.js';
import { renderSignaturePage } from './docs.js';
import { compileSignaturePatternOnFirstUse, type LinearPattern } from './matcher.js';
import { keepSample } from '../../core/evidence.js';
import { stateCap } from '../../core/state-cap.js';
import { detach, nameId, nameTable, type NameTable } from '../../util/stats.js';

export { EXCERPT_MAX_LINES, SIGNATURES, type KnownSignature } from './catalogue.js';
export { compileSignaturePattern } from './matcher.js';

export interface KnownSignatureOptions {
  topPods: number;
  samples: number;
}

/** Distinct pods counted per signature; beyond, lines are still counted but not by pod. */
const MAX_PODS_PER_SIGNATURE = stateCap(2_000);

/**
 * Sources (pods, or files whose pod is unknown) named once per run, whatever signatures they
 * match: each signature counts lines by a source's number. An object per source and signature,
 * with its key, was 2 MB of state for 4,000 pod files of the bench log. Past the table, a
 * source's lines are counted but not by source, as past MAX_PODS_PER_SIGNATURE.
 */
const MAX_SOURCES = stateCap(10_000);

interface CompiledSignature {
  entry: KnownSignature;
  literals: readonly string[];
  pattern: LinearPattern;
  levels: ReadonlySet<string> | null;
  maxUptimeSeconds: number | null;
}

function compile(entry: KnownSignature): CompiledSignature {
  return {
    entry,
    literals: entry.match.literals,
    pattern: compileSignaturePatternOnFirstUse(entry.match.pattern),
    levels: entry.match.levels ? new Set(entry.match.levels) : null,
    maxUptimeSeconds: entry.match.maxUptimeSeconds ?? null,
  };
}

const PROXY_SIGNATURES = SIGNATURES.filter((s) => s.match.records.includes('proxy-log')).map(compile);
const COREDNS_SIGNATURES = SIGNATURES.filter((s) => s.match.records.includes('coredns-message')).map(compile);
const QUERY_SIGNATURES = SIGNATURES.filter((s) => s.match.records.includes('coredns-query')).map(compile);

/**
 * Finds, in one regex scan, which literals a line holds and so which signatures to try: most
 * lines hold none and stop at the first exec; the others test only the patterns of the
 * signatures whose literal they hold, instead of every signature's literals one by one.
 */
class LiteralIndex {
  private readonly scanner: RegExp;
  /** Per literal: the signatures (indices) whose literals it contains (a match of it implies theirs). */
  private readonly signaturesOf = new Map<string, readonly number[]>();

  constructor(private readonly signatures: readonly CompiledSignature[]) {
    const literals = [...new Set(signatures.flatMap((s) => s.literals))];
    // Of two literals starting at one position the longer is reported; the shorter one it contains
    // is implied below.
    this.scanner = literalRegex(literals, { longest: true, flags: 'g' });
    for (const literal of literals) {
      const implied = literals.filter((other) => literal.includes(other));
      const indices = signatures.flatMap((s, i) => (s.literals.some((l) => implied.includes(l)) ? [i] : []));
      this.signaturesOf.set(literal, indices);
    }
  }

  /** Indices (in catalogue order) of the signatures whose literal and pattern match the text. */
  candidates(text: string): readonly number[] {
    const scanner = this.scanner;
    scanner.lastIndex = 0;
    let m = scanner.exec(text);
    if (m === null) return NO_CANDIDATES;
    // The index is shared by every run of the process, so what one line marks is the call's own.
    const marked = new Set<number>();
    do {
      for (const i of this.signaturesOf.get(m[0])!) marked.add(i);
      // Literals may overlap: look again from the next position, not after this match.
      scanner.lastIndex = m.index + 1;
    } while ((m = scanner.exec(text)) !== null);
    const found = [...marked].sort((a, b) => a - b).filter((i) => this.signatures[i]!.pattern.test(text));
    return found.length > 0 ? found : NO_CANDIDATES;
  }
}

const PROXY_INDEX = new LiteralIndex(PROXY_SIGNATURES);
const COREDNS_INDEX = new LiteralIndex(COREDNS_SIGNATURES);
const QUERY_INDEX = new LiteralIndex(QUERY_SIGNATURES);

const NO_CANDIDATES: readonly number[] = Object.freeze([]);

/**
 * The text patterns are matched against. Plain, legacy and pasted lines: the payload as printed.
 * JSON lines: the plain layout rebuilt (`spans: target: message key=value…`), so one pattern fits
 * both and a JSON line's escaping does not get in the way. Go components' lines (logrus text or
 * JSON, klog): `component: message key=value…` unescaped, the same text whatever the layout.
 */
export function proxyLineText(record: Pick<ProxyLogRecord, 'format' | 'raw' | 'spans' | 'target' | 'message' | 'fields'>): string {
  if (isGoLog(record)) return goLineText(record);
  if (record.format !== 'json') return record.raw;
  const spans = record.spans.map((s) => {
    const fields = Object.entries(s.fields).map(([k, v]) => `${k}=${v}`);
    return fields.length > 0 ? `${s.name}{${fields.join(' ')}}` : s.name;
  });
  const fields = Object.entries(record.fields)
    .map(([k, v]) => ` ${k}=${v}`)
    .join('');
  return `${spans.length > 0 ? `${spans.join(':')}: ` : ''}${record.target}: ${record.message}${fields}`;
}

/**
 * A CoreDNS query as the default query-log layout prints it (`client:port - id "type class name
 * proto size do bufsize" rcode flags size durations`), whatever layout it was read from, so
 * one pattern fits the CoreDNS ≤ 1.2 date layout and the current one. Unknown fields print `-`.
 */
export function corednsQueryText(q: CorednsQueryRecord): string {
  const field = (v: number | boolean | null) => (v === null ? '-' : String(v));
  const flags = q.flags.length > 0 ? q.flags.join(',') : '-';
  const duration = q.durationSeconds === null ? '-' : `${q.durationSeconds}s`;
  return `${q.client}:${field(q.clientPort)} - ${field(q.id)} "${q.type} ${q.class} ${q.name} ${q.proto} ${field(q.requestSize)} ${field(q.dnssecOk)} ${field(q.bufsize)}" ${q.rcode} ${flags} ${field(q.responseSize)} ${duration}`;
}

/**
 * Per body, since a storm repeats a few hundred bodies millions of times. The text of a plain line
 * differs between records of one body only in the uptime/level/thread prefix, which patterns never
 * read (levels and uptimes are checked per record, below).
 */
const proxyCandidates = perBody((record) => PROXY_INDEX.candidates(proxyLineText(record)));

function pick(
  candidates: readonly number[],
  signatures: readonly CompiledSignature[],
  level: string | null,
  uptime: number | null,
): CompiledSignature | undefined {
  for (const i of candidates) {
    const s = signatures[i]!;
    if (s.levels && (level === null || !s.levels.has(level))) continue;
    if (s.maxUptimeSeconds !== null && (uptime === null || uptime >= s.maxUptimeSeconds)) continue;
    return s;
  }
  return undefined;
}

interface Source {
  pod: string | null;
  namespace: string | null;
  /** Input path: the first one the source's lines came from. */
  path: string;
}

interface PodTally extends Source {
  lines: number;
}

interface SignatureTally {
  id: string;
  lines: number;
  firstTime: number | null;
  lastTime: number | null;
  samples: SampleLine[];
  /** Lines per source, by the source's id in State.sources. */
  pods: Map<number, number>;
  /** Lines of pods beyond MAX_PODS_PER_SIGNATURE or MAX_SOURCES. */
  uncountedPodLines: number;
  /** Bit i set: a line of this signature showed line tell i of its knowledge (causes.ts). */
  told: number;
  /** State.fullLogs when `pods` was last swept of sources known to be full logs (background signatures). */
  sweptAt: number;
}

interface State {
  tallies: Map<string, SignatureTally>;
  /** Source keys (`pod:ns/name`, `path:file`) and their ids; `sourceInfo[id]` says who each is. */
  sources: NameTable;
  sourceInfo: Source[];
  sampleCap: number;
  /** sourceKey's one-entry memo, in the run's own state rather than at module level (issue 30). */
  lastSource: SourceKey;
  /**
   * 1 for a source with a matched line past EXCERPT_MAX_LINES: a full log, whose background lines
   * are never reported, so it is the first to make room for a possible excerpt (issue 44).
   */
  fullSources: Uint8Array;
  /** How many sources are marked in fullSources. */
  fullLogs: number;
}

interface SourceKey {
  pod: string | undefined;
  namespace: string | undefined;
  path: string;
  id: number;
}

type MatchedRecord = ProxyLogRecord | CorednsMessageRecord | CorednsQueryRecord;

function tally(state: State, signature: KnownSignature, record: MatchedRecord, text: string): void {
  let t = state.tallies.get(signature.id);
  if (!t) {
    t = { id: signature.id, lines: 0, firstTime: null, lastTime: null, samples: [], pods: new Map(), uncountedPodLines: 0, told: 0, sweptAt: 0 };
    state.tallies.set(signature.id, t);
  }
  t.lines++;
  // Tells are tested until each has been seen once: a storm's millionth line adds nothing.
  const tells = BY_ID.get(signature.id)!.knowledge.lineTells;
  for (let i = 0; i < tells.length; i++) {
    if ((t.told & (1 << i)) === 0 && tells[i]!.pattern.test(text)) t.told |= 1 << i;
  }
  if (record.time !== null) {
    if (t.firstTime === null || record.time < t.firstTime) t.firstTime = record.time;
    if (t.lastTime === null || record.time > t.lastTime) t.lastTime = record.time;
  }
  keepSample(t.samples, state.sampleCap, record.path, record.line, text);
  const source = sourceOf(state, record);
  if (record.line > EXCERPT_MAX_LINES) markFull(state, source);
  countLines(state, t, source, 1);
}

function markFull(state: State, source: number): void {
  if (source < 0 || state.fullSources[source] === 1) return;
  state.fullSources[source] = 1;
  state.fullLogs++;
}

function countLines(state: State, t: SignatureTally, source: number, lines: number): void {
  const known = t.pods.get(source);
  if (known !== undefined) {
    t.pods.set(source, known + lines);
    return;
  }
  // A background signature is reported only from excerpts: a source that may be one is never left
  // uncounted while a full log's source holds a place (issue 44: 2,000 full logs before an excerpt
  // hid it). The sweep runs only when sources were found to be full logs since the last one.
  if (
    source >= 0 &&
    t.pods.size >= MAX_PODS_PER_SIGNATURE &&
    state.fullSources[source] !== 1 &&
    state.fullLogs > t.sweptAt &&
    BY_ID.get(t.id)!.entry.background
  ) {
    t.sweptAt = state.fullLogs;
    for (const [id, n] of t.pods) {
      if (state.fullSources[id] !== 1) continue;
      t.pods.delete(id);
      t.uncountedPodLines += n;
    }
  }
  if (source >= 0 && t.pods.size < MAX_PODS_PER_SIGNATURE) t.pods.set(source, lines);
  else t.uncountedPodLines += lines;
}

/** Records come in long runs from one source: build (and look up) its key once per run, not per line. */
const NO_SOURCE: SourceKey = Object.freeze({ pod: undefined, namespace: undefined, path: '\u0000', id: -1 });

/** The record's source id, or -1 past MAX_SOURCES. */
function sourceOf(state: State, record: MatchedRecord): number {
  const last = state.lastSource;
  if (record.pod === last.pod && record.namespace === last.namespace && (record.pod !== undefined || record.path === last.path)) return last.id;
  const key = record.pod ? `pod:${record.namespace ?? ''}/${record.pod}` : `path:${record.path}`;
  const id = sourceId(state, key, { pod: record.pod ? detach(record.pod) : null, namespace: record.namespace ?? null, path: record.path });
  state.lastSource = { pod: record.pod, namespace: record.namespace, path: record.path, id };
  return id;
}

function sourceId(state: State, key: string, source: Source): number {
  const id = nameId(state.sources, key);
  // A new name takes the next id: note who it is.
  if (id === state.sourceInfo.length) state.sourceInfo.push(source);
  return id;
}

/** A tally's sources with their lines, for the finding. */
function podTallies(state: State, t: SignatureTally): PodTally[] {
  return [...t.pods].map(([id, lines]) => ({ ...state.sourceInfo[id]!, lines }));
}

/**
 * The literals a line must hold for any signature to match, without those that contain another
 * (a line holding `Unavailable; entering failfast` holds `entering failfast`): the parser tests
 * every line against all rules' literals at once, and each alternative costs on every line.
 */
function interestOf(signatures: readonly CompiledSignature[]): string[] {
  const literals = [...new Set(signatures.flatMap((s) => s.literals))];
  // Sorted, so the interest list (and the regex built from it) is the same whatever the catalogue order.
  return literals.filter((l) => !literals.some((other) => other !== l && l.includes(other))).sort();
}

const BY_ID = new Map(SIGNATURES.map((s, i) => [s.id, { entry: s, order: i, knowledge: compileKnowledge(s) }]));

export function findSignature(id: string): KnownSignature | undefined {
  return BY_ID.get(id)?.entry;
}

export default defineRule<KnownSignatureOptions, State>({
  meta: {
    id: 'known-signature',
    code: 'LD1100',
    title: 'Known failure signature',
    description: 'A single log line matching a known Linkerd failure signature (catalogue in docs/signatures.md): what it means and how to fix it.',
    defaultSeverity: 'info',
    inputs: ['proxy-log', 'coredns-log'],
    lineInterest: {
      'proxy-log': interestOf(PROXY_SIGNATURES),
      'coredns-log': interestOf([...COREDNS_SIGNATURES, ...QUERY_SIGNATURES]),
    },
    defaultOptions: { topPods: 10, samples: 3 },
    optionSchema: {
      topPods: { type: 'integer', minimum: 1, maximum: 1000, description: 'Pods listed per signature, most lines first.' },
      samples: { type: 'integer', minimum: 1, maximum: 50, description: 'Sample lines kept per signature.' },
    },
  },

  catalogue: {
    noun: 'signature',
    ids: SIGNATURES.map((s) => s.id),
    page: (id) => {
      const signature = findSignature(id);
      return signature ? renderSignaturePage(signature) : null;
    },
  },

  // The last look's evidence (a panic line in an input of another kind) reaches the rule without a proxy log: it finishes then too.
  heard: (state) => state.tallies.size > 0,

  createState: (options) => ({
    tallies: new Map(),
    sources: nameTable(MAX_SOURCES),
    sourceInfo: [],
    sampleCap: options.samples,
    lastSource: NO_SOURCE,
    fullSources: new Uint8Array(MAX_SOURCES),
    fullLogs: 0,
  }),

  visitors: {
    'proxy-log'(state, record) {
      const candidates = proxyCandidates(record);
      if (candidates.length === 0) return;
      const signature = pick(candidates, PROXY_SIGNATURES, record.level, record.uptime);
      if (signature) tally(state, signature.entry, record, record.raw);
    },
    'coredns-message'(state, record) {
      const candidates = COREDNS_INDEX.candidates(record.raw);
      if (candidates.length === 0) return;
      const signature = pick(candidates, COREDNS_SIGNATURES, record.level, null);
      if (signature) tally(state, signature.entry, record, record.raw);
    },
    'coredns-query'(state, record) {
      const text = corednsQueryText(record);
      const candidates = QUERY_INDEX.candidates(text);
      if (candidates.length === 0) return;
      const signature = pick(candidates, QUERY_SIGNATURES, null, null);
      if (signature) tally(state, signature.entry, record, text);
    },
  },

  merge(into, from) {
    for (const [id, t] of from.tallies) {
      let mine = into.tallies.get(id);
      if (!mine) {
        mine = { ...t, lines: 0, samples: [], pods: new Map(), uncountedPodLines: 0, told: 0, sweptAt: 0 };
        into.tallies.set(id, mine);
      }
      mine.lines += t.lines;
      mine.told |= t.told;
      if (t.firstTime !== null && (mine.firstTime === null || t.firstTime < mine.firstTime)) mine.firstTime = t.firstTime;
      if (t.lastTime !== null && (mine.lastTime === null || t.lastTime > mine.lastTime)) mine.lastTime = t.lastTime;
      mine.samples.push(...t.samples.slice(0, Math.max(0, into.sampleCap - mine.samples.length)));
      mine.uncountedPodLines += t.uncountedPodLines;
      // The other state's sources, numbered as this state numbers them.
      for (const [source, lines] of t.pods) {
        const id = sourceId(into, from.sources.names[source]!, from.sourceInfo[source]!);
        if (from.fullSources[source] === 1) markFull(into, id);
        countLines(into, mine, id, lines);
      }
    }
  },

  finish(state, { options, inputs }) {
    const fullLogs = new Set(inputs.filter((i) => i.lines > EXCERPT_MAX_LINES).map((i) => i.path));
    const tallies = [...state.tallies.values()].sort((a, b) => BY_ID.get(a.id)!.order - BY_ID.get(b.id)!.order);
    const seen = new Set(state.tallies.keys());
    return tallies.flatMap((t) => {
      const { entry: signature, knowledge } = BY_ID.get(t.id)!;
      const pods = podTallies(state, t);
      const reported = signature.background ? onlyFromExcerpts(t, pods, fullLogs) : { t, pods };
      return reported ? [findingFor(signature, reported.t, reported.pods, options, likelyCause(knowledge, t.told, seen))] : [];
    });
  },
});

/** The part of a tally that excerpts hold, or null when it came from full logs only. */
function onlyFromExcerpts(t: SignatureTally, all: PodTally[], fullLogs: ReadonlySet<string>): { t: SignatureTally; pods: PodTally[] } | null {
  const pods = all.filter((p) => !fullLogs.has(p.path));
  if (pods.length === 0) return null;
  if (pods.length === all.length && t.uncountedPodLines === 0) return { t, pods };
  const samples = t.samples.filter((s) => !fullLogs.has(s.path));
  const lines = pods.reduce((sum, p) => sum + p.lines, 0);
  // First and last times are not kept per source; without them the finding states no window.
  return { t: { ...t, samples, lines, uncountedPodLines: 0, firstTime: null, lastTime: null }, pods };
}

function findingFor(
  signature: KnownSignature,
  t: SignatureTally,
  tallies: PodTally[],
  options: KnownSignatureOptions,
  likely: { cause: Cause; tell: CauseTell } | null,
): FindingDraft {
  const pods = tallies.sort((a, b) => b.lines - a.lines || podLabel(a).localeCompare(podLabel(b)));
  const podCount = pods.length + (t.uncountedPodLines > 0 ? 1 : 0);
  const top = pods.slice(0, options.topPods);
  const lines = `${t.lines} line${t.lines === 1 ? '' : 's'}`;
  const where =
    pods.length === 1 && t.uncountedPodLines === 0
      ? `in ${podLabel(pods[0]!)}`
      : `in ${pods.length}${t.uncountedPodLines > 0 ? '+' : ''} ${pods.length === 1 ? 'source' : 'sources'}`;
  const covered =
    signature.coveredBy && signature.coveredBy.length > 0
      ? ` When sustained, this is judged by ${signature.coveredBy.join(' and ')}; read the findings together.`
      : '';
  const knowledge = BY_ID.get(signature.id)!.knowledge.knowledge;
  // The causes as the sources rank them, the one the context points at first; each with what tells it apart.
  const causes = likely ? [likely.cause, ...knowledge.causes.filter((c) => c !== likely.cause)] : knowledge.causes;
  const tellsOf = (c: Cause) => (c.tells.length > 0 ? ` (tell: ${c.tells.map((x) => x.says).join('; or ')})` : '');
  const causeList = causes.map((c, i) => `(${i + 1}) ${c.title}${tellsOf(c)}`).join('; ');
  const verdict = likely
    ? `Most likely: ${likely.cause.title}, since ${likely.tell.says}. ${likely.cause.why}`
    : causes.length > 1
      ? 'The lines alone do not tell which cause it is.'
      : '';
  const knownFix = signature.knownFix ? KNOWN_FIXES.find((f) => f.id === signature.knownFix) : undefined;
  const remediation = [
    firstAction(signature, t, pods, causes[0]),
    'Likely causes, most likely first:',
    ...causes.map((c, i) => `${i + 1}. ${c.title}${c.why !== c.title ? `: ${c.why}` : ''}${tellsOf(c)} [${c.sources.map((s) => s.url).join(', ')}]`),
    'Fix, by release:',
    ...signature.fix.map((f) => `- ${f.versions}: ${f.action}`),
    ...(knownFix
      ? [`Fixed upstream in ${knownFix.fixedInLinkerd} (proxy ${knownFix.fixedInProxy}): ${knownFix.change}; until then ${knownFix.mitigation}.`]
      : []),
    ...(signature.coveredBy?.length ? [`See also: ${signature.coveredBy.map((r) => `linkerd-doctor explain ${r}`).join(', ')}.`] : []),
    `Details: linkerd-doctor explain ${signature.id}`,
  ].join('\n');
  const single = pods.length === 1 && t.uncountedPodLines === 0 && pods[0]!.pod ? pods[0]! : null;
  return {
    kind: signature.id,
    title: likely ? likely.cause.title : knowledge.failure,
    message: `${lines} ${where} match${t.lines === 1 ? 'es' : ''} the known signature ${signature.id} (${signature.title}). ${signature.meaning} ${verdict}${verdict ? ' ' : ''}Causes, most likely first: ${causeList}.${covered}`,
    subject: {
      ...(single?.namespace ? { namespace: single.namespace } : {}),
      ...(single?.pod ? { pod: single.pod } : {}),
      target: signature.id,
    },
    evidence: {
      signature: signature.id,
      family: signature.family,
      lines: t.lines,
      podsAffected: podCount,
      pods: top.map((p) => ({ pod: podLabel(p), lines: p.lines })),
      ...(podCount > top.length ? { podsNote: `top ${top.length} of ${podCount}${t.uncountedPodLines > 0 ? '+' : ''} sources` } : {}),
      ...(t.firstTime !== null ? { firstTime: new Date(t.firstTime).toISOString() } : {}),
      ...(t.lastTime !== null ? { lastTime: new Date(t.lastTime).toISOString() } : {}),
      ...(signature.coveredBy?.length ? { coveredBy: [...signature.coveredBy] } : {}),
      ...(signature.knownFix ? { knownFix: signature.knownFix } : {}),
      references: [...signature.references],
      ...(likely ? { likelyCause: likely.cause.id } : {}),
      causes: causes.map((c) => ({ id: c.id, title: c.title, sources: c.sources.map((x) => x.url) })),
      samples: t.samples,
    },
    locations: t.samples.map((s) => ({ path: s.path, line: s.line })),
    remediation,
    keyFigure: { name: 'lines', value: t.lines },
    ...(signature.coveredBy?.length ? { foldsInto: signature.coveredBy } : {}),
  };
}
