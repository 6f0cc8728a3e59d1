// Prometheus text exposition (0.0.4), OpenMetrics 1.0, the hybrid body of linkerd2-proxy 2.15+
// (legacy families, then a prometheus-client section ending in `# EOF`), and the concatenated
// per-pod dumps of `linkerd diagnostics proxy-metrics` (each pod framed by `#`, `# POD name (i of N)`,
// `#`; `# EOF` closes a pod's section, not the input; `# ERROR…` stands for a pod that was not
// scraped). One sample line becomes one metric-sample record; nothing is merged, so duplicate
// series stay visible (and are flagged).
//
// Lenient mode (the default, used by analyze) reads what real scrapers and the linkerd CLI accept.
// Strict mode additionally reports, through sink.unparsed, everything the OpenMetrics 1.0 grammar
// rejects; the records that can still be read are emitted either way.

import type { InputInfo, MetricSampleRecord, MetricType } from '../core/types.js';
import type { FormatSniff, LineParser, ParserFactory, ParserSink } from './parser.js';
import { OpenMetricsChecker } from './openmetrics-checker.js';
import { TEXT_TYPES, TYPE_SUFFIXES, isSpace, lexSample, parseNumber, type LexedSample, type SamplePrefix } from './prometheus-lexer.js';
import { INITIAL_HASH, SeriesSet, prefixState, type HashState } from './prometheus-series-set.js';

export const createPrometheusParser: ParserFactory = (input, sink, options) => new PrometheusParser(input, sink, options.strict === true);

const POD_HEADER = /^# POD (.+) \((\d+) of (\d+)\)\s*$/;
const SCRAPE_ERROR = /^# ERROR:? ?(.*)$/;

const RESOLVE_SUFFIXES = ['_total', '_created', '_bucket', '_count', '_sum', '_gcount', '_gsum', '_info'];

interface FamilyMeta {
  type?: string;
  help?: boolean;
  unit?: string;
}

/** What a sample name stands for under the section's metadata. */
interface Resolved {
  family: string;
  type: MetricType;
  unit: string | undefined;
}

interface Section {
  name: string | null;
  index: number | null;
  of: number | null;
}

export class PrometheusParser implements LineParser {
  private section: Section = { name: null, index: null, of: null };
  private readonly meta = new Map<string, FamilyMeta>();
  private readonly resolved = new Map<string, Resolved>();
  /** The name resolve() answered last and its answer; null whenever `resolved` is emptied. */
  private lastResolvedName: string | null = null;
  private lastResolved: Resolved | null = null;
  private readonly seen = new SeriesSet();
  /** The previous sample line's labels up to its last, which the next bucket line usually repeats. */
  private previousSample: SamplePrefix | null = null;
  /** The shared prefix last hashed, and the hash state after it. */
  private hashedPrefix: string | null = null;
  private hashedPrefixState: HashState = INITIAL_HASH;
  private eofLine: number | null = null;
  private loneHashLine: number | null = null;
  private previousWasPodHeader = false;
  /** Metadata and sample lines in the current section, and whether any POD header was seen. */
  private sectionContent = 0;
  private sawPodHeader = false;
  private lastLine = 0;
  private template: MetricSampleRecord | null = null;
  private templateSection: Section | null = null;
  private readonly om: OpenMetricsChecker | null;
  /**
   * Lines already reported (strict mode only): a line can break several rules, and the grammar
   * checker reports some of them later (a histogram group when it closes, a missing `# EOF`),
   * but one bad line is one rejection. Lenient mode reports at most once per line by construction.
   */
  private readonly rejected: Set<number> | null;

  constructor(
    private readonly input: InputInfo,
    private readonly sink: ParserSink,
    private readonly strict: boolean,
  ) {
    this.rejected = strict ? new Set() : null;
    this.om = strict ? new OpenMetricsChecker((line, reason) => this.reject(line, `OpenMetrics: ${reason}`)) : null;
  }

  private reject(line: number, reason: string): void {
    if (this.rejected) {
      if (this.rejected.has(line)) return;
      this.rejected.add(line);
    }
    this.sink.unparsed(line, reason);
  }

