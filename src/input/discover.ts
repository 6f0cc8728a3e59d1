// Turns the command line's PATH arguments into a list of sources: files (walked from directories
// and globs), and stdin for `-`. Nothing is opened here.
//
// Folders and globs share one walker over raw names (Buffer paths): a name that is not valid UTF-8
// is listed, opened by its bytes and shown escaped (names.ts), never dropped with its folder's
// listing. A glob is matched by picomatch (fast-glob's own matcher) against the walked names, so a
// glob and the folder it names see the same files, with the same errors and pseudo-file-system checks.

import type { Dirent, Stats } from 'node:fs';
import { statSync } from 'node:fs';
import { readdir, stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { InputError, UsageError, describeSystemError } from '../core/errors.js';
import { displayName, isUtf8Name, type DiskPath } from './names.js';

export type InputSource =
  | {
      type: 'file';
      /** Display path: the name as UTF-8, bytes that are not valid UTF-8 escaped as `\xNN`. */
      path: string;
      /** The path's bytes, only when `path` does not name the file (a name that is not valid UTF-8). */
      raw?: Uint8Array;
      size: number;
      /** The argument that produced it, for "nothing recognisable in DIR". */
      origin: string;
    }
  | { type: 'stdin'; path: '-'; origin: '-' };

/** What to open for a file source: its raw bytes when its name is not UTF-8, else its path. */
export function diskPathOf(source: { path: string; raw?: Uint8Array }): DiskPath {
  // A source sent to a worker thread arrives with a plain Uint8Array: fs wants a Buffer's type.
  return source.raw ? Buffer.from(source.raw.buffer, source.raw.byteOffset, source.raw.byteLength) : source.path;
}

export interface Discovery {
  sources: InputSource[];
  errors: InputError[];
  /** Things skipped on purpose (symlink loops, FIFOs, pseudo file systems): reported, not fatal. */
  notices: InputError[];
  /** Directory and glob arguments, whose files must yield at least one recognised input. */
  containers: string[];
}

const IGNORED_DIRECTORIES = new Set(['node_modules']);

/**
 * statfs magic numbers of kernel pseudo file systems (proc, sysfs, debugfs, tracefs, cgroup v1/v2,
 * devpts, securityfs, bpf, pstore, configfs, fusectl, efivarfs): their "files" are generated on
 * read, can be endless or block, and are never captured logs.
 */
const PSEUDO_FILE_SYSTEMS = new Set([
  0x9fa0, 0x62656572, 0x64626720, 0x74726163, 0x27e0eb, 0x63677270, 0x1cd1, 0x73636673, 0xcafe4a11, 0x6165676c, 0x62656570, 0x65735543, 0xde5e81e4,
]);

const PSEUDO_ARGUMENT = 'on a kernel pseudo file system (/proc, /sys, …); not read';

export async function discoverInputs(args: readonly string[]): Promise<Discovery> {
  const discovery: Discovery = { sources: [], errors: [], notices: [], containers: [] };
  const seen = new Set<string>();
  const addFile = (file: WalkedFile, origin: string) => {
    if (seen.has(file.identity)) return;
    seen.add(file.identity);
    discovery.sources.push(
      file.raw ? { type: 'file', path: file.path, raw: file.raw, size: file.size, origin } : { type: 'file', path: file.path, size: file.size, origin },
    );
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
      if (picomatch.scan(arg).isGlob) {
        discovery.containers.push(arg);
        const matches = await walkGlob(arg, discovery);
        if (matches === null) continue;
        if (matches.length === 0) discovery.errors.push(new InputError(arg, 'glob matched no files'));
        for (const m of matches) addFile(m, arg);
        continue;
      }
      discovery.errors.push(new InputError(arg, describeSystemError(err)));
      continue;
    }
    if (await onPseudoFileSystem(arg)) {
      discovery.errors.push(new InputError(arg, PSEUDO_ARGUMENT));
    } else if (info.isDirectory()) {
      discovery.containers.push(arg);
      await walkTree(arg, discovery, { maxDepth: Infinity }, (file) => addFile(file, arg));
    } else if (info.isFile()) {
      addFile({ path: arg, size: info.size, identity: `${info.dev}:${info.ino}` }, arg);
    } else {
      discovery.errors.push(new InputError(arg, 'not a regular file (devices, sockets and FIFOs are not read)'));
    }
  }
  return discovery;
}

const PSEUDO_NOT_READ = 'kernel pseudo file system (/proc, /sys, …); not read';

async function onPseudoFileSystem(file: DiskPath): Promise<boolean> {
  try {
    return PSEUDO_FILE_SYSTEMS.has((await statfs(file)).type);
  } catch {
    return false;
  }
}

interface WalkedFile {
  path: string;
  raw?: Uint8Array;
  size: number;
  /** `dev:ino`, so a file reached through a symlink and directly is read once. */
  identity: string;
}

interface WalkedFolder {
  /** Display path. */
  path: string;
  /** Its bytes, once a name on the way is not valid UTF-8; null while `path` names it. */
  raw: Buffer | null;
  /** Path below the walk's root as displayed, `/`-separated: what a glob is matched against. */
  relative: string;
  depth: number;
}

interface WalkOptions {
  /** Files below the root to keep, by their relative display path; all when absent. */
  match?: (relative: string) => boolean;
  /** Levels of folders below the root that can hold a match (a glob without `**` is that deep at most). */
  maxDepth: number;
  /** Hidden entries are walked too (a glob that names them, like `.cache/*.log`); the matcher decides. */
  hidden?: boolean;
}

