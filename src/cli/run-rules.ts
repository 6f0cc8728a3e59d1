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
import type { Token } from 'marked';
import { closest, didYouMean } from '../util/did-you-mean.js';
import { explainPageTokens } from './explain-pages.js';
import { writeStdout } from './output.js';
import { terminalWidth, useColor } from './terminal.js';
import { wrap } from '../report/formats/text.js';

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

/** Narrowest description column worth a table; below it each rule is a heading and a paragraph. */
const MIN_DESCRIPTION_WIDTH = 30;

export function formatRulesTable(listing: readonly RuleListing[], width = terminalWidth(process.stdout)): string {
  const footer = `\n${wrap(`${listing.length} rule(s). \`linkerd-doctor explain RULE\` prints a rule's docs page.`, width).join('\n')}\n`;
  const rows = listing.map((r) => [r.id, r.code, r.defaultSeverity, r.inputs.join(', ')]);
  const head = ['ID', 'CODE', 'SEVERITY', 'INPUTS'];
  // Each cell has one space of padding either side, and every column one border.
  const fixed = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)) + 2);
  const descriptionWidth = width - fixed.reduce((a, b) => a + b, 0) - (head.length + 2);
  if (descriptionWidth >= MIN_DESCRIPTION_WIDTH) {
    const table = new Table({ head: [...head, 'DESCRIPTION'], style: { head: [], border: [] }, colWidths: [...fixed, descriptionWidth], wordWrap: true });
    listing.forEach((r, i) => table.push([...rows[i]!, r.description]));
    return `${table.toString()}\n${footer}`;
  }
  const lines: string[] = [];
  for (const r of listing) {
    lines.push(...wrap(`${r.id} (${r.code}) · ${r.defaultSeverity} · reads ${r.inputs.join(', ')}`, width, 2));
    lines.push(...wrap(r.description, width - 2).map((l) => `  ${l}`), '');
  }
  return lines.join('\n') + footer;
}

export async function runRules(flags: { format: string }): Promise<number> {
  const listing = ruleListing();
  await writeStdout(flags.format === 'json' ? JSON.stringify(listing, null, 2) + '\n' : formatRulesTable(listing));
  return EXIT_CLEAN;
}

/** The rule's docs page for a terminal (or plain Markdown-ish text when piped and color is off). */
export async function renderRuleDocs(rule: AnyRule, color: boolean): Promise<string> {
  const tokens = await explainPageTokens('rules', rule.meta.id, () => readRuleDocs(rule.meta.id));
  if (tokens === null) throw new UsageError(`${rule.meta.id} has no docs page (docs/rules/${rule.meta.id}.md); see ${docsUrlFor(rule.meta.id)}`);
  const header = `${rule.meta.id} (${rule.meta.code}) · default severity ${rule.meta.defaultSeverity} · reads ${rule.meta.inputs.join(', ')}\n${docsUrlFor(rule.meta.id)}\n\n`;
  return header + (await renderTokens(tokens, color));
}

/** A catalogue entry of a rule (`explain trust-anchor-mismatch`, a known-signature signature), rendered like a rule page. */
export async function renderCatalogueEntryDocs(id: string, color: boolean): Promise<string | null> {
  const owner = RULES.find((r) => r.catalogue?.ids.includes(id));
  if (!owner?.catalogue) return null;
  const { meta, catalogue } = owner;
  const tokens = await explainPageTokens('entries', id, () => catalogue.page(id));
  const header = `${id} · ${catalogue.noun} of ${meta.id} (${meta.code}) · severity ${meta.defaultSeverity}\n${docsUrlFor(meta.id)}\n\n`;
  return header + (await renderTokens(tokens ?? [], color));
}

async function renderTokens(tokens: readonly Token[], color: boolean): Promise<string> {
  // Loaded here, not at start-up: oclif imports every command to read its flags, and `analyze`
  // needs no Markdown layout.
  const { renderTerminalTokens } = await import('./terminal-markdown.js');
  return renderTerminalTokens(tokens, { width: Math.min(terminalWidth(process.stdout), 100), color });
}

export async function runExplain(id: string | undefined, flags: { color?: boolean }): Promise<number> {
  const known = RULES.map((r) => r.meta.id).join(', ');
  if (!id) {
    process.stderr.write(`linkerd-doctor: explain needs a RULE (one of: ${known})\n`);
    return EXIT_USAGE_OR_INPUT;
  }
  const rule = resolveRule(id);
  const color = useColor(flags.color, process.stdout);
  if (!rule) {
    const entryPage = await renderCatalogueEntryDocs(id, color);
    if (entryPage !== null) {
      await writeStdout(entryPage);
      return EXIT_CLEAN;
    }
    const catalogues = RULES.flatMap((r) => (r.catalogue ? [{ rule: r.meta.id, ...r.catalogue }] : []));
    const candidates = [...RULES.flatMap((r) => [r.meta.id, r.meta.code]), ...catalogues.flatMap((c) => c.ids)];
    const what = ['rule', ...catalogues.map((c) => c.noun)].join(' or ');
    const lists = catalogues.map((c) => `; ${c.noun}s: linkerd-doctor explain ${c.rule}`).join('');
    process.stderr.write(
      `linkerd-doctor: explain: unknown ${what} ${JSON.stringify(id)}${didYouMean(closest(id, candidates))} (known rules: ${known}${lists})\n`,
    );
    return EXIT_USAGE_OR_INPUT;
  }
  try {
    await writeStdout(await renderRuleDocs(rule, color));
    return EXIT_CLEAN;
  } catch (err) {
    process.stderr.write(`linkerd-doctor: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT_USAGE_OR_INPUT;
  }
}
