// The command line before and after oclif sees it: Linkerd's global flags are accepted and
// dropped (`linkerd doctor …` runs `linkerd-doctor …` with them), `help` is a command, and every
// parse error becomes one line with a "did you mean" where a near name exists.

import { closest, didYouMean } from '../util/did-you-mean.js';

export const LINKERD_EXTENSION_NAME = 'linkerd-doctor';

/**
 * Flags every Linkerd CLI extension must accept (linkerd2 EXTENSIONS.md). They address a cluster;
 * linkerd-doctor reads files, so they are accepted with their values and ignored.
 */
const LINKERD_VALUED_FLAGS = new Set(['context', 'kubeconfig', 'as', 'as-group', 'api-addr', 'linkerd-namespace']);
const LINKERD_SHORT_VALUED = new Set(['L']);

export interface PreparedArgv {
  argv: string[];
  /** `--verbose` was given (Linkerd passes it as "debug logging"; analyze reads it as full evidence). */
  verbose: boolean;
  /** The cluster-addressing flags removed, with their values, for a command that talks to the cluster (collect). */
  clusterFlags: string[];
}

/** Commands that do address a cluster, and so get Linkerd's cluster flags back as their own flags. */
export const CLUSTER_COMMANDS: ReadonlySet<string> = new Set(['collect']);

/** Removes Linkerd's global flags, with their values, wherever they appear before `--`. */
export function stripLinkerdGlobals(argv: readonly string[]): PreparedArgv {
  const out: string[] = [];
  const clusterFlags: string[] = [];
  let verbose = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      if (LINKERD_VALUED_FLAGS.has(name)) {
        clusterFlags.push(...(eq < 0 ? argv.slice(i, i + 2) : [arg]));
        if (eq < 0) i++;
        continue;
      }
      if (name === 'verbose') {
        // Linkerd forwards booleans as --verbose=true / --verbose=false.
        verbose = eq < 0 || !/^(false|0)$/i.test(arg.slice(eq + 1));
        continue;
      }
    } else if (arg.length >= 2 && arg[0] === '-' && LINKERD_SHORT_VALUED.has(arg[1]!)) {
      clusterFlags.push(...(arg.length === 2 ? argv.slice(i, i + 2) : [arg]));
      if (arg.length === 2) i++;
      continue;
    }
    out.push(arg);
  }
  return { argv: out, verbose, clusterFlags };
}

export interface CommandShape {
  id: string;
  flags: Record<string, { name: string; char?: string; type: string; options?: readonly string[]; required?: boolean }>;
}

/**
 * Commands that ignore flags they do not know, as EXTENSIONS.md recommends for `check` so that a
 * newer `linkerd check` can pass flags this version has never heard of.
 */
export const FORWARD_COMPATIBLE_COMMANDS: ReadonlySet<string> = new Set(['check']);

/**
 * Removes the flags `command` does not define, up to `--`, and turns Linkerd's `--flag=true` /
 * `--flag=false` for a boolean into `--flag` / `--no-flag` (oclif takes no value on a boolean).
 * Linkerd writes every flag it forwards as `--name=value`, so an unknown flag is one token; a bare
 * `--name` is dropped alone.
 */
export function dropUnknownFlags(argv: readonly string[], command: CommandShape): { argv: string[]; dropped: string[] } {
  const byName = new Map(Object.values(command.flags).map((f) => [`--${f.name}`, f]));
  const known = new Set([
    ...byName.keys(),
    ...Object.values(command.flags).flatMap((f) => [...(f.type === 'boolean' ? [`--no-${f.name}`] : []), ...(f.char ? [`-${f.char}`] : [])]),
  ]);
  known.add('--help');
  const out: string[] = [];
  const dropped: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const name = arg.startsWith('--') ? arg.split('=', 1)[0]! : arg.startsWith('-') && arg.length > 1 ? arg.slice(0, 2) : null;
    if (name === null) out.push(arg);
    else if (!known.has(name)) dropped.push(arg);
    else if (byName.get(name)?.type === 'boolean' && arg.includes('='))
      out.push(/^(false|0)$/i.test(arg.slice(name.length + 1)) ? `--no-${name.slice(2)}` : name);
    else out.push(arg);
  }
  return { argv: out, dropped };
}

/** What may come before a command: oclif's own flags (main.ts turns -h into --help). */
const TOP_LEVEL_FLAGS = ['--help', '--version'];

export type Dispatch = { kind: 'run'; argv: string[] } | { kind: 'metadata' } | { kind: 'error'; message: string };

/**
 * What to run: `help [COMMAND]` becomes `[COMMAND] --help`, `_extension-metadata` answers Linkerd,
 * and an unknown command is refused with the nearest name before oclif would glue it to its
 * argument ("command analyse:fixtures not found").
 */
