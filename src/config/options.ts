// Rule options are checked against the rule's own optionSchema, the same way and in the same words
// for the config file, for defaults (meta-test), for export-rules and for any other caller, so a
// threshold cannot be set to nonsense, nor a string reach a PromQL literal.

import { closest, didYouMean } from '../util/did-you-mean.js';
import { UsageError } from '../core/errors.js';
import type { RuleMeta, RuleOptionSpec } from '../core/types.js';

/** Why `value` does not fit `spec`, or null when it does. */
export function optionProblem(spec: RuleOptionSpec, value: unknown): string | null {
  switch (spec.type) {
    case 'number':
    case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value))
        return `must be a ${spec.type === 'integer' ? 'whole number' : 'number'}, got ${describe(value)}`;
      if (spec.type === 'integer' && !Number.isInteger(value)) return `must be a whole number, got ${value}`;
      if (spec.minimum !== undefined && value < spec.minimum) return `must be ≥ ${spec.minimum}, got ${value}`;
      if (spec.maximum !== undefined && value > spec.maximum) return `must be ≤ ${spec.maximum}, got ${value}`;
      return null;
    case 'string':
      return typeof value === 'string' ? null : `must be a string, got ${describe(value)}`;
    case 'boolean':
      return typeof value === 'boolean' ? null : `must be true or false, got ${describe(value)}`;
    default:
      return `has an unsupported option type ${JSON.stringify((spec as RuleOptionSpec).type)}`;
  }
}

export interface OptionIssue {
  /** Option name, as written in the config. */
  key: string;
  reason: string;
}

function schemaIssues(schema: Record<string, RuleOptionSpec>, options: Record<string, unknown>): OptionIssue[] {
  const issues: OptionIssue[] = [];
  for (const [key, value] of Object.entries(options)) {
    const spec = schema[key];
    if (!spec) {
      const known = Object.keys(schema);
      issues.push({
        key,
        reason: `unknown option${didYouMean(closest(key, known))} (${known.length ? `known: ${known.join(', ')}` : 'this rule has no options'})`,
      });
      continue;
    }
    const problem = optionProblem(spec, value);
    if (problem) issues.push({ key, reason: problem });
  }
  return issues;
}

/**
 * The rule's defaults with `overrides` over them. A bad override is a usage error worded as the
 * config loader words it (`file: rules.<id>.options.<name>: reason`), without the line it no
 * longer knows.
 */
export function resolveRuleOptions<O extends object>(meta: RuleMeta<O>, overrides: Record<string, unknown> | undefined, source: string | null): O {
  const given = overrides ?? {};
  const issue = schemaIssues(meta.optionSchema as Record<string, RuleOptionSpec>, given)[0];
  if (issue) throw new UsageError(`${source ?? 'config'}: rules.${meta.id}.options.${issue.key}: ${issue.reason}`);
  return { ...meta.defaultOptions, ...given } as O;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}
