// Shared by the hostile-input tests: the built CLI, scratch folders, and the attack strings of
// issue 21, each as the bytes a hostile capture would carry.

import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after } from 'node:test';

// LD_TEST_BIN runs the cases against another build (e.g. the commit before a fix).
export const BIN = process.env.LD_TEST_BIN ?? path.resolve('bin/run.js');
/** One JSON-layout proxy log of a Traefik pod in a reconnect storm (fixtures/storm). */
export const STORM_LOG = path.resolve('fixtures/storm/ingress/traefik-84f22pthm6-9jxm9/linkerd-proxy.log');
export const STORM_PODS = path.resolve('fixtures/storm/ingress');

export interface Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function cli(args: string[], options: SpawnSyncOptions = {}): Run {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    ...options,
  });
  return { status: r.status, signal: r.signal, stdout: String(r.stdout), stderr: String(r.stderr) };
}

export function scratch(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `ld-${prefix}-`));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Terminal attacks: OSC 52 (clipboard), OSC 0 (title), OSC 8 (hidden link), CSI colour, the
 * 8-bit CSI U+009B, ESC c (reset), the alternate screen, a bare CR and a backspace. */
export const TERMINAL_ATTACK =
  '\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\\x1b[31mred\u009b2J\x1bc\x1b[?1049h\rX\b';

/** The same attacks as they fit in a file name (no `/`). */
export const NAME_ATTACK = TERMINAL_ATTACK.replace(/\//g, '');

/** Any byte a terminal would act on: C0 except \n and \t, DEL, C1. */
// eslint-disable-next-line no-control-regex
export const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** A folder of storm pods whose pod folders carry `suffix` in their names. */
export function stormPodsNamed(dir: string, suffix: string, count = 6): string {
  const root = path.join(dir, 'bundle');
  const pods = [
    'traefik-26wbfcwvjm-wq6xj',
    'traefik-6rmnsd56lv-7l274',
    'traefik-84f22pthm6-9jxm9',
    'traefik-8zxjb9gw8v-b276x',
    'traefik-d5l5mck2ml-nntlw',
    'traefik-d7xm6p86np-6srkj',
  ];
  for (const pod of pods.slice(0, count)) {
    const target = path.join(root, 'ingress', `${pod}${suffix}`);
    mkdirSync(target, { recursive: true });
    cpSync(path.join(STORM_PODS, pod, 'linkerd-proxy.log'), path.join(target, 'linkerd-proxy.log'));
  }
  return root;
}

/** A ustar archive of plain members, written by hand so names can hold any byte. */
export function tarOf(members: { name: string; body: string }[]): Buffer {
  const blocks: Buffer[] = [];
  for (const m of members) {
    const body = Buffer.from(m.body);
    const header = Buffer.alloc(512);
    header.write(m.name, 0, 100, 'utf8');
    header.write('0000644\0', 100);
    header.write('0000000\0', 108);
    header.write('0000000\0', 116);
    header.write(body.length.toString(8).padStart(11, '0') + '\0', 124);
    header.write('00000000000\0', 136);
    header.fill(' ', 148, 156);
    header.write('0', 156);
    header.write('ustar\0', 257);
    header.write('00', 263);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
    blocks.push(header, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}
