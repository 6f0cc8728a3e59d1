// The built CLI on a real 80x24 terminal (tmux): what the last screen shows after a run, that no
// line is wrapped by the terminal, and the progress line on stderr while stdin of unknown size is
// still arriving. Width comes from the terminal itself here: COLUMNS is unset.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(ROOT, 'bin/run.js');
const STORM = path.join(ROOT, 'fixtures/storm');
const STORM_POD_LOG = path.join(STORM, 'ingress/traefik-mr9q65pc74-5kz6v/linkerd-proxy.log');
const WIDTH = 80;
const HEIGHT = 24;
const DONE = '__ld_exit__=';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
// In CI (.ci/run installs tmux) a missing tmux is a failure, as for the browser test; locally a skip.
const inCi = !!process.env.CI && process.env.CI !== 'false';
const skip = !hasTmux && !inCi ? 'tmux is not installed (apt-get install -y tmux)' : false;

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe(`the built CLI on an ${WIDTH}x${HEIGHT} terminal`, { skip }, () => {
  let socketDir: string;
  let session = 0;

  before(() => {
    assert.ok(hasTmux, `tmux is required in CI (CI=${process.env.CI}); .ci/run installs it with apt-get install -y tmux`);
    socketDir = mkdtempSync(path.join(tmpdir(), 'ld-tmux-'));
  });
  after(() => rmSync(socketDir, { recursive: true, force: true }));

  /** Runs `shell` in a fresh terminal; calls `during` with the screen every 100 ms until it exits; returns the last screen. */
  async function onTerminal(shell: string, during?: (screen: string) => void): Promise<{ screen: string; joined: string; exit: number }> {
    const name = `ld${++session}`;
    // A server per run: a server whose last session was just killed is still exiting and refuses
    // the next new-session ("server exited unexpectedly").
    const socket = path.join(socketDir, name);
    const tmux = (...args: string[]) => execFileSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' });
    // A clean environment: no COLUMNS (the width must come from the terminal), no colour overrides.
    const env = `env -u COLUMNS -u NO_COLOR -u FORCE_COLOR -u CI PATH=${quote(process.env.PATH ?? '')}`;
    tmux(
      'new-session',
      '-d',
      '-s',
      name,
      '-x',
      String(WIDTH),
      '-y',
      String(HEIGHT),
      `cd ${quote(ROOT)} && ${env} sh -c ${quote(shell)}; echo ${DONE}$?; sleep 60`,
    );
    try {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const screen = tmux('capture-pane', '-p', '-t', name);
        const exit = new RegExp(`${DONE}(\\d+)`).exec(screen);
        if (exit)
          return {
            screen: screen.slice(0, screen.indexOf(DONE)).trimEnd(),
            joined: tmux('capture-pane', '-p', '-J', '-S', '-', '-t', name),
            exit: Number(exit[1]),
          };
        during?.(screen);
        assert.ok(Date.now() < deadline, `still running after 60 s:\n${screen}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      spawnSync('tmux', ['-S', socket, 'kill-server']);
    }
  }

  it('analyze leaves the probable cause and the first action on the last screen, with no line wrapped by the terminal', async () => {
    const run = await onTerminal(`node ${quote(BIN)} analyze ${quote(STORM)}`);
    assert.equal(run.exit, 1);
    const last = run.screen.split('\n').slice(-(HEIGHT - 1));
    const text = last.join('\n');
    assert.match(text, /^Summary: 3 error\(s\), 0 warning\(s\), 0 info · FAIL$/m);
    assert.match(text, /^Probable cause: Destination controller saturated/m);
    assert.match(text, /^Do now: Relieve the destination controller now/m);
    assert.doesNotMatch(text, /Version check|lines\/s/, 'no version paragraph, and the progress line is gone');
    // -J joins lines the terminal wrapped: every joined line must still fit.
    const wrapped = run.joined.split('\n').filter((l) => [...l].length > WIDTH);
    assert.deepEqual(wrapped, []);
  });

  it('rules fits the terminal', async () => {
    const run = await onTerminal(`node ${quote(BIN)} rules`);
    assert.equal(run.exit, 0);
    assert.match(run.joined, /reconnect-storm/);
    assert.deepEqual(
      run.joined.split('\n').filter((l) => [...l].length > WIDTH),
      [],
    );
  });

  it('shows bytes and rates, never a bar or a percentage, for stdin of unknown size, and clears the line at the end', async () => {
    const seen: string[] = [];
    // The pod log, a pause while the CLI waits for more, then the rest: the progress line shows meanwhile.
    const run = await onTerminal(`(cat ${quote(STORM_POD_LOG)}; sleep 2; cat ${quote(STORM_POD_LOG)}) | node ${quote(BIN)} analyze - > /dev/null`, (screen) => {
      const line = screen.split('\n').find((l) => /lines\/s/.test(l));
      if (line) seen.push(line);
    });
    assert.equal(run.exit, 0);
    assert.ok(seen.length > 0, 'a progress line was shown while stdin was open');
    for (const line of seen) {
      assert.match(line, /^ [\d.]+ (B|KiB|MiB) read \| [\d.]+ (B|KiB|MiB)\/s \| [\d.,]+(?: k)? lines\/s \| [\d.]+ s/);
      assert.doesNotMatch(line, /%|█|░/);
      assert.ok([...line].length < WIDTH, line);
    }
    assert.doesNotMatch(run.screen, /lines\/s/);
  });
});
