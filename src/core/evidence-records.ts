// Records kept beside types.ts, which lists every record kind: what a pod's spec says of a
// container (container-spec.ts), and what the last look (parsers/last-look.ts) makes of a line
// where a name did not resolve, in the words of Go's resolver, CoreDNS's rcodes or nslookup.

import type { RecordBase } from './record-base.js';
import type { ContainerSpecRecord } from './container-spec.js';

export interface DnsEvidenceRecord extends RecordBase {
  kind: 'dns-evidence';
  /** `no such host` (Go's resolver), or the rcode a DNS server answered. */
  failure: 'no-such-host' | 'nxdomain' | 'servfail';
  /** The name that did not resolve, without its trailing dot, when the line names it. */
  name: string | null;
  /** The DNS server asked (`10.96.0.10:53`), when the line names it. */
  server: string | null;
  /** The line from the words on (at most 400 characters). */
  text: string;
}

export type SpecAndEvidenceRecord = ContainerSpecRecord | DnsEvidenceRecord;
