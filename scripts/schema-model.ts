// The JSON Schemas of the report and the config, built from the code (see scripts/schema.ts).
// Draft-07: what yaml-language-server, VS Code and ajv's default build read.
//
// The report description follows src/report/report.ts. schemaVersion 1 promises additive
// changes only (docs/report-format.md), so objects allow properties not listed here: a consumer
// validating against this schema keeps working when a field is added, and the test still checks
// every listed field's type.

import { INPUT_KINDS, SEVERITIES } from '../src/core/types.js';
import { TOOL_NAME } from '../src/core/docs.js';
import { RULES } from '../src/rules/index.js';

type Schema = Record<string, unknown>;

import { SCHEMA_BASE } from '../src/config/schema.js';

const str = (description?: string): Schema => ({ type: 'string', ...(description ? { description } : {}) });
const int = (description?: string): Schema => ({ type: 'integer', minimum: 0, ...(description ? { description } : {}) });
const num = (description?: string): Schema => ({ type: 'number', ...(description ? { description } : {}) });
const arr = (items: Schema, description?: string): Schema => ({ type: 'array', items, ...(description ? { description } : {}) });
const ref = (name: string): Schema => ({ $ref: `#/definitions/${name}` });
const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });

/** An object with these properties (required unless listed in `optional`); more may be added. */
function obj(properties: Record<string, Schema>, optional: readonly string[] = [], description?: string): Schema {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    properties,
  };
}

const severity: Schema = { enum: [...SEVERITIES] };
/**
 * `error`: an input or rule failed, so the verdict is not a pass (issue 18's third status);
 * `incomplete`: no failing finding, but an input was mostly not understood (issue 45).
 */
const STATUSES = ['pass', 'incomplete', 'fail', 'error'];
const keyFigure = obj({ name: str(), value: num() });
const subject = obj(
  { namespace: str(), pod: str(), workload: str(), target: str() },
  ['namespace', 'pod', 'workload', 'target'],
  'What the finding is about; any subset of the fields.',
);

