// What `linkerd-doctor export-rules` does once its flags are parsed.

import { writeFileAtomic, writeStdout } from './output.js';
import { InputError, UsageError } from '../core/errors.js';
import { EXIT_USAGE_OR_INPUT } from '../report/exit-code.js';
import { buildRuleGroups, type BuildOptions } from '../export/build.js';
import { loadRuleOptionOverrides } from '../export/config.js';
import { renderRuleFile } from '../export/render.js';
import {
  DEFAULT_SETTINGS,
  EXPORT_FORMATS,
  EXPORT_TARGETS,
  SEVERITY_MAPS,
  type ExportFormat,
  type ExportSettings,
  type ExportTarget,
  type SeverityMap,
} from '../kit/export/types.js';
import { dict } from '../util/dict.js';

export interface ExportRulesFlags {
  target: string;
  format?: string;
  config?: string;
  output?: string;
  'namespace-label'?: string;
  'pod-label'?: string;
  'proxy-selector'?: string;
  'log-selector'?: string;
  'coredns-selector'?: string;
  'coredns-log-selector'?: string;
  'group-by'?: string[];
  name?: string;
  label?: string[];
  'severity-map'?: string;
  quiet?: boolean;
}

export interface ExportIo {
  stdout: (text: string) => Promise<void>;
  stderr: (text: string) => void;
  cwd: string;
  lookup?: BuildOptions['lookup'];
}

const DEFAULT_IO: ExportIo = { stdout: writeStdout, stderr: (t) => void process.stderr.write(t), cwd: process.cwd() };

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

// Kubernetes object names and metadata labels (apimachinery's validation): a PrometheusRule the API
// server would reject must be a usage error here, not a file that fails at `kubectl apply`.
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_SUBDOMAIN_MAX = 253;
const LABEL_KEY_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;
const LABEL_PART_MAX = 63;

export async function runExportRules(flags: ExportRulesFlags, io: ExportIo = DEFAULT_IO): Promise<number> {
  try {
    const target = oneOf(flags.target, EXPORT_TARGETS, '--target') as ExportTarget;
    const format = oneOf(flags.format ?? 'yaml', EXPORT_FORMATS, '--format') as ExportFormat;
    const severityMap = oneOf(flags['severity-map'] ?? 'alertmanager', SEVERITY_MAPS, '--severity-map') as SeverityMap;
    if (flags.name !== undefined) checkResourceName(flags.name);
    const labels = parseLabels(flags.label ?? []);
    const settings = settingsFrom(flags);
    const overrides = await loadRuleOptionOverrides(flags.config, io.cwd);
    const notice = (message: string) => {
      if (!flags.quiet) io.stderr(`linkerd-doctor: notice: ${message}\n`);
    };
    const groups = buildRuleGroups({ target, settings, overrides, notice, severityMap, ...(io.lookup ? { lookup: io.lookup } : {}) });
    if (groups.length === 0) throw new UsageError(`no rule in this build can be exported to ${target}`);
    const text = renderRuleFile(groups, { format, target, source: overrides.source, ...(flags.name ? { name: flags.name } : {}), labels });
    if (flags.output) await writeFileAtomic(flags.output, text);
    else await io.stdout(text);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) io.stderr(`linkerd-doctor: ${err.message}\n`);
    else if (err instanceof InputError) io.stderr(`linkerd-doctor: ${err.toLine()}\n`);
    else io.stderr(`linkerd-doctor: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT_USAGE_OR_INPUT;
  }
}

function settingsFrom(flags: ExportRulesFlags): ExportSettings {
  const settings: ExportSettings = {
    namespaceLabel: flags['namespace-label'] ?? DEFAULT_SETTINGS.namespaceLabel,
    podLabel: flags['pod-label'] ?? DEFAULT_SETTINGS.podLabel,
    proxySelector: flags['proxy-selector'] ?? DEFAULT_SETTINGS.proxySelector,
    logSelector: flags['log-selector'] ?? DEFAULT_SETTINGS.logSelector,
    corednsSelector: flags['coredns-selector'] ?? DEFAULT_SETTINGS.corednsSelector,
    corednsLogSelector: flags['coredns-log-selector'] ?? DEFAULT_SETTINGS.corednsLogSelector,
    groupBy: flags['group-by'] ?? DEFAULT_SETTINGS.groupBy,
  };
  for (const [flag, name] of [
    ['--namespace-label', settings.namespaceLabel],
    ['--pod-label', settings.podLabel],
    ...settings.groupBy.map((l) => ['--group-by', l]),
  ] as const) {
    if (!LABEL_NAME.test(name)) throw new UsageError(`${flag} ${JSON.stringify(name)} is not a valid label name`);
  }
  for (const [flag, value] of [
    ['--proxy-selector', settings.proxySelector],
    ['--log-selector', settings.logSelector],
    ['--coredns-selector', settings.corednsSelector],
    ['--coredns-log-selector', settings.corednsLogSelector],
  ] as const) {
    if (/^\s*\{|\}\s*$/.test(value)) throw new UsageError(`${flag} takes label matchers without braces, e.g. job="linkerd-proxy"`);
  }
  for (const [flag, value] of [
    ['--log-selector', settings.logSelector],
    ['--coredns-log-selector', settings.corednsLogSelector],
  ] as const) {
    if (value.trim() === '') throw new UsageError(`${flag} must not be empty: a LogQL query needs at least one stream matcher`);
  }
  return settings;
}

function parseLabels(pairs: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = dict();
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--label ${JSON.stringify(pair)} must be KEY=VALUE`);
    const [key, value] = [pair.slice(0, eq), pair.slice(eq + 1)];
    checkLabelKey(key);
    if (value.length > LABEL_PART_MAX || !LABEL_VALUE.test(value)) {
      throw new UsageError(
        `--label ${key}=${JSON.stringify(value)}: a label value must be at most ${LABEL_PART_MAX} characters of letters, digits, '-', '_' or '.', starting and ending with a letter or digit (or empty)`,
      );
    }
    labels[key] = value;
  }
  return labels;
}

