// export-rules reads the same .linkerd-doctor.yaml/.json (or --config FILE) as analyze, through the
// shared loader, so one file sets the thresholds of the offline findings and of the live alerts.

import { loadConfig } from '../config/config.js';

export interface RuleOptionOverrides {
  /** The file the settings came from, or null when none was found. */
  source: string | null;
  /**
   * Per enabled rule id, the options the config sets to something other than the rule's default
   * (already validated by the loader); the build merges them over the defaults of the rule it exports.
   */
  rules: Map<string, Record<string, unknown>>;
  /** Rules turned off in the config; they are not exported either. */
  disabled?: string[];
}

export async function loadRuleOptionOverrides(file: string | undefined, cwd: string = process.cwd()): Promise<RuleOptionOverrides> {
  const config = await loadConfig(file, { cwd });
  return {
    source: config.source,
    rules: new Map(
      config.rules.map((c) => [c.rule.meta.id, changedOptions(c.options as Record<string, unknown>, c.rule.meta.defaultOptions as Record<string, unknown>)]),
    ),
    disabled: config.disabledRules,
  };
}

function changedOptions(options: Record<string, unknown>, defaults: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(options).filter(([name, value]) => value !== defaults[name]));
}
