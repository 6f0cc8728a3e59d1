// Decides an input's kind from its first lines, never from its name: bundles name files freely,
// and stdin has no name at all.

import type { InputKind } from '../core/types.js';
import { CollectorPrefixReader } from './collector-prefix.js';
import { JsonRecordAssembler, isPasteNoise } from './pasted.js';
import { parsePastedProxyLine, parseProxyLogPayload } from './proxy-log.js';
import { kubectlSniffScore } from './kubectl.js';
import { isKubeObjectJson } from './kubectl-object.js';
import { looksLikeKlog } from './go-log.js';

/** How many leading lines the sniffer looks at, not counting blank lines and kubectl chatter. */
export const SNIFF_LINES = 64;
/**
 * However much chatter precedes the log (a paste of 70 `Defaulted container` lines, a long command
 * history), the sniffer stops buffering after this many lines or bytes: memory stays bounded.
 */
export const MAX_SNIFF_LINES = 4096;
export const MAX_SNIFF_BYTES = 4 << 20;

/** The head of an input while its kind is being decided: full once it holds SNIFF_LINES telling lines. */
export class SniffWindow {
  private telling = 0;
  private lines = 0;
  private chars = 0;

  /** Counts a line; true when the window is full and the kind can be decided. */
  add(text: string): boolean {
    this.lines++;
    this.chars += text.length;
    if (text.trim() !== '' && !isPasteNoise(text)) this.telling++;
    return this.telling >= SNIFF_LINES || this.lines >= MAX_SNIFF_LINES || this.chars >= MAX_SNIFF_BYTES;
  }
}

