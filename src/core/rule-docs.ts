// Where a rule's docs page lives in the package (docs/rules/<id>.md, shipped in "files"), for
// `explain`, the SARIF help text and the meta-test. The published URL is docsUrlFor (docs.ts).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The sections every rule page has, in this order. */
export const REQUIRED_DOC_SECTIONS = ['What it means', 'Evidence', 'How to fix it', 'False positives', 'References'] as const;

/** src/core and dist/core are both two levels below the package root. */
const DOCS_DIR = fileURLToPath(new URL('../../docs/rules/', import.meta.url));

export function docsFileFor(ruleId: string): string {
  return `${DOCS_DIR}${ruleId}.md`;
}

/** The page's Markdown, or null when the rule has none. */
export function readRuleDocs(ruleId: string): string | null {
  try {
    return readFileSync(docsFileFor(ruleId), 'utf8');
  } catch {
    return null;
  }
}

/** `## Heading` sections of a page: heading → body. */
export function docSections(markdown: string): Map<string, string> {
  const sections = new Map<string, string>();
  let current: string | null = null;
  let body: string[] = [];
  for (const line of markdown.split('\n')) {
    const heading = /^## +(\S.*)$/.exec(line);
    if (heading) {
      if (current !== null) sections.set(current, body.join('\n').trim());
      current = heading[1]!.trimEnd();
      body = [];
    } else if (current !== null) body.push(line);
  }
  if (current !== null) sections.set(current, body.join('\n').trim());
  return sections;
}

/** The section whose heading starts with `name` ("How to fix it (by version)" counts as "How to fix it"). */
export function findSection(sections: Map<string, string>, name: string): string | undefined {
  for (const [heading, body] of sections) if (heading === name || heading.startsWith(`${name} `)) return body;
  return undefined;
}
