// What the terminal the report is printed on can take: its width and whether to colour.

const DEFAULT_WIDTH = 80;
/** Below this the layout stops making sense; wider terminals get no more than this. */
const MIN_WIDTH = 40;
const MAX_WIDTH = 240;

/**
 * Columns to lay out for: the terminal's own width when the stream is one, else `COLUMNS`, else
 * 80. A file gets `COLUMNS` or 80 too, so a saved report reads like the terminal it was run in.
 */
export function terminalWidth(stream: { isTTY?: boolean; columns?: number } | undefined, env: NodeJS.ProcessEnv = process.env): number {
  const fromTty = stream?.isTTY && typeof stream.columns === 'number' && stream.columns > 0 ? stream.columns : undefined;
  const fromEnv = env.COLUMNS && /^\d+$/.test(env.COLUMNS) ? Number(env.COLUMNS) : undefined;
  const width = fromTty ?? fromEnv ?? DEFAULT_WIDTH;
  return Math.max(MIN_WIDTH, Math.min(MAX_WIDTH, width));
}

/**
 * Colour: --color/--no-color win; then FORCE_COLOR (0 or false = off, anything else = on) and
 * NO_COLOR (set and non-empty = off), then whether the stream is a terminal.
 */
export function useColor(flag: boolean | undefined, stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (flag !== undefined) return flag;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !(force === '0' || force.toLowerCase() === 'false');
  if (env.NO_COLOR) return false;
  return stream.isTTY === true;
}
