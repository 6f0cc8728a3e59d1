// What users attach next to the logs when pods die: `kubectl describe pod` (its container states and
// its Events table), `kubectl get events` in every layout kubectl has printed (the 1.19+ default,
// `-A`, `-o wide`, the pre-1.19 layout with FIRST SEEN/COUNT/KIND, `--watch` rows printed one at a
// time without alignment) and `kubectl get pods` with its RESTARTS column. A bundle concatenates
// them freely, and describe output often ends with a proxy log tail (the last termination
// message), so KubectlReader is also handed the lines a proxy-log input cannot read. Pod YAML
// (`get pod -o yaml` / `-o json`) and Event objects are read by kubectl-object.ts.
// Grammar notes: docs/parse-format.md.

import type { InputInfo, KubeEventRecord, LdRecord, PodStatusRecord } from '../core/types.js';
import { KubeObjectReader } from './kubectl-object.js';
import { isKubeObjectJson, kubeObjectSniffScore } from './kubectl-object-sniff.js';
import { blankPodStatus, kubeCount, placePodStatus } from './pod-status.js';
import { splitRow, tableHeader, type Table } from './kubectl-table.js';
import { DESCRIBE_AGE, headerlessEventRow, headerlessPodRow, parseHumanDuration } from './kubectl-fragments.js';
import { WrappedRows } from './kubectl-wrapped.js';

export { parseHumanDuration };
import type { FormatSniff, LineParser, ParserFactory } from './parser.js';
import { isPasteNoise } from './pasted.js';
import { lookupTable } from '../util/dict.js';

type ContainerKind = PodStatusRecord['containerKind'];

/** Keys kubectl describe prints at the container level (two spaces deeper than the container name). */
const CONTAINER_FIELDS = new Set([
  'Container ID',
  'Image',
  'Image ID',
  'Port',
  'Ports',
  'Host Port',
  'Host Ports',
  'Command',
  'Args',
  'State',
  'Last State',
  'Ready',
  'Restart Count',
  'Limits',
  'Requests',
  'Liveness',
  'Readiness',
  'Startup',
  'Environment',
  'Environment Variables from',
  'Mounts',
  'SeccompProfile',
]);
/** Keys under `State:` and `Last State:`. */
const STATE_FIELDS = new Set(['Reason', 'Exit Code', 'Started', 'Finished', 'Message', 'Signal']);
const SECTIONS: Record<string, ContainerKind> = lookupTable({ 'Init Containers': 'init', Containers: 'app', 'Ephemeral Containers': 'ephemeral' });

/** `key:` or `key:   value` with the key's indentation; null for anything else. */
const KEY_LINE = /^( *)([A-Za-z][A-Za-z0-9 ._/-]*?):(?:[ \t]+([^ \t].*)|[ \t]+)?$/;
const CONTAINER_NAME = /^[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?$/;
const EVENT_TYPES = new Set(['Normal', 'Warning']);
/** `spec.containers{name}` or `spec.initContainers{name}`, an event's field path. */
export const SUBOBJECT_CONTAINER = /^spec\.(?:init|ephemeral)?[cC]ontainers\{([^}]+)\}$/;
const DASHES = /^\s*-{2,}(?:\s+-{2,})*\s*$/;
/** get-pods RESTARTS since kubectl 1.22: `5 (3m12s ago)`. */
const RESTARTS_CELL = /^(\d+)(?: \((\S+) ago\))?$/;

interface OpenContainer {
  record: PodStatusRecord;
  /** Which `State:` block the next Reason/Exit Code/… belong to. */
  block: 'state' | 'last' | 'limits' | 'other';
  /** Set after `Message:`: the lines that follow may be the message's continuation. */
  inMessage: boolean;
}

/**
 * Reads kubectl output line by line. line() returns whether the line was kubectl output, so a
 * proxy-log parser can hand it lines it could not read and still count the others as unparsed.
 * Only what the current object and table need is kept between lines.
 */
