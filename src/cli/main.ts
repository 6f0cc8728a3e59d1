// The process entry after bin/run.js: prepares argv (Linkerd's global flags, `help`,
// `_extension-metadata`), runs oclif, and turns every parse error into one line on stderr, exit 2.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  CLUSTER_COMMANDS,
  describeParseError,
  dispatch,
  dropUnknownFlags,
  FORWARD_COMPATIBLE_COMMANDS,
  LINKERD_EXTENSION_NAME,
  stripLinkerdGlobals,
  type CommandShape,
  type ParserErrorClasses,
  type PermissiveParse,
} from './argv.js';
import { terminalWidth } from './terminal.js';

const USAGE_OR_INPUT = 2;

/**
 * What `linkerd check` reads from `linkerd-doctor _extension-metadata` (linkerd2
 * pkg/healthcheck ExtensionMetadataOutput). linkerd-doctor puts nothing in the cluster, so no
 * namespace labelled linkerd.io/extension would ever make `linkerd check` run it; "always" opts in,
 * and `linkerd check` then runs `linkerd-doctor check --output=json`, which needs no cluster.
 */
export const EXTENSION_METADATA = { name: LINKERD_EXTENSION_NAME, checks: 'always' } as const;

type ManifestCommand = CommandShape & { hidden?: boolean };

function manifestCommands(file: string): ManifestCommand[] {
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as { commands: Record<string, ManifestCommand> };
  return Object.values(manifest.commands).map((c) => ({ id: c.id, flags: c.flags, hidden: c.hidden === true }));
}

/**
 * Our commands and those of the oclif plugins package.json lists (shell completion), each from
 * its oclif.manifest.json. Hidden ones (`autocomplete:script`) run but are not offered.
 */
function commandsOf(root: string): ManifestCommand[] {
  let own: ManifestCommand[];
  try {
    own = manifestCommands(path.join(root, 'oclif.manifest.json'));
  } catch {
    // Without the manifest (a source checkout before its first build) there are no suggestions.
    return [];
  }
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { oclif?: { plugins?: string[] } };
  const require = createRequire(path.join(root, 'package.json'));
  const fromPlugins = (pkg.oclif?.plugins ?? []).flatMap((name) => {
    try {
      // The plugin's exports map hides its package.json: from its entry point up to its folder.
      let dir = path.dirname(require.resolve(name));
      while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
      return manifestCommands(path.join(dir, 'oclif.manifest.json'));
    } catch {
      return [];
    }
  });
  return [...own, ...fromPlugins];
}

/** `autocomplete script bash` (topics separated by spaces) is the command `autocomplete:script`. */
function resolveCommand(argv: readonly string[], commands: readonly ManifestCommand[]): { command: ManifestCommand | undefined; words: number } {
  const nested = argv[1] === undefined || argv[1].startsWith('-') ? undefined : commands.find((c) => c.id === `${argv[0]}:${argv[1]}`);
  return nested ? { command: nested, words: 2 } : { command: commands.find((c) => c.id === argv[0]), words: 1 };
}

