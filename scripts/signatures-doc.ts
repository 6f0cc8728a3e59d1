// Writes docs/signatures.md from the signature catalogue. Run after editing
// src/rules/known-signature/signatures/*.ts: node --import tsx scripts/signatures-doc.ts
// (`npm run generate` writes it too, with every other derived file).
import { generatedFiles } from './generated-files.js';
import { writeGenerated } from './generated-write.js';

writeGenerated(generatedFiles().filter((f) => f.path === 'docs/signatures.md'));
process.stderr.write('wrote docs/signatures.md\n');
