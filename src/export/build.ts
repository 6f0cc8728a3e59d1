// Turns the registered rules into rule groups for one target: thresholds come from each rule's
// defaults and the config file, so the live alerts and the offline findings agree.

import type { AnyRule } from '../core/types.js';
import { EXPORTERS, findRule, RULES } from '../rules/index.js';
import type { RuleOptionOverrides } from './config.js';
import { resolveRuleOptions } from '../config/options.js';
import {
  alertSeverity,
  type AlertingRule,
  type ExportSettings,
  type ExportTarget,
  type RuleExporter,
  type RuleGroup,
  type SeverityMap,
} from '../kit/export/types.js';

export const GROUP_PREFIX = 'linkerd-doctor';

export interface BuildOptions {
  target: ExportTarget;
  settings: ExportSettings;
  overrides: RuleOptionOverrides;
  notice: (message: string) => void;
  /** The alerts' severity vocabulary; `alertmanager` (critical|warning|info) by default. */
  severityMap?: SeverityMap;
  /** Rule lookup; the registry by default, injectable so tests can model rules from other branches. */
  lookup?: (id: string) => AnyRule | undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  exporters?: readonly RuleExporter<any>[];
  /** Registered rules, to report those with no live equivalent. */
  registered?: readonly AnyRule[];
}

export function buildRuleGroups(opts: BuildOptions): RuleGroup[] {
  const lookup = opts.lookup ?? findRule;
  const exporters = opts.exporters ?? EXPORTERS;
  const groups: RuleGroup[] = [];
  for (const exporter of exporters) {
    if (opts.overrides.disabled?.includes(exporter.ruleId)) {
      opts.notice(`skipping ${exporter.ruleId}: disabled in ${opts.overrides.source}`);
      continue;
    }
    const rule = lookup(exporter.ruleId);
    if (!rule) {
      opts.notice(`skipping ${exporter.ruleId}: the rule is not part of this build`);
      continue;
    }
    const build = exporter[opts.target];
    if (!build) {
      opts.notice(`no ${opts.target} rules for ${exporter.ruleId}: ${exporter.unsupported?.[opts.target] ?? 'not observable there'}`);
      continue;
    }
    const options = resolveRuleOptions(rule.meta, opts.overrides.rules.get(exporter.ruleId), opts.overrides.source) as Record<string, unknown>;
    const missingNumbers = exporter.reads.filter((name) => typeof options[name] !== 'number');
    const missingText = (exporter.readsText ?? []).filter((name) => typeof options[name] !== 'string');
    if (missingNumbers.length > 0 || missingText.length > 0) {
      const missing = [missingNumbers.length > 0 && `numeric ${missingNumbers.join(', ')}`, missingText.length > 0 && `string ${missingText.join(', ')}`]
        .filter(Boolean)
        .join(' and ');
      opts.notice(`skipping ${exporter.ruleId}: its options have no ${missing}, which the ${opts.target} export reads`);
      continue;
    }
    const rules = build({ options, severity: rule.meta.defaultSeverity, settings: opts.settings });
    groups.push({ name: `${GROUP_PREFIX}.${exporter.ruleId}`, rules: rules.map((r) => withSeverityMap(r, opts.severityMap ?? 'alertmanager')) });
  }
  for (const rule of opts.registered ?? RULES) {
    if (!exporters.some((e) => e.ruleId === rule.meta.id)) opts.notice(`${rule.meta.id} has no live alert equivalent yet; it runs offline only`);
  }
  return groups;
}

/** Exporters grade in the offline vocabulary (error|warning|info); the label speaks the router's. */
function withSeverityMap(rule: AlertingRule, map: SeverityMap): AlertingRule {
  const severity = rule.labels.severity;
  if (severity !== 'error' && severity !== 'warning' && severity !== 'info') return rule;
  return { ...rule, labels: { ...rule.labels, severity: alertSeverity(severity, map) } };
}
