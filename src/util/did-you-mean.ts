// Typo suggestions (`unknown rule fd-exhastion; did you mean fd-exhaustion?`), shared by the
// command line and the config file check: both word an unknown name the same way.

/**
 * Edit distance counting a swap of two neighbouring letters as one edit (optimal string
 * alignment), so the commonest typo, `hepl` for `help`, is as near as one wrong letter. Names here
 * are a few characters long, so the quadratic table is fine.
 */
export function editDistance(a: string, b: string): number {
  const table = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const substitution = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(table[i - 1]![j]! + 1, table[i]![j - 1]! + 1, table[i - 1]![j - 1]! + substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, table[i - 2]![j - 2]! + 1);
      table[i]![j] = best;
    }
  }
  return table[a.length]![b.length]!;
}

/** The closest candidate within a typo's reach (a third of the word, at least 1), or undefined. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = c.toLowerCase().startsWith(w) && w.length >= 3 ? 0.5 : editDistance(w, c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined;
}

export const didYouMean = (suggestion: string | undefined): string => (suggestion ? `; did you mean ${suggestion}?` : '');
