// Writes derived files from scripts/generated-files.ts (deleting those whose content is null), so
// every generator command shares one way to write: `npm run generate` writes them all, the older
// `npm run schema` and scripts/signatures-doc.ts only their own.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type GeneratedFile, ROOT } from './generated-files.js';

export function writeGenerated(files: readonly GeneratedFile[]): void {
  for (const file of files) {
    const full = path.join(ROOT, file.path);
    if (file.content === null) {
      rmSync(full, { force: true });
      continue;
    }
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, file.content);
  }
}
