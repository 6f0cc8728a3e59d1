// How the sniffer tells a proxy log (and the Go components' logs the proxy-log parser reads) from
// its first lines. Declared beside the parser; parsers/sniff.ts runs it with the other formats' tests.

import { looksLikeKlog } from './go-log.js';
import type { FormatSniff } from './parser.js';
import { parsePastedProxyLine } from './proxy-log-pasted.js';
import { parseProxyLogPayload } from './proxy-log-payload.js';

export const proxyLogSniff: FormatSniff = {
  kind: 'proxy-log',
  tests: [
    { order: 10, on: 'json', claim: (text) => (parseProxyLogPayload(text) ? { kind: 'proxy-log', score: 2 } : null) },
    {
      order: 80,
      on: 'line',
      claim: (line) => {
        if (!looksLikeKlog(line)) return null;
        // klog is any Go program's (CoreDNS's kubernetes plugin too); its source path tells whose.
        if (line.includes('coredns')) return { kind: 'coredns-log', score: 2 };
        return { kind: 'proxy-log', score: parseProxyLogPayload(line) ? 1 : 0 };
      },
    },
    { order: 90, on: 'line', claim: (line) => (parseProxyLogPayload(line) ? { kind: 'proxy-log', score: 2 } : null) },
    {
      order: 110,
      on: 'line',
      // A pasted proxy line (quoted, damaged, a fragment): weaker evidence when it has no level.
      claim: (line) => {
        const pasted = parsePastedProxyLine(line);
        return pasted ? { kind: 'proxy-log', score: pasted.levelAbsent ? 1 : 2 } : null;
      },
    },
  ],
};