  line(text: string, lineNo: number): void {
    this.lastLine = lineNo;
    // Nearly every line of a dump is a sample line inside a section: one that starts with a
    // printable ASCII character other than `#` cannot be blank, framed, a comment or indented,
    // so it goes straight to the sample reader unless `# EOF` or a lone `#` is pending.
    const first = text.charCodeAt(0);
    if (first > 32 && first < 127 && first !== 35 && this.eofLine === null && this.loneHashLine === null) {
      this.previousWasPodHeader = false;
      this.sectionContent++;
      this.sample(text, lineNo);
      return;
    }
    const wasPodHeader = this.previousWasPodHeader;
    this.previousWasPodHeader = false;
    if (text === '#') {
      // Part of the `#` / `# POD …` / `#` frame; a lone `#` elsewhere is a 0.0.4 comment.
      if (this.strict && !wasPodHeader) this.loneHashLine = lineNo;
      return;
    }
    const pendingLoneHash = this.loneHashLine;
    this.loneHashLine = null;
    if (text.startsWith('# POD ')) {
      const pod = POD_HEADER.exec(text);
      if (pod) {
        this.startSection({ name: pod[1]!, index: Number(pod[2]), of: Number(pod[3]) }, lineNo);
        this.previousWasPodHeader = true;
        return;
      }
    }
    if (pendingLoneHash !== null) this.om?.violation(pendingLoneHash, 'a lone "#" is not OpenMetrics');
    if (text.startsWith('# ERROR')) {
      const err = SCRAPE_ERROR.exec(text);
      if (err) {
        this.sink.emit({
          kind: 'metric-scrape-error',
          path: this.input.path,
          line: lineNo,
          ...this.podFields(),
          section: this.section.name,
          message: err[1]!.trim(),
          source: 'proxy-metrics',
        });
        return;
      }
    }
    const afterEof = this.eofLine !== null;
    if (afterEof) {
      if (text.trim() === '') return;
      // Text after `# EOF` without a new POD header: a second exposition glued on. Read it as a new
      // section of the same pod so its repeated HELP/TYPE lines are not clashes.
      this.resetFamilies();
    }
    if (text.trim() === '') {
      this.om?.violation(lineNo, 'blank line');
      return;
    }
    const trimmed = text.trimStart();
    this.sectionContent++;
    if (trimmed.charCodeAt(0) === 35 /* # */) this.comment(trimmed, lineNo);
    else this.sample(trimmed, lineNo);
    // After the line's own verdict, so a line that cannot be read at all is named for that.
    if (afterEof) this.om?.violation(lineNo, 'text after "# EOF"');
    if (isSpace(text.charCodeAt(0))) this.om?.violation(lineNo, 'leading whitespace');
  }

  end(): void {
    this.finishSection(true);
  }

  /** A sample record of the current section with its per-sample fields still to fill in. */
  private recordTemplate(): MetricSampleRecord {
    if (this.template === null || this.templateSection !== this.section) {
      this.templateSection = this.section;
      this.template = {
        kind: 'metric-sample',
        path: this.input.path,
        line: 0,
        ...this.podFields(),
        section: this.section.name,
        family: '',
        name: '',
        type: 'untyped',
        labels: {},
        value: 0,
        timestamp: null,
      };
    }
    return this.template;
  }

  private podFields(): { pod?: string; namespace?: string; container?: string } {
    const pod = this.section.name ?? this.input.pod;
    return {
      ...(pod !== undefined ? { pod } : {}),
      ...(this.input.namespace !== undefined ? { namespace: this.input.namespace } : {}),
      ...(this.input.container !== undefined && this.section.name === null ? { container: this.input.container } : {}),
    };
  }

  private startSection(section: Section, _lineNo: number): void {
    this.finishSection(false);
    this.section = section;
    this.sawPodHeader = true;
    this.resetFamilies();
  }

  private finishSection(final: boolean): void {
    if (this.om) {
      if (this.loneHashLine !== null) this.om.violation(this.loneHashLine, 'a lone "#" is not OpenMetrics');
      this.loneHashLine = null;
      // A section needs `# EOF` once it exposed anything; so does an input without any POD section,
      // even an empty one (the OpenMetrics suite's bad_no_eof). An input without a single line has
      // no line to name, so that rejection goes to line 0, the input as a whole (see ParserSink).
      const needsEof = this.sectionContent > 0 || (final && !this.sawPodHeader);
      this.om.endSection(this.eofLine !== null || !needsEof, this.lastLine);
    }
    this.sectionContent = 0;
  }

  private resetFamilies(): void {
    this.meta.clear();
    this.forgetResolved();
    this.seen.clear();
    this.eofLine = null;
    this.om?.reset();
  }

  private comment(text: string, lineNo: number): void {
    if (text === '# EOF') {
      this.om?.eof(lineNo);
      this.eofLine = lineNo;
      return;
    }
    // The name may be quoted (`# TYPE "my.metric" counter`), as Prometheus 3 writes UTF-8 names.
    const m = /^#[ \t]+(HELP|TYPE|UNIT)(?:[ \t]+("(?:[^"\\]|\\.)*"|\S+)(?:([ \t])(.*))?)?$/s.exec(text);
    if (!m) {
      // Free-form 0.0.4 comment (the linkerd frame, notes people add by hand).
      this.om?.violation(lineNo, `"${text.slice(0, 40)}" is not an OpenMetrics metadata line`);
      return;
    }
    const keyword = m[1] as 'HELP' | 'TYPE' | 'UNIT';
    const name = m[2]?.startsWith('"') ? m[2].slice(1, -1).replace(/\\(.)/g, '$1') : m[2];
    const rest = m[4];
    const type = (rest ?? '').trim().toLowerCase();
    // Before the grammar checker, which also objects to the type: the lenient verdict names the line.
    const unknownType = keyword === 'TYPE' && name !== undefined && !TEXT_TYPES.has(type);
    if (unknownType) this.reject(lineNo, `unknown metric type "${rest ?? ''}"`);
    if (this.om) {
      const exact = /^# (HELP|TYPE|UNIT) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/s.exec(text);
      if (!exact) this.om.violation(lineNo, `malformed # ${keyword} line`);
      else this.om.metadata(lineNo, keyword, exact[2]!, exact[3]!);
    }
    if (name === undefined || unknownType) return;
    const meta = this.meta.get(name) ?? {};
    if (keyword === 'TYPE') {
      meta.type = type;
      this.forgetResolved();
    } else if (keyword === 'HELP') meta.help = true;
    else {
      meta.unit = (rest ?? '').trim();
      this.forgetResolved();
    }
    this.meta.set(name, meta);
  }

