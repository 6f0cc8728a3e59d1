// Turns the command line's PATH arguments into a list of sources: files (walked from directories
// and globs), and stdin for `-`. Nothing is opened here.

import type { Dirent, Stats } from 'node:fs';
import { readdir, stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import { InputError, UsageError, describeSystemError } from '../core/errors.js';

export type InputSource =
  | { type: 'file'; path: string; size: number; /** The argument that produced it, for "nothing recognisable in DIR". */ origin: string }
  | { type: 'stdin'; path: '-'; origin: '-' };

export interface Discovery {
  sources: InputSource[];
  errors: InputError[];
  /** Things skipped on purpose (symlink loops, FIFOs, pseudo file systems): reported, not fatal. */
  notices: InputError[];
  /** Directory and glob arguments, whose files must yield at least one recognised input. */
  containers: string[];
}

const WALK_IGNORE = ['**/node_modules/**'];
const IGNORED_DIRECTORIES = new Set(['node_modules']);

/**
 * statfs magic numbers of kernel pseudo file systems (proc, sysfs, debugfs, tracefs, cgroup v1/v2,
 * devpts, securityfs, bpf, pstore, configfs, fusectl, efivarfs): their "files" are generated on
 * read, can be endless or block, and are never captured logs.
 */
const PSEUDO_FILE_SYSTEMS = new Set([0x9fa0, 0x62656572, 0x64626720, 0x74726163, 0x27e0eb, 0x63677270, 0x1cd1, 0x73636673, 0xcafe4a11, 0x6165676c, 0x62656570, 0x65735543, 0xde5e81e4]);

export async function discoverInputs(args: readonly string[]): Promise<Discovery> {
  const discovery: Discovery = { sources: [], errors: [], notices: [], containers: [] };
  const seen = new Set<string>();
  const addFile = (file: string, size: number, origin: string, identity?: string) => {
    const key = identity ?? path.resolve(file);
    if (seen.has(key)) return;
    seen.add(key);
    discovery.sources.push({ type: 'file', path: file, size, origin });
  };

  // stdin can be read once: a second `-` would wait forever for an end that already came.
  if (args.filter((a) => a === '-').length > 1) throw new UsageError('- (stdin) is named more than once; stdin can be read only once');
  for (const arg of args) {
    if (arg === '-') {
      discovery.sources.push({ type: 'stdin', path: '-', origin: '-' });
      continue;
    }
    let info;
    try {
      info = await stat(arg);
    } catch (err) {
      // Loaded only for an argument that is not a path: most runs name files and folders, and
      // every worker thread imports this module too.
      const { default: fg } = await import('fast-glob');
      if (fg.isDynamicPattern(arg)) {
        const matches = await walk(arg, process.cwd(), discovery);
        if (matches.length === 0) discovery.errors.push(new InputError(arg, 'glob matched no files'));
        discovery.containers.push(arg);
        for (const m of matches) addFile(m.path, m.size, arg, m.identity);
        continue;
      }
      discovery.errors.push(new InputError(arg, describeSystemError(err)));
      continue;
    }
    if (await onPseudoFileSystem(arg)) {
      discovery.errors.push(new InputError(arg, 'on a kernel pseudo file system (/proc, /sys, …); not read'));
    } else if (info.isDirectory()) {
      discovery.containers.push(arg);
      for (const m of await walkDirectory(arg, discovery)) addFile(m.path, m.size, arg, m.identity);
    } else if (info.isFile()) {
      addFile(arg, info.size, arg, `${info.dev}:${info.ino}`);
    } else {
      discovery.errors.push(new InputError(arg, 'not a regular file (devices, sockets and FIFOs are not read)'));
    }
  }
  return discovery;
}

const PSEUDO_NOT_READ = 'kernel pseudo file system (/proc, /sys, …); not read';

async function onPseudoFileSystem(file: string): Promise<boolean> {
  try {
    return PSEUDO_FILE_SYSTEMS.has((await statfs(file)).type);
  } catch {
    return false;
  }
}

interface WalkedFile {
  path: string;
  size: number;
  /** `dev:ino`, so a file reached through a symlink and directly is read once. */
  identity: string;
}

/**
 * Walks a directory in name order, following symbolic links (kubelet's /var/log/containers is all
 * links) but entering each real directory once, so link loops end. Hidden entries and
 * node_modules are skipped; unreadable folders are errors (their logs are missing from the
 * analysis); loops, dangling links, special files and pseudo file systems are notices.
 */
async function walkDirectory(root: string, discovery: Discovery): Promise<WalkedFile[]> {
  const files: WalkedFile[] = [];
  const entered = new Set<string>();
  const visit = async (dir: string, device: number, ino: number): Promise<void> => {
    entered.add(`${device}:${ino}`);
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      discovery.errors.push(new InputError(dir, `${describeSystemError(err)}; folder skipped`));
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.') || IGNORED_DIRECTORIES.has(entry.name)) continue;
      const full = path.join(dir, entry.name);
      let info: Stats;
      try {
        info = await stat(full);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ELOOP') discovery.notices.push(new InputError(full, 'symbolic link loop; skipped'));
        else if (code === 'ENOENT' && entry.isSymbolicLink()) discovery.notices.push(new InputError(full, 'dangling symbolic link; skipped'));
        else discovery.errors.push(new InputError(full, describeSystemError(err)));
        continue;
      }
      if (info.isDirectory()) {
        if (entered.has(`${info.dev}:${info.ino}`)) {
          if (entry.isSymbolicLink()) discovery.notices.push(new InputError(full, 'symbolic link to a folder already walked; skipped'));
          continue;
        }
        if (info.dev !== device && (await onPseudoFileSystem(full))) {
          discovery.notices.push(new InputError(full, PSEUDO_NOT_READ));
          continue;
        }
        await visit(full, info.dev, info.ino);
      } else if (info.isFile()) {
        // A link out of the bundle to /proc/self/environ or a /sys file would put the process's
        // secrets or the host's state into a report meant to be shared.
        if (entry.isSymbolicLink() && info.dev !== device && (await onPseudoFileSystem(full))) {
          discovery.notices.push(new InputError(full, PSEUDO_NOT_READ));
          continue;
        }
        files.push({ path: full, size: info.size, identity: `${info.dev}:${info.ino}` });
      } else {
        discovery.notices.push(new InputError(full, 'not a regular file (FIFO, socket or device); not read'));
      }
    }
  };
  const rootInfo = await stat(root);
  await visit(root, rootInfo.dev, rootInfo.ino);
  return files;
}

