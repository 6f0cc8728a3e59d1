// What the Linkerd CLI answers, as people paste it: `linkerd check` (core, `--pre`, `--proxy`, the
// viz / multicluster / jaeger extensions' checks) in every layout it prints, and the `Error: …` a
// command (`linkerd top`, `tap`, `upgrade`) ends with.
//
// Grammar of a check run, from linkerd2 pkg/healthcheck/healthcheck_output.go (the same since 2.2):
//   <category>                        printed once per category, then a line of dashes as long
//   ----------
//   √ <description>                   √ ok, ‼ warning, × failure (U+221A, U+203C, U+00D7), in colour
//       <error>                       only when the check did not pass, four spaces in
//       see <hint URL> for hints      https://linkerd.io/<2.x>/checks/#<anchor> (no version before 2.9)
//   Status check results are √
// `-o short` prints only the checks that did not pass, with their category headings; `linkerd
// check` runs each installed extension's check after `Linkerd core checks` / `=====` and `Linkerd
// extensions checks`; 2.2-era output put the category in brackets (`√ [prometheus] …`) and its
// errors unindented; some terminals and old releases print `[ok]` / `[warn]` / `[fail]`. `-o json`
// prints {"success", "categories": [{"categoryName", "checks": [{"description", "hint", "error",
// "result"}]}]}, read here key by key so a document pasted with elided parts (`...`) still reads.
// Colour codes are removed, and of a line redrawn by the spinner (`\r`) only the last drawing is kept.
// Grammar notes: docs/parse-format.md.

import type { CliTable, InputInfo, LdRecord, LinkerdCheckRecord, LinkerdCliMessageRecord, LinkerdCliRowRecord } from '../core/types.js';
import { cliTableHeader, cliTableRow, tapEvent, type TableHeader } from './linkerd-cli-table.js';
import { cleanCliLine, linkerdCommandOf, parseCheckLine, parseHint } from './linkerd-cli-lines.js';

export { cleanCliLine, linkerdCommandOf, parseCheckLine, parseHint };
import type { FormatSniff, LineParser, ParserFactory } from './parser.js';

/** Detail lines kept per check: a `--proxy` run lists every pod, the first ones say enough. */
export const MAX_CHECK_DETAILS = 40;
const MAX_DETAIL_CHARS = 2000;
const MAX_MESSAGE_CHARS = 4000;

const BRACKET_CATEGORY = /^\[([a-z][a-z0-9-]*)\]\s+(\S.*)$/;
const DASHES = /^-{3,}$/;
const EQUALS = /^={3,}$/;
/** What `diagnostics endpoints` and `viz stat` print on stderr when there is nothing to list. */
const NOTHING_FOUND = /^No (?:endpoints|traffic) found\.?$/;
const JSON_RESULT = /^"result": "(?:success|warning|error)"$/;
const SUMMARY = /^Status check results are\s/;
/** A check being read: its record's fields so far. */
type OpenCheck = Pick<LinkerdCheckRecord, 'line' | 'category' | 'description' | 'status' | 'details' | 'hint' | 'hintVersion'>;

/** The value of a `"key": value,` line of a pretty-printed JSON document; null when it is not one. */
function jsonField(text: string): { key: string; value: unknown } | null {
  const t = text.trim();
  if (t.charAt(0) !== '"') return null;
  const close = t.indexOf('":');
  if (close < 1) return null;
  const key = t.slice(1, close);
  let raw = t.slice(close + 2).trim();
  if (raw.endsWith(',')) raw = raw.slice(0, -1);
  try {
    return { key, value: JSON.parse(raw) as unknown };
  } catch {
    return { key, value: undefined };
  }
}

/**
 * Reads Linkerd CLI output line by line, keeping only the check being read, the category and
 * command above it, and one candidate heading line.
 */
