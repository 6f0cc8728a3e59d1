// The step a known-signature finding puts first: the catalogue's (or the likely cause's) action,
// its `…` placeholders filled from the sample lines, and the pods the lines came from.

import type { SampleLine } from '../../core/types.js';
import type { Cause } from '../../knowledge/causes/index.js';
import type { KnownSignature } from './catalogue.js';

/** A source of a signature's lines and how many it wrote. */
export interface PodTally {
  pod: string | null;
  namespace: string | null;
  /** Input path: the first one the source's lines came from. */
  path: string;
  lines: number;
}

export function podLabel(p: PodTally): string {
  if (!p.pod) return p.path;
  return p.namespace ? `${p.namespace}/${p.pod}` : p.pod;
}

/**
 * The step to take now, first in the remediation (every report shows a finding's first remediation
 * line as its action): the catalogue's first fix, its `…` placeholders filled from the first sample
 * that has the span they stand for (`controller{addr=…}` → `controller{addr=localhost:8086}`), and
 * where the lines were seen.
 */
export function firstAction(
  signature: KnownSignature,
  t: { samples: readonly SampleLine[]; uncountedPodLines: number },
  pods: readonly PodTally[],
  cause?: Cause,
): string {
  const action = fillFromSamples(cause?.action ?? signature.fix[0]?.action ?? `Read \`linkerd-doctor explain ${signature.id}\` for what to check.`, t.samples);
  const named = pods.filter((p) => p.pod);
  const more = pods.length - named.length + (t.uncountedPodLines > 0 ? 1 : 0);
  if (named.length === 0) return action;
  const shown = named.slice(0, 3).map(podLabel);
  const rest = named.length - shown.length + more;
  return `${action} Seen in ${named.length === 1 && more === 0 ? 'pod' : 'pods'} ${shown.join(', ')}${rest > 0 ? ` and ${rest} more` : ''}.`;
}

/** Backticked span templates with `…` for a value: `controller{addr=…}`, `service{ns=… name=… port=…}`. */
const SPAN_TEMPLATE = /`([a-z_]+)\{([^`{}…]*…[^`{}]*)\}`/g;

function fillFromSamples(action: string, samples: readonly SampleLine[]): string {
  return action.replace(SPAN_TEMPLATE, (whole, name: string, fields: string) => {
    // Each `…` stands for one value without spaces or braces; the rest is taken literally.
    const source = `${name}\\{${fields.split('…').map(escapeRegex).join('[^\\s{}]+')}\\}`;
    const pattern = new RegExp(source);
    for (const s of samples) {
      const m = pattern.exec(s.text);
      if (m) return `\`${m[0]}\``;
    }
    return whole;
  });
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
