// The test file that test/meta/test-watchdog.test.ts hands to scripts/run-tests.js: it launches a
// stand-in for the CLI that never exits (a `bin/run.js` on its command line), the first time only
// or every time. Outside that test it has nothing to do and is skipped.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';

const dir = process.env.WATCHDOG_SUBJECT_DIR;

it('waits for a CLI launch that may stall', { skip: !dir && 'only run by test/meta/test-watchdog.test.ts' }, async () => {
  const marker = path.join(dir!, 'stalled-once');
  const stall = process.env.WATCHDOG_SUBJECT_ALWAYS === '1' || !existsSync(marker);
  writeFileSync(marker, '');
  const fakeBin = path.join(dir!, 'bin');
  mkdirSync(fakeBin, { recursive: true });
  // The script's own argument names a bin/run.js, which is what the watchdog looks for.
  const script = stall ? 'setInterval(() => {}, 1000)' : 'process.exit(0)';
  const child = spawn(process.execPath, ['-e', script, path.join(fakeBin, 'run.js')], { stdio: 'ignore' });
  const code = await new Promise((resolve) => child.on('close', (c, signal) => resolve(c ?? signal)));
  assert.equal(code, 0);
});
