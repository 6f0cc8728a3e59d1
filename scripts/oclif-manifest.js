// Writes oclif.manifest.json after each build. Without it oclif imports every command module (and
// everything they import) on every run just to list the commands; with it, `analyze` loads only
// itself, ~0.1 s less start-up. Generated, never committed: a stale manifest would describe old flags.
// Written compact: only oclif reads it, and indentation was a quarter of its bytes in the package.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Plugin } from '@oclif/core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const plugin = new Plugin({ root, type: 'core', isRoot: true, ignoreManifest: true, errorOnManifestCreate: true });
await plugin.load();
writeFileSync(path.join(root, 'oclif.manifest.json'), JSON.stringify(plugin.manifest) + '\n');