export class KubectlReader {
  private pod: string | null = null;
  private namespace: string | null = null;
  private section: ContainerKind = null;
  /** A `  name:` line seen outside a section (pastes that start inside the container list). */
  private candidate: { name: string; indent: number; line: number } | null = null;
  private container: OpenContainer | null = null;
  private table: Table | null = null;
  /** `Events:` was the last key: a table header is expected. */
  private eventsNext = false;
  private readonly objects: KubeObjectReader;
  /** The last event row, held for one line in case a terminal wrapped it (kubectl-wrapped.ts). */
  private readonly wrapped = new WrappedRows();
  /** The width of the line being read, for the row it may hold. */
  private rowWidth = 0;

  constructor(
    private readonly input: InputInfo,
    private readonly emit: (record: LdRecord) => void,
    unparsed: (line: number, reason: string, lines?: number) => void = () => {},
    /** Whether JSON objects are taken: not inside a log, where a pasted JSON document is not kubectl's. */
    json = true,
  ) {
    this.objects = new KubeObjectReader(input, emit, unparsed, json);
  }

  line(raw: string, lineNo: number): boolean {
    const text = raw.endsWith('\r') ? raw.slice(0, -1).trimEnd() : raw.trimEnd();
    // The event row before may go on on this line (wrapped by a terminal); otherwise it is complete.
    if (this.wrapped.continues(text, lineNo)) return true;
    this.releaseRow();
    if (text === '') return false;
    this.rowWidth = text.length;
    if (this.objects.line(text, lineNo)) return true;
    if (this.table) {
      if (this.tableRow(text, lineNo)) return true;
      if (DASHES.test(text)) return true;
      this.table = null;
    }
    const header = tableHeader(text);
    if (header) {
      if (header.kind === 'describe-events' || header.kind === 'events') this.closeContainer();
      this.table = header;
      this.eventsNext = false;
      return true;
    }
    if (this.headerlessEvent(text, lineNo)) return true;
    if (this.headerlessPod(text, lineNo)) return true;
    return this.describeLine(text, lineNo);
  }

  /**
   * A `get events` row pasted without its header, or a row of a describe's Events table without
   * its own: kubectl-fragments.ts tells which and cuts it into the cells a table would have.
   */
  private headerlessEvent(text: string, lineNo: number): boolean {
    const row = headerlessEventRow(text);
    if (!row) return false;
    this.withTable(row.table, Object.keys(row.cells), () => this.emitEvent(row.cells, lineNo));
    return true;
  }

  /** A `get pods` row pasted without its header (a listing cut from a terminal, rows quoted in a thread). */
  private headerlessPod(text: string, lineNo: number): boolean {
    const cells = headerlessPodRow(text);
    return cells !== null && this.podRow(cells, lineNo);
  }

  /** Runs `f` as if a table of these columns were open, then restores the one that was. */
  private withTable(kind: Table['kind'], columns: readonly string[], f: () => void): void {
    const saved = this.table;
    this.table = { kind, columns: columns.map((name, start) => ({ name, start })) };
    try {
      f();
    } finally {
      this.table = saved;
    }
  }

  end(): void {
    this.releaseRow();
    this.closeContainer();
    this.objects.end();
  }

  private releaseRow(): void {
    const row = this.wrapped.release();
    if (row) this.emit(row);
  }

  // ------------------------------------------------------------------ describe pod

  private describeLine(text: string, lineNo: number): boolean {
    const first = text.charCodeAt(0);
    // Keys start with a letter after their indentation; everything else can only be a message's continuation.
    if (first !== 32 && !(first >= 65 && first <= 90)) return this.continuation();
    const m = KEY_LINE.exec(text);
    // Indented lines inside a described object (mount paths, annotation values) are part of it.
    if (!m) return this.continuation() || (first === 32 && this.inDescribe());
    const indent = m[1]!.length;
    const key = m[2]!;
    const value = (m[3] ?? '').trim();
    if (indent === 0) return this.topLevel(key, value);
    const open = this.container;
    if (open && STATE_FIELDS.has(key) && (open.block === 'state' || open.block === 'last')) {
      this.stateField(open, key, value);
      return true;
    }
    if (open && open.block === 'limits' && key === 'memory') {
      open.record.memoryLimit = value;
      return true;
    }
    if (CONTAINER_FIELDS.has(key)) {
      this.containerField(key, value, lineNo);
      return true;
    }
    if (value === '' && CONTAINER_NAME.test(key) && !(open?.block === 'limits' && (key === 'cpu' || key === 'memory'))) {
      this.closeContainer();
      this.candidate = { name: key, indent, line: lineNo };
      return true;
    }
    // A key kubectl prints that no rule reads (Labels, Conditions rows, Mounts…), or message text.
    if (open) open.inMessage = false;
    return this.inDescribe();
  }

