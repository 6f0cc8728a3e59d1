// SARIF 2.1.0 as GitHub code scanning accepts it (lessons from kube-linter and the ESLint SARIF
// formatter): one rule entry per registered rule with the help text repeated (GitHub ignores
// helpUri), every result with a physical location and startLine ≥ 1, URIs relative to the working
// directory, a results array even when empty, suppressed findings as `suppressions`, and input,
// rule and configuration problems as invocation notifications.

import { pathToFileURL } from 'node:url';
import { TOOL_NAME, TOOL_VERSION } from '../../core/docs.js';
import { findSection, docSections, readRuleDocs } from '../../core/rule-docs.js';
import type { AnyRule, Severity, SourceLocation } from '../../core/types.js';
import { docsUrlFor } from '../../core/docs.js';
import { RULES } from '../../rules/index.js';
import type { Report, ReportFinding, SuppressedFinding } from '../report.js';
import { atOrAbove } from '../severity.js';
import { artifactLocationFor } from './artifact-uri.js';
import type { FormatOptions } from './options.js';
import { stringifyWellFormed } from '../../util/json-safe.js';

const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
const INFORMATION_URI = 'https://github.com/linkerd-doctor/linkerd-doctor';
const MAX_LOCATIONS = 10;
const FINGERPRINT_KEY = 'linkerdDoctor/v1';

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { error: 'error', warning: 'warning', info: 'note' };
const BASELINE_STATE = { new: 'new', worse: 'updated', unchanged: 'unchanged' } as const;

type Json = Record<string, unknown>;

export function formatSarif(report: Report, options: FormatOptions): string {
  const cwd = options.cwd ?? process.cwd();
  const rules = [...RULES];
  // Rules a merged report mentions but this build does not know still get an entry, so every
  // result has a ruleIndex.
  for (const id of new Set([...report.findings, ...report.suppressedFindings].map((f) => f.ruleId))) {
    if (!rules.some((r) => r.meta.id === id)) rules.push(placeholderRule(id));
  }
  const ruleIndex = (id: string) => rules.findIndex((r) => r.meta.id === id);
  const physical = (loc: SourceLocation) => physicalLocation(loc, cwd);

  const minSeverity = options.minSeverity ?? 'info';
  const suppressed = report.suppressedFindings.filter((f) => atOrAbove(f.severity, minSeverity));
  const results = [...options.findings, ...suppressed].map((f) => result(f, report, ruleIndex(f.ruleId), physical));

  const run: Json = {
    tool: {
      driver: {
        name: TOOL_NAME,
        version: TOOL_VERSION,
        semanticVersion: TOOL_VERSION,
        informationUri: INFORMATION_URI,
        rules: rules.map((r) => ruleDescriptor(r, report)),
      },
    },
    invocations: [invocation(report, ruleIndex, physical)],
    originalUriBaseIds: { SRCROOT: { uri: pathToFileURL(cwd).href.replace(/\/?$/, '/') } },
    columnKind: 'utf16CodeUnits',
    results,
  };
  if (report.baseline) run.properties = { baseline: { file: report.baseline.file, fixed: report.baseline.fixed.length, stale: report.baseline.stale.length } };
  return stringifyWellFormed({ $schema: SARIF_SCHEMA, version: '2.1.0', runs: [run] }, 2) + '\n';
}

function ruleDescriptor(rule: AnyRule, report: Report): Json {
  const { meta } = rule;
  const docs = readRuleDocs(meta.id);
  const url = docsUrlFor(meta.id);
  const fix = docs ? findSection(docSections(docs), 'How to fix it') : undefined;
  const text = [meta.description, fix ? `How to fix it:\n${fix}` : '', `Documentation: ${url}`].filter(Boolean).join('\n\n');
  return {
    id: meta.id,
    name: pascalCase(meta.id),
    shortDescription: { text: meta.title },
    fullDescription: { text: meta.description },
    help: { text, markdown: docs ?? `${meta.description}\n\n[Documentation](${url})` },
    helpUri: url,
    defaultConfiguration: { level: LEVEL[meta.defaultSeverity as Severity], enabled: !report.disabledRules.includes(meta.id) },
    properties: { code: meta.code, inputs: meta.inputs, tags: ['linkerd', ...meta.inputs] },
  };
}

