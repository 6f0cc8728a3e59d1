// OpenMetrics 1.0 strictness: what the lenient Prometheus parser reports in strict mode.

import { dict } from '../util/dict.js';
import { EXEMPLAR_MAX_CODE_POINTS, OM_REAL, OM_TYPES, TYPE_SUFFIXES, parseNumber, type LexedSample } from './prometheus-lexer.js';

interface StrictFamily {
  name: string;
  type: string;
  help: boolean;
  unit: string | null;
  typeDeclared: boolean;
  hasSamples: boolean;
  groups: Set<string>;
  group: StrictGroup | null;
}

interface StrictGroup {
  key: string;
  line: number;
  lastLe: number | null;
  lastBucketValue: number | null;
  infBucket: number | null;
  negativeBucket: boolean;
  buckets: number;
  count: number | null;
  sum: number | null;
  afterBuckets: boolean;
  /** Timestamps of the points seen per series in this group (`undefined` = point without one). */
  timestamps: Map<string, number | null>;
}

/**
 * The rules of the OpenMetrics 1.0 text format that a line-by-line reader cannot see from one
 * line alone: metadata placement and uniqueness, family grouping, per-type sample names and
 * values, histogram bucket structure, timestamps order and the `# EOF` terminator.
 */
export class OpenMetricsChecker {
  private family: StrictFamily | null = null;
  /** Family names and the sample names they own, to catch clashes and interleaving. */
  private used = new Set<string>();
  private eofSeen = false;

  /** `report` receives each violation; the parser keeps it to one rejection per line. */
  constructor(private readonly report: (line: number, reason: string) => void) {}

  violation(line: number, reason: string): void {
    this.report(line, reason);
  }

  reset(): void {
    this.family = null;
    this.used = new Set();
    this.eofSeen = false;
  }

  eof(line: number): void {
    this.closeFamily(line);
    this.eofSeen = true;
  }

  endSection(complete: boolean, lastLine: number): void {
    this.closeFamily(lastLine);
    if (!complete) this.violation(lastLine, 'missing "# EOF" at the end of the exposition');
  }

  metadata(line: number, keyword: 'HELP' | 'TYPE' | 'UNIT', name: string, rest: string): void {
    if (keyword === 'TYPE' && !OM_TYPES.has(rest)) {
      this.violation(line, `invalid type "${rest}"`);
      return;
    }
    let family = this.family;
    if (family && family.name === name) {
      if (family.hasSamples) this.violation(line, `# ${keyword} for "${name}" after its samples`);
    } else {
      this.closeFamily(line);
      if (this.used.has(name)) this.violation(line, `"${name}" clashes with an earlier family or is not contiguous`);
      family = this.openFamily(name, 'unknown');
    }
    if (keyword === 'HELP') {
      if (family.help) this.violation(line, `repeated # HELP for "${name}"`);
      family.help = true;
    } else if (keyword === 'TYPE') {
      if (family.typeDeclared) this.violation(line, `repeated # TYPE for "${name}"`);
      family.type = rest;
      family.typeDeclared = true;
      for (const sampleName of sampleNames(name, rest)) {
        if (sampleName !== name && this.used.has(sampleName)) this.violation(line, `samples of "${name}" would clash with family "${sampleName}"`);
        this.used.add(sampleName);
      }
    } else {
      if (family.unit !== null) this.violation(line, `repeated # UNIT for "${name}"`);
      family.unit = rest;
      if (rest !== '' && !name.endsWith(`_${rest}`)) this.violation(line, `family "${name}" must end with its unit "_${rest}"`);
    }
    if (family.unit && (family.type === 'info' || family.type === 'stateset')) this.violation(line, `${family.type} families cannot have a unit`);
  }

