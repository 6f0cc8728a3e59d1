// Effective rule options for export: the rule's defaults, overridden by the config file, checked
// against the rule's option schema so a typo or a string threshold never reaches a PromQL literal.

import { UsageError } from '../core/errors.js';
import type { RuleMeta, RuleOptionSpec } from '../core/types.js';

export function resolveRuleOptions<O extends object>(meta: RuleMeta<O>, overrides: Record<string, unknown> | undefined, source: string | null): O {
  const options = { ...meta.defaultOptions } as Record<string, unknown>;
  const schema = meta.optionSchema as Record<string, RuleOptionSpec>;
  const where = source ?? 'config';
  for (const [name, value] of Object.entries(overrides ?? {})) {
    const spec = schema[name];
    if (!spec) {
      const known = Object.keys(schema).join(', ') || 'none';
      throw new UsageError(`${where}: rules.${meta.id}.options.${name} is not an option of ${meta.id} (options: ${known})`);
    }
    options[name] = checkValue(meta.id, name, spec, value, where);
  }
  return options as O;
}

function checkValue(ruleId: string, name: string, spec: RuleOptionSpec, value: unknown, where: string): unknown {
  const at = `${where}: rules.${ruleId}.options.${name}`;
  switch (spec.type) {
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new UsageError(`${at} must be a number, got ${JSON.stringify(value)}`);
      if (spec.type === 'integer' && !Number.isInteger(value)) throw new UsageError(`${at} must be a whole number, got ${value}`);
      if (spec.minimum !== undefined && value < spec.minimum) throw new UsageError(`${at} must be at least ${spec.minimum}, got ${value}`);
      if (spec.maximum !== undefined && value > spec.maximum) throw new UsageError(`${at} must be at most ${spec.maximum}, got ${value}`);
      return value;
    }
    case 'boolean':
      if (typeof value !== 'boolean') throw new UsageError(`${at} must be true or false, got ${JSON.stringify(value)}`);
      return value;
    case 'string':
      if (typeof value !== 'string') throw new UsageError(`${at} must be a string, got ${JSON.stringify(value)}`);
      return value;
  }
}
