// The one table of "which release fixed which symptom", and the proxy → Linkerd release mapping it
// is stated in. Sources: the linkerd2 `.proxy-version` file at each release tag and the upstream
// PRs named in each entry (see docs/incidents.md). Which rules' findings a fix concerns is said by
// each rule folder (src/rules/<id>/incident.ts, `fixes`); the incident step annotates them.

import type { FindingSubject } from '../core/types.js';
import { controllerOfAddress } from './control-plane.js';

export interface ProxyVersion {
  major: number;
  minor: number;
  patch: number;
}

export type KnownFixId =
  'destination-stream-limit' | 'connect-backoff-cap' | 'dns-min-ttl' | 'dns-negative-min-ttl' | 'inbound-authority-label' | 'duplicate-series';

export interface KnownFix {
  id: KnownFixId;
  /** What was wrong, in the words a remediation uses. */
  symptom: string;
  change: string;
  /** Which proxies' version decides: the data-plane proxies involved, or the control plane's. */
  side: 'proxy' | 'control-plane';
  /** First proxy release carrying it (for control-plane fixes: the proxy bundled with the first fixed release). */
  fixedInProxy: string;
  fixedInLinkerd: string;
  /** First Linkerd releases with it, per channel, to judge components that log only `running version <release>`. */
  fixedInRelease: { edge: string; stable: string };
  /** What to do until the fix is deployed. */
  mitigation: string;
  references: readonly string[];
}

/** proxy version → Linkerd release, from `.proxy-version` at each linkerd2 tag. Sorted by proxy version. */
export const PROXY_RELEASES: readonly { proxy: string; linkerd: string }[] = [
  { proxy: '2.118.0', linkerd: 'stable-2.9.0' },
  { proxy: '2.138.0', linkerd: 'stable-2.10.0' },
  { proxy: '2.161.0', linkerd: 'stable-2.11.0' },
  { proxy: '2.185.0', linkerd: 'stable-2.12.0' },
  { proxy: '2.197.0', linkerd: 'stable-2.13.0' },
  { proxy: '2.203.0', linkerd: 'stable-2.13.4–2.13.7' },
  { proxy: '2.207.0', linkerd: 'stable-2.14.0' },
  { proxy: '2.210.2', linkerd: 'stable-2.14.3' },
  { proxy: '2.210.4', linkerd: 'stable-2.14.8–2.14.10' },
  { proxy: '2.215.0', linkerd: 'edge-23.12.2' },
  { proxy: '2.221.0', linkerd: 'Linkerd 2.15' },
  { proxy: '2.232.0', linkerd: 'edge-24.5.3' },
  { proxy: '2.246.0', linkerd: 'Linkerd 2.16' },
  { proxy: '2.253.0', linkerd: 'edge-24.9.2' },
  { proxy: '2.268.0', linkerd: 'Linkerd 2.17' },
  { proxy: '2.280.0', linkerd: 'edge-25.2.1' },
  { proxy: '2.289.0', linkerd: 'edge-25.3.4' },
  { proxy: '2.294.0', linkerd: 'Linkerd 2.18' },
  { proxy: '2.306.0', linkerd: 'edge-25.7.1' },
  { proxy: '2.307.0', linkerd: 'edge-25.7.2' },
  { proxy: '2.326.0', linkerd: 'Linkerd 2.19' },
  { proxy: '2.343.0', linkerd: 'edge-26.3.3' },
  { proxy: '2.346.0', linkerd: 'edge-26.4.1' },
  { proxy: '2.359.0', linkerd: 'Linkerd 2.20' },
];