  private inDescribe(): boolean {
    return this.pod !== null || this.section !== null || this.container !== null;
  }

  private continuation(): boolean {
    return this.container?.inMessage === true;
  }

  private topLevel(key: string, value: string): boolean {
    if (key === 'Name') {
      this.closeContainer();
      this.pod = value || null;
      this.namespace = null;
      this.section = null;
      this.candidate = null;
      return true;
    }
    if (key === 'Namespace') {
      this.namespace = value || null;
      return true;
    }
    this.closeContainer();
    this.candidate = null;
    const section = SECTIONS[key];
    this.section = section ?? null;
    this.eventsNext = key === 'Events';
    return section !== undefined || DESCRIBE_TOP_KEYS.has(key);
  }

  private containerField(key: string, value: string, lineNo: number): void {
    let open = this.container;
    if (!open || (this.candidate && this.candidate.line > open.record.line)) {
      this.closeContainer();
      open = this.openContainer(this.candidate, lineNo);
      this.candidate = null;
    }
    open.inMessage = false;
    const r = open.record;
    open.block = 'other';
    switch (key) {
      case 'Image':
        r.image = value || null;
        break;
      case 'State':
        r.state = value || null;
        open.block = 'state';
        break;
      case 'Last State':
        r.lastState = value || null;
        open.block = 'last';
        break;
      case 'Ready':
        r.ready = value === 'True' ? true : value === 'False' ? false : null;
        break;
      case 'Restart Count':
        r.restartCount = /^\d+$/.test(value) ? kubeCount(Number(value)) : null;
        break;
      case 'Limits':
        open.block = 'limits';
        break;
    }
  }

  private stateField(open: OpenContainer, key: string, value: string): void {
    const r = open.record;
    const last = open.block === 'last';
    open.inMessage = key === 'Message';
    switch (key) {
      case 'Reason':
        if (last) r.lastReason = value || null;
        else r.reason = value || null;
        break;
      case 'Exit Code': {
        const code = /^-?\d+$/.test(value) ? Number(value) : null;
        if (last) r.lastExitCode = code;
        else r.exitCode = code;
        break;
      }
      case 'Message':
        if (last && value !== '') r.lastMessage = value.slice(0, 1000);
        break;
      case 'Started':
      case 'Finished': {
        const time = parseDescribeTime(value);
        if (key === 'Started') {
          if (last) r.lastStarted = time;
          else r.started = time;
        } else if (last) r.lastFinished = time;
        else r.finished = time;
        break;
      }
    }
  }

  private openContainer(candidate: { name: string; line: number } | null, lineNo: number): OpenContainer {
    const record = blankPodStatus(this.input.path, candidate?.line ?? lineNo, 'describe', this.section);
    placePodStatus(record, this.pod ?? this.input.pod, this.namespace ?? this.input.namespace);
    const container = candidate?.name ?? this.input.container;
    if (container) record.container = container;
    this.container = { record, block: 'other', inMessage: false };
    return this.container;
  }

  /** Emits the open container, if it showed any state (a Deployment's pod template has none). */
  private closeContainer(): void {
    const open = this.container;
    this.container = null;
    if (!open) return;
    const r = open.record;
    if (r.state === null && r.lastState === null && r.restartCount === null) return;
    this.emit(r);
  }

  // ------------------------------------------------------------------ tables

