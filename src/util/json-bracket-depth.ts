// Bracket depth of JSON text read line by line: `{`/`[` open, `}`/`]` close, brackets inside
// strings (escapes respected) do not count. One character scan per line, no recursion, so a
// document of any nesting costs its length. Shared by the readers that must know where a
// pretty-printed document ends before they parse it.

export class JsonBracketDepth {
  depth = 0;
  private inString = false;
  private escaped = false;

  /** Scans one more piece of the document; returns the depth after it. */
  scan(text: string): number {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 92 /* \ */) this.escaped = true;
        else if (c === 34 /* " */) this.inString = false;
      } else if (c === 34) this.inString = true;
      else if (c === 123 /* { */ || c === 91 /* [ */) this.depth++;
      else if (c === 125 /* } */ || c === 93 /* ] */) this.depth--;
    }
    return this.depth;
  }

  reset(): void {
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
  }
}

/** The bracket depth at the end of one piece of text read on its own. */
export function bracketBalance(text: string): number {
  return new JsonBracketDepth().scan(text);
}
