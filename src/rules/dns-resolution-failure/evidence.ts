// Lines where a Linkerd control-plane name did not resolve, outside a proxy's log: the last look
// (parsers/last-look.ts) makes dns-evidence of Go's `lookup … on …: no such host` (a controller's,
// the CLI's or linkerd-cni's error) and of NXDOMAIN / SERVFAIL as nslookup or a DNS log prints them.
// For a control-plane Service it is the same failure the proxies log as "Failed to resolve
// control-plane component": reported with what the lines say, whatever the layout around them.

import type { FindingDraft, SampleLine, SourceLocation } from '../../core/types.js';
import type { DnsEvidenceRecord } from '../../core/evidence-records.js';
import type { CorednsQueryRecord } from '../../core/types.js';
import type { ControllerComponent } from '../../knowledge/control-plane.js';
import { componentFromName } from '../../knowledge/control-plane.js';
import { isSearchExpansion } from '../../knowledge/control-plane-dns.js';
import { keepSample } from '../../core/evidence.js';
import { detach } from '../../util/stats.js';

const MAX_NAMES = 10;
const MAX_SAMPLES = 3;

export interface DnsEvidence {
  component: ControllerComponent;
  names: string[];
  servers: string[];
  failures: Record<DnsEvidenceRecord['failure'], number>;
  samples: SampleLine[];
  location: SourceLocation;
}

/**
 * Counts one line of evidence; lines about names that are not the control plane's are not this
 * rule's, and neither is a search-path expansion of one (`….svc.cluster.local.cluster.local`).
 */
export function addDnsEvidence(table: Map<ControllerComponent, DnsEvidence>, record: DnsEvidenceRecord): void {
  if (record.name !== null && isSearchExpansion(record.name)) return;
  const component = componentFromName(record.name ?? record.text);
  if (!component) return;
  let e = table.get(component);
  if (!e) {
    e = {
      component,
      names: [],
      servers: [],
      failures: { 'no-such-host': 0, nxdomain: 0, servfail: 0 },
      samples: [],
      location: { path: record.path, line: record.line },
    };
    table.set(component, e);
  }
  e.failures[record.failure]++;
  if (record.name && !e.names.includes(record.name) && e.names.length < MAX_NAMES) e.names.push(detach(record.name));
  if (record.server && !e.servers.includes(record.server) && e.servers.length < MAX_NAMES) e.servers.push(detach(record.server));
  keepSample(e.samples, MAX_SAMPLES, detach(record.path), record.line, detach(record.text));
}

export function mergeDnsEvidence(into: Map<ControllerComponent, DnsEvidence>, from: Map<ControllerComponent, DnsEvidence>): void {
  for (const [component, theirs] of from) {
    const mine = into.get(component);
    if (!mine) {
      into.set(component, theirs);
      continue;
    }
    for (const k of Object.keys(theirs.failures) as DnsEvidenceRecord['failure'][]) mine.failures[k] += theirs.failures[k];
    for (const n of theirs.names) if (!mine.names.includes(n) && mine.names.length < MAX_NAMES) mine.names.push(n);
    for (const s of theirs.servers) if (!mine.servers.includes(s) && mine.servers.length < MAX_NAMES) mine.servers.push(s);
    for (const s of theirs.samples) if (mine.samples.length < MAX_SAMPLES) mine.samples.push(s);
  }
}

const WORDS: Record<DnsEvidenceRecord['failure'], string> = { 'no-such-host': 'no such host', nxdomain: 'NXDOMAIN', servfail: 'SERVFAIL' };