export function dispatch(argv: readonly string[], commands: readonly CommandShape[]): Dispatch {
  const first = argv[0];
  const ids = commands.map((c) => c.id);
  if (first === undefined || TOP_LEVEL_FLAGS.includes(first)) return { kind: 'run', argv: [...argv] };
  if (first.startsWith('-')) {
    const suggestion =
      first === '-v' || first === '-V'
        ? '--version'
        : closest(
            first,
            TOP_LEVEL_FLAGS.filter((f) => f.startsWith('--')),
          );
    return {
      kind: 'error',
      message: `unknown flag ${first}${didYouMean(suggestion)} (before a command only ${TOP_LEVEL_FLAGS.join(' and ')}; commands: ${ids.join(', ')}, help)`,
    };
  }
  if (first === '_extension-metadata') return { kind: 'metadata' };
  if (first === 'help') {
    const topic = argv[1];
    if (topic === undefined || topic === 'help') return { kind: 'run', argv: ['--help'] };
    if (!ids.includes(topic))
      return { kind: 'error', message: `help: unknown command ${topic}${didYouMean(closest(topic, ids))} (commands: ${ids.join(', ')})` };
    return { kind: 'run', argv: [topic, '--help'] };
  }
  if (!ids.includes(first))
    return { kind: 'error', message: `unknown command ${first}${didYouMean(closest(first, [...ids, 'help']))} (commands: ${ids.join(', ')}, help)` };
  return { kind: 'run', argv: [...argv] };
}

/**
 * A flag value our own parse function refused. oclif rewrites the message of an error thrown
 * there ("Parsing --jobs …See more help"), so the reason travels in its own field.
 */
export class FlagValueError extends Error {
  constructor(
    readonly flag: string,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'FlagValueError';
  }
}

/** A whole-number flag with a minimum whose refusal reads like the others (`--max-findings must be …`). */
export function parseWholeNumber(flag: string, input: string, min: number, hint = ''): number {
  const n = /^\d+$/.test(input) ? Number(input) : NaN;
  if (!Number.isSafeInteger(n) || n < min)
    throw new FlagValueError(flag, `--${flag} must be a whole number of at least ${min}${hint}, got ${JSON.stringify(input)}`);
  return n;
}

/** oclif's parser error classes, as thrown by every command's parse (see parserErrorClasses). */
export interface ParserErrorClasses {
  NonExistentFlagsError: abstract new (...args: never[]) => Error & { flags: string[] };
  UnexpectedArgsError: abstract new (...args: never[]) => Error & { args: unknown[] };
  FlagInvalidOptionError: abstract new (...args: never[]) => Error;
  FailedFlagValidationError: abstract new (...args: never[]) => Error;
  RequiredArgsError: abstract new (...args: never[]) => Error;
}

/**
 * What a permissive second parse (main.ts: the same argv, the command's flags without their
 * `options` and `required`) found: the flag tokens in order and the flags set. It names the value
 * and flag behind an error class that carries neither (FlagInvalidOptionError,
 * FailedFlagValidationError).
 */
export interface PermissiveParse {
  raw: readonly { type: string; flag?: string; input: string }[];
  flags: Record<string, unknown>;
}

/** One line for an oclif parse error, chosen by its class, naming the command and the nearest name. */
export function describeParseError(
  err: unknown,
  command: CommandShape | undefined,
  classes: ParserErrorClasses | undefined,
  permissive?: PermissiveParse,
): string {
  const where = command ? `${command.id}: ` : '';
  const help = command ? ` (see linkerd-doctor ${command.id} --help)` : ' (see linkerd-doctor --help)';
  const flagNames = command ? Object.values(command.flags).flatMap((f) => [`--${f.name}`, ...(f.char ? [`-${f.char}`] : [])]) : [];

  if (err instanceof FlagValueError) return `${where}${err.reason}`;
  if (classes && err instanceof classes.NonExistentFlagsError) {
    const parts = err.flags.map(
      (f) =>
        `unknown flag ${f}${didYouMean(
          f.startsWith('--')
            ? closest(
                f,
                flagNames.filter((n) => n.startsWith('--')),
              )
            : undefined,
        )}`,
    );
    return `${where}${parts.join('; ')}${help}`;
  }
  if (classes && err instanceof classes.UnexpectedArgsError)
    return `${where}unexpected argument${err.args.length === 1 ? '' : 's'} ${err.args.map(String).join(' ')}${help}`;
  if (classes && command && permissive && (err instanceof classes.FlagInvalidOptionError || err instanceof classes.FailedFlagValidationError)) {
    for (const token of permissive.raw) {
      const def = token.type === 'flag' && token.flag ? command.flags[token.flag] : undefined;
      if (def?.options && !def.options.includes(token.input))
        return `${where}--${def.name} ${token.input}: not one of ${def.options.join(', ')}${didYouMean(closest(token.input, def.options))}`;
    }
    const missing = Object.values(command.flags).find((f) => f.required && permissive.flags[f.name] === undefined);
    if (missing) return `${where}--${missing.name} is required${missing.options ? ` (one of: ${missing.options.join(', ')})` : ''}${help}`;
  }
  // Anything else (an oclif error this version does not know): its first line, never a trace.
  const first = String((err as { message?: unknown })?.message ?? err)
    .split('\n')
    .map((l) => stripAnsi(l).trim())
    .find((l) => l !== '' && !/occurred:?$/.test(l));
  return `${where}${first ?? 'invalid command line'}${help}`;
}

function stripAnsi(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\u001b\[[0-9;]*m/g, '');
}
