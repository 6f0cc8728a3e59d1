// Kubernetes objects as `kubectl get … -o yaml` and `-o json` print them: a Pod, an Event (core v1
// or events.k8s.io/v1), or a List of them, or the status block cut out of a pod. The lines of one
// document are buffered (at most MAX_DOCUMENT_BYTES: these are small objects; a larger one is
// reported and skipped, never held) and parsed with the `yaml` library, which reads JSON too;
// each container status becomes a pod-status record and each event a kube-event record, with the
// line it starts on. What the reader never looks at is cut before the library parses it (kube-prune.ts).

import type { Node } from 'yaml';
import { yamlLibrary } from '../util/yaml.js';
import type { InputInfo, KubeEventRecord, LdRecord, PodStatusRecord } from '../core/types.js';
import { parseRfc3339 } from './collector-prefix.js';
import { blankPodStatus, kubeCount, placePodStatus } from './pod-status.js';
import { JsonBracketDepth } from '../util/json-bracket-depth.js';
import { lookupTable } from '../util/dict.js';
import { pruneObject } from './kube-prune.js';
import { asArray, asObject, type Json, labelName, num, objectName, podSpecs, str, templateSpecs, WORKLOAD_KINDS } from './kubectl-pod-spec.js';

/**
 * Largest document (or List item) buffered and parsed. A Pod as `kubectl get pod -o yaml` prints it
 * is 5-50 KB (a few hundred KB with large annotations); a List is read item by item, so this bounds
 * one object, not a listing. The yaml library holds about 100 bytes of syntax tree per byte of
 * YAML (an 8 MiB document took 760 MB, issue 44): 1 MiB keeps a hostile object near 100 MB.
 */
export const MAX_DOCUMENT_BYTES = 1 << 20;

/** What starts a document at the left margin: a YAML object's first keys, a status block, a JSON object. */
const YAML_START =
  /^(?:apiVersion: \S|kind: (?:Pod|List|Event|EventList|PodList|Deployment|StatefulSet|DaemonSet|ReplicaSet|Job)$|items:$|status:$|spec:$)|^ *(?:init|ephemeral)?[cC]ontainerStatuses:$|^ *- containerID: \S|^ *(?:lastState|state):$|^ *(?:containers|initContainers|ephemeralContainers):$|^ *involvedObject:$|^ *- apiVersion: \S/;
/**
 * The first item of a List's items cut out without `items:` (a PodList's or an EventList's, at the
 * indentation it had): kubectl prints an object's keys sorted, so `apiVersion` comes first.
 */
