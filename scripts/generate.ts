// `npm run generate`: rewrites every file derived from the code (scripts/generated-files.ts says
// which: rule pages copied from the rule folders, the README's rules table, the JSON schemas,
// docs/signatures.md) and prints the ones that changed. `--check` writes nothing and exits 1 when
// one is stale, naming it.
import { GENERATE_COMMAND, generatedFiles, staleFiles } from './generated-files.js';
import { writeGenerated } from './generated-write.js';

const files = generatedFiles();
const stale = staleFiles(files);
if (process.argv.includes('--check')) {
  if (stale.length > 0)
    process.stderr.write(`${stale.length} generated file(s) out of date: ${stale.join(', ')}. Run \`${GENERATE_COMMAND}\` and commit the result.\n`);
  process.exit(stale.length > 0 ? 1 : 0);
}
writeGenerated(files);
process.stdout.write(stale.length > 0 ? `updated ${stale.join(', ')}\n` : 'every generated file was up to date\n');
