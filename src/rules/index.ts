// The one list of rules: one line per rule, its folder's name. Each rule is a folder
// (src/rules/<id>/) that owns its reducer, its line patterns, its live twin, its incident knowledge,
// its fire/quiet cases (cases.ts) and its docs page (README.md); entry.ts hands them to this list.
// Everything else that needs "every rule" (engine, export, correlation, fix status, docs checks)
// derives it from REGISTRY. Adding a rule: its folder, one line below, then `npm run generate`.

import type { AnyRule } from '../core/types.js';
import type { RuleExporter } from '../kit/export/types.js';
import type { RuleEntry } from '../kit/rule-entry.js';

export type { RuleEntry as RegisteredRule } from '../kit/rule-entry.js';

/** Every rule's folder, in report order: logs, metrics, DNS, Kubernetes objects, Linkerd CLI output, then the signature catalogue. */
const RULE_FOLDERS = [
  'reconnect-storm',
  'control-plane-unavailable',
  'controller-api-errors',
  'certificate-failure',
  'metric-cardinality',
  'stale-endpoint-metrics',
  'ingress-pod-ip-bypass',
  'fd-exhaustion',
  'scrape-failure',
  'dns-ttl-zero',
  'dns-query-storm',
  'identity-failure',
  'failfast',
  'dns-resolution-failure',
  'protocol-detection-timeout',
  'authorization-denied',
  'pod-restarts',
  'probe-failure',
  'linkerd-check',
  'known-signature',
] as const;

/**
 * Each folder's entry.ts, loaded once when this module is (top-level await: every importer sees the
 * full list). An entry whose rule id is not its folder's name is a packaging mistake: fail loudly.
 */
export const REGISTRY: readonly RuleEntry[] = await Promise.all(
  RULE_FOLDERS.map(async (folder) => {
    const entry = ((await import(`./${folder}/entry.js`)) as { default: RuleEntry }).default;
    if (entry?.rule?.meta?.id !== folder)
      throw new Error(`src/rules/${folder}/entry.ts must export its rule as default (found ${String(entry?.rule?.meta?.id)})`);
    return entry;
  }),
);

export const RULES: readonly AnyRule[] = REGISTRY.map((r) => r.rule);

/** The live twins, in registry order. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const EXPORTERS: readonly RuleExporter<any>[] = REGISTRY.flatMap((r) => (r.live ? [r.live] : []));

export function findRule(id: string): AnyRule | undefined {
  return findRegistered(id)?.rule;
}

export function findRegistered(id: string): RuleEntry | undefined {
  return REGISTRY.find((r) => r.rule.meta.id === id);
}
