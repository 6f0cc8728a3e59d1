import type { InputKind } from '../core/types.js';
import { createCorednsLogParser } from './coredns-log.js';
import { createDigParser } from './dig.js';
import { createKubectlParser } from './kubectl.js';
import type { ParserFactory } from './parser.js';
import { createPrometheusParser } from './prometheus.js';
import { createProxyLogParser } from './proxy-log.js';

/** The parser for each input kind; `unknown` inputs are listed but not analysed. */
export const PARSERS: Partial<Record<InputKind, ParserFactory>> = {
  'proxy-log': createProxyLogParser,
  prometheus: createPrometheusParser,
  dig: createDigParser,
  'coredns-log': createCorednsLogParser,
  kubectl: createKubectlParser,
};
