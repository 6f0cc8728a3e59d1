// Which report goes where. oclif collects repeated flags into separate arrays, but its parse
// result also keeps every flag token in command-line order (`raw`), so the pairing is read from
// there: a --format and an --output written next to each other (in either order) belong together,
// an --output alone takes its format from the file's extension, and a --format alone goes to stdout.

import { UsageError } from '../core/errors.js';
import { FORMAT_NAMES, type FormatName } from '../report/formats/index.js';

export interface OutputTarget {
  format: FormatName;
  /** null = stdout. */
  file: string | null;
}

/** A token of oclif's parse result (`raw`): a flag with its name, or an argument. */
export type ParsedToken = { type: 'flag'; flag: string; input: string } | { type: 'arg'; input: string };

interface Token {
  flag: 'format' | 'output';
  value: string;
}

/** File name endings and the format each one means; longest first, so `.sarif.json` wins over `.json`. */
const FORMAT_BY_EXTENSION: readonly (readonly [string, FormatName])[] = [
  ['.sarif.json', 'sarif'],
  ['.sarif', 'sarif'],
  ['.json', 'json'],
  ['.xml', 'junit'],
  ['.markdown', 'markdown'],
  ['.md', 'markdown'],
  ['.html', 'html'],
  ['.htm', 'html'],
  ['.txt', 'text'],
];

/** The format an output file's name asks for; text when the name says nothing (`report`, `out.log`, `-`). */
export function formatForFile(file: string): FormatName {
  const lower = file.toLowerCase();
  return FORMAT_BY_EXTENSION.find(([ending]) => lower.endsWith(ending))?.[1] ?? 'text';
}

/** The --format and --output tokens of oclif's parse, in command-line order. */
export function formatAndOutputTokens(raw: readonly ParsedToken[]): Token[] {
  return raw.flatMap((t) => (t.type === 'flag' && (t.flag === 'format' || t.flag === 'output') ? [{ flag: t.flag, value: t.input }] : []));
}

/** `format` between two outputs: the one before names it by its extension and the one after does not. */
function namesFormat(before: string, format: string, after: string): boolean {
  return formatForFile(before) === format && formatForFile(after) !== format;
}

/**
 * Pairs formats and outputs. Among the --format/--output flags, in order: a --format and an
 * --output next to each other are a pair, either way round (`-f html -o x.html`, `-o x.html -f
 * html`). A --format between two outputs goes with the one after it, unless only the one before
 * names it (`-o x.html -f html -o r.sarif`). An --output left alone writes the format its
 * extension names; a --format left alone goes to stdout, and at most one report may. No flags:
 * text on stdout.
 */
export function pairOutputTargets(tokens: readonly Token[]): OutputTarget[] {
  const targets: OutputTarget[] = [];
  const target = (format: string, output: string | null): OutputTarget => {
    if (!(FORMAT_NAMES as readonly string[]).includes(format)) throw new UsageError(`unknown --format ${format} (known: ${FORMAT_NAMES.join(', ')})`);
    return { format: format as FormatName, file: output === null || output === '-' ? null : output };
  };
  for (let i = 0; i < tokens.length; i++) {
    const current = tokens[i]!;
    const next = tokens[i + 1];
    const afterNext = tokens[i + 2];
    if (current.flag === 'format') {
      if (next?.flag === 'output') {
        targets.push(target(current.value, next.value));
        i++;
      } else targets.push(target(current.value, null));
    } else if (next?.flag === 'format' && !(afterNext?.flag === 'output' && !namesFormat(current.value, next.value, afterNext.value))) {
      targets.push(target(next.value, current.value));
      i++;
    } else {
      targets.push(target(current.value === '-' ? 'text' : formatForFile(current.value), current.value));
    }
  }
  if (targets.length === 0) targets.push({ format: 'text', file: null });
  const toStdout = targets.filter((t) => t.file === null);
  if (toStdout.length > 1)
    throw new UsageError(`${toStdout.map((t) => `--format ${t.format}`).join(' and ')} would all go to stdout; put --output FILE beside each --format but one`);
  return targets;
}

export function orderedOutputTargets(raw: readonly ParsedToken[]): OutputTarget[] {
  return pairOutputTargets(formatAndOutputTokens(raw));
}
