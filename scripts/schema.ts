// `npm run schema`: writes docs/schema/report.schema.json (the `--format json` report) and
// docs/schema/config.schema.json (.linkerd-doctor.yaml/.json) from the code: severities, input
// kinds, statuses and the rule registry with each rule's option schema come from src/, the
// report's shape from the typed description below (kept next to src/report/report.ts's Report).
// test/meta/schema.test.ts fails when the committed files differ from what this writes, and
// validates every fixture's report and the example configs against them.
//
// After a change to the report model (a new field, a new status), edit the description below and
// rerun `npm run schema`. `--check` prints which file is stale and exits 1 instead of writing.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildConfigSchema, buildReportSchema } from './schema-model.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
let stale = 0;
for (const [name, schema] of [
  ['report.schema.json', buildReportSchema()],
  ['config.schema.json', buildConfigSchema()],
] as const) {
  const file = path.join(root, 'docs/schema', name);
  const text = JSON.stringify(schema, null, 2) + '\n';
  if (check) {
    let current = '';
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      // missing counts as stale
    }
    if (current !== text) {
      process.stderr.write(`docs/schema/${name} is stale; run npm run schema\n`);
      stale++;
    }
  } else {
    writeFileSync(file, text);
    process.stdout.write(`wrote docs/schema/${name}\n`);
  }
}
process.exit(stale > 0 ? 1 : 0);
