// export-rules reads the same .linkerd-doctor.yaml/.json (or --config FILE) as analyze, through the
// shared loader, so one file sets the thresholds of the offline findings and of the live alerts.

import { loadConfig } from '../config/config.js';

export interface RuleOptionOverrides {
  /** The file the settings came from, or null when none was found. */
  source: string | null;
  /** Per enabled rule id, its options merged over the defaults. */
  rules: Map<string, Record<string, unknown>>;
  /** Rules turned off in the config; they are not exported either. */
  disabled?: string[];
}

export async function loadRuleOptionOverrides(file: string | undefined, cwd: string = process.cwd()): Promise<RuleOptionOverrides> {
  const config = await loadConfig(file, { cwd });
  return {
    source: config.source,
    rules: new Map(config.rules.map((c) => [c.rule.meta.id, c.options as Record<string, unknown>])),
    disabled: config.disabledRules,
  };
}
