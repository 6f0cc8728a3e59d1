// Runs every test/**/*.test.ts with Node's test runner (Node 20's --test does not expand globs).
import { spawnSync } from 'node:child_process';
import fg from 'fast-glob';

const files = (await fg('test/**/*.test.ts', { ignore: ['**/node_modules/**'] })).sort();
if (files.length === 0) {
  console.error('no test files found under test/');
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...process.argv.slice(2), ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
