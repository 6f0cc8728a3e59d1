// Reads the arguments of one logging call out of Rust or Go source, from the opening parenthesis
// to its match: call sites span several lines (rustfmt breaks long `warn!(…)` calls), so a
// line-based grep sees the macro name but not the message. String literals are read as tokens
// (escapes, Rust raw strings, Go raw strings), so a comma or parenthesis inside a message does not
// split or end the call.

export interface CallArguments {
  /** Top-level arguments, source text trimmed. */
  args: string[];
  /** Offset just after the closing parenthesis, or -1 when the source ended first. */
  end: number;
}

/** Length of a string literal starting at `i` (Rust `"…"`, `r#"…"#`, Go `"…"` and `` `…` ``), or 0. */
function stringLiteralLength(src: string, i: number): number {
  const c = src[i];
  if (c === '"') {
    let j = i + 1;
    while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
    return j + 1 - i;
  }
  if (c === '`') {
    const close = src.indexOf('`', i + 1);
    return close < 0 ? src.length - i : close + 1 - i;
  }
  if (c === 'r' && (src[i + 1] === '"' || src[i + 1] === '#') && !/\w/.test(src[i - 1] ?? '')) {
    let j = i + 1;
    let hashes = 0;
    while (src[j] === '#') {
      hashes++;
      j++;
    }
    if (src[j] !== '"') return 0;
    const close = src.indexOf(`"${'#'.repeat(hashes)}`, j + 1);
    return close < 0 ? src.length - i : close + 1 + hashes - i;
  }
  return 0;
}

/** Splits the call whose `(` is at `open` into its top-level arguments. */
export function callArguments(src: string, open: number): CallArguments {
  const args: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < src.length; i++) {
    const literal = stringLiteralLength(src, i);
    if (literal > 0) {
      i += literal - 1;
      continue;
    }
    const c = src[i]!;
    // A Rust char literal ('x', '\n', '{'); lifetimes ('a) have no closing quote two or three on.
    if (c === "'" && (src[i + 2] === "'" || (src[i + 1] === '\\' && src[i + 3] === "'"))) {
      i += src[i + 1] === '\\' ? 3 : 2;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      const eol = src.indexOf('\n', i);
      i = eol < 0 ? src.length : eol;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) {
        const last = src.slice(start, i).trim();
        if (last !== '') args.push(last);
        return { args, end: i + 1 };
      }
    } else if (c === ',' && depth === 1) {
      args.push(src.slice(start, i).trim());
      start = i + 1;
    }
  }
  return { args, end: -1 };
}

/** The value of a string literal argument (escapes resolved, Go `+` concatenation joined), or null. */
export function literalValue(arg: string): string | null {
  const parts: string[] = [];
  let i = 0;
  while (i < arg.length) {
    while (/\s|\+/.test(arg[i] ?? '')) i++;
    if (i >= arg.length) break;
    const length = stringLiteralLength(arg, i);
    if (length === 0) return null;
    const token = arg.slice(i, i + length);
    parts.push(unquote(token));
    i += length;
  }
  return parts.length > 0 ? parts.join('') : null;
}

function unquote(token: string): string {
  if (token.startsWith('`')) return token.slice(1, -1);
  if (token.startsWith('r')) return token.replace(/^r#*"/, '').replace(/"#*$/, '');
  return token
    .slice(1, -1)
    .replace(/\\\n\s*/g, '')
    .replace(/\\(["'\\nt])/g, (_, e: string) => (e === 'n' ? '\n' : e === 't' ? '\t' : e));
}

/**
 * A message template with its placeholders made one form: Rust `{}`, `{:?}`, `{name}`, `{0:>5}`
 * and Go `%s`, `%v`, `%+v`, `%d`, `%q`, `%w` all become `{}`; `{{`/`%%` become the literal brace or
 * percent sign. Templates then compare across versions and languages.
 */
export function normaliseTemplate(message: string, language: 'rust' | 'go'): string {
  if (language === 'rust') {
    return message.replace(/\{\{|\}\}|\{[^{}]{0,40}\}/g, (m) => (m === '{{' ? '{' : m === '}}' ? '}' : '{}'));
  }
  return message.replace(/%%|%[-+# 0]{0,3}\d{0,3}(?:\.\d{1,3})?[a-zA-Z]/g, (m) => (m === '%%' ? '%' : '{}'));
}
