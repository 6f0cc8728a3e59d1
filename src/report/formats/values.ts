// How every formatter spells evidence values and keys, so text, Markdown and HTML agree.

export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isInteger(v) ? v.toLocaleString('en-US') : String(Math.round(v * 100) / 100);
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** `podsAffected` → `pods affected`. */
export function humanize(key: string): string {
  return key.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/**
 * What a report with no findings says. "No findings." after reading nothing reads like a pass, and
 * listing every rule as skipped for want of input says the same thing fifteen times.
 */
export function noFindingsText(report: { inputs: readonly unknown[] }): string {
  return report.inputs.length === 0 ? 'Nothing was analysed: no input could be read.' : 'No findings.';
}

/** The skipped rules worth listing: none when nothing was read, since then every rule is. */
export function skippedRulesWorthListing<T>(report: { inputs: readonly unknown[]; skippedRules: readonly T[] }): readonly T[] {
  return report.inputs.length === 0 ? [] : report.skippedRules;
}

export function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/**
 * How many items a capped evidence list stands for: rules keep the top 10 `topPods` but count all
 * of them in `podsAffected`. Looks for `<noun>Affected`, `distinct<Noun>`, `<noun>Total`,
 * `total<Noun>` or `<noun>Count` next to the list, the noun taken from the key (`topPods` → pods)
 * or from the items' first text field (`{endpoint, lines}` → endpoints); else the list's length.
 */
export function listTotal(evidence: Record<string, unknown>, key: string, items: readonly unknown[]): number {
  const nouns = new Set<string>();
  const fromKey = key.replace(/^top(?=[A-Z])/, '');
  nouns.add(fromKey.charAt(0).toLowerCase() + fromKey.slice(1));
  const first = items[0];
  if (first && typeof first === 'object') {
    const label = Object.entries(first as Record<string, unknown>).find(([, v]) => typeof v === 'string')?.[0];
    if (label) nouns.add(`${label}s`);
  }
  for (const noun of nouns) {
    const Noun = noun.charAt(0).toUpperCase() + noun.slice(1);
    for (const candidate of [`${noun}Affected`, `distinct${Noun}`, `${noun}Total`, `total${Noun}`, `${noun}Count`]) {
      const v = evidence[candidate];
      if (typeof v === 'number' && Number.isFinite(v) && v >= items.length) return v;
    }
  }
  return items.length;
}
