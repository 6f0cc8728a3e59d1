// What the retry cadence says: the gaps between a loop's failures, kept as a histogram, compared
// with what the proxy's connect backoff allows.

import { maxOf } from '../../util/stats.js';

/** Upper edges (seconds) of the inter-arrival histogram kept per loop. */
export const GAP_EDGES = [0.05, 0.15, 0.3, 0.45, 0.55, 0.8, 1.2, 1.7, 2.5, 5, 9, 15, 30, 50, 70, Infinity];

/** Median gap of a loop as the histogram bucket that holds it. */
export function medianGapBucket(gaps: readonly number[]): { low: number; high: number } | null {
  const total = gaps.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  let seen = 0;
  for (let i = 0; i < gaps.length; i++) {
    seen += gaps[i]!;
    if (seen * 2 >= total) return { low: i === 0 ? 0 : GAP_EDGES[i - 1]!, high: GAP_EDGES[i]! };
  }
  return null;
}

/**
 * What the backoff allows. Proxies up to v2.306 cap the connect backoff at 500 ms (steady state:
 * one attempt per 0.5 s plus connect time); from v2.307 the cap is 60 s outbound and 10 s inbound.
 */
export function backoffVerdict(medianGap: { low: number; high: number } | null): { verdict: string; exceedsBackoff: boolean } {
  if (!medianGap) return { verdict: 'too few failures per loop to measure the retry interval', exceedsBackoff: false };
  const range = `${medianGap.low}–${Number.isFinite(medianGap.high) ? medianGap.high : '∞'} s`;
  if (medianGap.high <= 0.45) {
    return {
      verdict: `median retry interval ${range} is shorter than any proxy backoff allows (≥ 0.5 s once the backoff settles): the same events were collected twice, several proxies log under one pod name, or a custom backoff is set`,
      exceedsBackoff: true,
    };
  }
  if (medianGap.high <= 0.8) {
    return {
      verdict: `median retry interval ${range}: every loop retries at the 500 ms backoff cap of proxies before v2.307 (Connection refused returns at once)`,
      exceedsBackoff: false,
    };
  }
  if (medianGap.high <= 2.5) {
    return {
      verdict: `median retry interval ${range}: 500 ms backoff plus a connect timeout (proxies before v2.307, controller unreachable rather than refusing)`,
      exceedsBackoff: false,
    };
  }
  return {
    verdict: `median retry interval ${range}: consistent with the longer backoff of proxy v2.307+ (60 s outbound, 10 s inbound) or a custom backoff`,
    exceedsBackoff: false,
  };
}

/**
 * Median of `values` plus `zeros` implicit zero entries, without building the padded list: one
 * line with a bogus clock decades off would otherwise allocate an entry per second in between.
 */
export function medianWithZeros(values: readonly number[], zeros: number): number | null {
  const total = values.length + zeros;
  if (total === 0) return null;
  const mid = total >> 1;
  // The values are per-second line counts: whole numbers, usually small next to how many there
  // are, so the median is read from a histogram instead of a sort (hundreds of targets with
  // thousands of busy seconds each made sorting the slowest step of finish()).
  const largest = maxOf(values);
  if (largest <= 4 * values.length + 256 && values.every((v) => Number.isInteger(v) && v >= 0)) {
    const histogram = new Uint32Array(largest + 1);
    histogram[0] = zeros;
    for (const v of values) histogram[v]!++;
    const at = (i: number) => {
      for (let v = 0, seen = 0; v < histogram.length; v++) if ((seen += histogram[v]!) > i) return v;
      return largest;
    };
    return total % 2 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
  }
  const sorted = Float64Array.from(values).sort();
  const at = (i: number) => (i < zeros ? 0 : sorted[i - zeros]!);
  return total % 2 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
}
