import type { InputKind } from '../core/types.js';
import type { ParserFactory } from './parser.js';
import { createPrometheusParser } from './prometheus.js';
import { createProxyLogParser } from './proxy-log.js';

/** The parser for each input kind; kinds without one are recognised but not analysed. */
export const PARSERS: Partial<Record<InputKind, ParserFactory>> = {
  'proxy-log': createProxyLogParser,
  prometheus: createPrometheusParser,
};
