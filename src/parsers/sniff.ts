// Decides an input's kind from its first lines, never from its name: bundles name files freely,
// and stdin has no name at all. Each format declares its own tests beside its parser
// (FormatSniff in parser.ts, listed in parsers/index.ts); this module runs them.

import type { InputKind } from '../core/types.js';
import { CollectorPrefixReader } from './collector-prefix.js';
import { JsonRecordAssembler, isPasteNoise } from './pasted.js';
import { FORMAT_SNIFFS } from './index.js';
import type { SniffClaim, SniffedKind, SniffTest } from './parser.js';

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

/**
 * Lines of program source (TypeScript, JavaScript, Go, Rust, Python…): declarations, imports,
 * comments, closing brackets. Source that quotes log lines (tests, a signature catalogue) is still
 * source, not a log: an input where such lines are the majority is not sniffed as anything.
 */
const SOURCE_CODE =
  /^\s*(?:(?:import|export|const|let|var|function|class|interface|type|enum|package|func|fn|pub|use|mod|impl|def|from|return|if|for|while|switch|case|async|await|describe|it|test)\b|\/\/|\/\*|\*(?:\s|\/|$)|#include\b|#!\/|[)}\]][)}\];,]*$|[{([]$|\{\s*[A-Za-z_$][\w$]*:\s|[A-Za-z_$][\w$]*:\s.*,$)/;

/** A line of JSON brackets and commas alone. */
const JSON_PUNCTUATION = /^[{}[\],]+$/;

/** Every format's sniff tests, in the order they run. */
const LINE_TESTS: readonly SniffTest[] = FORMAT_SNIFFS.flatMap((f) => f.tests.filter((t) => t.on === 'line')).sort((a, b) => a.order - b.order);
const JSON_TESTS: readonly SniffTest[] = FORMAT_SNIFFS.flatMap((f) => f.tests.filter((t) => t.on === 'json')).sort((a, b) => a.order - b.order);

function firstClaim(tests: readonly SniffTest[], text: string): SniffClaim | null {
  for (const test of tests) {
    const claim = test.claim(text);
    if (claim) return claim;
  }
  return null;
}

/**
 * The kind whose tests scored the head highest. Each format declares its tests beside its parser
 * (FORMAT_SNIFFS); here they run over the lines, once each, the first claim ending a line's scoring.
 */
export function sniffKind(lines: readonly string[]): InputKind {
  const score = new Map<SniffedKind, number>(FORMAT_SNIFFS.map((f) => [f.kind, 0]));
  /** Lines that name a kind only if every line does (`dig +short`). */
  const onlyIfAll = new Map<SniffedKind, number>();
  let nonBlank = 0;
  const prefixes = new CollectorPrefixReader();
  const json = new JsonRecordAssembler();
  /** Lines a format claimed with a score of 3 or more: a check line, a table header, a whole JSON document. */
  let sure = 0;
  const add = (claim: SniffClaim | null) => {
    if (!claim) return;
    if (claim.score >= 3) sure++;
    if (claim.onlyIfAll) onlyIfAll.set(claim.kind, (onlyIfAll.get(claim.kind) ?? 0) + 1);
    else score.set(claim.kind, (score.get(claim.kind) ?? 0) + claim.score);
  };
  const scoreLine = (content: string) => {
    const line = content.replace(/^\uFEFF/, '').trimEnd();
    if (line === '' || isPasteNoise(line) || nonBlank >= SNIFF_LINES) return;
    if (json.active || JsonRecordAssembler.opens(line)) {
      const assembled = json.feed(line, 0);
      if (assembled.done === true) {
        nonBlank++;
        add(firstClaim(JSON_TESTS, assembled.text));
      } else if (assembled.done === 'abandoned') {
        for (const l of assembled.lines) scoreOne(l.text.trim(), true);
      }
      return;
    }
    scoreOne(line);
  };
  let sourceLines = 0;
  /**
   * `jsonPart`: a line of a JSON document longer than the window (a whole `kubectl get pod -o json`):
   * its lines of brackets alone are the JSON's, not program source's, and say nothing either way.
   */
  const scoreOne = (line: string, jsonPart = false) => {
    if (line === '') return;
    if (jsonPart && JSON_PUNCTUATION.test(line)) return;
    nonBlank++;
    if (SOURCE_CODE.test(line)) sourceLines++;
    else add(firstClaim(LINE_TESTS, line));
  };
  lines.forEach((raw, i) => {
    const collected = prefixes.feed(i === 0 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw, i + 1);
    const displaced = prefixes.takeDisplaced();
    if (displaced) scoreLine(displaced.content);
    if (collected) scoreLine(collected.content);
  });
  for (const l of json.flush()) scoreOne(l.text.trim(), true);
  if (nonBlank > 0) for (const [kind, count] of onlyIfAll) if (count === nonBlank) return kind;
  // Program source quotes a log line here and there; output whose own lines say what it is (check
  // lines of `linkerd check` among `* pod` lists, JSON keys among brackets) is not source.
  if (sourceLines > 0 && sourceLines * 3 >= nonBlank && sure * 3 < sourceLines) return 'unknown';
  let best: SniffedKind | undefined;
  let bestScore = 0;
  for (const [kind, s] of score) {
    if (s > bestScore) {
      best = kind;
      bestScore = s;
    }
  }
  if (best === undefined) return 'unknown';
  const yieldsTo = FORMAT_SNIFFS.find((f) => f.kind === best)?.yieldsTo;
  return yieldsTo !== undefined && (score.get(yieldsTo) ?? 0) > 0 ? yieldsTo : best;
}
