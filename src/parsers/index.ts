import type { InputKind } from '../core/types.js';
import { corednsLogSniff, createCorednsLogParser } from './coredns-log.js';
import { createDigParser, digSniff } from './dig.js';
import { createKubectlParser, kubectlSniff } from './kubectl.js';
import { createLinkerdCliParser, linkerdCliSniff } from './linkerd-cli.js';
import type { FormatSniff, ParserFactory } from './parser.js';
import { createPrometheusParser, prometheusSniff } from './prometheus.js';
import { createProxyLogParser } from './proxy-log.js';
import { proxyLogSniff } from './proxy-log-sniff.js';

/** The parser for each input kind; `unknown` inputs are listed but not analysed. */
export const PARSERS: Partial<Record<InputKind, ParserFactory>> = {
  'proxy-log': createProxyLogParser,
  prometheus: createPrometheusParser,
  dig: createDigParser,
  'coredns-log': createCorednsLogParser,
  kubectl: createKubectlParser,
  'linkerd-cli': createLinkerdCliParser,
};

/**
 * How each format is told from an input's first lines, declared beside its parser. The order is
 * the tie-break: of two kinds with the same score, the earlier wins.
 */
export const FORMAT_SNIFFS: readonly FormatSniff[] = [proxyLogSniff, prometheusSniff, digSniff, corednsLogSniff, kubectlSniff, linkerdCliSniff];