  private sample(text: string, lineNo: number): void {
    const lexed = lexSample(text, this.previousSample);
    if (typeof lexed === 'string') {
      this.previousSample = null;
      this.reject(lineNo, lexed);
      return;
    }
    this.previousSample = lexed.reusable ?? null;
    const { family, type, unit } = this.resolve(lexed.name);
    const duplicate = !this.addSeries(lexed);
    if (this.om) {
      for (const v of lexed.violations) this.om.violation(lineNo, v);
      this.om.sample(lineNo, lexed);
    }
    // A copy of the section's template keeps every record in one hidden class with the keys in
    // the order the reports print them, for a fraction of what spreading the pod fields costs.
    const record: MetricSampleRecord = { ...this.recordTemplate() };
    record.line = lineNo;
    record.family = family;
    record.name = lexed.name;
    record.type = type;
    record.labels = lexed.labels;
    record.value = lexed.value;
    record.timestamp = lexed.timestampText === null ? null : Number(parseNumber(lexed.timestampText));
    if (!Number.isFinite(lexed.value)) record.valueText = lexed.valueText;
    if (unit) record.unit = unit;
    if (lexed.exemplar) record.exemplar = { labels: lexed.exemplar.labels, value: lexed.exemplar.value, timestamp: lexed.exemplar.timestamp };
    if (duplicate) record.duplicate = true;
    this.sink.emit(record);
  }

  private forgetResolved(): void {
    this.resolved.clear();
    this.lastResolvedName = null;
    this.lastResolved = null;
  }

  /** Remembers the sample's series; false when the section already had it. */
  private addSeries(lexed: LexedSample): boolean {
    const prefix = lexed.reusable?.prefix;
    if (prefix === undefined) return this.seen.add(lexed.seriesText);
    if (prefix !== this.hashedPrefix) {
      this.hashedPrefix = prefix;
      this.hashedPrefixState = prefixState(prefix, prefix.length);
    }
    return this.seen.add(lexed.seriesText, prefix.length, this.hashedPrefixState);
  }

  /**
   * Family and type of a sample name: the name itself when `# TYPE` declared it (legacy proxies
   * type `request_total` as a counter), else the name without an OpenMetrics suffix when that
   * family's type owns the suffix (`process_cpu_seconds_total` under `# TYPE process_cpu_seconds counter`).
   */
  private resolve(name: string): Resolved {
    // A histogram's bucket lines come in runs of one name: the last answer serves the run.
    if (name === this.lastResolvedName && this.lastResolved !== null) return this.lastResolved;
    const answer = this.resolveName(name);
    this.lastResolvedName = name;
    this.lastResolved = answer;
    return answer;
  }

  private resolveName(name: string): Resolved {
    const cached = this.resolved.get(name);
    if (cached) return cached;
    let found: { family: string; type: MetricType } | null = null;
    const direct = this.meta.get(name)?.type;
    if (direct) found = { family: name, type: direct as MetricType };
    else {
      for (const suffix of RESOLVE_SUFFIXES) {
        if (!name.endsWith(suffix)) continue;
        const base = name.slice(0, -suffix.length);
        const type = this.meta.get(base)?.type;
        if (type && TYPE_SUFFIXES[type]?.includes(suffix)) {
          found = { family: base, type: type as MetricType };
          break;
        }
      }
    }
    found ??= { family: name, type: 'untyped' };
    const result: Resolved = { family: found.family, type: found.type, unit: this.meta.get(found.family)?.unit };
    if (this.resolved.size < 10_000) this.resolved.set(name, result);
    return result;
  }
}

const SNIFF_COMMENT = /^# (?:HELP|TYPE|UNIT|POD|EOF|ERROR)\b/;
const SNIFF_SAMPLE = /^(?:[A-Za-z_:][\w:]*|\{"[^"]+")(?:\{.*\})?\s+(?:[-+]?(?:\d|Inf|NaN|inf|nan)[^\s]*)(?:\s+\S+)?\s*$/;

/** How the sniffer (parsers/sniff.ts) tells an exposition: its comments are sure, a bare sample line is loose and tested late. */
export const prometheusSniff: FormatSniff = {
  kind: 'prometheus',
  tests: [
    { order: 20, on: 'line', claim: (line) => (SNIFF_COMMENT.test(line) ? { kind: 'prometheus', score: 2 } : null) },
    { order: 100, on: 'line', claim: (line) => (SNIFF_SAMPLE.test(line) ? { kind: 'prometheus', score: 1 } : null) },
  ],
};
