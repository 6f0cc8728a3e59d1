// Baselines for gating on captured snapshots: `--write-baseline` records today's findings by
// fingerprint with their severity and key figure; `--baseline` then lets only new or worse
// findings fail the run, and lists what was fixed and which entries could not be checked.

import { open, type FileHandle } from 'node:fs/promises';
import { TOOL_NAME, TOOL_VERSION } from '../core/docs.js';
import { describeSystemError, UsageError } from '../core/errors.js';
import { SEVERITIES, type Finding, type FindingSubject, type Severity } from '../core/types.js';
import { stringifyWellFormed } from '../util/json-safe.js';
import { findingKind } from './fingerprint.js';
import { SEVERITY_RANK } from './severity.js';

/**
 * 2: fingerprints over the finding's kind (message id). 1: over its title; still read, and matched
 * against title-based fingerprints of today's findings, so a baseline written before keeps working
 * until it is rewritten.
 */
export const BASELINE_SCHEMA_VERSION = 2;
const READABLE_SCHEMA_VERSIONS: readonly unknown[] = [1, BASELINE_SCHEMA_VERSION];
export const DEFAULT_BASELINE_TOLERANCE_PERCENT = 10;

export interface BaselineEntry {
  fingerprint: string;
  ruleId: string;
  subject: FindingSubject;
  kind: string;
  severity: Severity;
  title: string;
  keyFigure?: { name: string; value: number };
}

export interface BaselineFile {
  schemaVersion: 1 | 2;
  tool: { name: string; version: string };
  findings: BaselineEntry[];
}

export type BaselineState = 'new' | 'worse' | 'unchanged';

export interface BaselineVerdict {
  state: BaselineState;
  /** Why a known finding counts as worse. */
  reason?: string;
  previous?: { severity: Severity; keyFigure?: { name: string; value: number } };
}

export interface StaleBaselineEntry extends BaselineEntry {
  reason: string;
}

export interface BaselineComparison {
  verdicts: BaselineVerdict[];
  /** Entries whose rule ran and found nothing matching them. */
  fixed: BaselineEntry[];
  /** Entries that could not be checked: unknown rule, rule disabled or skipped for missing input. */
  stale: StaleBaselineEntry[];
}

/** A finding once the report has given it its fingerprint (report.ts ReportFinding is one). */
type FingerprintedFinding = Finding & { fingerprint: string };

/** No timestamps and a stable order, so a rewritten baseline diffs cleanly in review. */
export function createBaseline(findings: readonly FingerprintedFinding[]): BaselineFile {
  const entries = findings.map((f): BaselineEntry => {
    const e: BaselineEntry = { fingerprint: f.fingerprint, ruleId: f.ruleId, subject: f.subject, kind: findingKind(f), severity: f.severity, title: f.title };
    if (f.keyFigure) e.keyFigure = { name: f.keyFigure.name, value: f.keyFigure.value };
    return e;
  });
  entries.sort((a, b) => a.ruleId.localeCompare(b.ruleId) || a.fingerprint.localeCompare(b.fingerprint));
  return { schemaVersion: BASELINE_SCHEMA_VERSION, tool: { name: TOOL_NAME, version: TOOL_VERSION }, findings: entries };
}

export function serializeBaseline(baseline: BaselineFile): string {
  return stringifyWellFormed(baseline, 2) + '\n';
}

/**
 * The largest baseline read. A baseline holds one small entry per finding (a few hundred bytes);
 * 16 MiB is tens of thousands of findings. Parsed JSON takes ~4.5x its text (a 194 MB baseline
 * peaked at 867 MB), so without a cap the baseline alone could exhaust memory.
 */
export const MAX_BASELINE_BYTES = 16 << 20;

