import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pkg = require('../../package.json') as { version: string; repository?: { url?: string } };

export const TOOL_NAME = 'linkerd-doctor';
export const TOOL_VERSION: string = pkg.version;

/** Docs pages live in the repository under docs/rules/<id>.md, pinned to the release tag. */
export const DOCS_BASE = `https://github.com/linkerd-doctor/linkerd-doctor/blob/v${TOOL_VERSION}/docs/rules`;

export function docsUrlFor(ruleId: string): string {
  return `${DOCS_BASE}/${ruleId}.md`;
}
