// Turns the command line's PATH arguments into a list of sources: files (walked from directories
// and globs), and stdin for `-`. Nothing is opened here.

import { stat } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { InputError, describeSystemError } from '../core/errors.js';

export type InputSource =
  | { type: 'file'; path: string; size: number; /** The argument that produced it, for "nothing recognisable in DIR". */ origin: string }
  | { type: 'stdin'; path: '-'; origin: '-' };

export interface Discovery {
  sources: InputSource[];
  errors: InputError[];
  /** Directory and glob arguments, whose files must yield at least one recognised input. */
  containers: string[];
}

const WALK_IGNORE = ['**/node_modules/**'];

export async function discoverInputs(args: readonly string[]): Promise<Discovery> {
  const discovery: Discovery = { sources: [], errors: [], containers: [] };
  const seen = new Set<string>();
  const addFile = (file: string, size: number, origin: string) => {
    const key = path.resolve(file);
    if (seen.has(key)) return;
    seen.add(key);
    discovery.sources.push({ type: 'file', path: file, size, origin });
  };

  for (const arg of args) {
    if (arg === '-') {
      discovery.sources.push({ type: 'stdin', path: '-', origin: '-' });
      continue;
    }
    let info;
    try {
      info = await stat(arg);
    } catch (err) {
      if (fg.isDynamicPattern(arg)) {
        const matches = await walk(arg, process.cwd(), discovery.errors);
        if (matches.length === 0) discovery.errors.push(new InputError(arg, 'glob matched no files'));
        discovery.containers.push(arg);
        for (const m of matches) addFile(m.path, m.size, arg);
        continue;
      }
      discovery.errors.push(new InputError(arg, describeSystemError(err)));
      continue;
    }
    if (info.isDirectory()) {
      discovery.containers.push(arg);
      const matches = await walk('**/*', arg, discovery.errors);
      for (const m of matches) addFile(path.join(arg, m.path), m.size, arg);
    } else if (info.isFile()) {
      addFile(arg, info.size, arg);
    } else {
      discovery.errors.push(new InputError(arg, 'not a regular file (devices, sockets and FIFOs are not read)'));
    }
  }
  return discovery;
}

async function walk(pattern: string, cwd: string, errors: InputError[]): Promise<{ path: string; size: number }[]> {
  const entries = await fg(pattern, {
    cwd,
    dot: false,
    onlyFiles: true,
    followSymbolicLinks: false,
    stats: true,
    ignore: WALK_IGNORE,
    suppressErrors: true,
    unique: true,
  });
  const files: { path: string; size: number }[] = [];
  for (const entry of entries) {
    if (!entry.stats) continue;
    if (!entry.stats.isFile()) {
      errors.push(new InputError(path.join(cwd === process.cwd() ? '' : cwd, entry.path), 'not a regular file; skipped'));
      continue;
    }
    files.push({ path: entry.path, size: entry.stats.size });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