  private tableRow(text: string, lineNo: number): boolean {
    const table = this.table!;
    if (table.kind === 'pods') {
      const cells = splitRow(text, table.columns, isPodRow);
      return cells !== null && this.podRow(cells, lineNo);
    }
    const cells = splitRow(text, table.columns, isEventRow);
    if (!cells) return false;
    this.emitEvent(cells, lineNo);
    return true;
  }

  private emitEvent(cells: Record<string, string>, lineNo: number): void {
    const table = this.table!;
    const type = cells.TYPE!;
    const record: KubeEventRecord = {
      kind: 'kube-event',
      path: this.input.path,
      line: lineNo,
      source: table.kind === 'describe-events' ? 'describe' : 'get-events',
      type,
      reason: cells.REASON ?? '',
      object: null,
      message: cells.MESSAGE ?? '',
      count: 1,
      lastSeenAgoSeconds: null,
      firstSeenAgoSeconds: null,
      reporter: cells.FROM ?? cells.SOURCE ?? null,
    };
    if (record.reporter === '') record.reporter = null;
    let namespace = cells.NAMESPACE ?? null;
    if (table.kind === 'describe-events') {
      namespace = this.namespace;
      if (this.pod) record.object = `pod/${this.pod}`;
      const age = DESCRIBE_AGE.exec(cells.AGE ?? cells.LASTSEEN ?? '');
      if (age) {
        record.lastSeenAgoSeconds = parseHumanDuration(age[1]!);
        if (age[2]) record.count = Math.max(1, kubeCount(Number(age[2])));
        if (age[3]) record.firstSeenAgoSeconds = parseHumanDuration(age[3]);
      }
      if (cells.FIRSTSEEN) record.firstSeenAgoSeconds = parseHumanDuration(cells.FIRSTSEEN);
    } else {
      record.lastSeenAgoSeconds = parseHumanDuration(cells.LASTSEEN ?? '');
      record.firstSeenAgoSeconds = parseHumanDuration(cells.FIRSTSEEN ?? '');
      record.object = objectOf(cells);
    }
    if (cells.COUNT && /^\d+$/.test(cells.COUNT)) record.count = Math.max(1, kubeCount(Number(cells.COUNT)));
    if (record.firstSeenAgoSeconds === null && record.count === 1) record.firstSeenAgoSeconds = record.lastSeenAgoSeconds;
    const podName = record.object?.startsWith('pod/') ? record.object.slice(4) : null;
    const pod = podName ?? this.input.pod;
    if (pod) record.pod = pod;
    const ns = namespace ?? this.input.namespace;
    if (ns) record.namespace = ns;
    // The pre-1.19 SUBOBJECT column names the container: `spec.containers{linkerd-proxy}`.
    const container = SUBOBJECT_CONTAINER.exec(cells.SUBOBJECT ?? '')?.[1];
    if (container) record.container = container;
    this.wrapped.hold(record, this.rowWidth);
  }

  private podRow(cells: Record<string, string>, lineNo: number): boolean {
    const name = cells.NAME;
    const ready = /^(\d+)\/(\d+)$/.exec(cells.READY ?? '');
    const restarts = RESTARTS_CELL.exec(cells.RESTARTS ?? '');
    if (!name || !ready || !restarts) return false;
    const record = blankPodStatus(this.input.path, lineNo, 'get-pods', null);
    record.state = cells.STATUS || null;
    record.ready = ready[1] === ready[2];
    record.restartCount = kubeCount(Number(restarts[1]));
    record.lastRestartAgoSeconds = restarts[2] ? parseHumanDuration(restarts[2]) : null;
    placePodStatus(record, name.startsWith('pod/') ? name.slice(4) : name, cells.NAMESPACE ?? this.input.namespace);
    this.emit(record);
    return true;
  }
}

const isEventRow = (cells: Record<string, string>) => EVENT_TYPES.has(cells.TYPE ?? '') && (cells.REASON ?? '') !== '';
const isPodRow = (cells: Record<string, string>) =>
  /^\d+\/\d+$/.test(cells.READY ?? '') && RESTARTS_CELL.test(cells.RESTARTS ?? '') && (cells.NAME ?? '') !== '';

