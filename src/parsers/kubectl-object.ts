// Kubernetes objects as `kubectl get … -o yaml` and `-o json` print them: a Pod, an Event (core v1
// or events.k8s.io/v1), or a List of them, or the status block cut out of a pod. The lines of one
// document are buffered (at most MAX_DOCUMENT_BYTES: these are small objects; a larger one is
// reported and skipped, never held) and parsed with the `yaml` library, which reads JSON too;
// each container status becomes a pod-status record and each event a kube-event record, with the
// line it starts on.

import type { Node } from 'yaml';
import { yamlLibrary } from '../util/yaml.js';
import { kubernetesName } from '../util/path-meta.js';
import type { InputInfo, KubeEventRecord, LdRecord, PodStatusRecord } from '../core/types.js';
import { parseRfc3339 } from './collector-prefix.js';
import { blankPodStatus, placePodStatus } from './pod-status.js';
import { JsonBracketDepth } from '../util/json-bracket-depth.js';

/** Largest document buffered: a Pod or a List of a few hundred is far below it. */
export const MAX_DOCUMENT_BYTES = 8 << 20;

/** What starts a document at the left margin: a YAML object's first keys, a status block, a JSON object. */
const YAML_START =
  /^(?:apiVersion: \S|kind: (?:Pod|List|Event|EventList|PodList)$|items:$|status:$)|^ *(?:init|ephemeral)?[cC]ontainerStatuses:$|^ *- containerID: \S|^ *(?:lastState|state):$/;
/**
 * A member of a pod's JSON cut out of its object: the status lists, or one container's
 * `lastState` / `state`, at any indentation (`"lastState": {`).
 */
