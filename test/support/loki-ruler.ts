// Checks for Loki ruler files without a Loki: every expr must parse with Grafana's own LogQL grammar
// (@grafana/lezer-logql, the parser behind Grafana's Loki query editor) to a tree with no error
// nodes, and the file must have the ruler's shape (Prometheus-style groups of alerting rules).

import { parser } from '@grafana/lezer-logql';
import { Ajv } from 'ajv';

export interface LogqlProblem {
  offset: number;
  context: string;
}

/** Error nodes in the LogQL parse tree; empty when the grammar accepts the whole expression. */
export function logqlProblems(expr: string): LogqlProblem[] {
  const problems: LogqlProblem[] = [];
  parser.parse(expr).iterate({
    enter: (node) => {
      if (node.type.isError) problems.push({ offset: node.from, context: expr.slice(Math.max(0, node.from - 20), node.from + 20) });
    },
  });
  return problems;
}

const DURATION = '^([0-9]+(ms|s|m|h|d|w|y))+$';
const LABEL_NAME = '^[a-zA-Z_][a-zA-Z0-9_]*$';

const RULER_FILE_SCHEMA = {
  type: 'object',
  required: ['groups'],
  additionalProperties: false,
  properties: {
    groups: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['name', 'rules'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1 },
          interval: { type: 'string', pattern: DURATION },
          limit: { type: 'integer', minimum: 0 },
          rules: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              required: ['alert', 'expr', 'labels', 'annotations'],
              additionalProperties: false,
              properties: {
                alert: { type: 'string', pattern: LABEL_NAME },
                expr: { type: 'string', minLength: 1 },
                for: { type: 'string', pattern: DURATION },
                labels: { type: 'object', propertyNames: { pattern: LABEL_NAME }, additionalProperties: { type: 'string' } },
                annotations: { type: 'object', propertyNames: { pattern: LABEL_NAME }, additionalProperties: { type: 'string' } },
              },
            },
          },
        },
      },
    },
  },
} as const;

const ajv = new Ajv({ allErrors: true });
const validateShape = ajv.compile(RULER_FILE_SCHEMA);

/** Structural problems of a parsed ruler file: schema violations and duplicate group names (the ruler rejects those). */
export function rulerFileProblems(file: unknown): string[] {
  const problems: string[] = [];
  if (!validateShape(file)) problems.push(...(validateShape.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`));
  const groups = (file as { groups?: { name?: string }[] } | null)?.groups;
  if (Array.isArray(groups)) {
    const seen = new Set<string>();
    for (const g of groups) {
      if (g.name && seen.has(g.name)) problems.push(`duplicate group name ${g.name}`);
      if (g.name) seen.add(g.name);
    }
  }
  return problems;
}

// ---------------------------------------------------------------- the pipeline on real line shapes

/**
 * Line filters (`|= "x"`, `|~ "re"`, `!= "x"`, `!~ "re"`), regexp stages and regex label filters (`| l=~"re"`, `| l!~"re"`)
 * of a LogQL pipeline, in order, run the way Loki runs them: null when the line is dropped.
 */
export function runPipeline(expr: string, line: string): Record<string, string> | null {
  const labels: Record<string, string> = {};
  // A quoted filter's escapes (`\"`) are also valid JavaScript regex escapes, so its text is used as is.
  for (const m of expr.matchAll(
    /\|= "([^"]*)"|\|~ "((?:[^"\\]|\\.)*)"|\| regexp `([^`]*)`|\| (\w+)(=~|!~)("(?:[^"\\]|\\.)*")|!= "([^"]*)"|!~ "((?:[^"\\]|\\.)*)"/g,
  )) {
    if (m[1] !== undefined && !line.includes(m[1])) return null;
    if (m[2] !== undefined && !new RegExp(m[2]).test(line)) return null;
    if (m[7] !== undefined && line.includes(m[7])) return null;
    if (m[8] !== undefined && new RegExp(m[8]).test(line)) return null;
    if (m[3] !== undefined) {
      // RE2 named groups `(?P<name>…)` are JS `(?<name>…)`; a regexp stage that does not match keeps the line.
      const found = new RegExp(m[3].replace(/\(\?P</g, '(?<')).exec(line);
      if (found?.groups) for (const [k, v] of Object.entries(found.groups)) if (v !== undefined) labels[k] = v;
    }
    if (m[4] !== undefined) {
      // Label regexes are anchored; a missing label is the empty string. RE2's leading (?i) is JS's i flag.
      const source = JSON.parse(m[6]!) as string;
      const re = new RegExp(`^(?:${source.replace(/^\(\?i\)/, '')})$`, source.startsWith('(?i)') ? 'i' : '');
      if (re.test(labels[m[4]] ?? '') !== (m[5] === '=~')) return null;
    }
  }
  return labels;
}
