import { statSync } from 'node:fs';
import path from 'node:path';

export interface ArtifactLocation {
  /** Relative URI reference (POSIX separators, percent-encoded), relative to `cwd`. */
  uri: string;
  /** Member name when the finding is inside a tar archive (`bundle.tgz:inner/proxy.log`). */
  archiveMember?: string;
}

/**
 * Turns a report path into a URI relative to the working directory, as GitHub code scanning
 * wants it. Archive members point at the archive; stdin (`-`) becomes `stdin`.
 */
export function artifactLocationFor(displayPath: string, cwd: string): ArtifactLocation {
  if (displayPath === '-') return { uri: 'stdin' };
  if (displayPath.startsWith('-:')) return { uri: 'stdin', archiveMember: displayPath.slice(2) };
  const colon = archiveColon(displayPath, cwd);
  const file = colon > 0 ? displayPath.slice(0, colon) : displayPath;
  const member = colon > 0 ? displayPath.slice(colon + 1) : undefined;
  const relative = path.isAbsolute(file) ? path.relative(cwd, file) : path.normalize(file);
  const uri =
    relative
      .split(path.sep)
      .flatMap((s) => s.split('/'))
      .filter((s) => s !== '' && s !== '.')
      .map(encodeURIComponent)
      .join('/') || '.';
  return member === undefined ? { uri } : { uri, archiveMember: member };
}

function isFile(p: string, cwd: string): boolean {
  try {
    return statSync(path.resolve(cwd, p)).isFile();
  } catch {
    return false;
  }
}

/**
 * Where `archive:member` (input/open.ts) splits, or -1. A colon is also a legal character in a
 * file name (`pod:8080.log`), so the file system decides: a path that exists is a file, else the
 * first prefix that is an existing file is the archive. Without either (a report rendered
 * elsewhere), the first colon that is not a Windows drive letter's splits.
 */
function archiveColon(displayPath: string, cwd: string): number {
  if (!displayPath.includes(':') || isFile(displayPath, cwd)) return -1;
  for (let at = displayPath.indexOf(':'); at > 0; at = displayPath.indexOf(':', at + 1)) if (isFile(displayPath.slice(0, at), cwd)) return at;
  return displayPath.search(/(?<!^[A-Za-z]):/);
}
