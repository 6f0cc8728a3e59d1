// The shape every proxy log reader returns, and the vocabulary they share.

import type { ProxyLogRecord } from '../core/types.js';

export type Parsed = Pick<ProxyLogRecord, 'format' | 'uptime' | 'level' | 'thread' | 'spans' | 'target' | 'message' | 'fields' | 'levelAbsent'> & {
  time?: number | null;
  /** From a tailer prefix found only once paste markers were removed. */
  pod?: string;
  container?: string;
};

export const LEVELS = new Set<string>(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR']);

/** `[     0.002035s]`: micro-second fractions; proxies before v2.116 printed raw nanoseconds unpadded. */
export function parseUptime(inner: string): number | null {
  const m = /^\s*(\d+)\.(\d+)$/.exec(inner);
  if (!m) return null;
  const secs = Number(m[1]);
  const frac = m[2]!;
  return frac.length > 6 ? secs + Number(frac) / 1e9 : secs + Number(frac) / 10 ** frac.length;
}