/** metadata.name: an RFC 1123 DNS subdomain, as the API server requires of a PrometheusRule. */
function checkResourceName(name: string): void {
  if (name.length <= DNS_SUBDOMAIN_MAX && DNS_SUBDOMAIN.test(name)) return;
  throw new UsageError(
    `--name ${JSON.stringify(name)} is not a valid resource name: a Kubernetes metadata.name must be an RFC 1123 subdomain, at most ${DNS_SUBDOMAIN_MAX} characters of lower-case letters, digits, '-' and '.', starting and ending with a letter or digit (e.g. ${JSON.stringify(suggestName(name))})`,
  );
}

function suggestName(name: string): string {
  const cleaned = name
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/^[.-]+/, '');
  // Trailing '.' and '-' dropped by a scan: `[.-]+$` would be retried at every position of a run.
  let end = cleaned.length;
  while (end > 0 && (cleaned[end - 1] === '.' || cleaned[end - 1] === '-')) end--;
  const trimmed = cleaned.slice(0, end).slice(0, DNS_SUBDOMAIN_MAX);
  return trimmed === '' ? 'linkerd-doctor' : trimmed;
}

/** A label key: an optional DNS-subdomain prefix and `/`, then a name of at most 63 characters. */
function checkLabelKey(key: string): void {
  const slash = key.lastIndexOf('/');
  const [prefix, name] = slash === -1 ? [null, key] : [key.slice(0, slash), key.slice(slash + 1)];
  const prefixOk = prefix === null || (prefix.length <= DNS_SUBDOMAIN_MAX && DNS_SUBDOMAIN.test(prefix));
  if (prefixOk && name.length <= LABEL_PART_MAX && LABEL_KEY_NAME.test(name)) return;
  throw new UsageError(
    `--label ${JSON.stringify(key)} is not a valid label key: an optional DNS-subdomain prefix and '/', then at most ${LABEL_PART_MAX} characters of letters, digits, '-', '_' or '.', starting and ending with a letter or digit`,
  );
}

function oneOf(value: string, allowed: readonly string[], flag: string): string {
  if (!allowed.includes(value)) throw new UsageError(`${flag} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}`);
  return value;
}
