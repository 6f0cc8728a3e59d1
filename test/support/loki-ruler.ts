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