export const KNOWN_FIXES: readonly KnownFix[] = [
  {
    id: 'destination-stream-limit',
    symptom: 'destination and identity gRPC servers limited concurrent streams, so watches from many proxies stalled',
    change: 'linkerd2 #12598 removed the stream-concurrency limit on the destination and identity servers',
    side: 'control-plane',
    fixedInProxy: 'v2.232.0',
    fixedInLinkerd: 'edge-24.5.3 / Linkerd 2.16',
    fixedInRelease: { edge: '24.5.3', stable: '2.16.0' },
    mitigation: 'scale the destination controller out and give it CPU and memory headroom until the control plane is upgraded',
    references: ['https://github.com/linkerd/linkerd2/pull/12598'],
  },
  {
    id: 'connect-backoff-cap',
    symptom: 'proxies retry a failed connection every 500 ms forever, in lock-step',
    change: 'linkerd2-proxy #3992 raised the default maximum connect backoff to 60 s outbound and 10 s inbound',
    side: 'proxy',
    fixedInProxy: 'v2.307.0',
    fixedInLinkerd: 'edge-25.7.2 / Linkerd 2.19',
    fixedInRelease: { edge: '25.7.2', stable: '2.19.0' },
    mitigation:
      'set LINKERD2_PROXY_OUTBOUND_CONNECT_EXP_BACKOFF_MIN and _MAX (both, plus _JITTER, which otherwise defaults to 0) through proxy.additionalEnv and restart the workloads',
    references: ['https://github.com/linkerd/linkerd2-proxy/pull/3992'],
  },
  {
    id: 'dns-min-ttl',
    symptom: 'proxies re-resolve at once when DNS answers with TTL 0',
    change: 'linkerd2-proxy #3807 added a 5 s floor on DNS re-resolution',
    side: 'proxy',
    fixedInProxy: 'v2.289.0',
    fixedInLinkerd: 'edge-25.3.4 / Linkerd 2.18',
    fixedInRelease: { edge: '25.3.4', stable: '2.18.0' },
    mitigation: 'set LINKERD2_PROXY_DNS_MIN_TTL (e.g. 5s) through proxy.additionalEnv, and stop the DNS cache from serving TTL 0',
    references: ['https://github.com/linkerd/linkerd2-proxy/pull/3807', 'https://github.com/linkerd/linkerd2/issues/13508'],
  },
  {
    id: 'dns-negative-min-ttl',
    symptom: 'a negative DNS answer with TTL 0 makes the proxy retry at once (and panic with `period must be non-zero`)',
    change: 'linkerd2-proxy #4449 applied the 5 s floor to negative TTLs',
    side: 'proxy',
    fixedInProxy: 'v2.343.0',
    fixedInLinkerd: 'edge-26.3.3',
    fixedInRelease: { edge: '26.3.3', stable: '2.20.0' },
    mitigation: 'fix the SOA minimum / negative-cache TTL the resolver serves',
    references: ['https://github.com/linkerd/linkerd2/issues/14954'],
  },
  {
    id: 'inbound-authority-label',
    symptom: 'inbound metrics carried the client-supplied authority as a label, one series set per Host header',
    change: 'linkerd2-proxy v2.277.0 removed the authority label from inbound metrics',
    side: 'proxy',
    fixedInProxy: 'v2.277.0',
    fixedInLinkerd: 'edge-25.2.1 / Linkerd 2.18',
    fixedInRelease: { edge: '25.2.1', stable: '2.18.0' },
    mitigation: 'drop the inbound authority label at scrape time (metric_relabel_configs) until the proxies are upgraded',
    references: ['https://github.com/linkerd/linkerd2-proxy/commit/3ab83ed3f'],
  },
  {
    id: 'duplicate-series',
    symptom: 'proxies emitted the same series more than once in one scrape',
    change: 'linkerd2-proxy #3987 fixed duplicated series',
    side: 'proxy',
    fixedInProxy: 'v2.306.0',
    fixedInLinkerd: 'edge-25.7.1',
    fixedInRelease: { edge: '25.7.1', stable: '2.19.0' },
    mitigation: 'count duplicates separately from real series; they inflate the series count',
    references: ['https://github.com/linkerd/linkerd2-proxy/pull/3987'],
  },
];

/**
 * The stream limit was in the Go destination and identity servers; the policy controller is
 * separate. Decided by the finding's controller, else by the controller its target reaches.
 */
export function reachesStreamLimitedController(finding: { subject: FindingSubject; evidence: { controller?: string } }): boolean {
  const controller = finding.evidence.controller ?? controllerOfAddress(finding.subject.target);
  return controller === 'destination' || controller === 'identity';
}

export function parseProxyVersion(text: string | undefined): ProxyVersion | null {
  if (!text) return null;
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) } : null;
}

export function compareVersions(a: ProxyVersion, b: ProxyVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

export function formatVersion(v: ProxyVersion): string {
  return `v${v.major}.${v.minor}.${v.patch}`;
}

export function hasFix(version: ProxyVersion, fix: KnownFix): boolean {
  return compareVersions(version, parseProxyVersion(fix.fixedInProxy)!) >= 0;
}

export interface LinkerdRelease {
  channel: 'edge' | 'stable';
  version: ProxyVersion;
  text: string;
}

/** `stable-2.14.9`, `edge-24.5.3`, `enterprise-2.16.1`, `version-2.18.0` (the last two count as stable). */
export function parseLinkerdRelease(text: string | undefined): LinkerdRelease | null {
  const m = /^(stable|enterprise|version|edge)-(\d+)\.(\d+)\.(\d+)/.exec((text ?? '').trim());
  if (!m) return null;
  return { channel: m[1] === 'edge' ? 'edge' : 'stable', version: { major: Number(m[2]), minor: Number(m[3]), patch: Number(m[4]) }, text: m[0] };
}

export function releaseHasFix(release: LinkerdRelease, fix: KnownFix): boolean {
  const threshold = parseProxyVersion(release.channel === 'edge' ? fix.fixedInRelease.edge : fix.fixedInRelease.stable)!;
  return compareVersions(release.version, threshold) >= 0;
}

/** The Linkerd release that shipped a proxy version, exactly or as the range it falls in. */
export function linkerdReleaseFor(version: ProxyVersion): string {
  let below: { proxy: string; linkerd: string; v: ProxyVersion } | undefined;
  let above: { proxy: string; linkerd: string } | undefined;
  for (const entry of PROXY_RELEASES) {
    const known = parseProxyVersion(entry.proxy)!;
    if (compareVersions(known, version) <= 0) below = { ...entry, v: known };
    else {
      above = entry;
      break;
    }
  }
  // Patch releases of one proxy minor ship in the same Linkerd release line.
  if (below && below.v.major === version.major && below.v.minor === version.minor) return below.linkerd;
  if (below && above) return `after ${below.linkerd}, before ${above.linkerd}`;
  if (below) return `after ${below.linkerd}`;
  return above ? `before ${above.linkerd}` : 'unknown release';
}
