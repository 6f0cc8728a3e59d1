/** An input that cannot be read: reported as one line naming the file, and exit code 2. */
export class InputError extends Error {
  constructor(
    readonly path: string,
    message: string,
    readonly line?: number,
  ) {
    super(message);
    this.name = 'InputError';
  }

  /** `path:line: message`, the one line printed on stderr. */
  toLine(): string {
    return `${this.path}${this.line ? `:${this.line}` : ''}: ${this.message}`;
  }
}

/** A bad flag, config key or argument: exit code 2, one line, no stack trace. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Turns a Node system error into the short phrase a user needs. */
export function describeSystemError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'Z_BUF_ERROR':
      return 'truncated gzip data (unexpected end of file)';
    case 'Z_DATA_ERROR':
      return `corrupt gzip data (${e.message})`;
    case 'ELOOP':
      return 'too many levels of symbolic links';
    default:
      return e?.message ?? String(err);
  }
}