export async function main(rawArgv: readonly string[], root: string): Promise<void> {
  // oclif lays out help for OCLIF_COLUMNS, read when it loads; without it, a non-terminal is 80
  // and COLUMNS is ignored. Its flag descriptions run two columns past that width, hence the 2.
  process.env.OCLIF_COLUMNS ??= String(terminalWidth(process.stdout) - 2);
  const { Config, Errors, flush, run } = await import('@oclif/core');
  const commands = commandsOf(root);
  const prepared = stripLinkerdGlobals(rawArgv.map((a) => (a === '-h' ? '--help' : a)));
  const plan =
    commands.length > 0
      ? dispatch(
          prepared.argv,
          commands.filter((c) => !c.hidden),
        )
      : ({ kind: 'run', argv: prepared.argv } as const);
  if (plan.kind === 'metadata') {
    process.stdout.write(JSON.stringify(EXTENSION_METADATA) + '\n');
    return;
  }
  if (plan.kind === 'error') return fail(plan.message);
  const argv = [...plan.argv];
  if (prepared.verbose && argv[0] === 'analyze') {
    const end = argv.indexOf('--');
    argv.splice(end < 0 ? argv.length : end, 0, '--verbose');
  }
  const { command, words } = resolveCommand(argv, commands);
  // One word of the command id more than oclif's own argv (argv[0]) is folded into the id.
  if (words === 2) argv.splice(0, 2, command!.id);
  // --api-addr addresses the control plane directly; collect has no use for it.
  if (command && CLUSTER_COMMANDS.has(command.id)) argv.splice(1, 0, ...clusterFlagsFor(prepared.clusterFlags));
  if (command && FORWARD_COMPATIBLE_COMMANDS.has(command.id)) {
    const { argv: kept, dropped } = dropUnknownFlags(argv.slice(1), command);
    argv.splice(1, argv.length - 1, ...kept);
    // stderr: `linkerd check` reads only stdout, and shows stderr when that is not JSON.
    if (dropped.length > 0) process.stderr.write(`linkerd-doctor: notice: ${command.id}: ignoring flags this version does not know: ${dropped.join(' ')}\n`);
  }
  // No user-installed oclif plugins: the tool must behave the same on every machine and must not
  // depend on the home directory being readable (CI users, runuser, containers).
  const loadOptions = { root, userPlugins: false };
  try {
    // A command runs by its id, so oclif never glues a stray argument onto the id
    // ("command rules:extra not found"): the command's own parse refuses it by class.
    if (command && !wantsHelpOrVersion(argv)) {
      const config = await Config.load(loadOptions);
      await config.runCommand(command.id, argv.slice(1));
    } else await run(argv, loadOptions);
    await flush();
  } catch (err) {
    if (err instanceof Errors.ExitError) process.exitCode = err.oclif.exit;
    else
      fail(
        describeParseError(err, command, parserErrorClasses(), await permissiveParse(root, command, argv.slice(1))),
        (err as { oclif?: { exit?: number } })?.oclif?.exit ?? USAGE_OR_INPUT,
      );
  }
}

function wantsHelpOrVersion(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '--version');
}

/**
 * oclif's parser error classes. Every command's parse throws them, but the package's exports map
 * does not list the module, so it is loaded by file from the installed @oclif/core: the same
 * module instance the parser throws from, so instanceof holds. Undefined if a future layout moves
 * it (errors then fall back to their first line).
 */
function parserErrorClasses(): ParserErrorClasses | undefined {
  try {
    const require = createRequire(import.meta.url);
    return require(path.join(path.dirname(require.resolve('@oclif/core')), 'parser', 'errors.js')) as ParserErrorClasses;
  } catch {
    return undefined;
  }
}

/**
 * The argv parsed again by oclif with the command's flags stripped of `options` and `required`,
 * for the errors whose class does not say which flag or value (see PermissiveParse).
 */
async function permissiveParse(root: string, command: CommandShape | undefined, argv: readonly string[]): Promise<PermissiveParse | undefined> {
  if (!command) return undefined;
  try {
    const { Config, Parser } = await import('@oclif/core');
    const loaded = await (await Config.load({ root, userPlugins: false })).findCommand(command.id)?.load();
    if (!loaded) return undefined;
    const flags = Object.fromEntries(Object.entries(loaded.flags ?? {}).map(([name, def]) => [name, { ...def, options: undefined, required: false }]));
    const parsed = await Parser.parse([...argv], { flags: flags as typeof loaded.flags, args: loaded.args ?? {}, strict: false, context: undefined });
    return { raw: parsed.raw, flags: parsed.flags as Record<string, unknown> };
  } catch {
    return undefined;
  }
}

function fail(message: string, code = USAGE_OR_INPUT): void {
  process.stderr.write(`linkerd-doctor: ${message}\n`);
  process.exitCode = code;
}

/** Linkerd's cluster flags as collect takes them: all but --api-addr, which has no kubectl equivalent. */
function clusterFlagsFor(flags: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i]!;
    const takesNext = !flag.includes('=') && !(flag.startsWith('-L') && flag.length > 2);
    if (!flag.startsWith('--api-addr')) out.push(...(takesNext ? flags.slice(i, i + 2) : [flag]));
    if (takesNext) i++;
  }
  return out;
}
