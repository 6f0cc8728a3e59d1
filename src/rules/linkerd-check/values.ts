// The values a check's output holds (pods, dates, versions, the namespace, Secret names), for the
// verdicts' first actions, and the mechanism its error text names (Go's net and net/http wording:
// `no such host`, `connection refused`, `Client.Timeout exceeded`, `connection reset by peer`), in
// plain words.

import type { CheckValues } from '../../knowledge/checks.js';

const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/;
const VERSION = /\b(?:stable|edge)-\d+\.\d+\.\d+\b|\b2\.\d+\.\d+\b/;
/** `* ns/pod`, `* pod (stable-2.11.4)`, `The "pod" pod is not running`, `pod status is Pending`. */
const LISTED_POD = /^\*\s+(?:([a-z0-9][-a-z0-9]*)\/)?([a-z0-9][-a-z0-9.]*-[a-z0-9]{5})\b/;
const QUOTED_POD = /"([a-z0-9][-a-z0-9.]*-[a-z0-9]{5})" pod/;
const STATUS_POD = /^([a-z0-9][-a-z0-9.]*-[a-z0-9]{5}) status is /;
const NOT_FOUND = /(?:secrets?|configmaps?|services?) "([^"]{1,253})" not found/;
const NAMESPACE_FLAG = /(?:^|\s)(?:-n|--namespace)[ =]([a-z0-9][-a-z0-9]*)/;
const NO_SUCH_HOST = /lookup (\S+) on (\S+): no such host/;

/** `-n` of `linkerd check --proxy -n <ns>` scopes only the data-plane checks of the run. */
export function valuesOf(details: readonly string[], command: string | null, dataPlane = true): CheckValues {
  const pods: string[] = [];
  const names: string[] = [];
  let date: string | null = null;
  let version: string | null = null;
  let namespace: string | null = command && dataPlane ? (NAMESPACE_FLAG.exec(command)?.[1] ?? null) : null;
  for (const line of details) {
    date ??= ISO.exec(line)?.[0] ?? null;
    version ??= VERSION.exec(line)?.[0] ?? null;
    const listed = LISTED_POD.exec(line);
    const pod = listed?.[2] ?? QUOTED_POD.exec(line)?.[1] ?? STATUS_POD.exec(line)?.[1];
    if (pod && pods.length < 50 && !pods.includes(pod)) pods.push(pod);
    if (listed?.[1]) namespace ??= listed[1];
    const missing = NOT_FOUND.exec(line)?.[1];
    if (missing && !names.includes(missing)) names.push(missing);
  }
  const first = details.find((d) => d.trim() !== '' && !d.endsWith(':')) ?? details[0] ?? null;
  return { pods, date, version, namespace, detail: first ? first.replace(/^\*\s+/, '').slice(0, 300) : null, names };
}

/** The mechanism an error text names, in plain words; null when it names none of these. */
export function observedCause(text: string): string | null {
  const dns = NO_SUCH_HOST.exec(text);
  if (dns) return `that the cluster DNS (${dns[2]}) has no record for ${dns[1]}: the name cannot be resolved (no such host)`;
  if (text.includes('Client.Timeout exceeded') || text.includes('i/o timeout') || text.includes('context deadline exceeded'))
    return 'a call that timed out: the target is unreachable from the caller (network path, firewall, an HTTP proxy in between) or does not answer';
  if (text.includes('connection reset by peer')) return 'a connection reset by the peer: something on the path (or the target) closes the connection';
  if (text.includes('connection refused')) return 'a connection refused: nothing listens at the address (the pod is down or not ready)';
  const missing = NOT_FOUND.exec(text);
  if (missing) return `that ${missing[0].replace(/ not found$/, '')} does not exist (not found)`;
  if (/ status is (?:Pending|ContainerCreating|Init:|CrashLoopBackOff)/.test(text)) return 'pods that are not running';
  return null;
}