export class LinkerdCliReader {
  private run = 0;
  private command: string | null = null;
  private category: string | null = null;
  private check: OpenCheck | null = null;
  /** An unindented line that is not a check: a category heading if dashes follow. */
  private pending: { text: string; line: number; asDetail: boolean } | null = null;
  private message: { text: string; line: number } | null = null;
  /** Lines since the last check or blank line, for a paste that starts below a check's own line. */
  private orphans: { text: string; line: number }[] = [];
  private json: { depth: number; check: OpenCheck | null } | null = null;
  /** The line after a command other than a check: its answer when nothing else reads it. */
  private answerNext = false;
  /** The header of the CLI table being read (`viz stat`, `multicluster gateways`…). */
  private table: TableHeader | null = null;
  private jsonDocuments = 0;

  constructor(
    private readonly input: InputInfo,
    private readonly emit: (record: LdRecord) => void,
    private readonly unparsed: (line: number, reason: string) => void = () => {},
  ) {}

  private get meta() {
    return {
      path: this.input.path,
      ...(this.input.pod ? { pod: this.input.pod } : {}),
      ...(this.input.namespace ? { namespace: this.input.namespace } : {}),
      ...(this.input.container ? { container: this.input.container } : {}),
    };
  }

  line(raw: string, lineNo: number): void {
    const text = cleanCliLine(raw);
    if (this.json) {
      this.jsonLine(text, lineNo);
      return;
    }
    if (text.trim() === '') {
      this.table = null;
      this.closeCheck();
      this.closeMessage();
      this.dropPending();
      this.dropOrphans();
      return;
    }
    const command = linkerdCommandOf(text);
    if (command !== null) {
      this.closeAll();
      this.run++;
      this.command = command;
      this.category = null;
      // What a command other than a check prints first, when it is no table or check line, is its
      // answer: `Linkerd CRDs must be installed first. …` has no `Error:` before it.
      this.answerNext = !/\bcheck\b/.test(command);
      return;
    }
    if (this.tableLine(text, lineNo)) {
      this.answerNext = false;
      return;
    }
    const unindented = text.charAt(0) !== ' ' && text.charAt(0) !== '\t';
    if (unindented && (text === '{' || text.startsWith('{"success"'))) {
      this.closeAll();
      this.startJson();
      if (text !== '{') this.jsonLine(text.slice(1), lineNo);
      return;
    }
    const check = parseCheckLine(text.trimStart());
    if (check) {
      this.answerNext = false;
      this.closeAll();
      let { description } = check;
      let category = this.category;
      const bracket = BRACKET_CATEGORY.exec(description);
      if (bracket) {
        category = bracket[1]!;
        description = bracket[2]!;
      }
      this.check = { line: lineNo, category, description, status: check.status, details: [], hint: null, hintVersion: null };
      this.touchRun();
      return;
    }
    const trimmed = text.trim();
    if (DASHES.test(trimmed) || EQUALS.test(trimmed)) {
      const heading = this.pending;
      this.pending = null;
      if (heading?.asDetail && this.check) this.check.details.pop();
      if (heading) this.orphans = this.orphans.filter((o) => o.line !== heading.line);
      this.closeAll();
      if (heading) this.category = DASHES.test(trimmed) ? heading.text.trim() : null;
      return;
    }
    if (SUMMARY.test(trimmed)) {
      this.closeAll();
      return;
    }
    const hint = parseHint(trimmed);
    if (hint && /^see\s/.test(trimmed)) {
      this.pending = null;
      if (!this.check && this.orphans.length > 0) {
        // The paste starts below the check's own line: its details and hint without a status.
        const first = this.orphans[0]!;
        this.check = { line: first.line, category: this.category, description: '', status: 'unknown', details: [], hint: null, hintVersion: null };
        for (const o of this.orphans) this.addDetail(o.text);
        this.orphans = [];
        this.touchRun();
      }
      if (this.check) {
        this.check.hint = hint.anchor;
        this.check.hintVersion = hint.version;
        return;
      }
      this.unparsed(lineNo, 'a check hint without its check');
      return;
    }
    if (unindented && trimmed.startsWith('Error: ')) {
      this.answerNext = false;
      this.closeAll();
      this.message = { text: trimmed, line: lineNo };
      return;
    }
    if (this.message) {
      if (unindented && trimmed === 'Usage:') this.closeMessage();
      else if (this.message.text.length < MAX_MESSAGE_CHARS) this.message.text = `${this.message.text} ${trimmed}`.slice(0, MAX_MESSAGE_CHARS);
      return;
    }
    if (this.check) {
      this.addDetail(trimmed);
      this.pending = unindented ? { text: trimmed, line: lineNo, asDetail: true } : null;
      return;
    }
    if (unindented && this.answerNext) {
      this.answerNext = false;
      this.message = { text: trimmed, line: lineNo };
      return;
    }
    if (unindented) {
      this.dropPending();
      this.pending = { text: trimmed, line: lineNo, asDetail: false };
    }
    if (this.orphans.length < MAX_CHECK_DETAILS) this.orphans.push({ text: trimmed, line: lineNo });
    else if (!unindented) this.unparsed(lineNo, 'not Linkerd CLI output');
  }

