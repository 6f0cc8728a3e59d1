// The source tree's shape (issue 16): no import cycle, type-only ones included, and no source file
// over the line limit. `npm run lint` enforces both over the whole tree (npm test runs it), so these
// tests do not lint or cruise the tree again: they check that the guards themselves still bite and
// that no file is exempted from them.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import fg from 'fast-glob';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('source files stay within the line limit', () => {
  const eslint = new ESLint({ cwd: root });

  async function lineLimitFor(file: string): Promise<number | null> {
    const config = (await eslint.calculateConfigForFile(path.join(root, file))) as { rules?: Record<string, unknown> };
    const setting = config.rules?.['max-lines'];
    if (!Array.isArray(setting) || setting[0] === 0 || setting[0] === 'off') return null;
    return (setting[1] as { max: number }).max;
  }

  it('a new source file over the limit is a lint error', async () => {
    const limit = await lineLimitFor('src/core/types.ts');
    assert.ok(limit !== null, 'max-lines is not on for src/');
    const text = Array.from({ length: limit + 1 }, (_, i) => `export const line${i} = ${i};`).join('\n') + '\n';
    const [result] = await eslint.lintText(text, { filePath: path.join(root, 'src/engine/a-new-file.ts') });
    assert.ok(
      result!.messages.some((m) => m.ruleId === 'max-lines' && m.severity === 2),
      `expected a max-lines error, got ${JSON.stringify(result!.messages.map((m) => m.ruleId))}`,
    );
  });

  it('holds for every source file: none is exempted', async () => {
    const exempted: string[] = [];
    for (const file of (await fg('src/**/*.ts', { cwd: root })).sort()) if ((await lineLimitFor(file)) === null) exempted.push(file);
    assert.deepEqual(exempted, [], 'split these files along their seams instead of exempting them from max-lines');
  });
});

describe('import cycles', () => {
  const depcruise = path.join(root, 'node_modules/.bin/depcruise');
  const cruise = (...targets: string[]) => spawnSync(depcruise, [...targets, '--config', '.dependency-cruiser.json'], { cwd: root, encoding: 'utf8' });

  it('a cycle through type-only imports is reported', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ld-cycle-'));
    try {
      writeFileSync(path.join(dir, 'a.ts'), "import type { B } from './b.js';\nexport interface A { b?: B }\n");
      writeFileSync(path.join(dir, 'b.ts'), "import type { A } from './a.js';\nexport interface B { a?: A }\n");
      const result = cruise(dir);
      assert.equal(result.status, 1, result.stdout + result.stderr);
      assert.match(result.stdout, /no-circular/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
