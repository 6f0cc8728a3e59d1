// What of a Kubernetes object the reader never looks at, blanked out before the YAML library sees it.
// The library costs about 2 µs of CPU and 150 bytes of heap per byte of YAML (a 1 MiB Pod: ~3 s and
// ~160 MB, issue 44), and the bulk of a large Pod is what the reader ignores: managedFields, the
// last-applied annotation, labels, env lists, volumes, probes, commands. Of a Pod the reader needs
// its metadata's name and namespace, its containers' names and memory limits, and its status; of an
// Event, its own fields (kept whole). Everything else under `metadata` and `spec` is cut here, on
// the lines as kubectl prints them (`-o yaml`: block style; `-o json`: one member per line), in one
// pass and without parsing: a dropped member keeps its key with a null value, its other lines become
// empty lines, so every line that stays keeps its number.

/** Members of a `metadata` the reader uses. */
const METADATA_KEEP = new Set(['name', 'namespace']);
/** The container lists of a pod's spec. */
const CONTAINER_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);
/** Members of a `spec` the reader uses: the container lists, and a workload's pod template. */
const SPEC_KEEP = new Set([...CONTAINER_LISTS, 'template']);
/** Members of a workload's `spec.template` the reader uses: the pod's spec. */
const TEMPLATE_KEEP = new Set(['spec']);
/** Members of a container (in a spec's container list) the reader uses: kubectl-pod-spec.ts reads how it may run. */
const CONTAINER_KEEP = new Set(['name', 'resources', 'image', 'securityContext']);

/** A YAML key at the start of `text` (after indent and `- `): plain, or double-quoted as JSON writes it. */
const KEY = /^(?:"((?:[^"\\]|\\.)*)"|([A-Za-z_][\w./-]*)):(?=\s|$)/;

interface Frame {
  /** Column of the key. */
  column: number;
  key: string;
}

/** Whether a member `key` under the keys `path` (outermost first) is never read. */
function dropped(path: readonly Frame[], key: string): boolean {
  const depth = path.length;
  const at = (i: number): string => path[i]!.key;
  if (depth === 0 || (depth > 1 && at(0) !== 'spec')) return false;
  if (depth === 1 && at(0) === 'metadata') return !METADATA_KEEP.has(key);
  if (depth === 1 && at(0) === 'spec') return !SPEC_KEEP.has(key);
  // A Pod's `spec.<list>[]`, a workload's `spec.template.spec`, and its `spec.template.spec.<list>[]`.
  if (depth === 2 && CONTAINER_LISTS.has(at(1))) return !CONTAINER_KEEP.has(key);
  if (depth === 2 && at(1) === 'template') return !TEMPLATE_KEEP.has(key);
  if (depth === 3 && at(1) === 'template' && at(2) === 'spec') return !CONTAINER_LISTS.has(key);
  if (depth === 4 && at(1) === 'template' && at(2) === 'spec' && CONTAINER_LISTS.has(at(3))) return !CONTAINER_KEEP.has(key);
  return false;
}

const indentOf = (line: string): number => {
  let i = 0;
  while (line.charCodeAt(i) === 32) i++;
  return i;
};

/**
 * Blanks, in place, the members of `metadata` and `spec` (and of the containers in a spec) that the
 * reader does not use, in the lines of one object (`json`: as `kubectl -o json` prints it, one member
 * a line). Returns how many lines were blanked. Anything it does not recognise is left as it is.
 */
export function pruneObject(lines: string[], json: boolean): number {
  const path: Frame[] = [];
  let blanked = 0;
  /** While a member is being dropped: the column of its key, and (JSON) the key line to close. */
  let drop: { column: number; keyLine: number } | null = null;
  /** While a kept block scalar or multi-line value runs: lines deeper than this column are its text. */
  let textColumn = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const indent: number = indentOf(line);
    if (indent === line.length) continue;
    if (drop !== null) {
      if (json) {
        // The member's closing bracket at the key's column ends it; its comma goes to the key line.
        if (indent > drop.column) {
          lines[i] = '';
          blanked++;
          continue;
        }
        if (indent === drop.column && (line[indent] === '}' || line[indent] === ']')) {
          lines[drop.keyLine] += line.trimEnd().endsWith(',') ? ',' : '';
          lines[i] = '';
          blanked++;
          drop = null;
          continue;
        }
        drop = null;
      } else {
        const item = line[indent] === '-' && (line[indent + 1] === ' ' || indent + 1 === line.length);
        if (indent > drop.column || (indent === drop.column && item) || line[indent] === '#') {
          lines[i] = '';
          blanked++;
          continue;
        }
        drop = null;
      }
    }
    if (textColumn >= 0) {
      if (indent > textColumn) continue;
      textColumn = -1;
    }
    let column: number = indent;
    const item = !json && line[indent] === '-' && line[indent + 1] === ' ';
    if (item) column = indent + 2;
    // The keys this line is under: those left of it (a YAML list item also sits at its key's column).
    while (path.length > 0) {
      const top = path[path.length - 1]!;
      if (top.column < indent || (top.column === indent && item)) break;
      if (json && top.column === indent && (line[indent] === '}' || line[indent] === ']')) {
        path.pop();
        break;
      }
      path.pop();
    }
    const m = KEY.exec(line.slice(column));
    if (!m) continue;
    const key = m[1] ?? m[2]!;
    const valueStart = column + m[0].length;
    const value = line.slice(valueStart).trim();
    if (dropped(path, key)) {
      if (json) {
        const opens = value === '{' || value === '[';
        lines[i] = `${line.slice(0, valueStart)} null${!opens && value.endsWith(',') ? ',' : ''}`;
        if (opens) drop = { column: indent, keyLine: i };
      } else {
        // An explicit null: a bare `key:` followed by more than 1,024 empty lines is an error in the library.
        lines[i] = `${line.slice(0, valueStart)} null`;
        drop = { column, keyLine: i };
      }
      continue;
    }
    if (json ? value === '{' || value === '[' : value === '' || value.startsWith('&')) path.push({ column: json ? indent : column, key });
    // A kept block scalar (`|`, `>-`) or a quoted value left open runs on deeper lines: not keys.
    else if (!json && (/^[|>]/.test(value) || ((value.startsWith('"') || value.startsWith("'")) && !closedQuote(value)))) textColumn = column;
  }
  return blanked;
}

/** Whether a quoted YAML scalar that starts a value also ends on its line. */
function closedQuote(value: string): boolean {
  const quote = value[0]!;
  for (let i = 1; i < value.length; i++) {
    const c = value[i];
    if (quote === '"' && c === '\\') i++;
    else if (c === quote) {
      if (quote === "'" && value[i + 1] === "'") i++;
      else return true;
    }
  }
  return false;
}
