// Markdown for the signature catalogue: the page `explain <signature-id>` prints, and
// docs/signatures.md (written by scripts/signatures-doc.ts; a test keeps it in sync).

import { KNOWN_FIXES } from '../../knowledge/fixes.js';
import { EXCERPT_MAX_LINES, SIGNATURES, type KnownSignature } from './catalogue.js';

function inlineCode(text: string): string {
  const ticks = text.includes('`') ? '``' : '`';
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

/** The page for one signature, with the same sections as a rule's docs page. */
export function renderSignaturePage(s: KnownSignature): string {
  const knownFix = s.knownFix ? KNOWN_FIXES.find((f) => f.id === s.knownFix) : undefined;
  const lines = [
    `# ${s.id}: ${s.title}`,
    '',
    `Signature of the known-signature rule (LD1100), family ${s.family}.`,
    '',
    '## What it means',
    '',
    s.meaning,
    '',
    '## Evidence',
    '',
    `Matches ${s.match.records.join(' and ')} lines containing ${s.match.literals.map(inlineCode).join(' or ')} and matching the pattern ${inlineCode(s.match.pattern)}` +
      `${s.match.levels ? ` at level ${s.match.levels.join('/')}` : ''}${s.match.maxUptimeSeconds !== undefined ? `, within the first ${s.match.maxUptimeSeconds} s of proxy uptime` : ''}.`,
    '',
    'Lines it was drawn from (pasted in a public thread, or built from the upstream call site named):',
    '',
    ...s.examples.flatMap((e) => ['```', e.line.trimEnd(), '```', `(${e.source}${e.note ? `; ${e.note}` : ''})`, '']),
    '## Likely causes',
    '',
    ...s.causes.map((c, i) => `${i + 1}. ${c}`),
    '',
    '## How to fix it (by version)',
    '',
    ...s.fix.map((f) => `- **${f.versions}**: ${f.action}`),
    ...(knownFix
      ? [`- Fixed upstream in ${knownFix.fixedInLinkerd} (proxy ${knownFix.fixedInProxy}): ${knownFix.change}. Until then: ${knownFix.mitigation}.`]
      : []),
    '',
    ...(s.coveredBy?.length
      ? [
          '## Sustained form',
          '',
          `When it lasts, ${s.coveredBy.map((r) => inlineCode(r)).join(' and ')} judge${s.coveredBy.length === 1 ? 's' : ''} it with thresholds. When ${s.coveredBy.length === 1 ? 'that rule reports' : 'one of them reports'} in the same run, this signature is listed in its finding (\`alsoMatched\`) instead of reported on its own.`,
          '',
        ]
      : []),
    ...(s.background
      ? [
          '## Background noise',
          '',
          `Healthy meshes log this now and then (rollouts, probes, keep-alive races), so its count in a full log means nothing alone. It is reported only from excerpts (inputs of at most ${EXCERPT_MAX_LINES} lines, what users paste), where no rate can be judged.`,
          '',
        ]
      : []),
    '## References',
    '',
    ...s.references.map((r) => `- ${r}`),
    '',
  ];
  return lines.join('\n');
}

/** docs/signatures.md: every signature, grouped by family, in catalogue order. */
export function renderSignatureCatalogue(): string {
  const families = [...new Set(SIGNATURES.map((s) => s.family))];
  const out = [
    '# Known signatures',
    '',
    '<!-- Generated from src/rules/known-signature/catalogue.ts by `node --import tsx scripts/signatures-doc.ts`; test/rules/known-signature.test.ts keeps it in sync. -->',
    '',
    `The [known-signature](rules/known-signature.md) rule (LD1100) recognises ${SIGNATURES.length} failure signatures from single log lines.`,
    'Each is drawn from a real line pasted in a public thread or from the upstream log call site it names. `linkerd-doctor explain <id>` prints the full entry.',
    '',
    'Every WARN/ERROR message the Linkerd components log at their latest release is listed in `data/inventory/inventory.json` (`npm run inventory`, see [inventory.md](inventory.md)) with its verdict: the signature below that recognises it, or why it needs none.',
    '',
  ];
  for (const family of families) {
    out.push(`## ${family}`, '', '| id | signature | matches | sustained form |', '|---|---|---|---|');
    for (const s of SIGNATURES.filter((e) => e.family === family)) {
      const matches = s.match.literals.map(inlineCode).join(' or ').replace(/\|/g, '\\|');
      out.push(`| ${s.id} | ${s.title}${s.background ? ' (background: excerpts only)' : ''} | ${matches} | ${s.coveredBy?.join(', ') ?? '–'} |`);
    }
    out.push('');
  }
  return out.join('\n');
}
