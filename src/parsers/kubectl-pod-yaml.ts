// `kubectl get pod -o yaml` (one Pod, a List of them, or just the status block cut out of one):
// users paste it as often as `describe` when a pod restarts. Each entry of containerStatuses,
// initContainerStatuses and ephemeralContainerStatuses becomes a pod-status record, as a
// described container does; the memory limit comes from the same container's spec entry.

import type { InputInfo, LdRecord, PodStatusRecord } from '../core/types.js';
import { parseRfc3339 } from './collector-prefix.js';
import { blankPodStatus, placePodStatus } from './pod-status.js';

const STATUS_LISTS: Readonly<Record<string, PodStatusRecord['containerKind']>> = {
  containerStatuses: 'app',
  initContainerStatuses: 'init',
  ephemeralContainerStatuses: 'ephemeral',
};
const SPEC_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);
/** `key: value` or `- key: value`, with the indentation; YAML keys of a Pod are camelCase. */
const YAML_LINE = /^( *)(- +)?([a-z][A-Za-z0-9]*):(?: +([^ ].*)| +)?$/;
/** What only a Pod's YAML (or the status block of one) starts with at the left margin. */
const POD_YAML_START = /^(?:apiVersion: v1|kind: (?:Pod|List)|items:|status:)$|^ *(?:init|ephemeral)?[cC]ontainerStatuses:$/;
const STATES: Readonly<Record<string, string>> = { running: 'Running', waiting: 'Waiting', terminated: 'Terminated' };

interface Key {
  /** Column where the key starts. */
  indent: number;
  key: string;
}

/** Stands in the key stack for a list item, so that the item's keys end with it. */
const ITEM = '-';

interface OpenStatus {
  record: PodStatusRecord;
  /** Index of the entry's item marker in the key stack: popping it closes the entry. */
  item: number;
  /** Length of the key path to the status list: the entry's own keys are right below it. */
  depth: number;
}

export class PodYamlReader {
  private active = false;
  private stack: Key[] = [];
  private pod: string | null = null;
  private namespace: string | null = null;
  private open: OpenStatus | null = null;
  /** Memory limit per container name, from spec (printed before status). */
  private limits = new Map<string, string>();
  private specContainer: string | null = null;

  constructor(
    private readonly input: InputInfo,
    private readonly emit: (record: LdRecord) => void,
  ) {}

  /** Whether the line is part of a Pod's YAML (and was read). */
  line(text: string, lineNo: number): boolean {
    if (!this.active) {
      if (!POD_YAML_START.test(text)) return false;
      this.active = true;
    }
    if (text === '---') {
      this.endPod();
      return true;
    }
    const m = YAML_LINE.exec(text);
    if (!m) {
      // Deeper lines continue a block scalar (a multi-line message); anything at the margin ends the YAML.
      if (text.startsWith(' ') || text.startsWith('- ')) return true;
      this.end();
      return false;
    }
    const dash = m[2] !== undefined;
    const dashColumn = m[1]!.length;
    const indent = dashColumn + (m[2]?.length ?? 0);
    const key = m[3]!;
    const value = unquote(m[4] ?? '');
    // kubectl prints a list's items at its key's column: a dash ends the previous item (its marker
    // and keys) but not the list; any other key ends everything at or right of its column.
    const stack = this.stack;
    if (dash) while (stack.length > 0 && (stack[stack.length - 1]!.indent > dashColumn || stack[stack.length - 1]!.key === ITEM)) stack.pop();
    else while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    if (this.open && stack.length <= this.open.item) this.closeStatus();
    const path = stack.filter((k) => k.key !== ITEM).map((k) => k.key);
    if (path[0] === 'items') path.shift();
    if (dash && path.length === 0 && stack.length > 0) this.endPod();
    if (dash) stack.push({ indent: dashColumn, key: ITEM });
    this.read(path, dash, key, value, lineNo);
    stack.push({ indent, key });
    return true;
  }

  end(): void {
    this.endPod();
    this.active = false;
    this.stack = [];
  }

  private read(path: readonly string[], dash: boolean, key: string, value: string, lineNo: number): void {
    const parent = path[path.length - 1];
    if (path.length === 1 && path[0] === 'metadata') {
      if (key === 'name') this.pod = value;
      if (key === 'namespace') this.namespace = value;
      return;
    }
    if (path.length === 2 && path[0] === 'spec' && SPEC_LISTS.has(parent!)) {
      if (dash) this.specContainer = null;
      if (key === 'name') this.specContainer = value;
      return;
    }
    if (path.length === 4 && path[0] === 'spec' && path[2] === 'resources' && path[3] === 'limits' && key === 'memory' && this.specContainer) {
      this.limits.set(this.specContainer, value);
      return;
    }
    const kind = parent === undefined ? undefined : STATUS_LISTS[parent];
    if (kind !== undefined && dash) {
      this.closeStatus();
      this.open = { record: blankPodStatus(this.input.path, lineNo, 'pod-yaml', kind), item: this.stack.length - 1, depth: path.length };
    }
    if (this.open) this.statusField(path.slice(this.open.depth), key, value);
  }

  /** A key inside one container status; `within` is its path below the status entry. */
  private statusField(within: readonly string[], key: string, value: string): void {
    const r = this.open!.record;
    if (within.length === 0) {
      if (key === 'name') r.container = value;
      else if (key === 'image') r.image = value;
      else if (key === 'ready') r.ready = value === 'true';
      else if (key === 'restartCount') r.restartCount = toNumber(value);
      return;
    }
    const [block, state] = within;
    if (within.length === 1 && (block === 'state' || block === 'lastState') && STATES[key]) {
      if (block === 'state') r.state = STATES[key]!;
      else r.lastState = STATES[key]!;
      return;
    }
    if (within.length !== 2 || !state || !STATES[state]) return;
    const last = block === 'lastState';
    if (block !== 'state' && !last) return;
    if (key === 'reason') r[last ? 'lastReason' : 'reason'] = value;
    else if (key === 'exitCode') r[last ? 'lastExitCode' : 'exitCode'] = toNumber(value);
    else if (key === 'startedAt') r[last ? 'lastStarted' : 'started'] = parseRfc3339(value);
    else if (key === 'finishedAt') r[last ? 'lastFinished' : 'finished'] = parseRfc3339(value);
  }

  private closeStatus(): void {
    const open = this.open;
    this.open = null;
    if (!open) return;
    const r = open.record;
    placePodStatus(r, this.pod ?? this.input.pod, this.namespace ?? this.input.namespace);
    if (!r.container && this.input.container) r.container = this.input.container;
    if (r.container) r.memoryLimit = this.limits.get(r.container) ?? null;
    this.emit(r);
  }

  private endPod(): void {
    this.closeStatus();
    this.pod = null;
    this.namespace = null;
    this.limits.clear();
    this.specContainer = null;
  }
}

function unquote(value: string): string {
  const v = value.trim();
  return v.length >= 2 && (v[0] === '"' || v[0] === "'") && v[v.length - 1] === v[0] ? v.slice(1, -1) : v;
}

function toNumber(value: string): number | null {
  const n = Number(value);
  return value !== '' && Number.isFinite(n) ? n : null;
}
