import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pkg = require('../../package.json') as { version: string; repository?: { url?: string } };

export const TOOL_NAME = 'linkerd-doctor';
export const TOOL_VERSION: string = pkg.version;

/**
 * Docs pages live in the repository under docs/rules/<id>.md, and ship in the package (`explain
 * <rule>` prints the installed copy). Links point at `main`, a ref that exists from any build: a
 * link to the version's tag would be dead for every build before its release is tagged.
 */
export const DOCS_BASE = 'https://github.com/linkerd-doctor/linkerd-doctor/blob/main/docs/rules';

export function docsUrlFor(ruleId: string): string {
  return `${DOCS_BASE}/${ruleId}.md`;
}