const YAML_ITEMS_CUT = /^ *- apiVersion: \S/;
/** The kubelet's back-off message names the pod: `… container=linkerd-init pod=web-7d9f8c6b5-x2x8k_shop(0c1d…)`. */
const BACK_OFF_POD = /\bpod=([a-z0-9][-a-z0-9.]{0,252})_([a-z0-9][-a-z0-9]{0,62})\(/;
/**
 * A member of a pod's JSON cut out of its object: the status lists, or one container's
 * `lastState` / `state`, at any indentation (`"lastState": {`).
 */
const JSON_MEMBER_START = /^ *"(?:(?:init|ephemeral)?[cC]ontainerStatuses": \[|(?:lastState|state)": \{)$/;
/** Keys only a container's status has: a map with one of them, cut out of its list, is one. */
const STATUS_KEYS = ['lastState', 'state', 'containerID', 'restartCount'];
/** A line at the margin that continues a YAML document: a camelCase key, a list item, a separator. */
const YAML_MARGIN = /^(?:[a-z][A-Za-z0-9]*:(?: |$)|- |-$|---$|\.\.\.$|#)/;

const STATUS_LISTS: Readonly<Record<string, PodStatusRecord['containerKind']>> = lookupTable({
  initContainerStatuses: 'init',
  containerStatuses: 'app',
  ephemeralContainerStatuses: 'ephemeral',
});
const SPEC_LISTS = ['containers', 'initContainers', 'ephemeralContainers'];
const STATES: Readonly<Record<string, string>> = lookupTable({ running: 'Running', waiting: 'Waiting', terminated: 'Terminated' });
/** `spec.containers{name}`, an event's field path. */
const FIELD_PATH_CONTAINER = /^spec\.(?:init|ephemeral)?[cC]ontainers\{([^}]+)\}$/;

/** Lines buffered for one document or one List item, and how many lines it took. */
interface Chunk {
  first: number;
  last: number;
  lines: string[];
  /** Lines taken, also once `overflow` stopped keeping them: what an unreadable chunk costs. */
  count: number;
  bytes: number;
  overflow: boolean;
  /** Columns removed from the front of each line before parsing (a cut-out status block, a List item's `- `). */
  strip: number;
}

const chunk = (first: number, strip: number): Chunk => ({ first, last: first, lines: [], count: 0, bytes: 0, overflow: false, strip });

/**
 * A line kubectl's JSON printer can write inside a document: indented, and starting with a string,
 * a bracket, a number or a literal (a closing bracket alone at the margin ends the document). A
 * line of anything else (a describe after a stray `{` pasted from a ticket) means the JSON was cut.
 */
const JSON_INSIDE = /^(?:\s+(?:["{}[\],]|-?\d|true\b|false\b|null\b)|[}\]])/;
/** `"items": [` one level into the document: a List whose items are read one by one. */
const JSON_ITEMS = /^\s+"items": ?\[$/;
/** A List item's first line in YAML: `- ` at the items' indent. */
const YAML_ITEM = /^( *)-(?: |$)/;

export class KubeObjectReader {
  private mode: 'yaml' | 'json' | null = null;
  /** The document, less its List items (which are read one by one, see `item`). */
  private doc: Chunk = chunk(0, 0);
  /**
   * The List item being read: a List is not one document but a run of them, each read as soon as
   * it ends, so one that does not parse costs that item, and a listing of any size holds one item
   * at a time (MAX_DOCUMENT_BYTES applies to each).
   */
  private item: Chunk | null = null;
  /** YAML: the column of the items' `- ` once `items:` was seen (-1: not in the items; null: `items:` seen, no item yet). */
  private itemIndent: number | null = -1;
  /** JSON: inside the root's `"items": [`. */
  private jsonItems = false;
  /** JSON: bracket depth and string state across lines, so the document's end is known. */
  private readonly brackets = new JsonBracketDepth();
  /** JSON: the document is a member cut out of its object, to be read inside braces. */
  private member = false;
  /** YAML: how far the first line was indented (a cut-out status block), removed before parsing. */
  private indent = 0;

  constructor(
    private readonly input: InputInfo,
    private readonly emit: (record: LdRecord) => void,
    private readonly unparsed: (line: number, reason: string, lines?: number) => void,
    private readonly json = true,
  ) {}

  /** Whether the line belongs to a Kubernetes object (and was taken). */
  line(text: string, lineNo: number): boolean {
    if (this.mode === null) {
      // `{` opens an object, `[` a list cut out of one (a pod's `containerStatuses` value pasted alone).
      if (
        this.json &&
        (((text.charCodeAt(0) === 123 /* { */ || text.charCodeAt(0) === 91) /* [ */ && (text.trim() === '{' || text.trim() === '[')) ||
          JSON_MEMBER_START.test(text))
      ) {
        this.start('json', lineNo, 0);
        this.member = text.trim() !== '{' && text.trim() !== '[';
        this.jsonLine(text, lineNo);
        return true;
      }
      if (!YAML_START.test(text)) return false;
      const margin = text.length - text.trimStart().length;
      this.start('yaml', lineNo, margin);
      if (YAML_ITEMS_CUT.test(text)) {
        // Items without their `items:`: read one by one, as a List's are.
        this.itemIndent = null;
        return this.yamlItem(text, lineNo, margin);
      }
    } else if (this.mode === 'yaml') {
      if (text === '---' || text === '...') {
        this.finish();
        return true;
      }
      const margin = text.length - text.trimStart().length;
      if (this.yamlItem(text, lineNo, margin)) return true;
      if (margin < this.indent || (margin === this.indent && !YAML_MARGIN.test(text.slice(margin)))) {
        this.finish();
        return this.line(text, lineNo);
      }
      if (margin === this.indent && text.slice(margin) === 'items:') this.itemIndent = null;
    } else if (!JSON_INSIDE.test(text)) {
      // The JSON document was cut off: it costs its own lines, and this line is read afresh.
      this.broken(`is cut off: line ${lineNo} is not JSON`);
      return this.line(text, lineNo);
    } else {
      this.jsonLine(text, lineNo);
      return true;
    }
    add(this.doc, text, this.indent, lineNo);
    this.checkSize(this.doc);
    return true;
  }

  end(): void {
    if (this.mode === 'json') this.broken('is cut off: the input ends inside it');
    else if (this.mode !== null) this.finish();
  }

  /** A YAML line inside a List's items: starts, continues or ends an item. False when it is not an item's. */
  private yamlItem(text: string, lineNo: number, margin: number): boolean {
    if (this.itemIndent === -1) return false;
    const start = YAML_ITEM.exec(text);
    if (this.itemIndent === null) {
      if (!start || margin < this.indent) {
        this.itemIndent = -1;
        return false;
      }
      this.itemIndent = margin;
    }
    if (start && margin === this.itemIndent) {
      this.closeItem();
      this.item = chunk(lineNo, margin + 2);
    } else if (margin <= this.itemIndent || this.item === null) {
      this.closeItem();
      this.itemIndent = -1;
      return false;
    }
    // The item's `- ` becomes indentation, so every line of the item loses the same columns.
    add(this.item!, start && margin === this.itemIndent ? `${text.slice(0, margin)}  ${text.slice(margin + 2)}` : text, this.item!.strip, lineNo);
    this.checkSize(this.item!);
    return true;
  }

  /** A JSON line: an item of the root's `"items": [` is read on its own when its brackets close. */
  private jsonLine(text: string, lineNo: number): void {
    const before = this.brackets.depth;
    const after = this.brackets.scan(text);
    if (this.item) {
      add(this.item, text, 0, lineNo);
      this.checkSize(this.item);
      if (after === 2) this.closeItem();
      return;
    }
    if (this.jsonItems && before === 2 && after === 3) {
      this.item = chunk(lineNo, 0);
      add(this.item, text, 0, lineNo);
      return;
    }
    this.jsonItems = before === 1 ? JSON_ITEMS.test(text) && after === 2 : this.jsonItems && after >= 2;
    add(this.doc, text, 0, lineNo);
    this.checkSize(this.doc);
    if (after <= 0) this.finish();
  }

  private start(mode: 'yaml' | 'json', lineNo: number, indent: number): void {
    this.mode = mode;
    this.indent = indent;
    this.doc = chunk(lineNo, indent);
    this.item = null;
    this.itemIndent = -1;
    this.jsonItems = false;
    this.member = false;
    this.brackets.reset();
  }

  private checkSize(c: Chunk): void {
    if (c.overflow || c.bytes <= MAX_DOCUMENT_BYTES) return;
    // Keep reading to the chunk's end (so its lines are not taken for something else), holding nothing.
    c.overflow = true;
    c.lines = [];
  }

  private closeItem(): void {
    const item = this.item;
    this.item = null;
    if (item) this.parse(item, this.mode === 'json');
  }

  private finish(): void {
    this.closeItem();
    const doc = this.doc;
    const member = this.member;
    this.mode = null;
    this.itemIndent = -1;
    this.jsonItems = false;
    this.member = false;
    this.doc = chunk(0, 0);
    this.parse(doc, false, member);
  }

  /** The JSON document ended early: what it held so far is not read, and its lines are counted so. */
  private broken(reason: string): void {
    const lines = this.doc.count + (this.item?.count ?? 0);
    const first = this.doc.first;
    const last = Math.max(this.doc.last, this.item?.last ?? 0);
    this.item = null;
    this.mode = null;
    this.jsonItems = false;
    this.member = false;
    this.doc = chunk(0, 0);
    this.unparsed(first, `${objectAt(first, last)} ${reason}; it was not read`, lines);
  }

  private parse(c: Chunk, jsonItem: boolean, member = false): void {
    if (c.count === 0) return;
    if (c.overflow) {
      this.unparsed(
        c.first,
        `${objectAt(c.first, c.last)} is larger than ${MAX_DOCUMENT_BYTES >> 20} MiB; it was not read (a Pod is far smaller: cut its annotations or managedFields)`,
        c.count,
      );
      return;
    }
    // An item of a JSON List ends in the comma before the next one.
    if (jsonItem) c.lines[c.lines.length - 1] = c.lines[c.lines.length - 1]!.replace(/,\s*$/, '');
    // A list item selected from its first character lost the indentation of the lines under it
    // (`- containerID: …` at the margin, `    image: …` below): put it back where they say it was.
    if (c.lines.length > 1 && c.lines[0]!.startsWith('- ')) {
      const below = c.lines[1]!.length - c.lines[1]!.trimStart().length;
      if (below > 2) c.lines[0] = ' '.repeat(below - 2) + c.lines[0];
    }
    pruneObject(c.lines, jsonItem || member || c.lines[0]!.trimStart().startsWith('{'));
    // A member cut out of its object is read as the object of that one member (its line numbers kept: the brace takes no line).
    const text = member ? `{${c.lines.join('\n').replace(/,\s*$/, '')}}` : c.lines.join('\n');
    const { LineCounter, parseDocument } = yamlLibrary();
    const counter = new LineCounter();
    let doc: ReturnType<typeof parseDocument>;
    let value: unknown;
    try {
      doc = parseDocument(text, { lineCounter: counter, uniqueKeys: false });
      value = doc.errors.length > 0 ? null : doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      // A bound the library enforces by throwing (alias expansion, nesting the stack cannot hold)
      // is this object's error, never the input's.
      this.unparsed(
        c.first,
        `${objectAt(c.first, c.last)} cannot be read (${err instanceof Error ? err.message.split('\n')[0] : 'parse error'}); it was not read`,
        c.count,
      );
      return;
    }
    if (doc.errors.length > 0) {
      const error = doc.errors[0]!;
      const at = error.linePos ? c.first + error.linePos[0].line - 1 : c.first;
      // The library's message says where in the chunk; the input's own line is said instead.
      const what = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      this.unparsed(c.first, `${objectAt(c.first, c.last)} does not parse (line ${at}: ${what}); it was not read`, c.count);
      return;
    }
    const first = c.first;
    const lineOf = (node: unknown): number => {
      const range = (node as Node | null)?.range;
      return range ? first + counter.linePos(range[0]).line - 1 : first;
    };
    const root = doc.contents;
    if (!value || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      // Items cut out of containerStatuses, without the list's key.
      const { isSeq } = yamlLibrary();
      value.forEach((item, i) => {
        const s = asObject(item);
        const node = isSeq(root) ? root.items[i] : root;
        if (s && isContainerStatus(s)) this.emit(this.statusRecord(s, null, lineOf(node), undefined, new Map()));
        // An object of a List cut out with its `- ` (a Pod or an Event, its kind or its fields saying so).
        else if (s && (typeof s.kind === 'string' || s.involvedObject !== undefined)) this.object(s, node, lineOf);
      });
      return;
    }
    this.object(value as Json, root, lineOf);
  }

  /** One object, or the items of a List; `node` is its YAML node, for line numbers. */
  private object(o: Json, node: unknown, lineOf: (node: unknown) => number): void {
    const items = o.items;
    if (Array.isArray(items)) {
      const { isMap, isSeq } = yamlLibrary();
      const itemNodes = isMap(node) ? node.get('items', true) : undefined;
      items.forEach((item, i) => {
        if (item && typeof item === 'object') this.object(item as Json, isSeq(itemNodes) ? itemNodes.items[i] : undefined, lineOf);
      });
      return;
    }
    const kind = typeof o.kind === 'string' ? o.kind : undefined;
    if (kind === 'Event' || (kind === undefined && typeof o.reason === 'string' && (o.involvedObject !== undefined || o.regarding !== undefined))) {
      this.event(o, lineOf(node));
      return;
    }
    if (kind === undefined && !o.status && !hasStatusLists(o) && isContainerStatus(o)) {
      // One container's status, or its `lastState:` / `state:` alone, cut out of a pod.
      this.emit(this.statusRecord(o, null, lineOf(node), undefined, new Map()));
      return;
    }
    if (kind !== undefined && WORKLOAD_KINDS.has(kind)) {
      for (const record of templateSpecs(this.input, o, node, lineOf)) this.emit(record);
      return;
    }
    if (kind === 'Pod' || kind === undefined) this.pod(o, node, lineOf);
  }

  private pod(o: Json, node: unknown, lineOf: (node: unknown) => number): void {
    const metadata = asObject(o.metadata);
    const { isMap, isSeq } = yamlLibrary();
    for (const record of podSpecs(this.input, o, node, lineOf)) this.emit(record);
    // A status block pasted alone has no metadata, and may lack the `status:` key itself.
    const status = asObject(o.status) ?? (hasStatusLists(o) ? o : undefined);
    if (!status) return;
    const statusNode = isMap(node) && o.status ? node.get('status', true) : node;
    const limits = new Map<string, string>();
    const spec = asObject(o.spec);
    for (const list of SPEC_LISTS) {
      for (const c of asArray(spec?.[list])) {
        const container = asObject(c);
        const memory = asObject(asObject(asObject(container?.resources)?.limits))?.memory;
        if (typeof container?.name === 'string' && (typeof memory === 'string' || typeof memory === 'number')) limits.set(container.name, String(memory));
      }
    }
    // In document order, as the object lists them.
    for (const list of Object.keys(status)) {
      const containerKind = STATUS_LISTS[list];
      if (containerKind === undefined) continue;
      const listNode = isMap(statusNode) ? statusNode.get(list, true) : undefined;
      asArray(status[list]).forEach((entry, i) => {
        const s = asObject(entry);
        if (s) this.emit(this.statusRecord(s, containerKind, lineOf(isSeq(listNode) ? listNode.items[i] : listNode), metadata, limits));
      });
    }
  }

  /** One entry of a pod's container statuses as a record; the pod is the metadata's, else the input path's. */
  private statusRecord(
    s: Json,
    containerKind: PodStatusRecord['containerKind'],
    line: number,
    metadata: Json | undefined,
    limits: ReadonlyMap<string, string>,
  ): PodStatusRecord {
    const record = blankPodStatus(this.input.path, line, 'pod-yaml', containerKind);
    // A status cut out of its pod may still name it, in the kubelet's back-off message.
    const named = metadata ? undefined : BACK_OFF_POD.exec(str(asObject(asObject(s.state)?.waiting)?.message) ?? '');
    placePodStatus(
      record,
      objectName(metadata?.name) ?? objectName(named?.[1]) ?? this.input.pod,
      labelName(metadata?.namespace) ?? labelName(named?.[2]) ?? this.input.namespace,
    );
    const name = labelName(s.name) ?? this.input.container;
    if (name) record.container = name;
    record.image = str(s.image) ?? null;
    record.ready = typeof s.ready === 'boolean' ? s.ready : null;
    record.restartCount = typeof s.restartCount === 'number' ? kubeCount(s.restartCount) : null;
    const [state, detail] = stateOf(s.state);
    record.state = state;
    record.reason = str(detail?.reason) ?? null;
    record.exitCode = num(detail?.exitCode);
    record.started = time(detail?.startedAt);
    record.finished = time(detail?.finishedAt);
    const [lastState, last] = stateOf(s.lastState);
    record.lastState = lastState;
    record.lastReason = str(last?.reason) ?? null;
    record.lastExitCode = num(last?.exitCode);
    record.lastStarted = time(last?.startedAt);
    record.lastFinished = time(last?.finishedAt);
    record.lastMessage = firstLine(str(last?.message));
    if (name) record.memoryLimit = limits.get(name) ?? null;
    return record;
  }

  private event(o: Json, line: number): void {
    // core/v1 names the object involvedObject and the text message; events.k8s.io/v1 regarding and note.
    const about = asObject(o.involvedObject) ?? asObject(o.regarding);
    const series = asObject(o.series);
    const count = num(o.count) ?? num(series?.count) ?? num(o.deprecatedCount) ?? 1;
    const source = asObject(o.source);
    const record: KubeEventRecord = {
      kind: 'kube-event',
      path: this.input.path,
      line,
      source: 'get-events',
      type: str(o.type) ?? 'Normal',
      reason: str(o.reason) ?? '',
      object: about && kindName(about.kind) && objectName(about.name) ? `${kindName(about.kind)!.toLowerCase()}/${objectName(about.name)}` : null,
      message: (str(o.message) ?? str(o.note) ?? '').trim(),
      count: Math.max(1, kubeCount(count)),
      lastSeenAgoSeconds: null,
      firstSeenAgoSeconds: null,
      reporter: str(source?.component) ?? str(o.reportingController) ?? str(o.reportingComponent) ?? null,
    };
    if (record.reporter === '') record.reporter = null;
    const pod = record.object?.startsWith('pod/') ? record.object.slice(4) : this.input.pod;
    if (pod) record.pod = pod;
    const namespace = labelName(about?.namespace) ?? labelName(asObject(o.metadata)?.namespace) ?? this.input.namespace;
    if (namespace) record.namespace = namespace;
    const container = FIELD_PATH_CONTAINER.exec(str(about?.fieldPath) ?? '')?.[1];
    if (container) record.container = container;
    this.emit(record);
  }
}

/** How a notice names an object that was not read: `the Kubernetes object at lines 3-66`. */
function objectAt(first: number, last: number): string {
  return `the Kubernetes object at line${last > first ? `s ${first}-${last}` : ` ${first}`}`;
}

/** Takes one line into a chunk, less `strip` columns of its indent (never more than it has). */
function add(c: Chunk, text: string, strip: number, lineNo: number): void {
  c.count++;
  c.last = lineNo;
  if (c.overflow) return;
  c.bytes += text.length + 1;
  c.lines.push(strip > 0 ? text.slice(Math.min(strip, text.length - text.trimStart().length)) : text);
}

function isContainerStatus(o: Json): boolean {
  return STATUS_KEYS.some((k) => k in o) && (stateOf(o.state)[0] !== null || stateOf(o.lastState)[0] !== null || typeof o.containerID === 'string');
}

function hasStatusLists(o: Json): boolean {
  return Object.keys(STATUS_LISTS).some((k) => Array.isArray(o[k]));
}

/** `{waiting: {reason: CrashLoopBackOff}}` → ['Waiting', {reason…}]. */
function stateOf(value: unknown): [string | null, Json | undefined] {
  const o = asObject(value);
  if (!o) return [null, undefined];
  for (const [key, name] of Object.entries(STATES)) if (key in o) return [name, asObject(o[key]) ?? {}];
  return [null, undefined];
}

function firstLine(text: string | undefined): string | null {
  const line = text?.trim().split('\n')[0]?.trim();
  return line ? line.slice(0, 1000) : null;
}

const kindName = (v: unknown): string | undefined => (/^[A-Za-z][A-Za-z0-9]{0,62}$/.test(str(v) ?? '') ? str(v) : undefined);

function time(v: unknown): number | null {
  return typeof v === 'string' ? parseRfc3339(v) : null;
}