  sample(line: number, s: LexedSample): void {
    if (this.eofSeen) return;
    let family = this.family;
    if (!family || !sampleNames(family.name, family.type).includes(s.name)) {
      if (family && family.name === s.name) {
        this.violation(line, `"${s.name}" is not a sample name of a ${family.type} family (expected ${sampleNames(family.name, family.type).join(', ')})`);
      }
      this.closeFamily(line);
      if (this.used.has(s.name)) this.violation(line, `samples of "${s.name}" are not contiguous or clash with another family`);
      family = this.openFamily(s.name, 'unknown');
      this.used.add(s.name);
    }
    family.hasSamples = true;
    const suffix = s.name.slice(family.name.length);
    const type = family.type;
    const v = s.value;
    const isBucket = (type === 'histogram' || type === 'gaugehistogram') && suffix === '_bucket';
    if (s.exemplar) {
      const allowed = (type === 'counter' && suffix === '_total') || isBucket;
      if (!allowed) this.violation(line, 'exemplars are only allowed on counter _total and histogram _bucket samples');
      if (s.exemplar.codePoints > EXEMPLAR_MAX_CODE_POINTS) this.violation(line, `exemplar labels exceed ${EXEMPLAR_MAX_CODE_POINTS} code points`);
      if (s.exemplar.timestamp !== null && !Number.isFinite(s.exemplar.timestamp)) this.violation(line, 'exemplar timestamp must be finite');
    }
    // Group: one metric point per label set (minus le/quantile), which must be contiguous.
    const groupLabels = Object.assign(dict<string>(), s.labels);
    if (isBucket) delete groupLabels.le;
    if (type === 'summary' && suffix === '') delete groupLabels.quantile;
    if (type === 'stateset') delete groupLabels[family.name];
    const key = Object.keys(groupLabels)
      .sort()
      .map((k) => `${k}=${groupLabels[k]}`)
      .join('\u0000');
    if (!family.group || family.group.key !== key) {
      this.closeGroup(family);
      if (family.groups.has(key)) this.violation(line, `metric points of "${family.name}" with the same labels are not contiguous`);
      family.groups.add(key);
      family.group = newGroup(key, line);
    }
    const g = family.group!;
    const seriesKey = s.seriesText;
    const ts = s.timestampText === null ? null : Number(parseNumber(s.timestampText));
    if (g.timestamps.has(seriesKey)) {
      const previous = g.timestamps.get(seriesKey)!;
      if (previous === null || ts === null) this.violation(line, 'repeated series needs a timestamp on every point');
      else if (ts < previous) this.violation(line, 'timestamps of a series must not go backwards');
    }
    g.timestamps.set(seriesKey, ts);
    switch (type) {
      case 'counter':
        if (suffix === '_total' && (Number.isNaN(v) || v < 0)) this.violation(line, 'counter value must be a non-negative number');
        break;
      case 'info':
        if (v !== 1) this.violation(line, 'info value must be 1');
        break;
      case 'stateset':
        if (!(family.name in s.labels)) this.violation(line, `stateset sample needs the label "${family.name}"`);
        if (v !== 0 && v !== 1) this.violation(line, 'stateset value must be 0 or 1');
        break;
      case 'summary':
        if (suffix === '') {
          const q = s.labels.quantile;
          const qv = q === undefined ? null : OM_REAL.test(q) ? Number(q) : null;
          if (qv === null || qv < 0 || qv > 1) this.violation(line, 'summary quantile label must be a number in [0, 1]');
          if (v < 0) this.violation(line, 'quantile value must not be negative');
        } else if (suffix === '_count' || suffix === '_sum') {
          if (Number.isNaN(v) || v < 0) this.violation(line, `summary ${suffix} must be a non-negative number`);
        }
        break;
      case 'histogram':
      case 'gaugehistogram':
        this.histogramSample(line, type, suffix, s, g);
        break;
    }
  }

  private histogramSample(line: number, type: string, suffix: string, s: LexedSample, g: StrictGroup): void {
    const v = s.value;
    if (suffix === '_bucket') {
      if (g.afterBuckets) this.violation(line, 'bucket after _count/_sum');
      const le = s.labels.le;
      const bound = le === undefined ? null : le === '+Inf' ? Infinity : OM_REAL.test(le) ? Number(le) : null;
      if (bound === null) {
        this.violation(line, 'bucket needs a numeric le label');
        return;
      }
      if (g.lastLe !== null && bound <= g.lastLe) this.violation(line, 'buckets must be sorted by le');
      if (Number.isNaN(v) || v < 0) this.violation(line, 'bucket value must be a non-negative number');
      if (g.lastBucketValue !== null && v < g.lastBucketValue) this.violation(line, 'bucket values must be cumulative');
      if (bound < 0) g.negativeBucket = true;
      if (bound === Infinity) g.infBucket = v;
      g.lastLe = bound;
      g.lastBucketValue = v;
      g.buckets++;
      return;
    }
    g.afterBuckets = true;
    const countSuffix = type === 'histogram' ? '_count' : '_gcount';
    const sumSuffix = type === 'histogram' ? '_sum' : '_gsum';
    if (suffix === countSuffix) {
      if (Number.isNaN(v) || v < 0) this.violation(line, `${suffix} must be a non-negative number`);
      g.count = v;
    } else if (suffix === sumSuffix) {
      if (Number.isNaN(v)) this.violation(line, `${suffix} must not be NaN`);
      if (v < 0 && !g.negativeBucket) this.violation(line, `${suffix} may only be negative when a bucket is negative`);
      if (type === 'histogram' && g.negativeBucket) this.violation(line, 'a histogram with negative buckets must not have _sum');
      g.sum = v;
    }
  }

  private openFamily(name: string, type: string): StrictFamily {
    const family: StrictFamily = { name, type, help: false, unit: null, typeDeclared: false, hasSamples: false, groups: new Set(), group: null };
    this.used.add(name);
    this.family = family;
    return family;
  }

  private closeFamily(_line: number): void {
    if (this.family) this.closeGroup(this.family);
    this.family = null;
  }

  private closeGroup(family: StrictFamily): void {
    const g = family.group;
    family.group = null;
    if (!g || (family.type !== 'histogram' && family.type !== 'gaugehistogram')) return;
    const what = family.name;
    if (g.infBucket === null) this.violation(g.line, `histogram "${what}" has no +Inf bucket`);
    if ((g.count === null) !== (g.sum === null)) this.violation(g.line, `histogram "${what}" needs both count and sum, or neither`);
    if (g.count !== null && g.infBucket !== null && g.count !== g.infBucket) this.violation(g.line, `histogram "${what}" count differs from its +Inf bucket`);
  }
}

function newGroup(key: string, line: number): StrictGroup {
  return {
    key,
    line,
    lastLe: null,
    lastBucketValue: null,
    infBucket: null,
    negativeBucket: false,
    buckets: 0,
    count: null,
    sum: null,
    afterBuckets: false,
    timestamps: new Map(),
  };
}

function sampleNames(family: string, type: string): string[] {
  return (TYPE_SUFFIXES[type] ?? ['']).map((suffix) => family + suffix);
}
