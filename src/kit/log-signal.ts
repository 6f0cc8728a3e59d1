// A bounded summary of one kind of proxy-log event (per pod, service, port…): how many, when,
// which pods, a few sample lines and a per-minute timeline. Shared by the threshold rules that
// count a signal and decide from its count and duration whether it is sustained.

import type { FindingDraft, ProxyLogRecord, SampleLine } from '../core/types.js';
import { perBody } from '../util/body-memo.js';
import { cappedBump, cappedCounts, earliest, latest, mergeCapped, type CappedCounts } from '../util/stats.js';
import { addToBuckets, mergeBuckets, timeBuckets, type TimeBuckets } from '../util/timeline.js';
import { keepSample } from '../core/evidence.js';
import { stateCap } from '../core/state-cap.js';

const SAMPLE_LINES = 3;
const POD_CAP = stateCap(500);

export interface SignalTally {
  count: number;
  firstTime: number | null;
  lastTime: number | null;
  /** Uptime extent; meaningful as a duration only when the tally holds one proxy's lines. */
  firstUptime: number | null;
  lastUptime: number | null;
  pods: CappedCounts;
  samples: SampleLine[];
  perMinute: TimeBuckets;
}

/** `podCap` 0 leaves the pods uncounted, for a rule that counts them per signal itself. */
export function signalTally(podCap = POD_CAP): SignalTally {
  return {
    count: 0,
    firstTime: null,
    lastTime: null,
    firstUptime: null,
    lastUptime: null,
    pods: cappedCounts(podCap),
    samples: [],
    perMinute: timeBuckets(60),
  };
}

/** The pod a line came from: its pod name, else its file (one file is one proxy's log). */
export function podOf(record: ProxyLogRecord): string {
  return record.pod ?? record.path;
}

export function countLine(t: SignalTally, record: ProxyLogRecord): void {
  t.count++;
  cappedBump(t.pods, podOf(record));
  if (record.time !== null) {
    addToBuckets(t.perMinute, record.time);
    t.firstTime = earliest(t.firstTime, record.time);
    t.lastTime = latest(t.lastTime, record.time);
  }
  if (record.uptime !== null) {
    t.firstUptime = earliest(t.firstUptime, record.uptime);
    t.lastUptime = latest(t.lastUptime, record.uptime);
  }
  keepSample(t.samples, SAMPLE_LINES, record.path, record.line, record.raw);
}

export function mergeTally(into: SignalTally, from: SignalTally): void {
  into.count += from.count;
  into.firstTime = earliest(into.firstTime, from.firstTime);
  into.lastTime = latest(into.lastTime, from.lastTime);
  into.firstUptime = earliest(into.firstUptime, from.firstUptime);
  into.lastUptime = latest(into.lastUptime, from.lastUptime);
  mergeCapped(into.pods, from.pods);
  mergeBuckets(into.perMinute, from.perMinute);
  into.samples.push(...from.samples.slice(0, SAMPLE_LINES - into.samples.length));
}

/**
 * How long the signal lasted: wall clock when collector timestamps exist, else proxy uptime, which
 * is a duration only for one proxy (`singleProxy`). Null when neither clock says.
 */
export function durationOf(t: SignalTally, singleProxy: boolean): number | null {
  if (t.firstTime !== null && t.lastTime !== null) return (t.lastTime - t.firstTime) / 1000;
  if (singleProxy && t.firstUptime !== null && t.lastUptime !== null) return t.lastUptime - t.firstUptime;
  return null;
}

export function podCount(t: SignalTally): number {
  return t.pods.counts.size + (t.pods.overflow > 0 ? 1 : 0);
}

/** `evidence.window` as the incident step reads it. */
export function windowEvidence(t: SignalTally, singleProxy: boolean): Record<string, unknown> {
  const wall = t.firstTime !== null && t.lastTime !== null;
  const seconds = durationOf(t, singleProxy);
  return {
    start: wall ? new Date(t.firstTime!).toISOString() : null,
    end: wall ? new Date(t.lastTime!).toISOString() : null,
    durationSeconds: seconds === null ? null : Math.round(seconds * 10) / 10,
    clock: wall ? 'wall' : seconds !== null ? 'proxy uptime (no collector timestamps)' : 'unknown (no timestamps)',
  };
}

export function locationsOf(t: SignalTally): FindingDraft['locations'] {
  return t.samples.map((s) => ({ path: s.path, line: s.line }));
}

/**
 * A line's body as one string: target, message, fields and span fields. Matching on it rather than
 * on single fields keeps a rule working when an older or pasted layout puts the text in another
 * place (legacy lines carry everything in the message; JSON keeps the error in a field).
 */
export const bodyText = perBody((record): string => {
  let text = `${record.target}: ${record.message}`;
  for (const [k, v] of Object.entries(record.fields)) text += ` ${k}=${v}`;
  return text;
});

/** `name{k=v}` of every span, root first, for address and port extraction. */
export const spanText = perBody((record): string =>
  record.spans
    .map(
      (s) =>
        `${s.name}{${Object.entries(s.fields)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')}}`,
    )
    .join(':'),
);

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`;
}
