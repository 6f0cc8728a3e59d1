// Resource records as dig prints them: one presentation-format line (`name ttl class type rdata`),
// TTLs with or without units, the fields the DNS rules read from rdata, and the bare rdata of +short.

import type { DnsAnswerRecord } from '../core/types.js';
import { lookupTable } from '../util/dict.js';

const RR_TYPES = new Set(
  (
    'A AAAA A6 AFSDB ANY APL ATMA AVC AXFR CAA CDNSKEY CDS CERT CNAME CSYNC DHCID DLV DNAME DNSKEY DOA DS EID EUI48 EUI64 GID GPOS HINFO HIP ' +
    'HTTPS IPSECKEY ISDN IXFR KEY KX L32 L64 LOC LP MAILA MAILB MB MD MF MG MINFO MR MX NAPTR NID NIMLOC NINFO NS NSAP NSAP-PTR NSEC NSEC3 ' +
    'NSEC3PARAM NULL NXT OPENPGPKEY OPT PTR PX RESINFO RKEY RP RRSIG RT SIG SINK SMIMEA SOA SPF SRV SSHFP SVCB TA TALINK TKEY TLSA TSIG TXT ' +
    'UID UINFO UNSPEC URI WALLET WKS X25 ZONEMD'
  ).split(' '),
);
const RR_CLASSES = new Set(['IN', 'CH', 'CHAOS', 'HS', 'HESIOD', 'NONE', 'ANY']);

export function isRrType(token: string): boolean {
  return RR_TYPES.has(token.toUpperCase()) || /^TYPE\d+$/i.test(token);
}

export function isRrClass(token: string): boolean {
  return RR_CLASSES.has(token.toUpperCase()) || /^CLASS\d+$/i.test(token);
}

const TTL_UNIT_SECONDS: Record<string, number> = lookupTable({ w: 604800, d: 86400, h: 3600, m: 60, s: 1 });

/** A TTL as dig prints it: seconds (`30`) or `+ttlunits` (`1w2d3h4m5s`, `0s`); null if it is not one. */
export function parseTtl(token: string): number | null {
  if (/^\d+$/.test(token)) return Number(token);
  if (!/^(?:\d+[wdhms])+$/i.test(token)) return null;
  let total = 0;
  for (const part of token.toLowerCase().matchAll(/(?<!\d)(\d+)([wdhms])/g)) total += Number(part[1]) * TTL_UNIT_SECONDS[part[2]!]!;
  return total;
}

export interface ParsedRr {
  name: string;
  ttl: number | null;
  class: string | null;
  type: string;
  data: string;
}

/** Removes `; comments` outside quoted strings (TXT may contain `;`). */
export function stripComment(text: string): string {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '"') quoted = !quoted;
    else if (c === ';' && !quoted) return text.slice(0, i);
  }
  return text;
}

/** Open minus closed parentheses outside quotes: > 0 while +multiline rdata continues. */
export function parenDepth(text: string): number {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '"') quoted = !quoted;
    else if (!quoted && c === '(') depth++;
    else if (!quoted && c === ')') depth--;
  }
  return depth;
}

/**
 * One resource record in presentation format: `owner [TTL] [class] type rdata`. The separators
 * are any mix of tabs and spaces (dig pads to columns), so the first fields are split on runs of
 * whitespace and the rdata is kept as the rest of the line.
 */
export function parseRrText(text: string): ParsedRr | null {
  const fields: { token: string; end: number }[] = [];
  const re = /\S+/g;
  let m: RegExpExecArray | null;
  while (fields.length < 4 && (m = re.exec(text))) fields.push({ token: m[0], end: m.index + m[0].length });
  if (fields.length < 2) return null;
  const name = fields[0]!.token;
  if (!/^[^;"()]+$/.test(name)) return null;
  let i = 1;
  let ttl: number | null = null;
  let cls: string | null = null;
  const maybeTtl = parseTtl(fields[i]!.token);
  if (maybeTtl !== null) {
    ttl = maybeTtl;
    i++;
  }
  if (i < fields.length && isRrClass(fields[i]!.token) && i + 1 < fields.length && isRrType(fields[i + 1]!.token)) {
    cls = fields[i]!.token.toUpperCase();
    i++;
  }
  if (i >= fields.length || !isRrType(fields[i]!.token)) return null;
  // Without a TTL or a class the line is too easily prose; dig always prints one of them.
  if (ttl === null && cls === null) return null;
  const type = fields[i]!.token.toUpperCase();
  const data = text.slice(fields[i]!.end).trim();
  return { name, ttl, class: cls, type, data };
}

export const IPV4 = /^(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
const IPV6 = /^(?=.*:)[0-9a-f:.]+$/i;

/** Typed views of the rdata the rules read: SRV, A, AAAA, CNAME. */
export function rdataFields(type: string, data: string): Pick<DnsAnswerRecord, 'srv' | 'address' | 'cname'> {
  switch (type) {
    case 'SRV': {
      const srv = /^(\d+)\s+(\d+)\s+(\d+)\s+(\S+)$/.exec(data);
      return srv ? { srv: { priority: Number(srv[1]), weight: Number(srv[2]), port: Number(srv[3]), target: srv[4]! } } : {};
    }
    case 'A':
      return IPV4.test(data) ? { address: data } : {};
    case 'AAAA':
      return IPV6.test(data) ? { address: data.toLowerCase() } : {};
    case 'CNAME':
      return /^\S+$/.test(data) ? { cname: data } : {};
    default:
      return {};
  }
}

/** `+short` prints only rdata; guess the type where the shape allows no other reading. */
export function shortAnswerType(data: string): string {
  if (IPV4.test(data)) return 'A';
  if (IPV6.test(data) && data.includes(':')) return 'AAAA';
  if (/^\d+ \d+ \d+ \S+$/.test(data)) return 'SRV';
  if (/^\d+ \S+\.$/.test(data)) return 'MX';
  if (/^"/.test(data)) return 'TXT';
  return 'UNKNOWN';
}

export const SHORT_RDATA =
  /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}|(?=[0-9a-f]*:)[0-9a-f:.]+|\d+ \d+ \d+ [^\s;]+\.|\d+ [^\s;]+\.|[a-z0-9_*][-a-z0-9_.*\\]*\.|"(?:[^"\\]|\\.)*"(?: "(?:[^"\\]|\\.)*")*)$/i;
export const SHORT_IDENTIFY = /^(.*) from server (\S+) in \d+ ms\.$/;
