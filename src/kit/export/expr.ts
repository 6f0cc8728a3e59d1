// Small builders shared by the exporters, so label names, selectors and durations are spelled one way.

import { docsUrlFor, TOOL_NAME } from '../../core/docs.js';
import type { Severity } from '../../core/types.js';
import type { AlertingRule, ExportSettings } from './types.js';
import { lookupTable } from '../../util/dict.js';

/** Label every exported alert carries, so an alert can be traced back to `linkerd-doctor explain <id>`. */
export const RULE_ID_LABEL = 'linkerd_doctor_rule';

/** `{a="b", c!=""}` from matcher strings; empty strings are dropped, and no matchers give no braces. */
export function selector(...matchers: string[]): string {
  const kept = matchers.filter((m) => m.trim() !== '');
  return kept.length > 0 ? `{${kept.join(', ')}}` : '';
}

/** The per-pod grouping, plus any fleet labels (cluster…) the user asked to keep. */
export function podLabels(settings: ExportSettings, ...extra: string[]): string[] {
  return unique([...settings.groupBy, settings.namespaceLabel, settings.podLabel, ...extra]);
}

export function byClause(labels: readonly string[]): string {
  return `by (${unique(labels).join(', ')})`;
}

export function onClause(labels: readonly string[]): string {
  return `on (${unique(labels).join(', ')})`;
}

/**
 * Seconds as a Prometheus/LogQL duration. Whole minutes print as `15m` for readability; anything
 * else stays exact (`95s`, `2500ms`) so a configured threshold is never rounded away.
 */
export function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) throw new RangeError(`duration must be positive, got ${seconds}`);
  const ms = Math.round(seconds * 1000);
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** A number as a PromQL/LogQL literal. */
export function num(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`threshold must be finite, got ${n}`);
  return String(n);
}

/** Go-template reference to a label in alert annotations (Prometheus and the Loki ruler share the syntax). */
export function labelRef(name: string): string {
  return `{{ $labels.${name} }}`;
}

export interface AlertSpec {
  ruleId: string;
  alert: string;
  expr: string;
  forSeconds?: number;
  severity: Severity;
  summary: string;
  description: string;
}

export function alertingRule(spec: AlertSpec): AlertingRule {
  return {
    alert: spec.alert,
    expr: spec.expr,
    ...(spec.forSeconds !== undefined && spec.forSeconds > 0 ? { for: duration(spec.forSeconds) } : {}),
    labels: { severity: spec.severity, [RULE_ID_LABEL]: spec.ruleId },
    annotations: {
      summary: spec.summary,
      description: `${spec.description} Offline: \`${TOOL_NAME} explain ${spec.ruleId}\`.`,
      runbook_url: docsUrlFor(spec.ruleId),
    },
  };
}

function unique(labels: readonly string[]): string[] {
  return [...new Set(labels.filter((l) => l !== ''))];
}

/**
 * Characters a double-quoted PromQL/LogQL string cannot hold as they are: `\` and `"`, every
 * control character (a raw newline ends the string: Loki rejects the rule), U+2028/U+2029 (which
 * YAML and editors break lines at) and lone surrogates (Go rejects `\ud800`; U+FFFD stands in).
 */
// eslint-disable-next-line no-control-regex -- control characters are what it escapes.
const NEEDS_ESCAPE = /[\\"\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const SHORT_ESCAPES: Record<string, string> = lookupTable({ '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' });

/**
 * A value as a double-quoted PromQL/LogQL string literal. Both parse it with Go's strconv.Unquote;
 * only escapes Go and JSON share are written (`\\ \" \n \r \t \uXXXX`), so either can read it back.
 */
export function quoted(value: string): string {
  return `"${value.replace(NEEDS_ESCAPE, (c) => {
    const short = SHORT_ESCAPES[c];
    if (short !== undefined) return short;
    const code = c.charCodeAt(0);
    return code >= 0xd800 && code <= 0xdfff ? '\\ufffd' : `\\u${code.toString(16).padStart(4, '0')}`;
  })}"`;
}

/** RE2 alternation matching exactly one of `values`, each taken literally. */
export function literalAlternation(values: readonly string[]): string {
  return `(${values.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`;
}

/**
 * RE2 matching the decimal integers 0 … n-1 written without leading zeros (n ≥ 1), e.g. for a
 * "fewer than n seconds" filter on a number extracted from a log line.
 */
export function integersBelow(n: number): string {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`integersBelow needs a whole number ≥ 1, got ${n}`);
  const digits = String(n);
  const parts: string[] = [];
  // Shorter numbers: any single digit, then every length from 2 up to one less than n's.
  if (digits.length > 1) parts.push('[0-9]');
  for (let len = 2; len < digits.length; len++) parts.push(`[1-9][0-9]{${len - 1}}`);
  // Same length: n's prefix, then a smaller digit at position i, then anything.
  for (let i = 0; i < digits.length; i++) {
    const d = Number(digits[i]);
    const low = i === 0 && digits.length > 1 ? 1 : 0;
    if (d - 1 < low) continue;
    const rest = digits.length - i - 1;
    parts.push(`${digits.slice(0, i)}[${low}-${d - 1}]${rest > 0 ? `[0-9]{${rest}}` : ''}`);
  }
  return `(${parts.join('|')})`;
}