const JSON_MEMBER_START = /^ *"(?:(?:init|ephemeral)?[cC]ontainerStatuses": \[|(?:lastState|state)": \{)$/;
/** Keys only a container's status has: a map with one of them, cut out of its list, is one. */
const STATUS_KEYS = ['lastState', 'state', 'containerID', 'restartCount'];
/** A line at the margin that continues a YAML document: a camelCase key, a list item, a separator. */
const YAML_MARGIN = /^(?:[a-z][A-Za-z0-9]*:(?: |$)|- |-$|---$|\.\.\.$|#)/;

const STATUS_LISTS: Readonly<Record<string, PodStatusRecord['containerKind']>> = {
  initContainerStatuses: 'init',
  containerStatuses: 'app',
  ephemeralContainerStatuses: 'ephemeral',
};
const SPEC_LISTS = ['containers', 'initContainers', 'ephemeralContainers'];
const STATES: Readonly<Record<string, string>> = { running: 'Running', waiting: 'Waiting', terminated: 'Terminated' };
/** `spec.containers{name}`, an event's field path. */
const FIELD_PATH_CONTAINER = /^spec\.(?:init|ephemeral)?[cC]ontainers\{([^}]+)\}$/;

type Json = Record<string, unknown>;

export class KubeObjectReader {
  private mode: 'yaml' | 'json' | null = null;
  private lines: string[] = [];
  private bytes = 0;
  private firstLine = 0;
  private overflow = false;
  /** JSON: bracket depth and string state across lines, so the document's end is known. */
  private readonly brackets = new JsonBracketDepth();
  /** YAML: how far the first line was indented (a cut-out status block), removed before parsing. */
  private indent = 0;
  /** JSON: the document is a member cut out of its object, to be read inside braces. */
  private member = false;

  constructor(
    private readonly input: InputInfo,
    private readonly emit: (record: LdRecord) => void,
    private readonly unparsed: (line: number, reason: string) => void,
    private readonly json = true,
  ) {}

  /** Whether the line belongs to a Kubernetes object (and was taken). */
  line(text: string, lineNo: number): boolean {
    if (this.mode === null) {
      if (this.json && text.charCodeAt(0) === 123 /* { */ && text.trim() === '{') this.start('json', lineNo, 0);
      else if (this.json && JSON_MEMBER_START.test(text)) {
        this.start('json', lineNo, 0);
        this.member = true;
      } else if (YAML_START.test(text)) this.start('yaml', lineNo, text.length - text.trimStart().length);
      else return false;
    } else if (this.mode === 'yaml') {
      if (text === '---' || text === '...') {
        this.finish();
        return true;
      }
      const margin = text.length - text.trimStart().length;
      if (margin < this.indent || (margin === this.indent && !YAML_MARGIN.test(text.slice(margin)))) {
        this.finish();
        return this.line(text, lineNo);
      }
    }
    this.add(text);
    if (this.mode === 'json' && this.brackets.depth === 0) this.finish();
    return true;
  }

  end(): void {
    if (this.mode !== null) this.finish();
  }

  private start(mode: 'yaml' | 'json', lineNo: number, indent: number): void {
    this.mode = mode;
    this.firstLine = lineNo;
    this.indent = indent;
    this.lines = [];
    this.bytes = 0;
    this.overflow = false;
    this.member = false;
    this.brackets.reset();
  }

  private add(text: string): void {
    if (this.mode === 'json') this.brackets.scan(text);
    if (this.overflow) return;
    this.bytes += text.length + 1;
    if (this.bytes > MAX_DOCUMENT_BYTES) {
      // Keep reading to the document's end (so its lines are not taken for something else), holding nothing.
      this.overflow = true;
      this.lines = [];
      this.unparsed(this.firstLine, `Kubernetes object larger than ${MAX_DOCUMENT_BYTES >> 20} MiB: not read (split the listing, e.g. one pod per file)`);
      return;
    }
    this.lines.push(this.indent > 0 ? text.slice(Math.min(this.indent, text.length - text.trimStart().length)) : text);
  }

  private finish(): void {
    const lines = this.lines;
    const first = this.firstLine;
    const overflow = this.overflow;
    this.mode = null;
    this.lines = [];
    if (overflow || lines.length === 0) return;
    // A list item selected from its first character lost the indentation of the lines under it
    // (`- containerID: …` at the margin, `    image: …` below): put it back where they say it was.
    if (lines.length > 1 && lines[0]!.startsWith('- ')) {
      const below = lines[1]!.length - lines[1]!.trimStart().length;
      if (below > 2) lines[0] = ' '.repeat(below - 2) + lines[0];
    }
    const { LineCounter, parseDocument } = yamlLibrary();
    const counter = new LineCounter();
    // A member cut out of its object is read as the object of that one member (its line numbers kept: the brace takes no line).
    const text = this.member ? `{${lines.join('\n').replace(/,\s*$/, '')}}` : lines.join('\n');
    this.member = false;
    const doc = parseDocument(text, { lineCounter: counter, uniqueKeys: false });
    if (doc.errors.length > 0) {
      this.unparsed(first, `not a readable Kubernetes object: ${doc.errors[0]!.message.split('\n')[0]}`);
      return;
    }
    const lineOf = (node: unknown): number => {
      const range = (node as Node | null)?.range;
      return range ? first + counter.linePos(range[0]).line - 1 : first;
    };
    const root = doc.contents;
    const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
    if (!value || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      // Items cut out of containerStatuses, without the list's key.
      const { isSeq } = yamlLibrary();
      value.forEach((item, i) => {
        const s = asObject(item);
        if (s && isContainerStatus(s)) this.emit(this.statusRecord(s, null, lineOf(isSeq(root) ? root.items[i] : root), undefined, new Map()));
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
    if (kind === 'Pod' || kind === undefined) this.pod(o, node, lineOf);
  }

  private pod(o: Json, node: unknown, lineOf: (node: unknown) => number): void {
    const metadata = asObject(o.metadata);
    // A status block pasted alone has no metadata, and may lack the `status:` key itself.
    const status = asObject(o.status) ?? (hasStatusLists(o) ? o : undefined);
    if (!status) return;
    const { isMap, isSeq } = yamlLibrary();
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
    placePodStatus(record, objectName(metadata?.name) ?? this.input.pod, labelName(metadata?.namespace) ?? this.input.namespace);
    const name = labelName(s.name) ?? this.input.container;
    if (name) record.container = name;
    record.image = str(s.image) ?? null;
    record.ready = typeof s.ready === 'boolean' ? s.ready : null;
    record.restartCount = typeof s.restartCount === 'number' ? s.restartCount : null;
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
      count: Math.max(1, count),
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

function asObject(v: unknown): Json | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

// Names become subjects, titles and report lines: a value that no Kubernetes object could be
// named (a newline forging a `Summary: … PASS` line in the text report) is taken as no name.
const objectName = (v: unknown): string | undefined => kubernetesName(str(v), 'subdomain');
const labelName = (v: unknown): string | undefined => kubernetesName(str(v), 'label');
const kindName = (v: unknown): string | undefined => {
  const kind = str(v);
  return kind !== undefined && /^[A-Za-z][A-Za-z0-9]{0,62}$/.test(kind) ? kind : undefined;
};

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function time(v: unknown): number | null {
  return typeof v === 'string' ? parseRfc3339(v) : null;
}

/**
 * A JSON line only a pod's status or an event prints, for the sniffer (`kubectl get … -o json`). A
 * manifest (`kind: Pod` without status) says nothing about an incident and stays unrecognised.
 */
const JSON_MARKERS =
  /^ *"(?:(?:init|ephemeral)?[cC]ontainerStatuses": \[|kind": "(?:Event|EventList)",?$|restartCount": \d+,?$|involvedObject": \{|lastState": \{$)/;

/** YAML lines only a Kubernetes Event prints (a pod's status lines are kubectl.ts's markers). */
const YAML_MARKERS = /^ *(?:- )?(?:involvedObject|regarding):$|^ *(?:- )?kind: Event$|^kind: EventList$/;

export function kubeObjectSniffScore(line: string): number {
  return JSON_MARKERS.test(line) || YAML_MARKERS.test(line) ? 2 : 0;
}

/** Whether an assembled JSON document is a Kubernetes object the reader takes. */
export function isKubeObjectJson(text: string): boolean {
  // A container's status cut out of its list names its runtime's container ID.
  return /"kind": ?"(?:Event|EventList)"/.test(text) || text.includes('ontainerStatuses"') || /"containerID": ?"[a-z-]+:\/\//.test(text);
}
