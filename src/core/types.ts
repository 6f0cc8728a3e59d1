// The contracts every stage shares: inputs, records, rules and findings. Records flow one way: input → parser → engine → rules → report.

import type { CertificateEvidenceRecord } from './certificate-evidence.js';
import type { SpecAndEvidenceRecord } from './evidence-records.js';
import type { MetricScrapeErrorRecord } from './scrape-error.js';

export const INPUT_KINDS = ['proxy-log', 'prometheus', 'dig', 'coredns-log', 'kubectl', 'linkerd-cli', 'unknown'] as const;
export type InputKind = (typeof INPUT_KINDS)[number];

export const SEVERITIES = ['error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Where an input came from and what its path says about the pod that wrote it. */
export interface InputInfo {
  /** Display path: a file path, `-` for stdin, or `bundle.tgz:inner/path.log` for tar entries. */
  path: string;
  kind: InputKind;
  pod?: string;
  namespace?: string;
  container?: string;
}

/** Mutable per-input counters the pipeline fills in while it streams. */
export interface InputStats extends InputInfo {
  bytes: number;
  records: number;
  /** Lines that were expected to parse but did not. */
  unparsed: number;
  /** The first object of several lines among them (a Kubernetes object that does not parse) and why, for the notice that names it. */
  firstUnreadObject?: { line: number; reason: string };
  lines: number;
  /**
   * Set when the lines that did not parse read, by themselves, as another known kind: the input
   * changes format after its head (70 lines of dig, then a proxy log), and the rest was not read.
   */
  switchedTo?: InputKind;
}

/** A rule that did not run because none of its input kinds was given (the report lists it). */
export interface SkippedRule {
  ruleId: string;
  reason: string;
}

/** A rule that threw: the others went on, and the report names this one with its message. */
export interface RuleFailure {
  ruleId: string;
  message: string;
}

export interface SourceLocation {
  path: string;
  line: number;
}

// ---------------------------------------------------------------- records

export type { RecordBase } from './record-base.js';
import type { RecordBase } from './record-base.js';
import type { LinkerdCheckRecord, LinkerdCliMessageRecord, LinkerdCliRowRecord } from './cli-records.js';
export type { MetricScrapeErrorRecord } from './scrape-error.js';
export type { CheckStatus, CliTable, LinkerdCheckRecord, LinkerdCliMessageRecord, LinkerdCliRowRecord } from './cli-records.js';

export interface LogSpan {
  name: string;
  fields: Readonly<Record<string, string>>;
}

export type LogLevel = 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

export interface ProxyLogRecord extends RecordBase {
  kind: 'proxy-log';
  /**
   * plain tracing, JSON tracing, the pre-2020 legacy layout; or a Go component's line (controllers,
   * proxy-init, linkerd-cni): logrus text (`logfmt`), logrus JSON (`go-json`), client-go's klog,
   * Go's standard logger (`go-std`: `2023/06/05 11:01:10 http: TLS handshake error …`, no level).
   */
  format: 'plain' | 'json' | 'logfmt' | 'legacy' | 'go-json' | 'klog' | 'go-std';
  /** Wall-clock time in ms since the epoch, when a collector prefix or the line itself gave it. */
  time: number | null;
  /** Seconds since proxy start, from the `[  123.456789s]` prefix or a JSON uptime timestamp. */
  uptime: number | null;
  /** Increments each time the proxy is seen to restart within one input (uptime going backwards, release banner). */
  restart: number;
  level: LogLevel;
  thread: number | null;
  spans: readonly LogSpan[];
  target: string;
  message: string;
  fields: Readonly<Record<string, string>>;
  /** The payload line after collector prefixes were removed, for evidence samples. */
  raw: string;
  stream?: 'stdout' | 'stderr';
  /**
   * Set on a fragment pasted without its level (and uptime): `level` then reads `INFO`, a
   * placeholder rather than what the proxy printed, so level-gated matching should not rely on it.
   */
  levelAbsent?: true;
  /** Made by the last look (parsers/last-look.ts) of a line no parser read: evidence, not a parse of the line. */
  lastLook?: true;
  /**
   * Set on the first record after the proxy restarted (its uptime went back, or a release banner
   * followed other lines). Such a record is built and handed to every rule whatever their
   * lineInterest, so rules can count restarts from it.
   */
  restartStart?: true;
}

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'gaugehistogram' | 'info' | 'stateset' | 'unknown' | 'untyped';

export interface MetricSampleRecord extends RecordBase {
  kind: 'metric-sample';
  /** `# POD name (i of N)` section in a `linkerd diagnostics proxy-metrics` dump; null for a single-target dump. */
  section: string | null;
  /** Family name as declared by `# TYPE`, or derived from the sample name. */
  family: string;
  name: string;
  type: MetricType;
  labels: Record<string, string>;
  value: number;
  timestamp: number | null;
  /** The value as written when it is not finite (`NaN`, `+Inf`, `-Inf`), since JSON cannot carry those. */
  valueText?: string;
  /** From `# UNIT`, when the family declared one. */
  unit?: string;
  /** OpenMetrics exemplar after `#` on the sample line. */
  exemplar?: { labels: Record<string, string>; value: number; timestamp: number | null };
  /** Set when the same series (name and label set) already appeared earlier in this section. */
  duplicate?: true;
}

/** A `# ERROR …` line for a pod that `linkerd diagnostics proxy-metrics` could not scrape. */

/**
 * How dig printed a message: the default text layout, `+short` (rdata only: no owner, no TTL),
 * `+yaml`, or one referral step of `+trace`.
 */
export type DigFormat = 'text' | 'short' | 'yaml' | 'trace';

export interface DnsQueryRecord extends RecordBase {
  kind: 'dns-query';
  /** Question name as dig printed it (case kept); '' when the output names none (`+short`). */
  name: string;
  type: string;
  server: string | null;
  /** Wall time in ms since the epoch, when dig printed `;; WHEN:` (or a `date` line / collector prefix preceded it). */
  time: number | null;
  status: string | null;
  flags: string[];
  /** Index of this dig invocation within the input, so answers can be tied to it. */
  queryIndex: number;
  error: string | null;
  format: DigFormat;
  class: string | null;
  /** Transport from `;; SERVER: … (UDP)` (BIND 9.17.7+) or the YAML socket_protocol. */
  protocol: string | null;
  /** Round trip from `;; Query time:` in milliseconds. */
  queryTimeMs: number | null;
  /** Extended DNS Errors from the OPT pseudo-section, e.g. `3 (Stale Answer)`. */
  ede: string[];
  /** What dig said around this query: `;; Truncated, retrying in TCP mode.`, `;; communications error …`. */
  notes: string[];
}

export interface DnsAnswerRecord extends RecordBase {
  kind: 'dns-answer';
  queryIndex: number;
  section: 'answer' | 'authority' | 'additional';
  name: string;
  ttl: number | null;
  class: string | null;
  type: string;
  data: string;
  srv?: { priority: number; weight: number; port: number; target: string };
  address?: string;
  cname?: string;
  /** Query time of the owning message, when known. */
  time: number | null;
  format: DigFormat;
}

export interface CorednsQueryRecord extends RecordBase {
  kind: 'coredns-query';
  time: number | null;
  client: string;
  clientPort: number | null;
  id: number | null;
  type: string;
  class: string;
  name: string;
  proto: string;
  rcode: string;
  flags: string[];
  durationSeconds: number | null;
  /** Request size in bytes, the DO bit and the advertised EDNS buffer size (`{size} {>do} {>bufsize}`). */
  requestSize: number | null;
  dnssecOk: boolean | null;
  bufsize: number | null;
  responseSize: number | null;
}

/** A CoreDNS line that is not a query: errors-plugin output, plugin warnings, the start-up banner. */
export interface CorednsMessageRecord extends RecordBase {
  kind: 'coredns-message';
  time: number | null;
  /** INFO, WARNING, ERROR, as CoreDNS printed it; null when the line has none. */
  level: string | null;
  /** `errors`, `forward`, `reload`…, from `plugin/<name>:`; null when absent. */
  plugin: string | null;
  message: string;
  raw: string;
}

/**
 * One container of a pod as `kubectl describe pod` printed it, or one row of `kubectl get pods`
 * (then `container` is absent and the fields describe the pod as a whole).
 */
export interface PodStatusRecord extends RecordBase {
  kind: 'pod-status';
  source: 'describe' | 'get-pods' | 'pod-yaml' | 'last-look';
  /** `Init Containers:` / `Containers:` / `Ephemeral Containers:`; null for a get-pods row or a paste that starts inside the list. */
  containerKind: 'init' | 'app' | 'ephemeral' | null;
  image: string | null;
  /** `State:` (Running, Waiting, Terminated), or the get-pods STATUS column (CrashLoopBackOff, OOMKilled, Init:Error…). */
  state: string | null;
  /** Reason under `State:` (CrashLoopBackOff, Completed, OOMKilled, Error). */
  reason: string | null;
  exitCode: number | null;
  /** Wall times in ms since the epoch, from `Started:` / `Finished:`. */
  started: number | null;
  finished: number | null;
  lastState: string | null;
  lastReason: string | null;
  lastExitCode: number | null;
  lastStarted: number | null;
  lastFinished: number | null;
  /** First line of the last termination's `Message:` (a crashed init container's error, a proxy's last log line). */
  lastMessage: string | null;
  ready: boolean | null;
  restartCount: number | null;
  /** get-pods `RESTARTS` of `5 (3m ago)`: seconds before the listing that the last restart happened. */
  lastRestartAgoSeconds: number | null;
  /** `Limits: memory:` of the container, as written (`250Mi`). */
  memoryLimit: string | null;
}

/** One Kubernetes event: a row of `kubectl get events` (any layout, `--watch` too) or of a describe's `Events:` table. */
export interface KubeEventRecord extends RecordBase {
  kind: 'kube-event';
  source: 'describe' | 'get-events' | 'last-look';
  /** Normal or Warning. */
  type: string;
  /** BackOff, Killing, Unhealthy, OOMKilling, FailedScheduling… */
  reason: string;
  /** `pod/linkerd-destination-5d8f…`; for a describe's events, the described object. */
  object: string | null;
  message: string;
  /** How many times the event was seen (`(x105 over 28m)`, the COUNT column), at least 1. */
  count: number;
  /** Seconds before the listing that it was last and first seen, from relative ages (`28m`, `3m2s`). */
  lastSeenAgoSeconds: number | null;
  firstSeenAgoSeconds: number | null;
  /** Who reported it (`kubelet`, `default-scheduler`), when the layout shows it. */
  reporter: string | null;
}

export type LdRecord =
  | ProxyLogRecord
  | MetricSampleRecord
  | MetricScrapeErrorRecord
  | DnsQueryRecord
  | DnsAnswerRecord
  | CorednsQueryRecord
  | CorednsMessageRecord
  | PodStatusRecord
  | KubeEventRecord
  | LinkerdCheckRecord
  | LinkerdCliMessageRecord
  | LinkerdCliRowRecord
  | CertificateEvidenceRecord
  | SpecAndEvidenceRecord;

export type RecordKind = LdRecord['kind'];
export type RecordOf<K extends RecordKind> = Extract<LdRecord, { kind: K }>;

// ---------------------------------------------------------------- findings

export interface FindingSubject {
  namespace?: string;
  pod?: string;
  workload?: string;
  target?: string;
}

/** A line quoted as evidence (`evidence.samples`): where it is and what it says. */
export interface SampleLine {
  path: string;
  line: number;
  text: string;
}

/** Per-bucket counts; the text report draws it as a sparkline, HTML as bars. */
export interface Timeline {
  /** ISO time of the first bucket, or null when only line order is known. */
  start: string | null;
  bucketSeconds: number;
  counts: number[];
  label?: string;
}

export const CONTROLLERS = ['destination', 'policy', 'identity'] as const;
/** A Linkerd control-plane controller, as src/knowledge/control-plane.ts classifies addresses and names. */
export type ControllerComponent = (typeof CONTROLLERS)[number];

/** A pod a finding names, with what the rule says about it there (lines, failures, expiry…). */
export interface PodMention {
  pod: string;
  [detail: string]: unknown;
}

/** When the signal was seen: wall-clock ISO times when the capture had them. */
export interface EvidenceWindow {
  start?: string | null;
  end?: string | null;
  durationSeconds?: number | null;
  /** Which clock the window is on: wall time, proxy uptime, or none. */
  clock?: string;
}

/**
 * The part of `evidence` every consumer may read by name (correlation, fix status, formats); the
 * rest is rule-specific and documented on the rule's docs page.
 */
export interface CommonEvidence {
  window?: EvidenceWindow;
  /** The controller the finding is about or reaches, when it is one. */
  controller?: ControllerComponent;
  /** The pods the finding names, beside `subject.pod`; capped lists, with `podsAffected` counting all. */
  pods?: readonly PodMention[];
  samples?: readonly SampleLine[];
  timeline?: Timeline;
}

export interface FindingDraft {
  severity?: Severity;
  /**
   * Stable message id within the rule (`controller-storm`, `negative-answer`): what the finding
   * says, whatever its wording. The baseline fingerprint uses it instead of the title, so a title
   * can be reworded without every baselined finding turning into "new" plus "fixed".
   */
  kind: string;
  title: string;
  message: string;
  subject: FindingSubject;
  evidence: CommonEvidence & Record<string, unknown>;
  locations: SourceLocation[];
  remediation: string;
  /** The figure a baseline compares to decide whether a known finding got worse (e.g. total lines, series count). */
  keyFigure?: { name: string; value: number };
  /**
   * Rules whose finding, when one is in the same run, already reports this cause: the engine then
   * drops this draft and names it in their evidence (`alsoMatched`), so one cause is one finding.
   */
  foldsInto?: readonly string[];
}

/**
 * Whether the proxies a finding concerns already run the release that fixes its symptom
 * (added after the rules ran, from detected proxy versions; see docs/incidents.md).
 */
export interface FixStatus {
  /** Id of the entry in src/knowledge/fixes.ts. */
  fix: string;
  symptom: string;
  fixedIn: { proxy: string; linkerd: string };
  status: 'fixed' | 'not-fixed' | 'mixed' | 'unknown';
  /** Which proxies' versions were considered. */
  basis: string;
  versions: { version: string; linkerd: string; pods: number; hasFix: boolean }[];
  note: string;
  references: string[];
}

export interface Finding extends FindingDraft {
  ruleId: string;
  /** The rule's stable code (RuleMeta.code), stamped by the engine. */
  code?: string;
  severity: Severity;
  docsUrl: string;
  /** Set by the version step; absent when no known release changes the finding's cause. */
  fixStatus?: FixStatus[];
}

// ---------------------------------------------------------------- rules

export interface RuleOptionSpec {
  type: 'number' | 'integer' | 'string' | 'boolean';
  description: string;
  minimum?: number;
  maximum?: number;
}

export interface RuleMeta<O extends object> {
  id: string;
  /** Stable message code, never reused (LD1xxx logs, LD2xxx metrics, LD3xxx DNS, LD4xxx cross-signal, LD5xxx Kubernetes objects). */
  code: string;
  title: string;
  description: string;
  defaultSeverity: Severity;
  /** Input kinds the rule reads; when none is present the rule is reported as skipped. */
  inputs: InputKind[];
  defaultOptions: O;
  optionSchema: { [K in keyof O]: RuleOptionSpec };
  /**
   * Per input kind, fixed substrings at least one of which is in every line whose record the rule
   * reads (e.g. the target `linkerd_reconnect`). When every rule reading a kind declares them,
   * analyze skips building the records of other lines (they are still counted), and the engine
   * hands a plain-format proxy-log record only to the rules whose substrings it holds. Records that
   * other lines depend on are always built and handed to every rule whatever the filter: for proxy
   * logs, release banners, the first record after a restart, and every line that is not plain
   * tracing format. Leave it out to see every record; an empty list sees only those.
   */
  lineInterest?: Partial<Record<InputKind, readonly string[]>>;
  /**
   * Findings of other rules that this rule's findings already tell (one cause, one finding): when
   * this rule reports in the same run, a finding of `rule` (whose subject target is one of
   * `targets`, when given: a signature id of known-signature, say) folds into this rule's and is
   * listed under its `alsoMatched`. Declared here, in the absorbing rule's own folder, so a new
   * rule never edits another rule's folder to claim an overlap.
   */
  absorbs?: readonly RuleAbsorbs[];
  /**
   * Kinds of this rule's findings whose cause is one whatever their target: every service called
   * by proxies that lost their control plane fails fast, every endpoint discovery kept after the
   * cluster removed it is dialled in vain. Several findings of such a kind and cause, on several
   * targets, fold into one that lists the targets (report/fold.ts): one cause, one finding.
   */
  sharedCauses?: readonly SharedCauseKind[];
}

/** A finding kind that is one cause across targets, and how its folded finding is titled. */
export interface SharedCauseKind {
  kind: string;
  /** The folded title; `{count}` is the number of targets. */
  title: string;
  /** What a target is, plural (`services`, `endpoints`): the folded message's word. */
  targets: string;
}

/** One overlap a rule claims: another rule's findings (optionally only those with these targets). */
export interface RuleAbsorbs {
  rule: string;
  targets?: readonly string[];
}

export type Visitors<S> = {
  [K in RecordKind]?: (state: S, record: RecordOf<K>) => void;
};

export interface FinishContext<O extends object> {
  options: O;
  inputs: readonly InputStats[];
}

/**
 * A rule is a reducer over records. Its state must be structured-clonable (plain objects, arrays, Map, Set) so that inputs analysed
 * in parallel can be merged; merge is applied in input order, which keeps parallel and sequential runs identical. */
export interface RuleModule<O extends object = object, S = unknown> {
  meta: RuleMeta<O>;
  createState(options: O): S;
  visitors: Visitors<S>;
  merge(into: S, from: S): void;
  finish(state: S, ctx: FinishContext<O>): FindingDraft[];
  /** Whether records reached the rule although none of its input kinds was given (the last look's evidence, from an input of no kind): it finishes then too. */
  heard?(state: S): boolean;
  /** The entries of a catalogue the rule matches against, each with its own `explain` page. */
  catalogue?: RuleCatalogue;
}

/**
 * A rule's catalogue (known-signature's signatures): `explain <entry id>` prints an entry's page,
 * headed as a <noun> of the rule, and `check` proves every entry has one. Declared by the rule, so
 * the CLI needs no knowledge of which rule has one.
 */
export interface RuleCatalogue {
  /** What one entry is called, singular: `signature`. */
  noun: string;
  /** Entry ids, unique across rules and distinct from rule ids. */
  ids: readonly string[];
  /** An entry's page as Markdown; null for an id not in the catalogue. */
  page(id: string): string | null;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRule = RuleModule<any, any>;

export function defineRule<O extends object, S>(rule: RuleModule<O, S>): RuleModule<O, S> {
  return rule;
}
