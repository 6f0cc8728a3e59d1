// `linkerd-doctor rules` and `linkerd-doctor explain RULE`: what the tool checks, from the rule
// registry and the docs pages, so users can discover a rule before it fires.

import Table from 'cli-table3';
import { resolveRule } from '../config/config.js';
import { docsUrlFor } from '../core/docs.js';
import { UsageError } from '../core/errors.js';
import { readRuleDocs } from '../core/rule-docs.js';
import type { AnyRule, RuleOptionSpec } from '../core/types.js';
import { EXIT_CLEAN, EXIT_USAGE_OR_INPUT } from '../report/exit-code.js';
import { RULES } from '../rules/index.js';
import { writeStdout } from './output.js';

export interface RuleListing {
  id: string;
  code: string;
  title: string;
  defaultSeverity: string;
  inputs: string[];
  description: string;
  docsUrl: string;
  options: { name: string; type: string; default: unknown; description: string; minimum?: number; maximum?: number }[];
}

export function ruleListing(rules: readonly AnyRule[] = RULES): RuleListing[] {
  return rules.map(({ meta }) => ({
    id: meta.id,
    code: meta.code,
    title: meta.title,
    defaultSeverity: meta.defaultSeverity,
    inputs: [...meta.inputs],
    description: meta.description,
    docsUrl: docsUrlFor(meta.id),
    options: Object.entries(meta.optionSchema as Record<string, RuleOptionSpec>).map(([name, spec]) => ({
      name,
      type: spec.type,
      default: (meta.defaultOptions as Record<string, unknown>)[name],
      description: spec.description,
      ...(spec.minimum !== undefined ? { minimum: spec.minimum } : {}),
      ...(spec.maximum !== undefined ? { maximum: spec.maximum } : {}),
    })),
  }));
}

export function formatRulesTable(listing: readonly RuleListing[], width = process.stdout.columns ?? 120): string {
  const descriptionWidth = Math.max(30, Math.min(80, width - 60));
  const table = new Table({
    head: ['ID', 'CODE', 'SEVERITY', 'INPUTS', 'DESCRIPTION'],
    style: { head: [], border: [] },
    colWidths: [null, null, null, null, descriptionWidth],
    wordWrap: true,
  });
  for (const r of listing) table.push([r.id, r.code, r.defaultSeverity, r.inputs.join(', '), r.description]);
  return `${table.toString()}\n\n${listing.length} rule(s). \`linkerd-doctor explain RULE\` prints a rule's docs page.\n`;
}

export async function runRules(flags: { format: string }): Promise<number> {
  const listing = ruleListing();
  await writeStdout(flags.format === 'json' ? JSON.stringify(listing, null, 2) + '\n' : formatRulesTable(listing));
  return EXIT_CLEAN;
}

/** The rule's docs page for a terminal (or plain Markdown-ish text when piped and color is off). */
export async function renderRuleDocs(rule: AnyRule, color: boolean): Promise<string> {
  const markdown = readRuleDocs(rule.meta.id);
  if (markdown === null) throw new UsageError(`${rule.meta.id} has no docs page (docs/rules/${rule.meta.id}.md); see ${docsUrlFor(rule.meta.id)}`);
  const header = `${rule.meta.id} (${rule.meta.code}) · default severity ${rule.meta.defaultSeverity} · reads ${rule.meta.inputs.join(', ')}\n${docsUrlFor(rule.meta.id)}\n\n`;
  // Loaded here, not at start-up: oclif imports every command to read its flags, and `analyze`
  // needs no Markdown lexer.
  const { renderTerminalMarkdown } = await import('./terminal-markdown.js');
  return header + renderTerminalMarkdown(markdown, { width: explainWidth(), color });
}

/** The terminal's width (or COLUMNS), 80 when unknown, at most 100: long lines read badly. */
function explainWidth(): number {
  const columns = process.stdout.columns || Number(process.env.COLUMNS) || 80;
  return Math.min(columns, 100);
}

export async function runExplain(id: string | undefined, flags: { color?: boolean }): Promise<number> {
  const known = RULES.map((r) => r.meta.id).join(', ');
  if (!id) {
    process.stderr.write(`linkerd-doctor: explain needs a RULE (one of: ${known})\n`);
    return EXIT_USAGE_OR_INPUT;
  }
  const rule = resolveRule(id);
  if (!rule) {
    process.stderr.write(`linkerd-doctor: unknown rule ${JSON.stringify(id)}; known rules: ${known}\n`);
    return EXIT_USAGE_OR_INPUT;
  }
  try {
    const color = flags.color ?? (process.stdout.isTTY === true && !process.env.NO_COLOR);
    await writeStdout(await renderRuleDocs(rule, color));
    return EXIT_CLEAN;
  } catch (err) {
    process.stderr.write(`linkerd-doctor: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT_USAGE_OR_INPUT;
  }
}