/**
 * Glob arguments: fast-glob's matcher without following links while walking (no loops), but a
 * matched link to a file is read: `/var/log/containers/*.log` is nothing but links.
 */
async function walk(pattern: string, cwd: string, discovery: Discovery): Promise<{ path: string; size: number; identity: string }[]> {
  const { default: fg } = await import('fast-glob');
  const entries = await fg(pattern, {
    cwd,
    dot: false,
    onlyFiles: false,
    followSymbolicLinks: false,
    stats: true,
    ignore: WALK_IGNORE,
    suppressErrors: true,
    unique: true,
  });
  const files: { path: string; size: number; identity: string }[] = [];
  for (const entry of entries) {
    if (!entry.stats || entry.stats.isDirectory()) continue;
    let info: Stats = entry.stats;
    if (info.isSymbolicLink()) {
      try {
        info = await stat(path.resolve(cwd, entry.path));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const reason = code === 'ELOOP' ? 'symbolic link loop; skipped' : code === 'ENOENT' ? 'dangling symbolic link; skipped' : describeSystemError(err);
        discovery.notices.push(new InputError(entry.path, reason));
        continue;
      }
      if (info.isDirectory()) continue;
      if (info.isFile() && (await onPseudoFileSystem(path.resolve(cwd, entry.path)))) {
        discovery.notices.push(new InputError(entry.path, PSEUDO_NOT_READ));
        continue;
      }
    }
    if (!info.isFile()) {
      discovery.notices.push(new InputError(entry.path, 'not a regular file (FIFO, socket or device); not read'));
      continue;
    }
    files.push({ path: entry.path, size: info.size, identity: `${info.dev}:${info.ino}` });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