  end(): void {
    if (this.json) this.endJson();
    this.dropPending();
    this.dropOrphans();
    this.closeAll();
  }

  /** A header, row or tap event of the CLI's other answers; true when the line was one. */
  private tableLine(text: string, lineNo: number): boolean {
    if (this.table) {
      const row = parseCheckLine(text.trimStart()) ? null : cliTableRow(this.table, text);
      if (row) {
        this.emitRow(this.table.table, row, lineNo);
        return true;
      }
      this.table = null;
    }
    const header = cliTableHeader(text);
    if (header) {
      this.closeAll();
      this.pending = null;
      this.table = header;
      this.touchRun();
      return true;
    }
    const tap = tapEvent(text);
    if (tap) {
      this.closeAll();
      this.emitRow('tap', tap, lineNo);
      return true;
    }
    if (NOTHING_FOUND.test(text.trim())) {
      this.closeAll();
      this.message = { text: text.trim(), line: lineNo };
      this.closeMessage();
      return true;
    }
    return false;
  }

  private emitRow(table: CliTable, cells: Record<string, string>, lineNo: number): void {
    this.touchRun();
    const record: LinkerdCliRowRecord = { kind: 'linkerd-cli-row', ...this.meta, line: lineNo, run: this.run, command: this.command, table, cells };
    this.emit(record);
  }

  private touchRun(): void {
    if (this.run === 0) this.run = 1;
  }

  private addDetail(text: string): void {
    const check = this.check!;
    if (check.details.length < MAX_CHECK_DETAILS) check.details.push(text.length > MAX_DETAIL_CHARS ? text.slice(0, MAX_DETAIL_CHARS) : text);
  }

  private closeAll(): void {
    this.closeCheck();
    this.closeMessage();
    // Lines held in case a hint followed that never came: not the CLI's.
    this.dropOrphans();
  }

  private closeCheck(): void {
    const check = this.check;
    if (!check) return;
    this.check = null;
    this.emitCheck(check);
  }

  private emitCheck(check: OpenCheck): void {
    const record: LinkerdCheckRecord = {
      kind: 'linkerd-check',
      ...this.meta,
      line: check.line,
      run: Math.max(this.run, 1),
      command: this.command,
      category: check.category,
      description: check.description,
      status: check.status,
      details: check.details,
      hint: check.hint,
      hintVersion: check.hintVersion,
    };
    this.emit(record);
  }

  private closeMessage(): void {
    const message = this.message;
    if (!message) return;
    this.message = null;
    this.touchRun();
    const record: LinkerdCliMessageRecord = {
      kind: 'linkerd-cli-message',
      ...this.meta,
      line: message.line,
      run: this.run,
      command: this.command,
      message: message.text,
    };
    this.emit(record);
  }

  private dropPending(): void {
    const pending = this.pending;
    this.pending = null;
    if (pending && !pending.asDetail && !this.orphans.some((o) => o.line === pending.line)) this.unparsed(pending.line, 'not Linkerd CLI output');
  }

  /** Lines that neither became a heading nor the details of a check: not the CLI's. */
  private dropOrphans(): void {
    for (const o of this.orphans) this.unparsed(o.line, 'not Linkerd CLI output');
    this.orphans = [];
    this.pending = null;
  }

