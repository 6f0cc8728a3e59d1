// Which report goes where, read from the command line in the order it was written: an --output
// belongs to the --format before it. oclif collects repeated flags into separate arrays and
// forgets how they interleave, so the pairing is read from the raw argv instead.

import { UsageError } from '../core/errors.js';
import { FORMAT_NAMES, type FormatName } from '../report/formats/index.js';

export interface OutputTarget {
  format: FormatName;
  /** null = stdout. */
  file: string | null;
}

/** What the scanner needs to know about a command's flags: which take a value, by long and short name. */
export interface FlagShape {
  /** Long names (without `--`) of flags that take a value. */
  valued: ReadonlySet<string>;
  /** Short letter → long name, for every flag with a short form. */
  short: ReadonlyMap<string, string>;
}

interface Token {
  flag: string;
  value: string;
}

/** The `--format`/`--output` occurrences of argv in order, with their values; `--` ends the flags. */
function formatAndOutputTokens(argv: readonly string[], shape: FlagShape): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    let name: string | undefined;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      if (eq >= 0) inline = arg.slice(eq + 1);
    } else if (arg.length > 1 && arg.startsWith('-')) {
      name = shape.short.get(arg[1]!);
      if (name !== undefined && arg.length > 2) inline = arg.slice(arg[2] === '=' ? 3 : 2);
    }
    if (name === undefined || !shape.valued.has(name)) continue;
    const value = inline ?? argv[++i];
    if (value === undefined) continue; // oclif reports the missing value itself
    if (name === 'format' || name === 'output') tokens.push({ flag: name, value });
  }
  return tokens;
}

/**
 * Pairs each `--output` with the `--format` written before it. A format without an output (or
 * with `--output -`) goes to stdout, and at most one may; with no `--format` at all the single
 * report is text.
 */
export function orderedOutputTargets(argv: readonly string[], shape: FlagShape): OutputTarget[] {
  const targets: (OutputTarget & { hasOutput: boolean })[] = [];
  let leadingOutput: string | undefined;
  for (const { flag, value } of formatAndOutputTokens(argv, shape)) {
    if (flag === 'format') {
      if (!(FORMAT_NAMES as readonly string[]).includes(value)) throw new UsageError(`unknown --format ${value} (known: ${FORMAT_NAMES.join(', ')})`);
      targets.push({ format: value as FormatName, file: null, hasOutput: false });
      continue;
    }
    const current = targets[targets.length - 1];
    if (!current) {
      if (leadingOutput !== undefined) throw new UsageError(`--output ${value} follows --output ${leadingOutput} with no --format between them; write --format FORMAT before each --output`);
      leadingOutput = value;
      continue;
    }
    if (current.hasOutput) throw new UsageError(`--output ${value} follows --output ${current.file ?? '-'} for the same --format ${current.format}; an --output belongs to the --format before it, so give each file its own --format`);
    current.file = value === '-' ? null : value;
    current.hasOutput = true;
  }
  if (leadingOutput !== undefined) {
    if (targets.length > 0) throw new UsageError(`--output ${leadingOutput} comes before any --format; an --output belongs to the --format before it (e.g. --format ${targets[0]!.format} --output ${leadingOutput})`);
    targets.push({ format: 'text', file: leadingOutput === '-' ? null : leadingOutput, hasOutput: true });
  }
  if (targets.length === 0) targets.push({ format: 'text', file: null, hasOutput: false });
  const toStdout = targets.filter((t) => t.file === null);
  if (toStdout.length > 1) throw new UsageError(`${toStdout.map((t) => `--format ${t.format}`).join(' and ')} would all go to stdout; put --output FILE after each --format but one`);
  return targets.map(({ format, file }) => ({ format, file }));
}

/** The flag shape of an oclif flag table (`static flags`). */
export function flagShapeOf(flags: Record<string, { type: string; char?: string }>): FlagShape {
  const valued = new Set<string>();
  const short = new Map<string, string>();
  for (const [name, def] of Object.entries(flags)) {
    if (def.type === 'option') valued.add(name);
    if (def.char) short.set(def.char, name);
  }
  return { valued, short };
}
