// Shell completion comes from oclif's plugin (@oclif/plugin-autocomplete 3.2, the last line for
// @oclif/core 4 on Node 20), run through the built CLI as a user would: `autocomplete bash|zsh`
// print the setup, `autocomplete script <shell>` the line for the shell's rc file (topics are
// space-separated, so two words name the hidden `autocomplete:script`), and the completion
// functions the plugin writes into the cache directory name every command and its flags.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(ROOT, 'bin/run.js');

interface ManifestCommand {
  id: string;
  hidden?: boolean;
  flags: Record<string, { name: string; hidden?: boolean }>;
}

let home: string;
before(() => {
  if (!existsSync(path.join(ROOT, 'oclif.manifest.json'))) execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  home = mkdtempSync(path.join(tmpdir(), 'ld-complete-'));
});
after(() => rmSync(home, { recursive: true, force: true }));

/** The built CLI with a throw-away home and cache, so nothing is written to the user's. */
export function runCompletion(bin: string, args: string[], cacheHome: string): { status: number | null; stdout: string; stderr: string } {
  const env = { ...process.env, HOME: cacheHome, XDG_CACHE_HOME: path.join(cacheHome, '.cache'), NO_COLOR: '1' };
  const binArgs = bin.endsWith('.js') ? ([process.execPath, [bin, ...args]] as const) : ([bin, args] as const);
  return spawnSync(binArgs[0], binArgs[1], { env, encoding: 'utf8' });
}

/** Checks the functions the plugin wrote under `cacheHome` name `commands` and each visible flag. */
export function assertCompletionFunctions(cacheHome: string, commands: readonly ManifestCommand[]): void {
  const functions = path.join(cacheHome, '.cache/linkerd-doctor/autocomplete/functions');
  const bash = readFileSync(path.join(functions, 'bash/linkerd-doctor.bash'), 'utf8');
  const zsh = readFileSync(path.join(functions, 'zsh/_linkerd-doctor'), 'utf8');
  assert.match(zsh, /^#compdef linkerd-doctor/m);
  for (const command of commands.filter((c) => !c.hidden)) {
    const flags = Object.values(command.flags)
      .filter((f) => !f.hidden)
      .map((f) => `--${f.name}`);
    // bash: one line per command, the id then its flags.
    const line = bash.split('\n').find((l) => l === command.id || l.startsWith(`${command.id} `));
    assert.ok(line, `bash completion has no line for ${command.id}`);
    for (const flag of flags) assert.ok(line.split(' ').includes(flag), `bash completion: ${command.id} lacks ${flag}`);
    assert.ok(zsh.includes(`"${command.id}:`) || zsh.includes(`${command.id})`), `zsh completion has no entry for ${command.id}`);
    for (const flag of flags) assert.ok(zsh.includes(flag), `zsh completion lacks ${flag} (${command.id})`);
  }
}

describe('linkerd-doctor autocomplete', () => {
  const manifest = () => JSON.parse(readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, ManifestCommand> };

  it('prints bash and zsh setup naming the space-separated script command', () => {
    for (const shell of ['bash', 'zsh']) {
      const run = runCompletion(BIN, ['autocomplete', shell], home);
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`linkerd-doctor autocomplete script ${shell}`));
      const script = runCompletion(BIN, ['autocomplete', 'script', shell], home);
      assert.equal(script.status, 0, script.stderr);
      assert.match(script.stdout, new RegExp(`LINKERD_DOCTOR_AC_${shell.toUpperCase()}_SETUP_PATH=.*linkerd-doctor/autocomplete/${shell}_setup`));
    }
  });

  it('writes completion functions that name every command and its flags', () => {
    const run = runCompletion(BIN, ['autocomplete', '--refresh-cache'], home);
    assert.equal(run.status, 0, run.stderr);
    const commands = Object.values(manifest().commands);
    assert.ok(commands.some((c) => c.id === 'analyze' && '--fail-on' in Object.fromEntries(Object.values(c.flags).map((f) => [`--${f.name}`, true]))));
    assertCompletionFunctions(home, commands);
  });

  it('is offered among the commands, and a misspelling is refused with the nearest name', () => {
    const run = runCompletion(BIN, ['autocomplet', 'bash'], home);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /^linkerd-doctor: unknown command autocomplet; did you mean autocomplete\? \(commands: .*autocomplete/);
    assert.doesNotMatch(run.stderr, /autocomplete:script|autocomplete:create/);
  });

  it('refuses an unknown shell in one line', () => {
    const run = runCompletion(BIN, ['autocomplete', 'fish'], home);
    assert.equal(run.status, 2);
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
  });
});
