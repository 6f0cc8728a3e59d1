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
  // Archive entries are `archive:member` (input/open.ts); a Windows drive letter is not one.
  const colon = displayPath.search(/(?<!^[A-Za-z]):/);
  const file = colon > 0 ? displayPath.slice(0, colon) : displayPath;
  const member = colon > 0 ? displayPath.slice(colon + 1) : undefined;
  const relative = path.isAbsolute(file) ? path.relative(cwd, file) : path.normalize(file);
  const uri = relative.split(path.sep).flatMap((s) => s.split('/')).filter((s) => s !== '' && s !== '.').map(encodeURIComponent).join('/') || '.';
  return member === undefined ? { uri } : { uri, archiveMember: member };
}
