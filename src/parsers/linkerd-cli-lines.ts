// The lines of Linkerd CLI output one at a time: colour codes and spinner redraws removed, a check
// line's status, a hint URL's anchor, a pasted command line. linkerd-cli.ts reads them in order.

import type { CheckStatus } from '../core/types.js';
import { lookupTable } from '../util/dict.js';

// eslint-disable-next-line no-control-regex -- colour codes are what is being removed
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;
/** The spinner's frames (briandowns/spinner CharSets[9] and the Braille sets). */
const SPINNER = /^[\u2800-\u28ff]+\s*/;
const STATUS_GLYPHS: Readonly<Record<string, CheckStatus>> = lookupTable({
  '\u221a': 'ok',
  '\u203c': 'warn',
  '\u00d7': 'fail',
  '\u2714': 'ok',
  '\u2716': 'fail',
});
const ASCII_STATUS = /^\[(ok|warn|warning|fail|failed|error)\]\s+(\S.*)$/i;
/** `see https://linkerd.io/2.10/checks/#l5d-… for hints`, possibly cut; the anchor's characters only. */
const HINT_URL = /linkerd\.io\/(?:([0-9][\w.-]*|docs)\/)?checks\/?#([\w-]*)/;
/** Subcommands a pasted command line may name (linkerd2 cli/cmd and the extensions' CLIs). */
const SUBCOMMANDS = new Set([
  'check',
  'viz',
  'multicluster',
  'mc',
  'jaeger',
  'diagnostics',
  'diag',
  'upgrade',
  'install',
  'uninstall',
  'top',
  'tap',
  'stat',
  'routes',
  'edges',
  'version',
  'inject',
  'uninject',
  'identity',
  'authz',
  'profile',
  'install-cni',
  'prune',
  'dashboard',
]);
const PROMPT_TOKEN = /^(?:[$#%>\u279c\u276f\u03bb]|\S*[$#%>]|sudo|PS|\(\S+\))$/;

/**
 * The Linkerd command a pasted line runs, without the shell prompt (`$ linkerd check -o short`,
 * `➜ bin/linkerd upgrade …`, `user@host:~$ linkerd viz check`, a first character lost in the
 * copy: `inkerd check`); null for any other line. `Usage:` examples (`linkerd top [flags]`) are not commands.
 */
export function linkerdCommandOf(line: string): string | null {
  const tokens = line.trim().split(/\s+/);
  for (let i = 0; i < tokens.length && i < 4; i++) {
    const token = tokens[i]!;
    const name = token.slice(token.lastIndexOf('/') + 1);
    if ((name === 'linkerd' || name === 'linkerd.exe' || (i === 0 && name === 'inkerd')) && SUBCOMMANDS.has(tokens[i + 1] ?? '')) {
      if (tokens.includes('[flags]')) return null;
      return ['linkerd', ...tokens.slice(i + 1)].join(' ');
    }
    if (!PROMPT_TOKEN.test(token)) return null;
  }
  return null;
}

/** A line as the terminal showed it: colour codes removed, the last drawing of a spinner line, no spinner frame. */
export function cleanCliLine(raw: string): string {
  let text = raw.includes('\x1b') ? raw.replace(ANSI, '') : raw;
  const cr = text.lastIndexOf('\r', text.length - 2);
  if (cr >= 0) text = text.slice(cr + 1);
  text = text.trimEnd();
  return SPINNER.test(text) ? text.replace(SPINNER, '') : text;
}

/** The status and the rest of a check line (`√ can query the Kubernetes API`); null for another line. */
export function parseCheckLine(text: string): { status: CheckStatus; description: string } | null {
  const glyph = STATUS_GLYPHS[text.charAt(0)];
  if (glyph !== undefined) {
    const rest = text.slice(1);
    if (rest === '' || (rest.charAt(0) !== ' ' && rest.charAt(0) !== '\t')) return null;
    const description = rest.trim();
    return description === '' ? null : { status: glyph, description };
  }
  const ascii = ASCII_STATUS.exec(text);
  if (!ascii) return null;
  const word = ascii[1]!.toLowerCase();
  return { status: word === 'ok' ? 'ok' : word.startsWith('warn') ? 'warn' : 'fail', description: ascii[2]!.trim() };
}

/** The hint a line points to: its anchor (possibly cut) and the docs version of the URL. */
export function parseHint(text: string): { anchor: string; version: string | null } | null {
  if (!text.includes('linkerd.io/')) return null;
  const m = HINT_URL.exec(text);
  if (!m) return null;
  return { anchor: m[2]!, version: m[1] ?? null };
}
