// Reading a Go component's record the way rules and the signature catalogue do: is it a Go
// layout (logrus text or JSON, klog, Go's standard logger), and its one-line text for pattern
// matching. The parsers that build these records live in parsers/go-log.ts; the rules only read them.

import type { ProxyLogRecord } from '../core/types.js';

/** The Go layouts: logrus text (logfmt), logrus JSON, klog. */
export const GO_FORMATS: ReadonlySet<ProxyLogRecord['format']> = new Set(['logfmt', 'go-json', 'klog', 'go-std']);

export function isGoLog(record: Pick<ProxyLogRecord, 'format'>): boolean {
  return GO_FORMATS.has(record.format);
}

/**
 * The text catalogue patterns and rules match a Go line against: `component: message key=value…`,
 * unescaped, whether logrus printed it as text or JSON or klog printed it. The `source` field of
 * a klog line (its Go file) is left out: it is where, not what.
 */
export function goLineText(record: Pick<ProxyLogRecord, 'target' | 'message' | 'fields'>): string {
  let text = record.target === '' ? record.message : `${record.target}: ${record.message}`;
  for (const [k, v] of Object.entries(record.fields)) if (k !== 'source') text += ` ${k}=${v}`;
  return text;
}