  // ------------------------------------------------------------------ -o json

  private startJson(): void {
    this.jsonDocuments++;
    // Each document is one run; a second one (an extension's, or the next command) is the next run.
    if (this.jsonDocuments > 1 || this.run === 0) this.run++;
    this.json = { depth: 1, check: null };
    this.category = null;
  }

  private jsonLine(text: string, lineNo: number): void {
    const json = this.json!;
    const t = text.trim();
    if (t === '' || t === '...' || t === '…') return;
    const field = jsonField(t);
    if (field) {
      const value = field.value;
      switch (field.key) {
        case 'categoryName':
          this.category = typeof value === 'string' ? value : null;
          break;
        case 'description':
          this.flushJsonCheck();
          json.check = {
            line: lineNo,
            category: this.category,
            description: typeof value === 'string' ? value : '',
            status: 'unknown',
            details: [],
            hint: null,
            hintVersion: null,
          };
          break;
        case 'hint':
          if (json.check && typeof value === 'string') {
            const hint = parseHint(value);
            json.check.hint = hint?.anchor ?? null;
            json.check.hintVersion = hint?.version ?? null;
          }
          break;
        case 'error':
          if (json.check && typeof value === 'string') json.check.details = value.split('\n').slice(0, MAX_CHECK_DETAILS);
          break;
        case 'result':
          if (json.check) json.check.status = value === 'success' ? 'ok' : value === 'warning' ? 'warn' : value === 'error' ? 'fail' : 'unknown';
          this.flushJsonCheck();
          break;
        default:
          break;
      }
      if (t.endsWith('[') || t.endsWith('{')) json.depth++;
      return;
    }
    for (const c of t) {
      if (c === '{' || c === '[') json.depth++;
      else if (c === '}' || c === ']') json.depth--;
    }
    if (json.depth <= 0 || (t === '}' && text.charAt(0) === '}')) this.endJson();
    else if (!/^[[\]{},]+$/.test(t)) this.unparsed(lineNo, 'not part of a linkerd check JSON document');
  }

  private flushJsonCheck(): void {
    const json = this.json;
    if (!json?.check) return;
    this.emitCheck(json.check);
    json.check = null;
  }

  private endJson(): void {
    this.flushJsonCheck();
    this.json = null;
    this.category = null;
  }
}

/** How strongly a line says "Linkerd CLI output": 0 when it does not. */
export function linkerdCliSniffScore(line: string): number {
  const text = cleanCliLine(line).trim();
  if (parseCheckLine(text)) return 3;
  if (text.startsWith('see ') && parseHint(text)) return 3;
  if (SUMMARY.test(text)) return 3;
  if (text.startsWith('"categoryName":') || text.startsWith('"hint": "https://linkerd.io/')) return 3;
  if (JSON_RESULT.test(text)) return 2;
  if (cliTableHeader(text)) return 3;
  if (tapEvent(text) || NOTHING_FOUND.test(text)) return 2;
  if (linkerdCommandOf(text) !== null) return 2;
  return 0;
}

/** How the sniffer (parsers/sniff.ts) tells Linkerd CLI output: check lines, hint lines, the summary, a pasted command. */
export const linkerdCliSniff: FormatSniff = {
  kind: 'linkerd-cli',
  tests: [
    {
      order: 15,
      on: 'json',
      claim: (text) => (text.includes('"categoryName"') && text.includes('"checks"') ? { kind: 'linkerd-cli', score: 3 } : null),
    },
    {
      order: 70,
      on: 'line',
      claim: (line) => {
        const score = linkerdCliSniffScore(line);
        return score > 0 ? { kind: 'linkerd-cli', score } : null;
      },
    },
  ],
};

export const createLinkerdCliParser: ParserFactory = (input, sink): LineParser => {
  const reader = new LinkerdCliReader(
    input,
    (record) => sink.emit(record),
    (line, reason) => sink.unparsed(line, reason),
  );
  return {
    line(text, lineNo) {
      reader.line(text, lineNo);
    },
    end() {
      reader.end();
    },
  };
};