export function describeDnsEvidence(e: DnsEvidence, service: string, consequence: string): FindingDraft {
  const lines = e.failures['no-such-host'] + e.failures.nxdomain + e.failures.servfail;
  const said = (Object.keys(e.failures) as DnsEvidenceRecord['failure'][]).filter((k) => e.failures[k] > 0).map((k) => `${WORDS[k]} ×${e.failures[k]}`);
  const names = e.names.length > 0 ? e.names.join(', ') : service;
  const servfailOnly = e.failures.servfail > 0 && e.failures.nxdomain === 0 && e.failures['no-such-host'] === 0;
  return {
    severity: 'warning',
    kind: `${e.component}-unresolvable`,
    title: `${names} does not resolve (${said.join(', ')})`,
    message: [
      `${lines === 1 ? 'A line' : `${lines} lines`} of the input say${lines === 1 ? 's' : ''} that ${names} did not resolve${e.servers.length > 0 ? ` (asked ${e.servers.join(', ')})` : ''}: ${said.join(', ')}; ${consequence}.`,
      servfailOnly
        ? 'SERVFAIL is the DNS server failing to answer (its upstream or the API it reads), not a missing name: look at the cluster DNS first.'
        : `The name does not exist for the cluster DNS: ${service} is a headless Service, which has records only for its ready pods, so no ready ${e.component} pod (or a wrong namespace or cluster domain in the name) gives NXDOMAIN / "no such host".`,
    ].join(' '),
    subject: { target: service },
    evidence: { controller: e.component, names: e.names, servers: e.servers, failures: e.failures, samples: e.samples },
    locations: [e.location],
    remediation: [
      `1. See whether the Service has ready endpoints: \`kubectl -n linkerd get endpoints ${service}\` and \`kubectl -n linkerd get pods\`; an empty list means no ${e.component} pod is ready (its logs say why).`,
      `2. Resolve the name from a pod in the same namespace as the failing client (\`kubectl run -it --rm dnscheck --image=busybox:1.36 -- nslookup ${e.names[0] ?? `${service}.linkerd.svc.cluster.local`}\`) and check the cluster domain it should end in (Linkerd's \`clusterDomain\` value).`,
      '3. With SERVFAIL or timeouts, read the CoreDNS log (`kubectl -n kube-system logs -l k8s-app=kube-dns`) for the upstream or API errors behind it.',
    ].join('\n'),
    keyFigure: { name: 'failedLookups', value: lines },
  };
}

/**
 * CoreDNS's own answers for control-plane names (its log plugin's `"SRV IN linkerd-dst-headless…"
 * NXDOMAIN` lines): failures and successes per controller, for names that are not search-path
 * expansions. The failures become evidence only when they are sustained (see corednsEvidence).
 */
export interface CorednsAnswers {
  failed: Map<ControllerComponent, DnsEvidence>;
  answered: Map<ControllerComponent, number>;
}

export const corednsAnswers = (): CorednsAnswers => ({ failed: new Map(), answered: new Map() });

export function addCorednsAnswer(answers: CorednsAnswers, record: CorednsQueryRecord): void {
  // Most queries are not Linkerd's: one substring test before any parsing of the name.
  if (!record.name.includes('linkerd-')) return;
  // The name's component (a regex test) before its labels are split: most linkerd- names are not a controller's.
  const component = componentFromName(record.name);
  if (!component || isSearchExpansion(record.name)) return;
  if (record.rcode === 'NXDOMAIN' || record.rcode === 'SERVFAIL') {
    const name = record.name.replace(/\.$/, '');
    addDnsEvidence(answers.failed, {
      kind: 'dns-evidence',
      path: record.path,
      line: record.line,
      failure: record.rcode === 'NXDOMAIN' ? 'nxdomain' : 'servfail',
      name,
      server: null,
      text: corednsLine(record),
    });
  } else if (record.rcode === 'NOERROR') answers.answered.set(component, (answers.answered.get(component) ?? 0) + 1);
}

export function mergeCorednsAnswers(into: CorednsAnswers, from: CorednsAnswers): void {
  mergeDnsEvidence(into.failed, from.failed);
  for (const [component, n] of from.answered) into.answered.set(component, (into.answered.get(component) ?? 0) + n);
}

/**
 * The controllers CoreDNS failed to answer for, sustained: at least `minFailures` failed answers
 * (a proxy retries at the negative TTL, so a few are a pod starting before the controller is
 * ready), and more failed than answered (a control plane that came up answers from then on).
 */
export function corednsEvidence(answers: CorednsAnswers, minFailures: number): DnsEvidence[] {
  return [...answers.failed.values()].filter((e) => {
    const failed = e.failures['no-such-host'] + e.failures.nxdomain + e.failures.servfail;
    return failed >= minFailures && failed > (answers.answered.get(e.component) ?? 0);
  });
}

/** The query as CoreDNS's log plugin printed it (its default format), for the finding's samples. */
function corednsLine(r: CorednsQueryRecord): string {
  const or = (v: number | boolean | null) => (v === null ? '-' : String(v));
  const flags = r.flags.length > 0 ? ` ${r.flags.join(',')}` : '';
  const query = `"${r.type} ${r.class} ${r.name} ${r.proto} ${or(r.requestSize)} ${or(r.dnssecOk)} ${or(r.bufsize)}"`;
  return `${r.client}${r.clientPort === null ? '' : `:${r.clientPort}`} - ${or(r.id)} ${query} ${r.rcode}${flags} ${or(r.responseSize)} ${or(r.durationSeconds)}s`;
}
