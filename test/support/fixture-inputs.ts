import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { TestInput } from './rule-tester.js';

/** Every file under a fixture directory whose name passes `keep`, in path order, as rule-test inputs. */
export function fixtureInputs(dir: string, keep: (name: string) => boolean = () => true): TestInput[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && keep(d.name) && d.name !== 'README.md')
    .map((d) => path.join(d.parentPath, d.name))
    .sort()
    .map((file) => ({ path: file, content: readFileSync(file) }));
}