/** Reads at most MAX_BASELINE_BYTES (+1 to tell a bigger file), also from a FIFO or /dev/stdin. */
async function readBaselineText(file: string): Promise<string> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, 'r');
    const info = await handle.stat();
    if (info.isFile() && info.size > MAX_BASELINE_BYTES) throw tooBig(file, info.size);
    const buffer = Buffer.alloc(Math.min(MAX_BASELINE_BYTES, info.isFile() ? info.size : MAX_BASELINE_BYTES) + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > MAX_BASELINE_BYTES) throw tooBig(file, null);
    return buffer.toString('utf8', 0, length);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--baseline ${file}: cannot read: ${describeSystemError(err)}`);
  } finally {
    await handle?.close();
  }
}

function tooBig(file: string, size: number | null): UsageError {
  const what = size === null ? 'over' : `${(size / (1 << 20)).toFixed(0)} MiB,`;
  return new UsageError(
    `--baseline ${file}: ${what} more than the ${MAX_BASELINE_BYTES >> 20} MiB a baseline may have; write a fresh one with --write-baseline`,
  );
}

export async function readBaseline(file: string): Promise<BaselineFile> {
  const text = await readBaselineText(file);
  let data: unknown;
  try {
    // Editors on Windows save UTF-8 with a byte order mark; JSON.parse rejects it.
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    // V8 quotes the start of the text in its message, newlines included: keep the error one line.
    throw new UsageError(`--baseline ${file}: not JSON (${(err as Error).message.replace(/\s+/g, ' ')}); write one with --write-baseline`);
  }
  return validateBaseline(data, file);
}

function validateBaseline(data: unknown, file: string): BaselineFile {
  const bad = (reason: string): never => {
    throw new UsageError(`--baseline ${file}: ${reason}`);
  };
  if (typeof data !== 'object' || data === null) return bad('not a linkerd-doctor baseline (expected an object with schemaVersion and findings)');
  const d = data as Record<string, unknown>;
  if (!READABLE_SCHEMA_VERSIONS.includes(d.schemaVersion))
    bad(`unsupported schemaVersion ${JSON.stringify(d.schemaVersion)} (this version reads ${READABLE_SCHEMA_VERSIONS.join(' and ')})`);
  if (!Array.isArray(d.findings)) bad('findings must be a list');
  (d.findings as unknown[]).forEach((e, i) => {
    const entry = e as Record<string, unknown>;
    if (typeof entry !== 'object' || entry === null) bad(`findings[${i}]: must be an object`);
    if (typeof entry.fingerprint !== 'string' || typeof entry.ruleId !== 'string') bad(`findings[${i}]: fingerprint and ruleId are required strings`);
    if (typeof entry.severity !== 'string' || !(SEVERITIES as readonly string[]).includes(entry.severity))
      bad(`findings[${i}].severity: must be one of ${SEVERITIES.join(', ')}`);
    const kf = entry.keyFigure as Record<string, unknown> | undefined;
    if (kf !== undefined && (typeof kf !== 'object' || kf === null || typeof kf.name !== 'string' || typeof kf.value !== 'number'))
      bad(`findings[${i}].keyFigure: must be {name, value}`);
    if (entry.subject !== undefined && (typeof entry.subject !== 'object' || entry.subject === null || Array.isArray(entry.subject)))
      bad(`findings[${i}].subject: must be an object`);
    // Only labels for reports: a hand-edited entry without them still matches by fingerprint.
    if (entry.subject === undefined) entry.subject = {};
    if (typeof entry.title !== 'string') entry.title = `${entry.ruleId as string} finding`;
    if (typeof entry.kind !== 'string') entry.kind = '';
  });
  return data as BaselineFile;
}

export interface CompareOptions {
  /** Percent a key figure may grow and still be "unchanged". */
  tolerancePercent: number;
  /** Rules that ran to completion in this run; entries of other rules are stale, not fixed. */
  evaluatedRules: ReadonlySet<string>;
  /** Why a rule did not run (disabled, skipped: no proxy-log input…). */
  notEvaluatedReason: (ruleId: string) => string;
}

/**
 * `titleFingerprint` is the finding's fingerprint as schema 1 computed it (report/fingerprint.ts,
 * assignTitleFingerprints); a schema-1 baseline is matched by it.
 */
export function compareWithBaseline(
  findings: readonly (Pick<FingerprintedFinding, 'fingerprint' | 'severity' | 'keyFigure'> & { titleFingerprint?: string })[],
  baseline: BaselineFile,
  options: CompareOptions,
): BaselineComparison {
  const known = new Map(baseline.findings.map((e) => [e.fingerprint, e]));
  const matched = new Set<string>();
  const byTitle = baseline.schemaVersion === 1;
  const verdicts = findings.map((f): BaselineVerdict => {
    const entry = known.get(byTitle ? (f.titleFingerprint ?? f.fingerprint) : f.fingerprint);
    if (!entry) return { state: 'new' };
    matched.add(entry.fingerprint);
    const previous: BaselineVerdict['previous'] = entry.keyFigure ? { severity: entry.severity, keyFigure: entry.keyFigure } : { severity: entry.severity };
    if (SEVERITY_RANK[f.severity] > SEVERITY_RANK[entry.severity])
      return { state: 'worse', reason: `severity rose from ${entry.severity} to ${f.severity}`, previous };
    if (f.keyFigure && entry.keyFigure && f.keyFigure.name === entry.keyFigure.name) {
      const limit = entry.keyFigure.value * (1 + options.tolerancePercent / 100);
      if (f.keyFigure.value > limit) {
        return {
          state: 'worse',
          reason: `${f.keyFigure.name} grew from ${entry.keyFigure.value} to ${f.keyFigure.value}, more than the ${options.tolerancePercent}% tolerance`,
          previous,
        };
      }
    }
    return { state: 'unchanged', previous };
  });
  const fixed: BaselineEntry[] = [];
  const stale: StaleBaselineEntry[] = [];
  for (const entry of baseline.findings) {
    if (matched.has(entry.fingerprint)) continue;
    if (options.evaluatedRules.has(entry.ruleId)) fixed.push(entry);
    else stale.push({ ...entry, reason: options.notEvaluatedReason(entry.ruleId) });
  }
  return { verdicts, fixed, stale };
}