function result(f: ReportFinding | SuppressedFinding, report: Report, index: number, physical: (l: SourceLocation) => Json): Json {
  const locations = (f.locations.length > 0 ? f.locations : [fallbackLocation(f, report)])
    .slice(0, MAX_LOCATIONS)
    .map((l) => ({ physicalLocation: physical(l) }));
  const out: Json = {
    ruleId: f.ruleId,
    ruleIndex: index,
    level: LEVEL[f.severity],
    kind: 'fail',
    message: { text: `${f.title}: ${f.message}` },
    locations,
    partialFingerprints: { [FINGERPRINT_KEY]: f.fingerprint },
    properties: {
      ...(f.code ? { code: f.code } : {}),
      severity: f.severity,
      subject: f.subject,
      ...(f.keyFigure ? { keyFigure: f.keyFigure } : {}),
      remediation: f.remediation,
      docsUrl: f.docsUrl,
    },
  };
  if (f.baseline) out.baselineState = BASELINE_STATE[f.baseline.state];
  if ('suppression' in f) {
    out.suppressions = [
      {
        kind: 'external',
        status: 'accepted',
        justification:
          f.suppression.reason ??
          `suppressed on the command line with --suppress ${f.suppression.rule}${f.suppression.subject ? `=${f.suppression.subject}` : ''}`,
        properties: { source: f.suppression.source, ...(f.suppression.subject ? { subject: f.suppression.subject } : {}) },
      },
    ];
  }
  return out;
}

/** A result needs a location: without one, point at the first input the rule reads. */
function fallbackLocation(f: ReportFinding, report: Report): SourceLocation {
  const rule = RULES.find((r) => r.meta.id === f.ruleId);
  const input = report.inputs.find((i) => rule?.meta.inputs.includes(i.kind)) ?? report.inputs[0];
  return { path: input?.path ?? '-', line: 1 };
}

function physicalLocation(loc: SourceLocation, cwd: string): Json {
  const artifact = artifactLocationFor(loc.path, cwd);
  const physical: Json = {
    artifactLocation: { uri: artifact.uri, uriBaseId: 'SRCROOT' },
    region: { startLine: Math.max(1, Math.floor(loc.line) || 1) },
  };
  if (artifact.archiveMember !== undefined) physical.properties = { archiveMember: artifact.archiveMember };
  return physical;
}

function invocation(report: Report, ruleIndex: (id: string) => number, physical: (l: SourceLocation) => Json): Json {
  const ruleRef = (id: string) => (ruleIndex(id) >= 0 ? { associatedRule: { id, index: ruleIndex(id) } } : {});
  const execution: Json[] = report.errors.map((e) => {
    if (e.path.startsWith('rule:')) {
      const id = e.path.slice('rule:'.length);
      return { level: 'error', message: { text: `${id}: ${e.message}` }, descriptor: { id: 'rule-failure' }, ...ruleRef(id) };
    }
    return {
      level: 'error',
      message: { text: `${e.path}${e.line ? `:${e.line}` : ''}: ${e.message}` },
      descriptor: { id: 'input-error' },
      locations: [{ physicalLocation: physical({ path: e.path, line: e.line ?? 1 }) }],
    };
  });
  const configuration: Json[] = [
    ...report.skippedRules.map((s) => ({
      level: 'note',
      message: { text: `${s.ruleId} was not evaluated: ${s.reason}` },
      descriptor: { id: 'rule-skipped' },
      ...ruleRef(s.ruleId),
    })),
    ...report.disabledRules.map((id) => ({
      level: 'note',
      message: { text: `${id} is disabled in the config` },
      descriptor: { id: 'rule-disabled' },
      ...ruleRef(id),
    })),
    ...report.suppressions
      .filter((s) => s.matched === 0)
      .map((s) => ({
        level: 'warning',
        message: { text: `unused suppression ${s.rule}${s.subject ? `=${s.subject}` : ''} (${s.source}): it matched no finding` },
        descriptor: { id: 'unused-suppression' },
        ...ruleRef(s.rule),
      })),
    ...(report.baseline?.stale ?? []).map((s) => ({
      level: 'warning',
      message: { text: `stale baseline entry ${s.ruleId} "${s.title}": ${s.reason}` },
      descriptor: { id: 'stale-baseline-entry' },
      ...ruleRef(s.ruleId),
    })),
  ];
  return { executionSuccessful: report.errors.length === 0, toolExecutionNotifications: execution, toolConfigurationNotifications: configuration };
}

function placeholderRule(id: string): AnyRule {
  return {
    meta: { id, code: '', title: id, description: id, defaultSeverity: 'warning', inputs: [], defaultOptions: {}, optionSchema: {} },
    createState: () => ({}),
    visitors: {},
    merge: () => {},
    finish: () => [],
  };
}

function pascalCase(id: string): string {
  return id
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}
