// Files derived from the code (scripts/generated-files.ts lists them: rule pages copied from the
// rule folders, the README's rules table, the JSON schemas, docs/signatures.md) must be what the
// code gives now. One test, whose failure message starts with the command that fixes it, instead
// of a 100 KB diff with the hint at its end.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GENERATE_COMMAND, generatedFiles, RULES_TABLE_END, RULES_TABLE_START, rulesTable, staleFiles } from '../../scripts/generated-files.js';
import { RULES } from '../../src/rules/index.js';

describe('generated files', () => {
  it(`are what \`${GENERATE_COMMAND}\` writes`, () => {
    const stale = staleFiles();
    assert.ok(stale.length === 0, `Run \`${GENERATE_COMMAND}\` and commit the result: ${stale.length} generated file(s) out of date: ${stale.join(', ')}`);
  });

  it('cover every rule: a page and a README row each', () => {
    const paths = generatedFiles()
      .filter((f) => f.content !== null)
      .map((f) => f.path);
    for (const { meta } of RULES) {
      assert.ok(paths.includes(`docs/rules/${meta.id}.md`), `${meta.id} has no page: add src/rules/${meta.id}/README.md`);
      assert.match(rulesTable(), new RegExp(`^\\| \\[\`${meta.id}\`\\]\\(docs/rules/${meta.id}\\.md\\) \\| ${meta.code} \\|`, 'm'));
    }
    const readme = generatedFiles().find((f) => f.path === 'README.md')!.content!;
    assert.ok(readme.indexOf(RULES_TABLE_START) < readme.indexOf(RULES_TABLE_END));
  });
});