const PROM_COMMENT = /^# (?:HELP|TYPE|UNIT|POD|EOF|ERROR)\b/;
const PROM_SAMPLE = /^(?:[A-Za-z_:][\w:]*|\{"[^"]+")(?:\{.*\})?\s+(?:[-+]?(?:\d|Inf|NaN|inf|nan)[^\s]*)(?:\s+\S+)?\s*$/;
const DIG_MARKER = /^(?:; <<>> DiG |;; ->>HEADER<<-|;; (?:QUESTION|ANSWER|AUTHORITY|ADDITIONAL) SECTION:|;; global options:|;; connection timed out|;; communications error|;; Got answer:|;; Query time:|;; WHEN:|;; Received \d+ bytes)/;
const DIG_YAML = /^-?\s*type: (?:MESSAGE|DIG_ERROR)\s*$/;
// Patterns are written so no two quantifiers can split the same run of characters: lines of up to
// 1 MiB reach the sniffer, and an ambiguous `\d+[\d…]*` backtracks quadratically (minutes per line).
const RR_LINE = /^\S+\s+(?:\d[\dwdhms]*\s+)?(?:IN|CH|HS)\s+[A-Z0-9]+\s/;
const SHORT_SRV = /^\d+ \d+ \d+ \S+\.$/;
const SHORT_IP = /^(?:\d{1,3}(?:\.\d{1,3}){3}|(?=[^:]*:)[0-9a-f:]+)$/i;
/** `+short` CNAME/PTR/NS targets are a bare absolute name. */
const SHORT_NAME = /^[a-z0-9_][-a-z0-9_]*(?:\.[-a-z0-9_]+)*\.$/i;
/** `+short +identify` appends where the answer came from. */
const SHORT_IDENTIFY_SUFFIX = / from server \S+ in \d+ ms\.$/;
const COREDNS_QUERY = /^\[(?:INFO|DEBUG)\] \S+:\d+ - \d+ "\S+ \S+ \S+ /;
/** CoreDNS messages; ≤ 1.2 behind Go's log date (`2018/09/06 13:02:45 [INFO] …`). */
const COREDNS_OTHER = /^(?:\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d )?\[(?:INFO|WARNING|ERROR|DEBUG|FATAL)\] (?:plugin\/|CoreDNS-|Reloading|linux\/|SIGTERM|Running configuration|Starting)/;
/** CoreDNS ≤ 1.2 query log: `ip:port - [11/Jan/2019:19:57:57 +0000] id "A IN name. …`; before 1.0.5 without port and id. */
const COREDNS_QUERY_CLF = /^\S+ - \[\d\d\/[A-Z][a-z]{2}\/\d{4}:\d\d:\d\d:\d\d [+-]\d{4}\] (?:\d+ )?"\S+ \S+ \S+ /;
/** 2017 errors plugin, `29/Nov/2017:23:16:11 +0000 [ERROR 0 name. A] no items found`, and the start-up banner. */
const COREDNS_MESSAGE = /^(?:\d\d\/[A-Z][a-z]{2}\/\d{4}:\d\d:\d\d:\d\d [+-]\d{4} \[(?:ERROR|INFO|WARNING|DEBUG)[ \]]|CoreDNS-\d+\.\d+\.\d+\s*$|(?:[\w-]+\.)*\.?:\d+$|(?:linux|darwin|windows|freebsd)\/\w+, go\d)/;

/**
 * Lines of program source (TypeScript, JavaScript, Go, Rust, Python…): declarations, imports,
 * comments, closing brackets. Source that quotes log lines (tests, a signature catalogue) is still
 * source, not a log: an input where such lines are the majority is not sniffed as anything.
 */
const SOURCE_CODE = /^\s*(?:(?:import|export|const|let|var|function|class|interface|type|enum|package|func|fn|pub|use|mod|impl|def|from|return|if|for|while|switch|case|async|await|describe|it|test)\b|\/\/|\/\*|\*(?:\s|\/|$)|#include\b|#!\/|[)}\]][)}\];,]*$|[{([]$|\{\s*[A-Za-z_$][\w$]*:\s|[A-Za-z_$][\w$]*:\s.*,$)/;

export function sniffKind(lines: readonly string[]): InputKind {
  const score: Record<Exclude<InputKind, 'unknown'>, number> = { 'proxy-log': 0, prometheus: 0, dig: 0, 'coredns-log': 0, kubectl: 0 };
  let shortAnswers = 0;
  let nonBlank = 0;
  const prefixes = new CollectorPrefixReader();
  const json = new JsonRecordAssembler();
  const scoreLine = (content: string) => {
    const line = content.replace(/^\uFEFF/, '').trimEnd();
    if (line === '' || isPasteNoise(line) || nonBlank >= SNIFF_LINES) return;
    if (json.active || JsonRecordAssembler.opens(line)) {
      const assembled = json.feed(line, 0);
      if (assembled.done === true) {
        nonBlank++;
        if (parseProxyLogPayload(assembled.text)) score['proxy-log'] += 2;
        else if (isKubeObjectJson(assembled.text)) score.kubectl += 3;
      } else if (assembled.done === 'abandoned') {
        for (const l of assembled.lines) scoreOne(l.text.trim());
      }
      return;
    }
    scoreOne(line);
  };
  let sourceLines = 0;
  const scoreOne = (line: string) => {
    if (line === '') return;
    nonBlank++;
    if (SOURCE_CODE.test(line)) sourceLines++;
    else if (PROM_COMMENT.test(line)) score.prometheus += 2;
    else if (DIG_MARKER.test(line) || DIG_YAML.test(line)) score.dig += 3;
    else if (COREDNS_QUERY.test(line) || COREDNS_QUERY_CLF.test(line)) score['coredns-log'] += 3;
    else if (COREDNS_OTHER.test(line) || COREDNS_MESSAGE.test(line)) score['coredns-log'] += 1;
    else if (RR_LINE.test(line)) score.dig += 1;
    else if (isShortAnswer(line.replace(SHORT_IDENTIFY_SUFFIX, ''))) shortAnswers++;
    else if (looksLikeKlog(line)) {
      // klog is any Go program's (CoreDNS's kubernetes plugin too); its source path tells whose.
      if (line.includes('coredns')) score['coredns-log'] += 2;
      else if (parseProxyLogPayload(line)) score['proxy-log'] += 1;
    } else if (parseProxyLogPayload(line)) score['proxy-log'] += 2;
    else if (PROM_SAMPLE.test(line)) score.prometheus += 1;
    else {
      // A pasted proxy line (quoted, damaged, a fragment): weaker evidence when it has no level.
      const pasted = parsePastedProxyLine(line);
      if (pasted) score['proxy-log'] += pasted.levelAbsent ? 1 : 2;
      else score.kubectl += kubectlSniffScore(line);
    }
  };
  lines.forEach((raw, i) => {
    const collected = prefixes.feed(i === 0 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw, i + 1);
    const displaced = prefixes.takeDisplaced();
    if (displaced) scoreLine(displaced.content);
    if (collected) scoreLine(collected.content);
  });
  for (const l of json.flush()) scoreOne(l.text.trim());
  // `dig +short` prints nothing but rdata: only call it dig when every line looks like that.
  if (nonBlank > 0 && shortAnswers === nonBlank) return 'dig';
  if (sourceLines > 0 && sourceLines * 3 >= nonBlank) return 'unknown';
  let best: InputKind = 'unknown';
  let bestScore = 0;
  for (const [kind, s] of Object.entries(score) as [InputKind, number][]) {
    if (s > bestScore) {
      best = kind;
      bestScore = s;
    }
  }
  // Describe output that ends with a proxy log tail is a proxy log; its parser reads the describe lines too.
  return best === 'kubectl' && score['proxy-log'] > 0 ? 'proxy-log' : best;
}

function isShortAnswer(line: string): boolean {
  return SHORT_SRV.test(line) || SHORT_IP.test(line) || SHORT_NAME.test(line);
}