export function buildReportSchema(): Schema {
  const finding = obj(
    {
      ruleId: { enum: RULES.map((r) => r.meta.id), description: 'The rule that produced the finding (`linkerd-doctor rules`).' },
      severity,
      kind: {
        type: 'string',
        description:
          'Stable message id within the rule (e.g. `destination-storm`); with the rule and subject it makes the fingerprint, so rewording a title does not change it.',
      },
      title: str(),
      message: str(),
      subject: ref('subject'),
      evidence: { type: 'object', description: 'Rule-specific figures; each rule documents its keys in docs/rules/<id>.md ("Evidence").' },
      locations: arr(obj({ path: str(), line: int() })),
      remediation: str(),
      docsUrl: str(),
      keyFigure: ref('keyFigure'),
      fingerprint: { type: 'string', pattern: '^[0-9a-f]{32}$', description: 'Stable id of the finding across runs (rule, subject, key-figure name, kind).' },
      baseline: obj(
        { state: { enum: ['new', 'worse', 'unchanged'] }, reason: str(), previous: obj({ severity, keyFigure: ref('keyFigure') }, ['keyFigure']) },
        ['reason', 'previous'],
        'How the finding compares with --baseline; absent without one.',
      ),
      fixStatus: arr(
        obj({
          fix: str(),
          symptom: str(),
          fixedIn: obj({ proxy: str(), linkerd: str() }),
          status: { enum: ['fixed', 'not-fixed', 'mixed', 'unknown'] },
          basis: str(),
          versions: arr(obj({ version: str(), linkerd: str(), pods: int(), hasFix: { type: 'boolean' } })),
          note: str(),
          references: arr(str()),
        }),
        'Whether the proxies concerned run the release that fixes the cause (docs/incidents.md).',
      ),
    },
    ['keyFigure', 'baseline', 'fixStatus'],
  );
  const suppression = obj({ rule: str(), subject: str(), reason: str(), source: { enum: ['config', 'flag'] } }, ['subject', 'reason']);
  const baselineEntry = obj({ fingerprint: str(), ruleId: str(), subject: ref('subject'), kind: str(), severity, title: str(), keyFigure: ref('keyFigure') }, [
    'keyFigure',
  ]);
  const incident = obj({
    id: str(),
    severity,
    headline: str(),
    findings: arr({
      type: 'object',
      required: ['ruleId', 'role'],
      properties: { ruleId: str(), role: str(), severity, title: str(), subject: ref('subject') },
    }),
    links: arr(str()),
    ordering: obj({ confidence: { enum: ['likely', 'unclear'] }, reasoning: arr(str()) }),
    window: nullable(obj({ start: str(), end: str() })),
    timeline: nullable({ type: 'object' }),
    firstAction: str(),
  });
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: `${SCHEMA_BASE}/report.schema.json`,
    title: `${TOOL_NAME} report (--format json, schemaVersion 1)`,
    description: 'Field meanings: docs/report-format.md. Generated by `npm run schema` from the code; do not edit by hand.',
    type: 'object',
    required: [
      'schemaVersion',
      'tool',
      'status',
      'failOn',
      'inputs',
      'findings',
      'skippedRules',
      'evaluatedRules',
      'disabledRules',
      'suppressedFindings',
      'suppressions',
      'baseline',
      'errors',
      'summary',
    ],
    properties: {
      schemaVersion: { const: 1 },
      tool: obj({ name: { const: TOOL_NAME }, version: str() }),
      status: {
        enum: STATUSES,
        description:
          'pass: no failing finding and every input read; incomplete: no failing finding, but an input was mostly not understood (its status is incomplete); fail: at least one finding at or above failOn; error: an input or rule failed.',
      },
      failOn: { enum: [...SEVERITIES, 'none'] },
      failOnUnread: { type: 'boolean', description: 'Whether status incomplete fails the run (exit 1): --fail-on-unread, on by default under CI=true.' },
      inputs: arr(
        obj(
          {
            path: str(),
            kind: { enum: [...INPUT_KINDS] },
            bytes: int(),
            records: int(),
            unparsed: int(),
            lines: int(),
            status: {
              enum: ['read', 'incomplete'],
              description: 'incomplete: no line was read, or more than half did not parse (a proxy log: only when no line was read).',
            },
            pod: str(),
            namespace: str(),
            container: str(),
          },
          ['pod', 'namespace', 'container', 'lines', 'status'],
        ),
      ),
      findings: arr(ref('finding')),
      skippedRules: arr(obj({ ruleId: str(), reason: str() })),
      evaluatedRules: arr(str()),
      disabledRules: arr(str()),
      suppressedFindings: arr({ allOf: [ref('finding'), { type: 'object', required: ['suppression'], properties: { suppression: ref('suppression') } }] }),
      suppressions: arr({ allOf: [ref('suppression'), { type: 'object', required: ['matched'], properties: { matched: int() } }] }),
      baseline: nullable(
        obj({
          file: str(),
          tolerancePercent: num(),
          new: int(),
          worse: int(),
          unchanged: int(),
          fixed: arr(ref('baselineEntry')),
          stale: arr({ allOf: [ref('baselineEntry'), { type: 'object', required: ['reason'], properties: { reason: str() } }] }),
        }),
      ),
      errors: arr(obj({ path: str(), line: int(), message: str() }, ['line'])),
      summary: obj({ ...Object.fromEntries(SEVERITIES.map((s) => [s, int()])), suppressed: int(), failing: int(), incomplete: int() }, ['incomplete']),
      incidents: arr(ref('incident')),
      proxyVersions: arr(obj({ version: str(), linkerd: str(), pods: int() })),
    },
    definitions: { finding, subject, keyFigure, suppression, baselineEntry, incident },
  };
}

/** The config schema is built in src/config/schema.ts, where the loader validates with it. */
export { buildConfigSchema } from '../src/config/schema.js';
