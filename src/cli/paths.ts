import { UsageError } from '../core/errors.js';

/** `-` or no PATH with piped stdin reads stdin; no PATH on a terminal is a usage error, not a hang. */
export function resolvePathArgs(argv: readonly string[], stdinIsTTY: boolean | undefined): string[] {
  if (argv.length > 0) return [...argv];
  if (stdinIsTTY) throw new UsageError('no PATH given and stdin is a terminal; pass a file, directory, glob or - (see --help)');
  return ['-'];
}
