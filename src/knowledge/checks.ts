// What each check of `linkerd check` means when it fails or warns, keyed by its hint anchor (the
// `#…` of `see https://linkerd.io/<version>/checks/#… for hints`). The anchors are those of
// data/checks/checks.json (npm run checks-inventory: linkerd2's check code from 2.7 to the latest
// edge); the meanings, causes and fixes come from that code, linkerd/website's troubleshooting page
// (the remedies in the same file) and the maintainers' answers in linkerd/linkerd2 threads.
// test/knowledge/checks.test.ts fails on an inventory anchor without a verdict here.
//
// firstAction and fixByVersion are templates: {pods}, {date}, {version}, {namespace}, {detail}
// and {names} are filled with what the check's output holds (fill()).

import { CORE_VERDICTS } from './checks-core.js';
import { EXTENSION_VERDICTS } from './checks-extensions.js';
import type { CheckVerdict } from './checks-model.js';
import { lookupTable } from '../util/dict.js';

export type { CheckVerdict } from './checks-model.js';

export const CHECK_VERDICTS: Readonly<Record<string, CheckVerdict>> = lookupTable({ ...CORE_VERDICTS, ...EXTENSION_VERDICTS });

/** Anchors printed by releases outside the inventory (development builds, 2.6 and older) that mean one of the above. */
export const ANCHOR_ALIASES: Readonly<Record<string, string>> = lookupTable({
  'l5d-certs-rotation': 'l5d-identity-roots-are-time-valid',
});

/** The verdict of an anchor, following aliases; anchors cut short by a paste match by prefix when only one fits. */
export function verdictOf(anchor: string | null): { anchor: string; verdict: CheckVerdict } | null {
  if (!anchor) return null;
  const key = ANCHOR_ALIASES[anchor] ?? anchor;
  const exact = CHECK_VERDICTS[key];
  if (exact) return { anchor: key, verdict: exact };
  if (key.length < 5) return null;
  const matches = Object.keys(CHECK_VERDICTS).filter((a) => a.startsWith(key));
  return matches.length === 1 ? { anchor: matches[0]!, verdict: CHECK_VERDICTS[matches[0]!]! } : null;
}

/** What a check's output holds, for the templates. */
export interface CheckValues {
  pods: string[];
  date: string | null;
  version: string | null;
  namespace: string | null;
  detail: string | null;
  names: string[];
}

/** Fills a template; a value the output does not hold reads as the words of what to look for. */
export function fill(template: string, v: CheckValues): string {
  return template
    .replaceAll('{date_on}', v.date ? ` on ${v.date}` : '')
    .replaceAll('{pods}', v.pods.length > 0 ? v.pods.slice(0, 3).join(' ') : '<pod>')
    .replaceAll('{date}', v.date ?? 'the date it names')
    .replaceAll('{version}', v.version ?? 'the version it names')
    .replaceAll('{namespace}', v.namespace ?? '<namespace>')
    .replaceAll('{names}', v.names.length > 0 ? v.names.join(' ') : '<name>')
    .replaceAll('{detail}', v.detail ?? 'see its details');
}
