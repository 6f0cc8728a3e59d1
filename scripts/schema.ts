// `npm run schema`: writes docs/schema/report.schema.json and config.schema.json from the code
// (scripts/schema-model.ts builds them). Kept for the docs that name it; `npm run generate` writes
// these and every other derived file, and test/meta/generated.test.ts checks them all.
import { generatedFiles } from './generated-files.js';
import { writeGenerated } from './generated-write.js';

writeGenerated(generatedFiles().filter((f) => f.path.startsWith('docs/schema/')));
process.stdout.write('wrote docs/schema/report.schema.json and docs/schema/config.schema.json\n');