const SLASH = Buffer.from('/');
const DOT = 0x2e;

/**
 * Walks a directory in name order over raw names, following symbolic links (kubelet's
 * /var/log/containers is all links) but entering each real directory once, so link loops end.
 * Hidden entries and node_modules are skipped; unreadable folders and entries are errors (their
 * logs are missing from the analysis); loops, dangling links, special files and pseudo file
 * systems are notices. One bad entry never costs the rest of its folder.
 */
async function walkTree(root: string, discovery: Discovery, options: WalkOptions, onFile: (file: WalkedFile) => void): Promise<void> {
  const entered = new Set<string>();
  const visit = async (dir: WalkedFolder, device: number, ino: number): Promise<void> => {
    entered.add(`${device}:${ino}`);
    let entries: Dirent<Buffer>[];
    try {
      entries = await readdir(dir.raw ?? dir.path, { withFileTypes: true, encoding: 'buffer' });
    } catch (err) {
      discovery.errors.push(new InputError(dir.path, `${describeSystemError(err)}; folder skipped`));
      return;
    }
    entries.sort((a, b) => Buffer.compare(a.name, b.name));
    for (const entry of entries) {
      const name = entry.name;
      if (name[0] === DOT && !options.hidden) continue;
      const text = displayName(name);
      if (IGNORED_DIRECTORIES.has(text)) continue;
      const relative = dir.relative === '' ? text : `${dir.relative}/${text}`;
      // A file the glob does not match needs no stat; a link may be a folder, so it is looked at.
      if (options.match && entry.isFile() && !options.match(relative)) continue;
      const shown = path.join(dir.path, text);
      const raw = dir.raw || !isUtf8Name(name) ? Buffer.concat([dir.raw ?? Buffer.from(dir.path), SLASH, name]) : null;
      const full: DiskPath = raw ?? shown;
      let info: Stats;
      try {
        // Blocking on purpose: a stat from the inode cache takes microseconds, a thread-pool
        // round trip per entry cost more than the stat (futex and epoll waits were most of a
        // 100,000-file bundle's system time).
        info = statSync(full);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ELOOP') discovery.notices.push(new InputError(shown, 'symbolic link loop; skipped'));
        else if (code === 'ENOENT' && entry.isSymbolicLink()) discovery.notices.push(new InputError(shown, 'dangling symbolic link; skipped'));
        else discovery.errors.push(new InputError(shown, describeSystemError(err)));
        continue;
      }
      if (info.isDirectory()) {
        if (dir.depth + 1 >= options.maxDepth) continue;
        if (entered.has(`${info.dev}:${info.ino}`)) {
          if (entry.isSymbolicLink()) discovery.notices.push(new InputError(shown, 'symbolic link to a folder already walked; skipped'));
          continue;
        }
        if (info.dev !== device && (await onPseudoFileSystem(full))) {
          discovery.notices.push(new InputError(shown, PSEUDO_NOT_READ));
          continue;
        }
        await visit({ path: shown, raw, relative, depth: dir.depth + 1 }, info.dev, info.ino);
      } else if (options.match && !options.match(relative)) {
        continue;
      } else if (info.isFile()) {
        // A link out of the bundle to /proc/self/environ or a /sys file would put the process's
        // secrets or the host's state into a report meant to be shared.
        if (entry.isSymbolicLink() && info.dev !== device && (await onPseudoFileSystem(full))) {
          discovery.notices.push(new InputError(shown, PSEUDO_NOT_READ));
          continue;
        }
        onFile(
          raw
            ? { path: shown, raw, size: info.size, identity: `${info.dev}:${info.ino}` }
            : { path: shown, size: info.size, identity: `${info.dev}:${info.ino}` },
        );
      } else {
        discovery.notices.push(new InputError(shown, 'not a regular file (FIFO, socket or device); not read'));
      }
    }
  };
  let rootInfo: Stats;
  try {
    rootInfo = await stat(root);
  } catch (err) {
    discovery.errors.push(new InputError(root, describeSystemError(err)));
    return;
  }
  await visit({ path: root, raw: null, relative: '', depth: 0 }, rootInfo.dev, rootInfo.ino);
}

/**
 * A glob argument: the folder before its first wildcard is walked like a folder argument, and
 * every file below it is matched with picomatch (dot files only by a pattern that names them, as
 * fast-glob did). Null when the glob's folder is itself an error (already reported).
 */
async function walkGlob(pattern: string, discovery: Discovery): Promise<WalkedFile[] | null> {
  const { base, glob } = picomatch.scan(pattern);
  const root = base === '' ? '.' : base;
  let info: Stats;
  try {
    info = await stat(root);
  } catch {
    return [];
  }
  if (!info.isDirectory()) return [];
  if (await onPseudoFileSystem(root)) {
    discovery.errors.push(new InputError(pattern, PSEUDO_ARGUMENT));
    return null;
  }
  const match = picomatch(glob, { dot: false });
  const maxDepth = glob.includes('**') ? Infinity : glob.split('/').length;
  // As fast-glob: `*` skips hidden names, a pattern segment that starts with a dot names them.
  const hidden = /(?:^|\/)\./.test(glob);
  const files: WalkedFile[] = [];
  await walkTree(root, discovery, { match, maxDepth, hidden }, (file) => files.push(file));
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
