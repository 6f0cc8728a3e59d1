// Writes docs/signatures.md from the signature catalogue. Run after editing
// src/rules/known-signature/signatures/*.ts: node --import tsx scripts/signatures-doc.ts
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderSignatureCatalogue } from '../src/rules/known-signature/docs.js';

const target = fileURLToPath(new URL('../docs/signatures.md', import.meta.url));
writeFileSync(target, renderSignatureCatalogue());
process.stderr.write(`wrote ${target}\n`);
