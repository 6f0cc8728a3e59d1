// LogQL building blocks of the threshold log rules' live twins: one stream selector and line
// filters built from the rule's own pattern module, counted per pod over one window.
//
// The window follows the mechanisms the offline thresholds come from: five minutes holds many
// identity retries (>= every 10 s), many fail-fast timeouts (1-3 s) and probe periods (10 s).

import { byClause, integersBelow, labelRef, num, podLabels, quoted, selector } from './expr.js';
import type { ExportSettings } from './types.js';

export const WINDOW = '[5m]';

/** `{selector} |~ "a" |~ "b" …` with extra pipeline stages on their own lines. */
export function lines(settings: ExportSettings, filters: string[], stages: string[] = []): string {
  return [`${selector(settings.logSelector)} ${filters.join(' ')}`, ...stages].join('\n    ');
}

/** Line filters; `re` is the regex itself, quoted here (backslashes and quotes escaped once). */
export const match = (re: string) => `|~ ${quoted(re)}`;
export const exclude = (re: string) => `!~ ${quoted(re)}`;

/** Plain lines start with the proxy's uptime; keeps lines at or after `seconds` of uptime (JSON lines carry none and are kept). */
export function afterUptime(seconds: number): string[] {
  const grace = Math.ceil(seconds);
  return grace > 0 ? ['| regexp `^\\[ *(?P<uptime>[0-9]+)[.][0-9]*s\\]`', `| uptime!~"${integersBelow(grace)}"`] : [];
}

export function countPerPod(settings: ExportSettings, pipeline: string, threshold: number, extra: string[] = []): string {
  return `sum ${byClause(podLabels(settings, ...extra))} (\n  count_over_time(\n    ${pipeline}\n  ${WINDOW})\n) >= ${num(threshold)}`;
}

/** `namespace/pod` of the alerting proxy in a summary. */
export const who = (s: ExportSettings) => `${labelRef(s.namespaceLabel)}/${labelRef(s.podLabel)}`;