/** Top-level keys of `kubectl describe pod`, so a describe paste counts as read. */
const DESCRIBE_TOP_KEYS = new Set([
  'Priority',
  'Priority Class Name',
  'Service Account',
  'Node',
  'Start Time',
  'Labels',
  'Annotations',
  'Status',
  'Reason',
  'Message',
  'IP',
  'IPs',
  'Controlled By',
  'Conditions',
  'Volumes',
  'QoS Class',
  'Node-Selectors',
  'Tolerations',
  'Events',
  'Topology Spread Constraints',
  'Runtime Class Name',
]);

/** `pod/name` from OBJECT, or from the pre-1.19 KIND and NAME (`name.17a2b3c4d5e6f7a8`) columns. */
function objectOf(cells: Record<string, string>): string | null {
  if (cells.OBJECT) return cells.OBJECT.includes('/') ? cells.OBJECT.replace(/^(\w+)\//, (_, kind: string) => `${kind.toLowerCase()}/`) : cells.OBJECT;
  if (cells.KIND && cells.NAME) return `${cells.KIND.toLowerCase()}/${cells.NAME.replace(/\.[0-9a-f]{10,}$/, '')}`;
  return null;
}

/** `Wed, 19 Aug 2020 13:55:45 -0700` (RFC 1123 with a numeric zone), as describe prints times. */
function parseDescribeTime(text: string): number | null {
  if (text === '') return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}

/** Lines that only kubectl prints, for the sniffer: describe keys with their values, the status keys of a pod YAML, and table headers (a Pod or Event object is also known by its kind, kubectl-object.ts). */
const SNIFF_MARKERS =
  /^(?: +(?:init|ephemeral)?[cC]ontainerStatuses:$| +restartCount: \d+$| +reason: (?:CrashLoopBackOff|OOMKilled)$|(?:Init |Ephemeral )?Containers:$|Events:(?:\s+<none>)?$|Name:\s+\S+$|Namespace:\s+\S+$|QoS Class:\s|Controlled By:\s| +(?:Last )?State:\s+(?:Running|Waiting|Terminated)$| +Restart Count:\s+\d+$| +Exit Code:\s+-?\d+$| +Reason:\s+(?:CrashLoopBackOff|OOMKilled|Error|Completed|ContainerCreating|PodInitializing)$| +Container ID:\s+\w+:\/\/)/;

/** How strongly a line says "kubectl output": 0 when it does not. */
export function kubectlSniffScore(line: string): number {
  if (SNIFF_MARKERS.test(line) || headerlessEventRow(line) !== null) return 2;
  if (headerlessPodRow(line) !== null) return 1;
  if (kubeObjectSniffScore(line) > 0) return 2;
  return tableHeader(line) ? 3 : 0;
}

/**
 * How the sniffer (parsers/sniff.ts) tells kubectl output. Its line test runs last and claims any
 * line no other format did. Describe output that ends with a proxy log tail is a proxy log: the
 * proxy-log parser reads the describe lines too.
 */
export const kubectlSniff: FormatSniff = {
  kind: 'kubectl',
  tests: [
    { order: 20, on: 'json', claim: (text) => (isKubeObjectJson(text) ? { kind: 'kubectl', score: 3 } : null) },
    { order: 120, on: 'line', claim: (line) => ({ kind: 'kubectl', score: kubectlSniffScore(line) }) },
  ],
  yieldsTo: 'proxy-log',
};

/** `# verify west has statefulset` between the commands of a pasted session. */
const SHELL_COMMENT = /^#(?:\s|$)/;

export const createKubectlParser: ParserFactory = (input, sink): LineParser => {
  const reader = new KubectlReader(
    input,
    (record) => sink.emit(record),
    (line, reason, lines) => sink.unparsed(line, reason, lines),
  );
  return {
    line(text, lineNo) {
      // The command lines and shell comments of a pasted terminal session are the user's, not output left unread.
      if (!reader.line(text, lineNo) && text.trim() !== '' && !isPasteNoise(text) && !SHELL_COMMENT.test(text))
        sink.unparsed(lineNo, 'not kubectl describe, get events or get pods output');
    },
    end() {
      reader.end();
    },
  };
};
