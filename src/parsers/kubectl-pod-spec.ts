// A pod's spec as kubectl-object.ts reads it from a Pod, a workload's pod template or a fragment
// (`spec:`, `containers:`, `initContainers:` pasted alone): one container-spec record per
// container, saying how it may run (its securityContext). Also the small JSON accessors the
// object reader shares.

import type { Node } from 'yaml';
import { yamlLibrary } from '../util/yaml.js';
import type { InputInfo } from '../core/types.js';
import type { ContainerSpecRecord } from '../core/container-spec.js';
import { lookupTable } from '../util/dict.js';
import { kubernetesName } from '../util/path-meta.js';

export type Json = Record<string, unknown>;

const SPEC_KINDS: Readonly<Record<string, ContainerSpecRecord['containerKind']>> = lookupTable({
  initContainers: 'init',
  containers: 'app',
  ephemeralContainers: 'ephemeral',
});
/** Workloads whose `spec.template.spec` is a pod's spec. */
export const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job']);
/** A Linux capability as Kubernetes and the runtimes accept it: `NET_RAW`, `CAP_NET_RAW`, `ALL`. */
const CAPABILITY = /^(?:CAP_)?([A-Z][A-Z_]{0,40})$/;

/** A workload's pod template: its containers' specs, named by the workload (it has no pod yet). */
export function templateSpecs(input: InputInfo, o: Json, node: unknown, lineOf: (node: unknown) => number): ContainerSpecRecord[] {
  const { isMap } = yamlLibrary();
  const metadata = asObject(o.metadata);
  const specNode = isMap(node) ? node.get('spec', true) : undefined;
  const templateNode = isMap(specNode) ? specNode.get('template', true) : undefined;
  const podSpecNode = isMap(templateNode) ? templateNode.get('spec', true) : undefined;
  const podSpec = asObject(asObject(asObject(o.spec)?.template)?.spec);
  const name = objectName(metadata?.name);
  const workload = name ? `${String(o.kind).toLowerCase()}/${name}` : null;
  return podSpec ? containerSpecs(input, podSpec, podSpecNode, { namespace: labelName(metadata?.namespace), workload }, lineOf) : [];
}

/** A Pod's containers' specs; a spec pasted alone (from `spec:`, or from `containers:` / `initContainers:` on) has no `spec:` key. */
export function podSpecs(input: InputInfo, o: Json, node: unknown, lineOf: (node: unknown) => number): ContainerSpecRecord[] {
  const { isMap } = yamlLibrary();
  const metadata = asObject(o.metadata);
  const spec = asObject(o.spec) ?? (hasSpecLists(o) ? o : undefined);
  const owner = { pod: objectName(metadata?.name), namespace: labelName(metadata?.namespace) };
  return spec ? containerSpecs(input, spec, isMap(node) && o.spec ? node.get('spec', true) : node, owner, lineOf) : [];
}

/**
 * One container-spec record per container of a pod's spec, in document order: how each is
 * allowed to run (its securityContext), whether or not the object shows a status.
 */
export function containerSpecs(
  input: InputInfo,
  spec: Json,
  specNode: unknown,
  owner: { pod?: string | undefined; namespace?: string | undefined; workload?: string | null },
  lineOf: (node: unknown) => number,
): ContainerSpecRecord[] {
  const { isMap, isSeq } = yamlLibrary();
  const workload = owner.workload ?? null;
  const records: ContainerSpecRecord[] = [];
  for (const list of Object.keys(spec)) {
    const containerKind = SPEC_KINDS[list];
    if (containerKind === undefined) continue;
    const listNode = isMap(specNode) ? specNode.get(list, true) : undefined;
    asArray(spec[list]).forEach((entry, i) => {
      const c = asObject(entry);
      const name = labelName(c?.name);
      if (!c || !name) return;
      const security = asObject(c.securityContext);
      const capabilities = asObject(security?.capabilities);
      const record: ContainerSpecRecord = {
        kind: 'container-spec',
        path: input.path,
        line: lineOf((isSeq(listNode) ? listNode.items[i] : (listNode ?? specNode)) as Node | undefined),
        container: name,
        containerKind,
        workload,
        image: str(c.image) ?? null,
        privileged: typeof security?.privileged === 'boolean' ? security.privileged : null,
        capabilitiesAdd: capabilityList(capabilities?.add),
        capabilitiesDrop: capabilityList(capabilities?.drop),
        runAsUser: num(security?.runAsUser),
        runAsNonRoot: typeof security?.runAsNonRoot === 'boolean' ? security.runAsNonRoot : null,
      };
      const pod = owner.pod ?? (workload === null ? input.pod : undefined);
      if (pod) record.pod = pod;
      const namespace = owner.namespace ?? input.namespace;
      if (namespace) record.namespace = namespace;
      records.push(record);
    });
  }
  return records;
}

function hasSpecLists(o: Json): boolean {
  return Object.keys(SPEC_KINDS).some((k) => Array.isArray(o[k]));
}

/** A securityContext's capability list, as the runtime reads it: upper-cased, without `CAP_`; what is not a capability name is left out. */
function capabilityList(v: unknown): string[] {
  const out: string[] = [];
  for (const item of asArray(v).slice(0, 64)) {
    const m = typeof item === 'string' ? CAPABILITY.exec(item.toUpperCase()) : null;
    if (m && !out.includes(m[1]!)) out.push(m[1]!);
  }
  return out;
}

export function asObject(v: unknown): Json | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

// A value no Kubernetes object could be named (a newline forging a report line) is no name.
export const objectName = (v: unknown): string | undefined => kubernetesName(str(v), 'subdomain');
export const labelName = (v: unknown): string | undefined => kubernetesName(str(v), 'label');
